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
import dev.insync.replication.broker.BrokerConfig;
import dev.insync.replication.broker.BrokerRequestHandlers;
import dev.insync.replication.broker.InsyncBroker;
import dev.insync.replication.core.broker.BrokerLifecycleManager;
import dev.insync.replication.core.metrics.InMemoryReplicationMetrics;
import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.server.ReplicaManager;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.FileSync;
import dev.insync.replication.log.Log;
import dev.insync.replication.log.LogDirectory;
import dev.insync.replication.log.StorageOperation;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.testkit.controller.ClusterController;
import dev.insync.replication.testkit.network.InMemoryNetwork;
import dev.insync.replication.testkit.sim.NodeId;
import dev.insync.replication.testkit.sim.NodeRuntime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/**
 * One broker of an {@link InMemoryCluster} across its incarnations: each start is a new process, a
 * new {@link InsyncBroker} (the assembly production uses) over the same log directories (Kafka's
 * {@code log.dirs}), on the broker's node of the cluster's runtime, with the in-memory network as its
 * binding: fetches to other brokers over {@code transportFor}, the controller over
 * {@code controllerEndpointFor}, and its fetch and produce handlers bound on the network once it
 * serves. Around it this class keeps what outlives a process (the incarnation count, the last broker
 * epoch, the disks and their faults) and the {@link MutationSeams}. Nothing in memory survives a stop.
 */
final class ClusterBroker {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterBroker.class);

    private final int id;
    private final NodeId node;
    /** Kafka's {@code log.dirs}; the first is {@link #dataDir()}. */
    private final List<Path> logDirs;
    /** The broker's Kafka properties ({@code node.id}, {@code log.dirs} and the cluster's settings). */
    private final Map<String, Object> properties;
    private final NodeRuntime runtime;
    private final InMemoryNetwork network;
    private final MutationSeams seams;
    /** This broker's log directories' durability (and fault hook); per broker, never JVM-wide. */
    private final FileSync fileSync;

    private volatile BrokerStatus status = BrokerStatus.DOWN;
    private int incarnation;
    /** The running incarnation, null while down. */
    private volatile InsyncBroker broker;
    private InMemoryReplicationMetrics metrics;
    /** The broker epoch of the last incarnation that registered, -1 before. */
    private long lastIncarnationEpoch = BrokerLifecycleManager.NO_EPOCH;
    /**
     * The disks under the log directories of the current (or, while down, the last) incarnation, by
     * index; a start brings new, healthy ones (a failed disk is replaced).
     */
    private volatile List<DiskFault> disks = List.of();
    /** The current incarnation's node scheduler, null while down. */
    private volatile Scheduler scheduler;
    /** The public face of this broker ({@link InMemoryCluster#broker(int)}). */
    private final BrokerHandle handle = new BrokerHandle(this);

    ClusterBroker(int id, List<Path> logDirs, Map<String, ?> clusterProperties, NodeRuntime runtime,
                  InMemoryNetwork network, Set<Mutation> mutations, FileSync fileSync, long retentionCheckIntervalMs) {
        this.fileSync = fileSync;
        this.seams = new MutationSeams(mutations.isEmpty() ? EnumSet.noneOf(Mutation.class) : EnumSet.copyOf(mutations));
        this.id = id;
        this.node = NodeId.broker(id);
        if (logDirs.isEmpty()) {
            throw new IllegalArgumentException("Broker " + id + " needs at least one log directory");
        }
        this.logDirs = List.copyOf(logDirs);
        Map<String, Object> props = new LinkedHashMap<>(clusterProperties);
        props.put(BrokerConfig.NODE_ID, id);
        props.put(BrokerConfig.LOG_DIRS, this.logDirs.stream().map(Path::toString).collect(Collectors.joining(",")));
        props.put(BrokerConfig.LOG_RETENTION_CHECK_INTERVAL_MS, retentionCheckIntervalMs);
        this.properties = Map.copyOf(props);
        this.runtime = runtime;
        this.network = network;
    }

    int id() {
        return id;
    }

    /** The first log directory. */
    Path dataDir() {
        return logDirs.get(0);
    }

    /** Every log directory, the first being {@link #dataDir()}. */
    List<Path> logDirs() {
        return logDirs;
    }

    BrokerHandle handle() {
        return handle;
    }

    Optional<Scheduler> scheduler() {
        return Optional.ofNullable(scheduler);
    }

    BrokerStatus status() {
        return status;
    }

    /** How many times this broker has started. */
    int incarnation() {
        return incarnation;
    }

    /** The running incarnation's assembly, empty while down. */
    Optional<InsyncBroker> insyncBroker() {
        return Optional.ofNullable(broker);
    }

    /** Starts a new process: an {@link InsyncBroker} opens (and recovers) the log directories, registers, serves. */
    void start() {
        if (status != BrokerStatus.DOWN) {
            throw new IllegalStateException("Broker " + id + " is " + status + ", not down");
        }
        if (runtime.state(node) == NodeRuntime.NodeState.DOWN) {
            runtime.start(node);
        }
        incarnation++;
        Scheduler nodeScheduler = runtime.forNode(node);
        List<DiskFault> newDisks = new ArrayList<>();
        InMemoryReplicationMetrics newMetrics = new InMemoryReplicationMetrics();
        long lastEpoch = lastIncarnationEpoch;
        InsyncBroker[] self = new InsyncBroker[1];
        InsyncBroker b = InsyncBroker.builder(properties)
                .scheduler(nodeScheduler)
                .transport(network.transportFor(id))
                .controllerEndpoints(Map.of(ClusterController.NODE_ID,
                        seams.controllerApi(network.controllerEndpointFor(id), lastEpoch, () -> Optional.ofNullable(self[0]))))
                .requestServer(this::serve)
                // Every directory on a new, healthy disk: its FileSync's fault hook.
                .fileSync(dir -> {
                    DiskFault disk = new DiskFault(dir);
                    newDisks.add(disk);
                    return fileSync.withFaults(disk);
                })
                .metrics(newMetrics)
                .build();
        self[0] = b;
        b.start();
        disks = List.copyOf(newDisks);
        scheduler = nodeScheduler;
        metrics = newMetrics;
        broker = b;
        status = BrokerStatus.RUNNING;
        LOG.debug("Broker {} started (incarnation {}, previous clean epoch {})", id, incarnation,
                b.previousCleanShutdownEpoch());
    }

    /** The broker's network binding, server half: its handlers on this incarnation of its node. */
    private AutoCloseable serve(BrokerRequestHandlers handlers) {
        ReplicaManager rm = handlers.replicaManager();
        network.bindFetchHandler(id, seams.fetchHandler(handlers::fetch, rm,
                tp -> rm.logDirectoryOf(tp).flatMap(dir -> dir.log(tp))));
        network.bind(node, ClientRpc.PRODUCE, request -> produce(handlers, seams.produceRequest(request)));
        // Handlers are bound per incarnation: a stopped process's are never reached again.
        return () -> { };
    }

    /**
     * The disk under log directory {@code index} fails: its next operation of {@code kind} (a write,
     * a flush or a directory fsync) and every operation after it end in an I/O error, so the
     * directory goes offline (contract §9) and the broker keeps its other directories. Healed by the
     * broker's next start. The broker must be running or paused.
     */
    void failDisk(int index, StorageOperation.Kind kind) {
        requireAlive();
        disk(index).failAt(kind);
    }

    /** The first operation the disk under log directory {@code index} failed in the current (or last) incarnation. */
    Optional<StorageOperation> diskFailure(int index) {
        return disk(index).firstFailure();
    }

    /** The operation the disk under log directory {@code index} ran last before its first failure. */
    Optional<StorageOperation> diskOperationBeforeFailure(int index) {
        return disk(index).lastSuccessBeforeFailure();
    }

    /**
     * A new, empty disk under log directory {@code index} of a down broker: its files are gone, as
     * after a failed disk was swapped. The next start recovers the other directories and replicates
     * the lost partitions again from their leaders.
     */
    void replaceDisk(int index) {
        requireStatus(BrokerStatus.DOWN);
        disk(index);
        Path dir = logDirs.get(index);
        Directories.empty(dir);
    }

    private DiskFault disk(int index) {
        List<DiskFault> current = disks;
        if (index < 0 || index >= logDirs.size()) {
            throw new IllegalArgumentException("Broker " + id + " has log directories 0.." + (logDirs.size() - 1)
                    + ", not " + index);
        }
        if (current.isEmpty()) {
            throw new IllegalStateException("Broker " + id + " has not started yet");
        }
        return current.get(index);
    }

    /** The broker's produce handler, as a client's request reaches it (acks parsed by the broker, PRO-1). */
    private static CompletableFuture<ClientRpc.ProduceResponse> produce(BrokerRequestHandlers handlers,
                                                                        ClientRpc.ProduceRequest request) {
        TopicPartition tp = request.topicPartition();
        return handlers.produce(Map.of(tp, request.records()), request.acks(), request.timeoutMs()).toCompletableFuture()
                .thenApply(results -> {
                    ProduceResult r = results.get(tp);
                    // LOG-4: the epoch the records were stamped with, read by the append itself.
                    return r == null
                            ? new ClientRpc.ProduceResponse(Errors.UNKNOWN_SERVER_ERROR, -1, -1)
                            : new ClientRpc.ProduceResponse(r.error(), r.baseOffset(), r.leaderEpoch());
                });
    }

    /** SIGSTOP. */
    void pause() {
        requireStatus(BrokerStatus.RUNNING);
        runtime.pause(node);
        status = BrokerStatus.PAUSED;
    }

    /** SIGCONT. */
    void resume() {
        requireStatus(BrokerStatus.PAUSED);
        runtime.resume(node);
        status = BrokerStatus.RUNNING;
    }

    /** kill -9: the process and its memory are gone; files stay as written (the OS has them). */
    void kill() {
        requireAlive();
        rememberEpoch();
        runtime.kill(node);
        closeFilesAfterDeath();
    }

    /**
     * The machine loses power: like {@link #kill()}, and every byte not flushed is lost, the last
     * write possibly torn (LOG-11).
     */
    void powerLoss() {
        requireAlive();
        Map<Path, Long> recoveryPoints = new LinkedHashMap<>();
        for (LogDirectory dir : broker.logDirectories()) {
            for (Log log : dir.logs().values()) {
                recoveryPoints.put(log.dir(), log.recoveryPoint());
            }
        }
        rememberEpoch();
        runtime.kill(node);
        closeFilesAfterDeath();
        recoveryPoints.forEach((partitionDir, recoveryPoint) ->
                PowerLoss.discardUnflushed(partitionDir, recoveryPoint, runtime.random()));
    }

    private void rememberEpoch() {
        long epoch = broker.lifecycle().brokerEpoch();
        if (epoch >= 0) {
            lastIncarnationEpoch = epoch;
        }
    }

    private void closeFilesAfterDeath() {
        // Nothing of the dead process runs any more (its node is killed); the files are closed as the OS would.
        broker.halt();
        clearProcessState();
    }

    /**
     * Controlled shutdown (LDR-4): the broker asks the controller to move leadership and ISR away,
     * then closes cleanly, leaving the clean-shutdown marker. The future completes when it is down.
     */
    CompletableFuture<Void> controlledShutdown() {
        requireStatus(BrokerStatus.RUNNING);
        InsyncBroker b = broker;
        CompletableFuture<Void> down = new CompletableFuture<>();
        b.controlledShutdown().whenComplete((ignored, error) -> {
            if (error != null) {
                down.completeExceptionally(error);
                return;
            }
            lastIncarnationEpoch = b.lifecycle().brokerEpoch();
            runtime.kill(node);
            clearProcessState();
            down.complete(null);
        });
        return down;
    }

    private void clearProcessState() {
        status = BrokerStatus.DOWN;
        scheduler = null;
        broker = null;
        metrics = null;
    }

    Optional<ReplicaManager> replicaManager() {
        return insyncBroker().map(InsyncBroker::replicaManager);
    }

    Optional<Partition> partition(TopicPartition tp) {
        return replicaManager().flatMap(rm -> rm.partition(tp));
    }

    Optional<Log> log(TopicPartition tp) {
        return insyncBroker().flatMap(b -> b.log(tp));
    }

    Optional<BrokerLifecycleManager> lifecycle() {
        return insyncBroker().map(InsyncBroker::lifecycle);
    }

    Optional<InMemoryReplicationMetrics> metrics() {
        return Optional.ofNullable(metrics);
    }

    /**
     * Closes a running (or paused) broker without the clean-shutdown marker (cluster teardown). Its
     * threads stop first, none interrupted (the runtime lets a running task finish and waits for it),
     * and only then does its ReplicaManager stop and close the log directories, with a last HW
     * checkpoint: a close never lands in the middle of an append or a fetcher's write, so no
     * partition goes offline and every log reopens without recovery truncation.
     */
    void closeQuietly() {
        if (status == BrokerStatus.DOWN) {
            return;
        }
        runtime.kill(node);
        broker.close();
        clearProcessState();
    }

    private void requireStatus(BrokerStatus expected) {
        if (status != expected) {
            throw new IllegalStateException("Broker " + id + " is " + status + ", expected " + expected);
        }
    }

    private void requireAlive() {
        if (status == BrokerStatus.DOWN) {
            throw new IllegalStateException("Broker " + id + " is already down");
        }
    }
}
