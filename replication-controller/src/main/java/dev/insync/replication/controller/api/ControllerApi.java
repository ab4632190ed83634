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

package dev.insync.replication.controller.api;

import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.ControllerChannel.HeartbeatResponse;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.metadata.follower.MetadataFetchRequest;
import dev.insync.replication.core.metadata.follower.MetadataFetchResponse;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Everything brokers and administrators ask a controller node, as plain request and response
 * records: an in-JVM call, the simulator's network and a network RPC can all carry them. Writes
 * are answered once their records are committed and replayed. A write sent to a node that is not
 * the active controller fails with {@link NotControllerException} (retriable, with a hint); invalid
 * input fails with an {@link dev.insync.replication.log.ApiException} naming the problem. Reads
 * ({@link #fetchMetadata}, {@link #describeTopic}) are served by any node from its committed state.
 */
public interface ControllerApi {

    /** LDR-4 / LDR-5: registers a new broker incarnation; answered with its broker epoch. */
    CompletionStage<RegisterBrokerResponse> registerBroker(RegisterBrokerRequest request);

    /** LDR-4: a heartbeat (renews the session; may unfence, start a controlled shutdown, take replicas offline). */
    CompletionStage<HeartbeatResponse> brokerHeartbeat(HeartbeatRequest request);

    /** ISR-6: a leader's batch of ISR proposals. */
    CompletionStage<AlterPartitionResponse> alterPartition(AlterPartitionRequest request);

    /** CTL-5: long poll for committed metadata (any node). */
    CompletionStage<MetadataFetchResponse> fetchMetadata(MetadataFetchRequest request);

    /** Admin: creates a topic; answered with its partitions. */
    CompletionStage<List<PartitionRegistration>> createTopic(CreateTopicRequest request);

    /**
     * Admin: deletes a topic, its configs and its partitions; brokers then delete their replicas.
     * Fails with {@code UNKNOWN_TOPIC_OR_PARTITION} for an unknown topic.
     */
    CompletionStage<Void> deleteTopic(String topic);

    /** Admin: changes a topic config at run time. */
    CompletionStage<Void> alterTopicConfig(AlterTopicConfigRequest request);

    /** Admin: fences a broker now, as a session timeout would (ISR-7); false if it was fenced or unknown. */
    CompletionStage<Boolean> fenceBroker(int brokerId);

    /** Admin: a topic's partitions and configs (any node). */
    CompletionStage<TopicDescription> describeTopic(String topic);
}
