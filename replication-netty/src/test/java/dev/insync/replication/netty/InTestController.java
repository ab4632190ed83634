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

import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.BrokerRegistration;
import dev.insync.replication.core.metadata.ControllerChannel;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.server.ReplicaManager;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * A hand-wired controller for tests (the real one is another module's): commits every
 * AlterPartition whose epochs match (bumping the partition epoch) and publishes each change to
 * every registered broker, in order, on its own serial executor. Thread-safe.
 */
public final class InTestController implements ControllerChannel {

    private final Executor executor;
    private final Map<Integer, ReplicaManager> brokers = new TreeMap<>();
    private final Map<Integer, Long> brokerEpochs = new TreeMap<>();
    private final Map<TopicPartition, PartitionRegistration> partitions = new LinkedHashMap<>();
    private long offset;

    /** @param executor where commits and publications run, one at a time */
    public InTestController(Executor executor) {
        this.executor = executor;
    }

    /** Registers a started broker and gives it everything so far. */
    /** Registers broker {@code id} and publishes it; {@code rm} may be null for a broker only in metadata. */
    public synchronized void addBroker(int id, long brokerEpoch, ReplicaManager rm) {
        brokers.put(id, rm);
        brokerEpochs.put(id, brokerEpoch);
        List<BrokerRegistration> regs = new ArrayList<>();
        brokerEpochs.forEach((b, e) -> regs.add(new BrokerRegistration(b, e, false, false)));
        publish(new MetadataDelta(++offset, regs, List.copyOf(partitions.values()), List.of(), Map.of()));
    }

    /** Creates or changes a partition and publishes it. */
    public synchronized void setPartition(PartitionRegistration p) {
        partitions.put(p.topicPartition(), p);
        publish(new MetadataDelta(++offset, List.of(), List.of(p), List.of(), Map.of()));
    }

    public synchronized PartitionRegistration partition(TopicPartition tp) {
        return partitions.get(tp);
    }

    private void publish(MetadataDelta delta) {
        // A broker added without a ReplicaManager exists only in metadata (a replica that never runs).
        new ArrayList<>(brokers.values()).stream().filter(java.util.Objects::nonNull)
                .forEach(rm -> rm.applyMetadataDelta(delta));
    }

    @Override
    public CompletionStage<AlterPartitionResponse> alterPartition(AlterPartitionRequest request) {
        CompletableFuture<AlterPartitionResponse> f = new CompletableFuture<>();
        executor.execute(() -> {
            List<PartitionRegistration> changed = new ArrayList<>();
            AlterPartitionResponse response;
            synchronized (this) {
                Map<TopicPartition, AlterPartitionResponse.PartitionResult> results = new LinkedHashMap<>();
                for (AlterPartitionRequest.Item item : request.items()) {
                    PartitionRegistration cur = partitions.get(item.topicPartition());
                    if (cur == null || cur.leaderEpoch() != item.leaderEpoch()
                            || cur.partitionEpoch() != item.partitionEpoch()) {
                        results.put(item.topicPartition(),
                                AlterPartitionResponse.PartitionResult.failed(Errors.INVALID_UPDATE_VERSION));
                        continue;
                    }
                    PartitionRegistration next = new PartitionRegistration(cur.topicPartition(), cur.replicas(),
                            item.newIsrIds(), List.of(), List.of(), cur.leader(), cur.leaderEpoch(),
                            cur.partitionEpoch() + 1, false);
                    partitions.put(next.topicPartition(), next);
                    changed.add(next);
                    results.put(item.topicPartition(), new AlterPartitionResponse.PartitionResult(Errors.NONE,
                            next.leader(), next.leaderEpoch(), next.isr(), next.partitionEpoch()));
                }
                response = new AlterPartitionResponse(Errors.NONE, results);
            }
            f.complete(response);
            if (!changed.isEmpty()) {
                executor.execute(() -> {
                    synchronized (this) {
                        publish(new MetadataDelta(++offset, List.of(), changed, List.of(), Map.of()));
                    }
                });
            }
        });
        return f;
    }

    @Override
    public CompletionStage<Long> registerBroker(int brokerId, long previousBrokerEpoch,
                                                  java.util.List<dev.insync.replication.core.metadata.Endpoint> endpoints) {
        return CompletableFuture.completedFuture(1L);
    }

    @Override
    public CompletionStage<HeartbeatResponse> heartbeat(HeartbeatRequest request) {
        return CompletableFuture.completedFuture(new HeartbeatResponse(Errors.NONE, false, request.wantShutDown()));
    }
}
