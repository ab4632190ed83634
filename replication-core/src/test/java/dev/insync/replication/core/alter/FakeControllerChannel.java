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

package dev.insync.replication.core.alter;

import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.ControllerChannel;
import dev.insync.replication.core.metadata.Endpoint;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.log.TopicPartition;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Test double: records every call and hands back futures the test completes on command.
 */
public final class FakeControllerChannel implements ControllerChannel {

    /** One recorded AlterPartition call. */
    public record AlterCall(AlterPartitionRequest request, CompletableFuture<AlterPartitionResponse> response) {
    }

    /** One recorded registration. */
    public record RegisterCall(int brokerId, long previousBrokerEpoch, List<Endpoint> endpoints,
                               CompletableFuture<Long> response) {
    }

    /** One recorded heartbeat. */
    public record HeartbeatCall(int brokerId, long brokerEpoch, long metadataOffset, boolean wantShutDown,
                                List<TopicPartition> offlineReplicas, CompletableFuture<HeartbeatResponse> response) {
    }

    public final List<AlterCall> alterCalls = new ArrayList<>();
    public final List<RegisterCall> registerCalls = new ArrayList<>();
    public final List<HeartbeatCall> heartbeatCalls = new ArrayList<>();

    @Override
    public CompletionStage<AlterPartitionResponse> alterPartition(AlterPartitionRequest request) {
        AlterCall call = new AlterCall(request, new CompletableFuture<>());
        alterCalls.add(call);
        return call.response();
    }

    @Override
    public CompletionStage<Long> registerBroker(int brokerId, long previousBrokerEpoch, List<Endpoint> endpoints) {
        RegisterCall call = new RegisterCall(brokerId, previousBrokerEpoch, endpoints, new CompletableFuture<>());
        registerCalls.add(call);
        return call.response();
    }

    @Override
    public CompletionStage<HeartbeatResponse> heartbeat(HeartbeatRequest request) {
        HeartbeatCall call = new HeartbeatCall(request.brokerId(), request.brokerEpoch(), request.metadataOffset(),
                request.wantShutDown(), request.offlineReplicas(), new CompletableFuture<>());
        heartbeatCalls.add(call);
        return call.response();
    }

    public AlterCall lastAlter() {
        return alterCalls.get(alterCalls.size() - 1);
    }

    public HeartbeatCall lastHeartbeat() {
        return heartbeatCalls.get(heartbeatCalls.size() - 1);
    }

    public RegisterCall lastRegister() {
        return registerCalls.get(registerCalls.size() - 1);
    }
}
