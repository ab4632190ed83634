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

package dev.insync.replication.testkit.cluster;

import dev.insync.replication.testkit.internal.Directories;
import dev.insync.replication.controller.ControllerConfig;
import dev.insync.replication.core.config.ReplicationConfig;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.FileSync;
import dev.insync.replication.log.StorageOperation;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.testkit.controller.ClusterController;
import dev.insync.replication.testkit.network.InMemoryNetwork;
import dev.insync.replication.testkit.network.LinkConfig;
import dev.insync.replication.testkit.sim.EventLoop;
import dev.insync.replication.testkit.sim.NodeId;
import dev.insync.replication.testkit.sim.NodeRuntime;
import dev.insync.replication.testkit.sim.RealTimeNodeRuntime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.random.RandomGenerator;

/**
 * An in-process cluster for tests: a controller ({@link ClusterController}: the controller module's
 * {@code QuorumController} on an in-memory metadata log, as node {@link NodeId#CONTROLLER}) and N
 * brokers, each an {@code InsyncBroker} (the assembly production uses: a real {@code ReplicaManager}
 * over its own real {@code LogDirectory}s under {@code <dataDir>/broker-<id>}, its lifecycle and
 * metadata follower), wired over an {@link InMemoryNetwork}. Simulated (the default), everything runs on one seeded
 * {@link EventLoop} in virtual time and nothing runs unless the test drives time: {@link #runFor},
 * {@link #runUntil} or {@link #await}. Real-time ({@link Builder#realTime()}), every component runs
 * on its own named thread.
 *
 * <pre>{@code
 * try (InMemoryCluster cluster = InMemoryCluster.builder().brokers(3).seed(42)
 *         .config("replica.lag.time.max.ms", 5000).build()) {
 *     cluster.createTopic("rep", List.of(1, 2, 3));
 *     ProduceOutcome ok = cluster.await(cluster.producer("p").send("rep", 0, null, "v", -1, 30_000));
 * }
 * }</pre>
 */
public final class InMemoryCluster implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(InMemoryCluster.class);
    /** Longest a single {@link #await} may advance virtual time by default. */
    public static final long DEFAULT_AWAIT_MS = 120_000;
    /** Kafka's {@code log.retention.check.interval.ms} default. */
    public static final long DEFAULT_RETENTION_CHECK_INTERVAL_MS = 300_000;

    private final NodeRuntime runtime;
    /** The simulator, or null in real-time mode. */
    private final EventLoop loop;
    private final InMemoryNetwork network;
    private final ClusterController controller;
    private final ReplicationConfig config;
    private final Map<Integer, ClusterBroker> brokers = new LinkedHashMap<>();
    private final Path dataDir;
    private final boolean deleteDataDirOnClose;
    private final long startWallMs;
    private final Set<Mutation> mutations;
    private int nextClientId = 1;
    private boolean closed;

    private InMemoryCluster(Builder b) {
        this.config = ReplicationConfig.fromProperties(brokerProperties(b.properties));
        this.mutations = b.mutations.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(b.mutations));
        if (b.realTime) {
            this.loop = null;
            this.runtime = new RealTimeNodeRuntime(b.seed);
        } else {
            this.loop = EventLoop.builder().seed(b.seed).build();
            this.runtime = loop;
        }
        this.startWallMs = runtime.time().milliseconds();
        this.network = new InMemoryNetwork(runtime);
        if (b.linkConfig != null) {
            network.setDefaultLink(b.linkConfig);
        }
        this.controller = new ClusterController(runtime, network, ClusterController.configFor(config, b.properties));
        try {
            this.dataDir = b.dataDir != null ? Files.createDirectories(b.dataDir) : Files.createTempDirectory("insync-cluster-");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create the cluster's data directory", e);
        }
        this.deleteDataDirOnClose = b.dataDir == null;
        controller.start();
        for (int id = 1; id <= b.brokers; id++) {
            List<Path> logDirs = new ArrayList<>();
            logDirs.add(dataDir.resolve("broker-" + id));
            for (int k = 1; k < b.logDirsPerBroker; k++) {
                logDirs.add(dataDir.resolve("broker-" + id + "-logdir-" + k));
            }
            ClusterBroker broker = new ClusterBroker(id, logDirs, brokerProperties(b.properties), runtime, network,
                    b.mutations, FileSync.of(b.fsync), b.retentionCheckIntervalMs);
            brokers.put(id, broker);
            broker.start();
        }
        boolean up = runUntil(() -> brokers.values().stream().allMatch(this::isUnfenced), DEFAULT_AWAIT_MS);
        if (!up) {
            throw new IllegalStateException("Brokers did not register and unfence within " + DEFAULT_AWAIT_MS + " ms");
        }
    }

    /** A new builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** The controller's own properties are not the brokers' (they would be logged as unknown there). */
    private static final Set<String> CONTROLLER_ONLY = Set.of(ControllerConfig.DEFAULT_REPLICATION_FACTOR,
            ControllerConfig.SNAPSHOT_INTERVAL_RECORDS, ControllerConfig.METADATA_DELTA_CACHE_SIZE,
            ControllerConfig.MAX_PARKED_FETCHES, ControllerConfig.MAX_PENDING_WRITES);

    private static Map<String, Object> brokerProperties(Map<String, Object> all) {
        Map<String, Object> props = new LinkedHashMap<>(all);
        props.keySet().removeAll(CONTROLLER_ONLY);
        return props;
    }

    private boolean isUnfenced(ClusterBroker b) {
        return controller.broker(b.id()).map(r -> !r.fenced()).orElse(false);
    }

    // --------------------------------------------------------------------------------- topics

    /**
     * Creates a topic whose partition {@code i} has replicas {@code assignment.get(i)} (the first
     * is the preferred leader), and waits until every partition has a leader that knows it leads.
     */
    public List<PartitionRegistration> createTopic(String topic, List<List<Integer>> assignment) {
        List<PartitionRegistration> created = await(controller.createTopic(topic, assignment));
        for (PartitionRegistration p : created) {
            awaitCondition(() -> brokerLeads(p.topicPartition()), "a leader for " + p.topicPartition());
        }
        return created;
    }

    /**
     * Deletes a topic and waits until the controller committed it and no running broker hosts a
     * replica of it any more (each deletes its log; a broker that is down deletes its log when it
     * comes back and learns of the deletion, or of a later topic of the name with another id).
     */
    public void deleteTopic(String topic) {
        List<TopicPartition> partitions = new ArrayList<>();
        for (int p = 0; controller.partition(new TopicPartition(topic, p)).isPresent(); p++) {
            partitions.add(new TopicPartition(topic, p));
        }
        await(controller.deleteTopic(topic));
        awaitCondition(() -> brokers.values().stream().allMatch(b -> partitions.stream().allMatch(tp -> b.partition(tp).isEmpty())),
                "no broker hosting a replica of " + topic);
    }

    /** Creates a one-partition topic with these replicas. */
    public PartitionRegistration createTopic(String topic, Integer... replicas) {
        return createTopic(topic, List.of(List.of(replicas))).get(0);
    }

    /**
     * Runs until the broker the controller elected leader of {@code topic}-{@code partition} acts as
     * its leader (brokers learn of an election through their metadata fetch, a moment after the
     * controller committed it), at most {@link #DEFAULT_AWAIT_MS}.
     *
     * @return the leader's id
     * @throws IllegalStateException if no broker leads it within that time
     */
    public int awaitLeader(String topic, int partition) {
        TopicPartition tp = new TopicPartition(topic, partition);
        awaitCondition(() -> brokerLeads(tp), "broker leading " + tp);
        return controller.partition(tp).orElseThrow().leader();
    }

    private boolean brokerLeads(TopicPartition tp) {
        int leader = controller.partition(tp).map(PartitionRegistration::leader).orElse(PartitionRegistration.NO_LEADER);
        if (leader == PartitionRegistration.NO_LEADER) {
            return false;
        }
        ClusterBroker broker = brokers.get(leader);
        // Of this topic: a replica of a deleted topic of the name, not yet stopped, leads in the same epoch.
        Optional<UUID> topicId = controller.topicId(tp.topic());
        return broker != null && broker.partition(tp)
                .filter(p -> topicId.isEmpty() || p.topicId().isEmpty() || p.topicId().equals(topicId))
                .map(p -> p.isLeader()).orElse(false);
    }

    /**
     * Changes {@code min.insync.replicas} of a topic at run time and waits until the controller has
     * committed it; brokers learn it through metadata.
     */
    public void setMinInsyncReplicas(String topic, int minInsyncReplicas) {
        await(controller.setMinInsyncReplicas(topic, minInsyncReplicas));
    }

    /** Kafka's {@code kafka-topics.sh --describe} lines for a topic, one per partition. */
    public String describe(String topic) {
        return controller.describe(topic);
    }

    // -------------------------------------------------------------------------------- clients

    /** A new producer client. */
    public TestProducer producer(String name) {
        NodeId node = NodeId.client(nextClientId++);
        return new TestProducer(this, name, node, runtime.forNode(node));
    }

    /** A new consumer client. */
    public TestConsumer consumer(String name) {
        NodeId node = NodeId.client(nextClientId++);
        return new TestConsumer(this, name, node, runtime.forNode(node));
    }

    /** Read-only views of every broker's state and files. */
    public ClusterAdmin admin() {
        return new ClusterAdmin(this);
    }

    // ---------------------------------------------------------------------------- broker faults

    /** SIGSTOP: the broker handles nothing and its timers freeze; connections stay open, messages queue. */
    public void pause(int brokerId) {
        broker(brokerId).pause();
    }

    /** SIGCONT: the broker runs what queued up, late. */
    public void resume(int brokerId) {
        broker(brokerId).resume();
    }

    /** kill -9: in-memory state is gone, files stay. */
    public void kill(int brokerId) {
        broker(brokerId).kill();
    }

    /** Machine crash: like kill, and unflushed bytes are lost, the last write possibly torn. */
    public void powerLoss(int brokerId) {
        broker(brokerId).powerLoss();
    }

    /**
     * Flips one random bit in a batch of a down broker's segment files above its checkpointed
     * recovery point, in the bytes the batch's CRC covers, so that recovery finds it when the
     * broker restarts and cuts the log there (LOG-7). The broker must be down after a crash.
     *
     * @return where the bit was flipped, or empty if no batch lies above any recovery point
     */
    public Optional<BitFlip.Flipped> flipBitAboveRecoveryPoint(int brokerId, RandomGenerator random) {
        ClusterBroker b = clusterBroker(brokerId);
        if (b.status() != BrokerStatus.DOWN) {
            throw new IllegalStateException("Broker " + brokerId + " is " + b.status() + "; corrupt only a down broker's files");
        }
        return BitFlip.flipAboveRecoveryPoint(b.logDirs(), random);
    }

    /** {@link BrokerHandle#failDisk}: a disk of a running broker fails at its next {@code kind} operation. */
    public void failDisk(int brokerId, int logDir, StorageOperation.Kind kind) {
        broker(brokerId).failDisk(logDir, kind);
    }

    /** {@link BrokerHandle#replaceDisk}: a down broker's log directory comes back empty. */
    public void replaceDisk(int brokerId, int logDir) {
        broker(brokerId).replaceDisk(logDir);
    }

    /**
     * Jumps a broker's wall clock by {@code deltaMs} (forward or back), as an NTP step would; its
     * monotonic clock and timers are unaffected. Simulated clusters only.
     */
    public void jumpClock(int brokerId, long deltaMs) {
        broker(brokerId);
        loop().jumpClock(NodeId.broker(brokerId), deltaMs);
    }

    /** How far a broker's wall clock is from the cluster's (0 unless {@link #jumpClock} moved it). */
    public long clockOffsetMs(int brokerId) {
        broker(brokerId);
        return loop().clockOffsetMs(NodeId.broker(brokerId));
    }

    /** Starts a stopped broker again: a new broker epoch, recovery from its directory. */
    public void restart(int brokerId) {
        broker(brokerId).restart();
    }

    /**
     * Controlled shutdown (LDR-4). The returned future completes, as virtual time runs, once
     * leadership has moved away and the broker closed cleanly.
     */
    public CompletableFuture<Void> controlledShutdown(int brokerId) {
        return broker(brokerId).controlledShutdown();
    }

    // ------------------------------------------------------------------------- controller faults

    /**
     * The controller process dies (kill -9): its in-memory state and liveness tracking are gone; the
     * metadata log, the durable part, survives. Brokers keep serving what they have and retry the
     * controller until {@link #restartController()}.
     */
    public void killController() {
        controller.kill();
    }

    /**
     * A new controller incarnation: it rebuilds its state from the log (snapshot and tail), becomes
     * active, and gives every broker a full session timeout before fencing it (CTL-3).
     */
    public void restartController() {
        controller.restart();
    }

    /** SIGSTOP of the controller: it handles nothing, its timers freeze, requests to it queue. */
    public void pauseController() {
        controller.pause();
    }

    /** SIGCONT of the controller: it handles what queued, late. */
    public void resumeController() {
        controller.resume();
    }

    // --------------------------------------------------------------------------- network faults

    /** Cuts both directions between two brokers. */
    public void partition(int brokerA, int brokerB) {
        network.partition(NodeId.broker(brokerA), NodeId.broker(brokerB));
    }

    /** Cuts one direction only: messages from {@code from} to {@code to} are lost. */
    public void partitionOneWay(int from, int to) {
        network.partitionOneWay(NodeId.broker(from), NodeId.broker(to));
    }

    /** Cuts a broker off from everybody, the controller included. */
    public void isolate(int brokerId) {
        network.isolate(NodeId.broker(brokerId));
    }

    /** Cuts both directions between a broker and the controller (clients and other brokers still reach it). */
    public void partitionFromController(int brokerId) {
        network.partition(NodeId.broker(brokerId), NodeId.CONTROLLER);
    }

    /** Removes every network partition. */
    public void heal() {
        network.healAll();
    }

    /** Sets every link's delay (drawn uniformly from the seeded source) and drop probability. */
    public void setLinks(LinkConfig link) {
        network.setDefaultLink(link);
    }

    /**
     * Sets the delay and drop probability of every link to and from {@code brokerId} (brokers, the
     * controller and clients), overriding {@link #setLinks} there until {@link #resetLinks()}.
     */
    public void setLinksOf(int brokerId, LinkConfig link) {
        NodeId b = NodeId.broker(brokerId);
        for (NodeId other : nodes()) {
            if (!other.equals(b)) {
                network.setLinks(b, other, link);
            }
        }
    }

    /** Drops every per-broker link setting ({@link #setLinksOf}); the default link applies everywhere again. */
    public void resetLinks() {
        network.clearLinkConfigs();
    }

    private List<NodeId> nodes() {
        List<NodeId> nodes = new ArrayList<>();
        nodes.add(NodeId.CONTROLLER);
        brokers.keySet().forEach(id -> nodes.add(NodeId.broker(id)));
        for (int c = 1; c < nextClientId; c++) {
            nodes.add(NodeId.client(c));
        }
        return nodes;
    }

    // ------------------------------------------------------------------------------------- time

    /** Milliseconds since the cluster started (virtual time when simulated). */
    public long nowMs() {
        return loop != null ? loop.nowMs() : runtime.time().milliseconds() - startWallMs;
    }

    /** Lets {@code ms} of (virtual or real) time pass. */
    public void runFor(long ms) {
        if (loop != null) {
            loop.runFor(ms);
            return;
        }
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while letting time pass", e);
        }
    }

    /** Runs until {@code condition} holds or {@code timeoutMs} passed; returns whether it holds. */
    public boolean runUntil(BooleanSupplier condition, long timeoutMs) {
        if (loop != null) {
            return loop.runUntil(condition, timeoutMs);
        }
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() >= deadline) {
                return false;
            }
            // Real-time mode only: the brokers run on their own threads; re-check each millisecond.
            LockSupport.parkNanos(1_000_000L);
        }
        return true;
    }

    /**
     * Runs time until {@code future} completes (at most {@link #DEFAULT_AWAIT_MS}) and returns its value.
     *
     * @throws IllegalStateException if it did not complete in that time
     */
    public <T> T await(CompletableFuture<T> future) {
        return await(future, DEFAULT_AWAIT_MS);
    }

    /** As {@link #await(CompletableFuture)} with an explicit bound. */
    public <T> T await(CompletableFuture<T> future, long timeoutMs) {
        if (loop == null) {
            try {
                return future.get(timeoutMs, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting", e);
            } catch (ExecutionException e) {
                throw new CompletionException(e.getCause());
            } catch (TimeoutException e) {
                throw new IllegalStateException("Not completed within " + timeoutMs + " ms", e);
            }
        }
        if (!loop.runUntil(future::isDone, timeoutMs)) {
            throw new IllegalStateException("Not completed within " + timeoutMs + " ms of virtual time",
                    new TimeoutException());
        }
        return future.join();
    }

    private void awaitCondition(BooleanSupplier condition, String what) {
        if (!runUntil(condition, DEFAULT_AWAIT_MS)) {
            throw new IllegalStateException("No " + what + " within " + DEFAULT_AWAIT_MS + " ms");
        }
    }

    // ------------------------------------------------------------------------------- internals

    /**
     * The simulator everything runs on.
     *
     * @throws IllegalStateException for a real-time cluster
     */
    public EventLoop loop() {
        if (loop == null) {
            throw new IllegalStateException("A real-time cluster has no simulator");
        }
        return loop;
    }

    /** Whether this cluster runs on the deterministic simulator. */
    public boolean isSimulated() {
        return loop != null;
    }

    /** What runs the nodes: the simulator or real threads. */
    public NodeRuntime runtime() {
        return runtime;
    }

    /** The controller: its process faults, admin writes, and what it committed. */
    public ClusterController controller() {
        return controller;
    }

    /** The in-memory network. */
    public InMemoryNetwork network() {
        return network;
    }

    /** The configuration every broker runs with. */
    public ReplicationConfig config() {
        return config;
    }

    /** The directory holding {@code broker-<id>} log directories. */
    public Path dataDir() {
        return dataDir;
    }

    /** Broker ids in order. */
    public List<Integer> brokerIds() {
        return Collections.unmodifiableList(new ArrayList<>(brokers.keySet()));
    }

    /** TEST-ONLY deliberate bugs this cluster was built with. */
    Set<Mutation> mutations() {
        return mutations;
    }

    /**
     * Broker {@code brokerId}: its status ({@link BrokerHandle#status()}), files, the live objects of
     * its running incarnation, and the fault verbs. The fault methods of this class are shorthands
     * for the handle's.
     *
     * @throws IllegalArgumentException if the cluster has no such broker
     */
    public BrokerHandle broker(int brokerId) {
        return clusterBroker(brokerId).handle();
    }

    private ClusterBroker clusterBroker(int brokerId) {
        ClusterBroker b = brokers.get(brokerId);
        if (b == null) {
            throw new IllegalArgumentException("No broker " + brokerId + " in this cluster (brokers " + brokers.keySet() + ")");
        }
        return b;
    }

    /**
     * Stops every broker without a clean shutdown and deletes a temporary data directory (a
     * directory given to the builder is kept, and so is any directory if a task failed).
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        brokers.values().forEach(ClusterBroker::closeQuietly);
        controller.close();
        if (runtime instanceof RealTimeNodeRuntime realTime) {
            realTime.close();
        }
        if (loop != null && !loop.taskFailures().isEmpty()) {
            LOG.warn("Keeping {}: {} task(s) failed, first: {}", dataDir, loop.taskFailures().size(),
                    loop.taskFailures().get(0).toString());
        } else if (deleteDataDirOnClose) {
            try {
                Directories.deleteRecursively(dataDir);
            } catch (UncheckedIOException e) {
                LOG.warn("Could not delete {}: {}", dataDir, e.getCause().toString());
            }
        }
    }

    /** Settings of a new cluster. */
    public static final class Builder {
        private int brokers = 3;
        private long seed = 42;
        private final Map<String, Object> properties = new LinkedHashMap<>();
        private Path dataDir;
        private LinkConfig linkConfig;
        private final Set<Mutation> mutations = EnumSet.noneOf(Mutation.class);
        private boolean fsync;
        private boolean realTime;
        private int logDirsPerBroker = 1;
        private long retentionCheckIntervalMs = DEFAULT_RETENTION_CHECK_INTERVAL_MS;

        private Builder() {
        }

        /** Number of brokers, ids 1..n (default 3). */
        public Builder brokers(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("A cluster needs at least one broker, got " + n);
            }
            this.brokers = n;
            return this;
        }

        /** Seed of the simulation's single random source (default 42). */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** One Kafka property for every broker and the controller (e.g. {@code replica.lag.time.max.ms}). */
        public Builder config(String name, Object value) {
            properties.put(name, value);
            return this;
        }

        /** Kafka properties for every broker and the controller. */
        public Builder config(Map<String, ?> props) {
            properties.putAll(props);
            return this;
        }

        /** Keep the log directories in {@code dir} (as {@code dir/broker-<id>}) instead of a temporary directory. */
        public Builder dataDir(Path dir) {
            this.dataDir = dir;
            return this;
        }

        /**
         * Log directories per broker (Kafka's {@code log.dirs}, default 1): {@code <dataDir>/broker-<id>},
         * then {@code broker-<id>-logdir-<k>} for k = 1..n-1. A new partition goes to the one holding
         * the fewest logs; an I/O failure takes only its own directory offline (§9).
         */
        public Builder logDirsPerBroker(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("A broker needs at least one log directory, got " + n);
            }
            this.logDirsPerBroker = n;
            return this;
        }

        /** Delay and loss of every link (default: 1 ms, no loss). */
        public Builder links(LinkConfig link) {
            this.linkConfig = link;
            return this;
        }

        /**
         * TEST-ONLY: injects a deliberate bug into every broker (see {@link Mutation}), so a test can
         * show that the simulation's invariant checker catches it.
         */
        public Builder mutation(Mutation mutation) {
            mutations.add(mutation);
            return this;
        }

        /**
         * Whether the logs really fsync (default false). The simulator models machine crashes itself
         * ({@link InMemoryCluster#powerLoss} cuts logs back to their recovery point), so waiting for
         * the disk only slows it down. It is a setting of each broker's log directory
         * ({@link FileSync}), so other logs in the same JVM are not affected.
         */
        public Builder fsync(boolean enabled) {
            this.fsync = enabled;
            return this;
        }

        /**
         * How often each broker applies {@code retention.ms} / {@code retention.bytes} to its logs
         * (Kafka's {@code log.retention.check.interval.ms}, default 5 minutes); 0 never.
         */
        public Builder retentionCheckIntervalMs(long ms) {
            if (ms < 0) {
                throw new IllegalArgumentException("Negative retention check interval " + ms + " ms");
            }
            this.retentionCheckIntervalMs = ms;
            return this;
        }

        /** Runs on the deterministic simulator in virtual time (the default). */
        public Builder simulated() {
            this.realTime = false;
            return this;
        }

        /**
         * Runs every broker component on real, named threads in real time (the production
         * concurrency), still over the in-memory network. Not deterministic.
         */
        public Builder realTime() {
            this.realTime = true;
            return this;
        }

        /** Starts the controller and the brokers and waits until every broker is registered and unfenced. */
        public InMemoryCluster build() {
            return new InMemoryCluster(this);
        }
    }
}
