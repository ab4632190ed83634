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

package dev.insync.replication.bench.harness;

import dev.insync.replication.controller.ControllerConfig;
import dev.insync.replication.controller.QuorumController;
import dev.insync.replication.controller.api.ControllerApi;
import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.controller.api.RegisterBrokerRequest;
import dev.insync.replication.controller.channel.QuorumControllerChannel;
import dev.insync.replication.controller.log.InMemoryMetadataLog;
import dev.insync.replication.controller.ratis.RatisControllerNode;
import dev.insync.replication.core.broker.BrokerLifecycleManager;
import dev.insync.replication.core.config.ReplicationConfig;
import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.AlterPartitionResponse.PartitionResult;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.metadata.follower.MetadataFollower;
import dev.insync.replication.core.metrics.InMemoryReplicationMetrics;
import dev.insync.replication.core.rpc.ReplicaTransport;
import dev.insync.replication.core.server.ReplicaManager;
import dev.insync.replication.core.time.ThreadScheduler;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.LogDirectory;
import dev.insync.replication.log.TopicPartition;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The controller section (issue 10): AlterPartition operations per second with batches of 1 and of
 * 100 partitions, on the in-memory metadata log and on a 3-node Apache Ratis quorum (fsynced log,
 * 127.0.0.1), and the metadata propagation latency from a commit (the active controller answering
 * an AlterPartition) to its application on a broker's {@link MetadataFollower}, p50/p99 in an
 * HdrHistogram.
 *
 * <p>The topic has {@value #PARTITIONS} partitions, all led by broker 1 with replicas 1, 2, 3. Each
 * operation shrinks or expands the ISR of its partitions (1,2,3 and 1,2 in turn), so every one writes
 * records. Batch 1: one closed loop per partition, {@value #PARTITIONS} requests in flight; batch
 * 100: one request at a time holding every partition. Metrics:
 * {@code controller.<log>.alter_partition_<batch>.ops_per_s} and {@code .partitions_per_s},
 * {@code controller.<log>.propagation.p50_us} etc., where {@code <log>} is {@code inmemory} or
 * {@code ratis3}.
 */
final class ControllerBench {

    static final int PARTITIONS = 100;
    private static final String TOPIC = "bench-controller";
    private static final long SESSION_TIMEOUT_MS = 600_000; // the bench's replicas do not heartbeat

    private final BenchOptions options;
    private final Measurements out;
    private final Consumer<String> progress;

    ControllerBench(BenchOptions options, Measurements out, Consumer<String> progress) {
        this.options = options;
        this.out = out;
        this.progress = progress;
    }

    void run(Path work) throws Exception {
        try (ThreadScheduler scheduler = new ThreadScheduler()) {
            InMemoryMetadataLog log = new InMemoryMetadataLog();
            QuorumController controller = new QuorumController(0, log.forNode(0), scheduler,
                    ControllerConfig.DEFAULT.withBrokerSessionTimeoutMs(SESSION_TIMEOUT_MS).withSnapshotIntervalRecords(0));
            controller.start();
            log.elect(0);
            try {
                measure("inmemory", Map.of(0, controller), controller, controller::committedOffset, scheduler,
                        work.resolve("broker-inmemory"));
            } finally {
                controller.close();
            }
        }
        List<RatisControllerNode> nodes = new ArrayList<>();
        try (ThreadScheduler scheduler = new ThreadScheduler()) {
            String voters = "1@127.0.0.1:" + freePort() + ",2@127.0.0.1:" + freePort() + ",3@127.0.0.1:" + freePort();
            for (int id = 1; id <= 3; id++) {
                Map<String, Object> p = new HashMap<>();
                p.put("node.id", id);
                p.put("process.roles", "controller");
                p.put("controller.quorum.voters", voters);
                p.put("metadata.log.dir", work.resolve("ratis-" + id).toString());
                p.put("broker.session.timeout.ms", SESSION_TIMEOUT_MS);
                nodes.add(RatisControllerNode.start(p));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (nodes.stream().noneMatch(RatisControllerNode::isActive)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("No active controller among 3 Ratis nodes after 30 s");
                }
                Thread.sleep(10);
            }
            RatisControllerNode active = nodes.stream().filter(RatisControllerNode::isActive).findFirst().orElseThrow();
            Map<Integer, ControllerApi> endpoints = new HashMap<>();
            nodes.forEach(n -> endpoints.put(n.nodeId(), n.controllerApi()));
            measure("ratis3", endpoints, active.controllerApi(), active.controller()::committedOffset, scheduler,
                    work.resolve("broker-ratis3"));
        } finally {
            nodes.forEach(RatisControllerNode::close);
        }
    }

    private void measure(String name, Map<Integer, ControllerApi> endpoints, ControllerApi active,
                         LongSupplier committedOffset, ThreadScheduler scheduler, Path brokerDir) throws Exception {
        progress.accept("controller " + name + ": setup");
        Map<Integer, Long> epochs = new HashMap<>();
        for (int id = 1; id <= 3; id++) {
            long epoch = get(active.registerBroker(new RegisterBrokerRequest(id, -1))).brokerEpoch();
            get(active.brokerHeartbeat(new HeartbeatRequest(id, epoch, epoch, false)));
            epochs.put(id, epoch);
        }
        List<List<Integer>> assignment = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            assignment.add(List.of(1, 2, 3));
        }
        Map<TopicPartition, PartitionRegistration> state = new ConcurrentHashMap<>();
        for (PartitionRegistration r : get(active.createTopic(CreateTopicRequest.withAssignment(TOPIC, assignment, Map.of())))) {
            state.put(r.topicPartition(), r);
        }
        long leaderEpoch = epochs.get(1);

        progress.accept("controller " + name + ": AlterPartition, batches of 1");
        opsPerSecond(name + ".alter_partition_1", active, leaderEpoch, state, 1);
        progress.accept("controller " + name + ": AlterPartition, batches of " + PARTITIONS);
        opsPerSecond(name + ".alter_partition_" + PARTITIONS, active, leaderEpoch, state, PARTITIONS);
        progress.accept("controller " + name + ": metadata propagation to a broker");
        propagation(name, endpoints, active, committedOffset, leaderEpoch, state, scheduler, brokerDir);
    }

    /** Closed loops for {@code measureMs}: each chain sends its next request when the previous is answered. */
    private void opsPerSecond(String prefix, ControllerApi active, long leaderEpoch,
                              Map<TopicPartition, PartitionRegistration> state, int batch) throws Exception {
        List<List<TopicPartition>> chains = new ArrayList<>();
        List<TopicPartition> all = state.keySet().stream().sorted((a, b) -> Integer.compare(a.partition(), b.partition())).toList();
        for (int i = 0; i < all.size(); i += batch) {
            chains.add(all.subList(i, Math.min(all.size(), i + batch)));
        }
        AtomicLong ops = new AtomicLong();
        AtomicLong failures = new AtomicLong();
        long warmupEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(options.warmupMs());
        long end = warmupEnd + TimeUnit.MILLISECONDS.toNanos(options.measureMs());
        AtomicLong counted = new AtomicLong();
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (List<TopicPartition> chain : chains) {
            CompletableFuture<Void> f = new CompletableFuture<>();
            done.add(f);
            loop(active, leaderEpoch, state, chain, end, warmupEnd, counted, ops, failures, f);
        }
        CompletableFuture.allOf(done.toArray(CompletableFuture[]::new))
                .get(options.warmupMs() + options.measureMs() + 60_000, TimeUnit.MILLISECONDS);
        double seconds = options.measureMs() / 1e3;
        out.add("controller." + prefix + ".ops_per_s", counted.get() / seconds);
        out.add("controller." + prefix + ".partitions_per_s", counted.get() * (double) batch / seconds);
        if (failures.get() > 0) {
            out.note("controller." + prefix, failures.get() + " AlterPartition requests failed");
        }
    }

    private void loop(ControllerApi active, long leaderEpoch, Map<TopicPartition, PartitionRegistration> state,
                      List<TopicPartition> chain, long end, long warmupEnd, AtomicLong counted, AtomicLong ops,
                      AtomicLong failures, CompletableFuture<Void> done) {
        long now = System.nanoTime();
        if (now >= end) {
            done.complete(null);
            return;
        }
        alter(active, leaderEpoch, state, chain).whenComplete((ok, error) -> {
            ops.incrementAndGet();
            if (error != null || !ok) {
                failures.incrementAndGet();
            } else if (System.nanoTime() > warmupEnd && System.nanoTime() < end) {
                counted.incrementAndGet();
            }
            loop(active, leaderEpoch, state, chain, end, warmupEnd, counted, ops, failures, done);
        });
    }

    /** One AlterPartition for {@code partitions}: 1,2,3 becomes 1,2 and back. Completes true if all committed. */
    private static CompletableFuture<Boolean> alter(ControllerApi active, long leaderEpoch,
                                                    Map<TopicPartition, PartitionRegistration> state,
                                                    List<TopicPartition> partitions) {
        List<AlterPartitionRequest.Item> items = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            PartitionRegistration r = state.get(tp);
            List<Integer> isr = r.isr().size() == 3 ? List.of(1, 2) : List.of(1, 2, 3);
            items.add(new AlterPartitionRequest.Item(tp, r.leaderEpoch(), r.partitionEpoch(), isr.stream()
                    .map(id -> new AlterPartitionRequest.BrokerState(id, id == 1 ? leaderEpoch : -1)).toList(), false));
        }
        return active.alterPartition(new AlterPartitionRequest(1, leaderEpoch, items)).toCompletableFuture()
                .thenApply((AlterPartitionResponse response) -> {
                    boolean ok = response.error() == Errors.NONE;
                    for (TopicPartition tp : partitions) {
                        PartitionResult result = response.partitions().get(tp);
                        if (result == null || result.error() != Errors.NONE) {
                            ok = false;
                            continue;
                        }
                        PartitionRegistration r = state.get(tp);
                        state.put(tp, new PartitionRegistration(tp, r.replicas(), result.isr(), r.elr(), r.lastKnownElr(),
                                result.leaderId(), result.leaderEpoch(), result.partitionEpoch(), r.recovering()));
                    }
                    return ok;
                });
    }

    /**
     * One AlterPartition at a time; from the moment the active controller answers it (committed) to
     * the moment broker 4's MetadataFollower has applied that offset ({@code propagation}, a lower
     * bound of commit to applied: the answer leaves after the commit), and from the moment it was
     * sent ({@code request_to_applied}, an upper bound: the request's trip and the commit are in it).
     */
    private void propagation(String name, Map<Integer, ControllerApi> endpoints, ControllerApi active,
                             LongSupplier committedOffset, long leaderEpoch,
                             Map<TopicPartition, PartitionRegistration> state, ThreadScheduler scheduler, Path brokerDir)
            throws Exception {
        Files.createDirectories(brokerDir);
        ReplicationConfig config = ReplicationConfig.defaults();
        LogDirectory logDirectory = LogDirectory.open(brokerDir, config.logConfig(), System::currentTimeMillis);
        QuorumControllerChannel channel = new QuorumControllerChannel(endpoints, scheduler, QuorumControllerChannel.Settings.DEFAULT);
        ReplicaTransport transport = (leaderId, request) -> CompletableFuture.failedFuture(
                new IOException("broker 4 hosts no replica in the controller bench"));
        BrokerLifecycleManager[] lifecycle = new BrokerLifecycleManager[1];
        ReplicaManager replicaManager = ReplicaManager.builder(4).config(config).logDirectory(logDirectory)
                .scheduler(scheduler).transport(transport).controller(channel)
                .brokerEpoch(() -> lifecycle[0].brokerEpoch()).metrics(new InMemoryReplicationMetrics()).build();
        replicaManager.startup();
        MetadataFollower follower = new MetadataFollower(replicaManager, channel, scheduler,
                new MetadataFollower.Settings(500, 20, 2_000, 1_000));
        lifecycle[0] = BrokerLifecycleManager.builder(4, channel, scheduler)
                .executor(scheduler.newSerialExecutor("bench-broker-4")).heartbeatIntervalMs(500)
                .registrationRetryBackoffMs(100).metadataOffset(follower::appliedOffset).build();
        try {
            follower.start(lifecycle[0].start());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!follower.isLoaded()) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Broker 4's metadata follower did not load within 30 s");
                }
                Thread.sleep(5);
            }
            Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
            Histogram fromRequest = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
            List<TopicPartition> one = List.of(new TopicPartition(TOPIC, 0));
            int sends = Math.max(100, options.latencySends() / 20);
            for (int i = 0; i < sends; i++) {
                long sentAt = System.nanoTime();
                if (!alter(active, leaderEpoch, state, one).get(30, TimeUnit.SECONDS)) {
                    continue;
                }
                long committedAt = System.nanoTime();
                long target = committedOffset.getAsLong(); // the answered batch's offset (nothing else writes now)
                long wait = committedAt + TimeUnit.SECONDS.toNanos(10);
                while (follower.appliedOffset() < target) {
                    if (System.nanoTime() > wait) {
                        throw new IllegalStateException("Broker 4 did not apply metadata offset " + target + " within 10 s");
                    }
                    LockSupport.parkNanos(10_000);
                }
                if (i >= sends / 10) { // the first tenth warms up
                    long appliedAt = System.nanoTime();
                    h.recordValue(Math.max(0, appliedAt - committedAt));
                    fromRequest.recordValue(appliedAt - sentAt);
                }
            }
            BenchSuite.recordLatency(out, "controller." + name + ".propagation", h);
            out.histogram("controller " + name + " answer (committed) to broker applied", h);
            BenchSuite.recordLatency(out, "controller." + name + ".request_to_applied", fromRequest);
            out.histogram("controller " + name + " request sent to broker applied", fromRequest);
        } finally {
            lifecycle[0].close();
            follower.close();
            channel.close();
            replicaManager.shutdown();
        }
    }

    private static <T> T get(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }
}
