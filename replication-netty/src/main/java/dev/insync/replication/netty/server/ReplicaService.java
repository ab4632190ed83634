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

package dev.insync.replication.netty.server;

import dev.insync.replication.core.partition.ReplicaDescription;
import dev.insync.replication.core.produce.Acks;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.core.rpc.RecordsForm;
import dev.insync.replication.core.server.ReplicaManager;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.MemoryRecords;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * What the Fetch, Produce and DescribeReplicas handlers call: {@link ReplicaManager}'s entry points, as an
 * interface so that tests can put a recording double behind a real server. The Produce handler
 * has parsed the wire's acks already ({@link Acks#forCode}, PRO-1).
 */
public interface ReplicaService {

    /** {@link ReplicaManager#fetch(FetchRequest, RecordsForm)}: records in the heap, or left in segment files (NET-3). */
    CompletionStage<FetchResponse> fetch(FetchRequest request, RecordsForm form);

    /** {@link ReplicaManager#produce}. */
    CompletionStage<Map<TopicPartition, ProduceResult>> produce(Map<TopicPartition, MemoryRecords> entries,
                                                                Acks acks, long timeoutMs);

    /** {@link ReplicaManager#describeReplicas}: the hosted replicas of {@code topics}, or of every topic when empty. */
    List<ReplicaDescription> describeReplicas(Optional<List<String>> topics);

    /** The service of a broker's replica manager. */
    static ReplicaService of(ReplicaManager replicaManager) {
        Objects.requireNonNull(replicaManager, "replicaManager");
        return new ReplicaService() {
            @Override
            public CompletionStage<FetchResponse> fetch(FetchRequest request, RecordsForm form) {
                return replicaManager.fetch(request, form);
            }

            @Override
            public CompletionStage<Map<TopicPartition, ProduceResult>> produce(Map<TopicPartition, MemoryRecords> entries,
                                                                               Acks acks, long timeoutMs) {
                return replicaManager.produce(entries, acks, timeoutMs);
            }

            @Override
            public List<ReplicaDescription> describeReplicas(Optional<List<String>> topics) {
                return replicaManager.describeReplicas(topics);
            }

            @Override
            public String toString() {
                return "ReplicaService(" + replicaManager + ")";
            }
        };
    }
}
