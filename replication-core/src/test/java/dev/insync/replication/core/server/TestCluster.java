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

package dev.insync.replication.core.server;

import dev.insync.replication.core.config.ReplicationConfig;
import dev.insync.replication.core.fetcher.ManualScheduler;
import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.BrokerRegistration;
import dev.insync.replication.core.metadata.ControllerChannel;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.metrics.InMemoryReplicationMetrics;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.core.rpc.ReplicaTransport;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.LogDirectory;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.SimpleRecord;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * Brokers wired in one process on a {@link ManualScheduler}: a transport that calls the leader's
 * {@link ReplicaManager#fetch} directly, and a minimal controller that commits AlterPartition
 * proposals (bumping the partition epoch) and publishes the result to every running broker.
 */
final class TestCluster {

    final ManualScheduler scheduler = new ManualScheduler();
    final Path root;
    final ReplicationConfig config;
    final Map<Integer, ReplicaManager> managers = new TreeMap<>();
    final Map<Integer, Long> brokerEpochs = new TreeMap<>();
    final Set<Integer> unreachable = new HashSet<>();
    final Map<TopicPartition, PartitionRegistration> registrations = new LinkedHashMap<>();
    final Map<Integer, InMemoryReplicationMetrics> metrics = new TreeMap<>();
    final List<AlterPartitionRequest> alterRequests = new ArrayList<>();
    /** Every fetch the transport delivered to a leader, in order. */
    final List<DeliveredFetch> deliveredFetches = java.util.Collections.synchronizedList(new ArrayList<>());
    /** Every {@link LogDirFailureListener} call of every broker: {@code "<id> offline <dir name> <partitions>"} or {@code "<id> none online"}. */
    final List<String> logDirEvents = java.util.Collections.synchronizedList(new ArrayList<>());
    private final Executor controllerExecutor = scheduler.newSerialExecutor("controller");
    private final int logDirsPerBroker;
    private long metadataOffset;

    TestCluster(Path root, ReplicationConfig config) {
        this(root, config, 1);
    }

    /** Brokers with {@code logDirsPerBroker} log directories each: {@code broker-<id>}, then {@code broker-<id>-dir-<k>}. */
    TestCluster(Path root, ReplicationConfig config, int logDirsPerBroker) {
        this.root = root;
        this.config = config;
        this.logDirsPerBroker = logDirsPerBroker;
    }

    /** A cluster under {@code root} with {@code brokers} started. */
    static TestCluster started(Path root, ReplicationConfig config, int... brokers) {
        TestCluster cluster = new TestCluster(root, config);
        for (int b : brokers) {
            cluster.start(b);
        }
        return cluster;
    }

    /** Stops every running broker, not cleanly (a test's end). */
    void stopAll() {
        List.copyOf(managers.keySet()).forEach(id -> stop(id, false));
    }

    /** The {@code k}-th log directory of broker {@code brokerId}. */
    Path logDir(int brokerId, int k) {
        return root.resolve(k == 0 ? "broker-" + brokerId : "broker-" + brokerId + "-dir-" + k);
    }

    final ReplicaTransport transport = new ReplicaTransport() {
        @Override
        public CompletionStage<FetchResponse> fetch(int leaderId, FetchRequest request) {
            ReplicaManager leader = managers.get(leaderId);
            if (leader == null || unreachable.contains(leaderId) || unreachable.contains(request.replicaId())) {
                return CompletableFuture.failedFuture(new IOException("broker " + leaderId + " unreachable"));
            }
            deliveredFetches.add(new DeliveredFetch(request.replicaId(), scheduler.time().milliseconds(),
                    request.isIncremental()));
            return leader.fetch(request);
        }
    };

    /** A fetch of {@code replicaId} the leader received at {@code atMs}; {@code incremental}: in a session (FET-7). */
    record DeliveredFetch(int replicaId, long atMs, boolean incremental) {
    }

    final ControllerChannel controller = new ControllerChannel() {
        @Override
        public CompletionStage<AlterPartitionResponse> alterPartition(AlterPartitionRequest request) {
            alterRequests.add(request);
            CompletableFuture<AlterPartitionResponse> f = new CompletableFuture<>();
            controllerExecutor.execute(() -> {
                List<PartitionRegistration> changed = new ArrayList<>();
                f.complete(commit(request, changed));
                // The answer usually reaches the leader before the metadata does; publish afterwards.
                if (!changed.isEmpty()) {
                    controllerExecutor.execute(() -> publish(List.of(), changed));
                }
            });
            return f;
        }

        @Override
        public CompletionStage<Long> registerBroker(int brokerId, long previousBrokerEpoch,
                                                  java.util.List<dev.insync.replication.core.metadata.Endpoint> endpoints) {
            return CompletableFuture.completedFuture(brokerEpochs.getOrDefault(brokerId, 1L));
        }

        @Override
        public CompletionStage<HeartbeatResponse> heartbeat(dev.insync.replication.core.metadata.HeartbeatRequest request) {
            return CompletableFuture.completedFuture(new HeartbeatResponse(Errors.NONE, false, request.wantShutDown()));
        }
    };

    private AlterPartitionResponse commit(AlterPartitionRequest request, List<PartitionRegistration> changed) {
        Map<TopicPartition, AlterPartitionResponse.PartitionResult> results = new LinkedHashMap<>();
        for (AlterPartitionRequest.Item item : request.items()) {
            PartitionRegistration current = registrations.get(item.topicPartition());
            if (current == null || current.leaderEpoch() != item.leaderEpoch()
                    || current.partitionEpoch() != item.partitionEpoch()) {
                results.put(item.topicPartition(),
                        AlterPartitionResponse.PartitionResult.failed(Errors.INVALID_UPDATE_VERSION));
                continue;
            }
            PartitionRegistration next = new PartitionRegistration(current.topicPartition(), current.replicas(),
                    item.newIsrIds(), List.of(), List.of(), current.leader(), current.leaderEpoch(),
                    current.partitionEpoch() + 1, false);
            registrations.put(next.topicPartition(), next);
            changed.add(next);
            results.put(item.topicPartition(), new AlterPartitionResponse.PartitionResult(Errors.NONE, next.leader(),
                    next.leaderEpoch(), next.isr(), next.partitionEpoch()));
        }
        return new AlterPartitionResponse(Errors.NONE, results);
    }

    ReplicaManager start(int brokerId) {
        List<LogDirectory> dirs = new ArrayList<>();
        for (int k = 0; k < logDirsPerBroker; k++) {
            dirs.add(LogDirectory.open(logDir(brokerId, k), config.logConfig(), scheduler.time()::milliseconds));
        }
        brokerEpochs.merge(brokerId, 1L, Long::sum); // a new incarnation, a new broker epoch
        InMemoryReplicationMetrics m = new InMemoryReplicationMetrics();
        metrics.put(brokerId, m);
        LogDirFailureListener failures = new LogDirFailureListener() {
            @Override
            public void onLogDirOffline(Path dir, Set<TopicPartition> offlinePartitions) {
                logDirEvents.add(brokerId + " offline " + dir.getFileName() + " " + offlinePartitions);
            }

            @Override
            public void onNoOnlineLogDir() {
                logDirEvents.add(brokerId + " none online");
            }
        };
        ReplicaManager rm = ReplicaManager.builder(brokerId).config(config).logDirectories(dirs).scheduler(scheduler)
                .transport(transport).controller(controller).brokerEpoch(() -> brokerEpochs.get(brokerId)).metrics(m)
                .logDirFailureListener(failures).build();
        managers.put(brokerId, rm);
        rm.startup();
        // Catch up with the metadata so far.
        List<BrokerRegistration> brokers = new ArrayList<>();
        brokerEpochs.forEach((id, e) -> brokers.add(new BrokerRegistration(id, e, false, false)));
        publish(brokers, List.of());
        rm.applyMetadataDelta(new MetadataDelta(++metadataOffset, brokers, List.copyOf(registrations.values()),
                List.of(), Map.of()));
        return rm;
    }

    void stop(int brokerId, boolean clean) {
        ReplicaManager rm = managers.remove(brokerId);
        if (clean) {
            rm.closeCleanly(brokerEpochs.get(brokerId));
        } else {
            rm.shutdown();
        }
    }

    /** Creates (or changes) a partition and publishes it. */
    PartitionRegistration setPartition(TopicPartition tp, List<Integer> replicas, List<Integer> isr, int leader,
                                       int leaderEpoch, int partitionEpoch) {
        PartitionRegistration reg = new PartitionRegistration(tp, replicas, isr, List.of(), List.of(), leader,
                leaderEpoch, partitionEpoch, false);
        registrations.put(tp, reg);
        publish(List.of(), List.of(reg));
        return reg;
    }

    void publish(List<BrokerRegistration> brokers, List<PartitionRegistration> partitions) {
        publish(new MetadataDelta(++metadataOffset, brokers, partitions, List.of(), Map.of()));
    }

    void publish(MetadataDelta delta) {
        metadataOffset = Math.max(metadataOffset, delta.offset());
        List.copyOf(managers.values()).forEach(rm -> rm.applyMetadataDelta(delta));
    }

    long nextMetadataOffset() {
        return ++metadataOffset;
    }

    static MemoryRecords records(String... values) {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(1000L + i, null, values[i].getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(records);
    }

    /** Runs everything due now, then lets {@code ms} pass. */
    void run(long ms) {
        scheduler.advance(ms);
    }
}
