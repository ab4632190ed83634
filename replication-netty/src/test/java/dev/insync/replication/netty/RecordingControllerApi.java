/*
 * Copyright 2026 The Insync developers
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package dev.insync.replication.netty;

import dev.insync.replication.controller.api.AlterTopicConfigRequest;
import dev.insync.replication.controller.api.ControllerApi;
import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.controller.api.RegisterBrokerRequest;
import dev.insync.replication.controller.api.RegisterBrokerResponse;
import dev.insync.replication.controller.api.TopicDescription;
import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.ControllerChannel.HeartbeatResponse;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.metadata.follower.MetadataFetchRequest;
import dev.insync.replication.core.metadata.follower.MetadataFetchResponse;
import dev.insync.replication.log.Errors;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A {@link ControllerApi} that records every call (its api key and request) and answers at once
 * with fixed values; it has no state to change, so the calls are everything a request did. Thread-safe.
 */
public final class RecordingControllerApi implements ControllerApi {

    /** One call: the api key it came by and the request. */
    public record Call(short apiKey, Object request) {
    }

    private final List<Call> calls = new ArrayList<>();

    private synchronized <T> CompletionStage<T> record(short key, Object request, T answer) {
        calls.add(new Call(key, request));
        return CompletableFuture.completedFuture(answer);
    }

    public synchronized List<Call> calls() {
        return List.copyOf(calls);
    }

    @Override
    public CompletionStage<RegisterBrokerResponse> registerBroker(RegisterBrokerRequest request) {
        return record((short) 62, request, new RegisterBrokerResponse(Errors.NONE, 1));
    }

    @Override
    public CompletionStage<HeartbeatResponse> brokerHeartbeat(HeartbeatRequest request) {
        return record((short) 63, request, new HeartbeatResponse(Errors.NONE, false, false));
    }

    @Override
    public CompletionStage<AlterPartitionResponse> alterPartition(AlterPartitionRequest request) {
        return record((short) 56, request, new AlterPartitionResponse(Errors.NONE, Map.of()));
    }

    @Override
    public CompletionStage<MetadataFetchResponse> fetchMetadata(MetadataFetchRequest request) {
        return record((short) 1000, request, new MetadataFetchResponse(request.afterOffset(), Optional.empty(), List.of()));
    }

    @Override
    public CompletionStage<List<PartitionRegistration>> createTopic(CreateTopicRequest request) {
        return record((short) 19, request, List.of());
    }

    @Override
    public CompletionStage<Void> deleteTopic(String topic) {
        return record((short) 20, topic, null);
    }

    @Override
    public CompletionStage<Void> alterTopicConfig(AlterTopicConfigRequest request) {
        return record((short) 44, request, null);
    }

    @Override
    public CompletionStage<Boolean> fenceBroker(int brokerId) {
        return record((short) 1001, brokerId, false);
    }

    @Override
    public CompletionStage<TopicDescription> describeTopic(String topic) {
        return record((short) 75, topic, new TopicDescription(topic, 1, false, List.of()));
    }
}
