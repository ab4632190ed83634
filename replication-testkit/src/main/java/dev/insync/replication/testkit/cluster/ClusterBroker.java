package dev.insync.replication.testkit.cluster;

import dev.insync.replication.core.broker.BrokerLifecycleManager;
import dev.insync.replication.core.config.ReplicationConfig;
import dev.insync.replication.core.metadata.ControllerChannel;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metrics.InMemoryReplicationMetrics;
import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.core.produce.Acks;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.server.LogDirFailureListener;
import dev.insync.replication.core.server.ReplicaManager;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.FileSync;
import dev.insync.replication.log.Log;
import dev.insync.replication.log.LogDirectory;
import dev.insync.replication.log.StorageOperation;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.testkit.controller.MetadataDeltaSequencer;
import dev.insync.replication.testkit.network.InMemoryNetwork;
import dev.insync.replication.testkit.sim.NodeId;
import dev.insync.replication.testkit.sim.NodeRuntime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * One broker of an {@link InMemoryCluster} across its incarnations: one or more real
 * {@link LogDirectory}s (Kafka's {@code log.dirs}), a {@link ReplicaManager} and a
 * {@link BrokerLifecycleManager} wired to the in-memory network, and the faults a real process
 * suffers. Each start is a new process: nothing in memory survives a stop. A failed log directory is
 * reported to the controller at once through a heartbeat (§9); with none online left the broker
 * stops heartbeating, as a Kafka broker halts.
 */
final class ClusterBroker {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterBroker.class);

    private final int id;
    private final NodeId node;
    /** Kafka's {@code log.dirs}; the first is {@link #dataDir()}. */
    private final List<Path> logDirs;
    private final ReplicationConfig config;
    private final NodeRuntime runtime;
    private final InMemoryNetwork network;
    private final MutationSeams seams;
    private final long retentionCheckIntervalMs;
    /** This broker's log directory's durability (and fault hook); per broker, never JVM-wide. */
    private final FileSync fileSync;

    private volatile BrokerStatus status = BrokerStatus.DOWN;
    private int incarnation;
    private List<LogDirectory> logDirectories;
    private ReplicaManager replicaManager;
    private BrokerLifecycleManager lifecycle;
    private MetadataDeltaSequencer sequencer;
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

    ClusterBroker(int id, List<Path> logDirs, ReplicationConfig config, NodeRuntime runtime, InMemoryNetwork network,
                  Set<Mutation> mutations, FileSync fileSync, long retentionCheckIntervalMs) {
        this.fileSync = fileSync;
        this.seams = new MutationSeams(mutations.isEmpty() ? EnumSet.noneOf(Mutation.class) : EnumSet.copyOf(mutations));
        this.retentionCheckIntervalMs = retentionCheckIntervalMs;
        this.id = id;
        this.node = NodeId.broker(id);
        if (logDirs.isEmpty()) {
            throw new IllegalArgumentException("Broker " + id + " needs at least one log directory");
        }
        this.logDirs = List.copyOf(logDirs);
        this.config = config;
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

    /** Starts a new process: opens (and recovers) the log directory, registers, serves. */
    void start() {
        if (status != BrokerStatus.DOWN) {
            throw new IllegalStateException("Broker " + id + " is " + status + ", not down");
        }
        if (runtime.state(node) == NodeRuntime.NodeState.DOWN) {
            runtime.start(node);
        }
        incarnation++;
        Scheduler scheduler = runtime.forNode(node);
        this.scheduler = scheduler;
        List<LogDirectory> dirs = openLogDirectories(scheduler);
        logDirectories = dirs;
        long previousEpoch = seams.previousBrokerEpoch(previousCleanShutdownEpoch(dirs), lastIncarnationEpoch);
        metrics = new InMemoryReplicationMetrics();
        MetadataDeltaSequencer[] sequencerRef = new MetadataDeltaSequencer[1];
        ReplicaManager[] replicaManagerRef = new ReplicaManager[1];
        ControllerChannel channel = seams.controllerChannel(network.controllerChannelFor(id),
                tp -> replicaManagerRef[0] == null ? Optional.empty() : replicaManagerRef[0].partition(tp));
        lifecycle = BrokerLifecycleManager.builder(id, channel, scheduler)
                .previousBrokerEpoch(previousEpoch)
                .heartbeatIntervalMs(config.brokerHeartbeatIntervalMs())
                .registrationRetryBackoffMs(config.brokerRegistrationRetryBackoffMs())
                .metadataOffset(() -> sequencerRef[0].appliedOffset())
                .offlineReplicas(() -> replicaManagerRef[0] == null ? List.of() : replicaManagerRef[0].offlineReplicas())
                .build();
        BrokerLifecycleManager lm = lifecycle;
        replicaManager = ReplicaManager.builder(id).config(config).logDirectories(dirs).scheduler(scheduler)
                .transport(network.transportFor(id)).controller(channel)
                .brokerEpoch(lifecycle::brokerEpoch).metrics(metrics).logDirFailureListener(logDirFailures(lm)).build();
        replicaManagerRef[0] = replicaManager;
        // LDR-4: act on metadata only once caught up with the controller's log (see InitialMetadataLoad).
        Consumer<MetadataDelta> applier = seams.metadataApplier(replicaManager::applyMetadataDelta);
        sequencer = new MetadataDeltaSequencer(seams.skipsInitialLoadMerge() ? applier : new InitialMetadataLoad(applier,
                lm::brokerEpoch, scheduler, scheduler.newSerialExecutor("InitialMetadataLoad-" + id)));
        sequencerRef[0] = sequencer;
        ReplicaManager rm = replicaManager;
        network.bindFetchHandler(id, seams.fetchHandler(rm, this::log));
        network.bindMetadataListener(id, sequencer::accept);
        network.bind(node, ClientRpc.PRODUCE, request -> produce(rm, seams.produceRequest(request)));
        rm.startup();
        lifecycle.start();
        scheduleRetention(scheduler, dirs);
        status = BrokerStatus.RUNNING;
        LOG.debug("Broker {} started (incarnation {}, previous clean epoch {})", id, incarnation, previousEpoch);
    }

    /** Opens every log directory, each on a new, healthy {@link DiskFault} (its FileSync's fault hook). */
    private List<LogDirectory> openLogDirectories(Scheduler scheduler) {
        List<LogDirectory> opened = new ArrayList<>();
        List<DiskFault> newDisks = new ArrayList<>();
        try {
            for (Path dir : logDirs) {
                DiskFault disk = new DiskFault(dir);
                newDisks.add(disk);
                opened.add(LogDirectory.open(dir, config.logConfig(), scheduler.time()::milliseconds,
                        fileSync.withFaults(disk)));
            }
        } catch (RuntimeException e) {
            opened.forEach(LogDirectory::close);
            throw e;
        }
        disks = List.copyOf(newDisks);
        return List.copyOf(opened);
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

    /**
     * A new, empty disk under log directory {@code index} of a down broker: its files are gone, as
     * after a failed disk was swapped. The next start recovers the other directories and replicates
     * the lost partitions again from their leaders.
     */
    void replaceDisk(int index) {
        requireStatus(BrokerStatus.DOWN);
        disk(index);
        Path dir = logDirs.get(index);
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                if (!p.equals(dir)) {
                    Files.delete(p);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot empty log directory " + dir + " of broker " + id, e);
        }
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

    /** LDR-5: the stop was clean only if every log directory says so, with the same broker epoch. */
    private static long previousCleanShutdownEpoch(List<LogDirectory> dirs) {
        OptionalLong first = dirs.get(0).previousCleanShutdownBrokerEpoch();
        boolean allClean = dirs.stream().allMatch(d -> d.previousCleanShutdownBrokerEpoch().equals(first));
        return allClean ? first.orElse(BrokerLifecycleManager.NO_EPOCH) : BrokerLifecycleManager.NO_EPOCH;
    }

    /** §9: a failed directory is reported to the controller at once; with none left the broker stops heartbeating. */
    private LogDirFailureListener logDirFailures(BrokerLifecycleManager lm) {
        return new LogDirFailureListener() {
            @Override
            public void onLogDirOffline(Path dir, Set<TopicPartition> offlinePartitions) {
                LOG.warn("Broker {}: log directory {} is offline ({}); telling the controller", id, dir, offlinePartitions);
                lm.reportOfflineReplicas();
            }

            @Override
            public void onNoOnlineLogDir() {
                LOG.error("Broker {} has no online log directory left: it stops", id);
                lm.close();
            }
        };
    }

    /**
     * LOG-10: core leaves retention to the embedder (Kafka's LogManager runs it); this broker
     * assembly runs it every {@code retentionCheckIntervalMs} when a retention limit is set.
     */
    private void scheduleRetention(Scheduler scheduler, List<LogDirectory> dirs) {
        if (retentionCheckIntervalMs <= 0
                || (config.logConfig().retentionMs() < 0 && config.logConfig().retentionBytes() < 0)) {
            return;
        }
        scheduler.schedulePeriodically(scheduler.newSerialExecutor("log-retention-" + id), () -> {
            long nowMs = scheduler.time().milliseconds();
            for (LogDirectory dir : dirs) {
                for (Log log : dir.logs().values()) {
                    try {
                        log.deleteOldSegments(nowMs);
                    } catch (RuntimeException e) {
                        LOG.warn("Broker {}: retention of {} failed: {}", id, log.topicPartition(), e.toString());
                    }
                }
            }
        }, retentionCheckIntervalMs, retentionCheckIntervalMs);
    }

    /** The broker's produce handler; PRO-1: the wire's acks are parsed here, a bad value is answered at once. */
    private static CompletableFuture<ClientRpc.ProduceResponse> produce(ReplicaManager rm, ClientRpc.ProduceRequest request) {
        TopicPartition tp = request.topicPartition();
        Acks acks;
        try {
            acks = Acks.forCode(request.acks());
        } catch (ApiException e) {
            return CompletableFuture.completedFuture(new ClientRpc.ProduceResponse(e.error(), -1, -1));
        }
        return rm.produce(Map.of(tp, request.records()), acks, request.timeoutMs())
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
        for (LogDirectory dir : logDirectories) {
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
        if (lifecycle != null && lifecycle.brokerEpoch() >= 0) {
            lastIncarnationEpoch = lifecycle.brokerEpoch();
        }
    }

    private void closeFilesAfterDeath() {
        // Nothing of the dead process runs any more; releasing its file handles is the OS's part.
        logDirectories.forEach(LogDirectory::close);
        clearProcessState();
    }

    /**
     * Controlled shutdown (LDR-4): asks the controller to move leadership and ISR away, then closes
     * cleanly, leaving the clean-shutdown marker. The future completes when the broker is down.
     */
    CompletableFuture<Void> controlledShutdown() {
        requireStatus(BrokerStatus.RUNNING);
        BrokerLifecycleManager lm = lifecycle;
        ReplicaManager rm = replicaManager;
        CompletableFuture<Void> down = new CompletableFuture<>();
        lm.beginControlledShutdown().whenComplete((ignored, error) -> {
            if (error != null) {
                down.completeExceptionally(error);
                return;
            }
            long epoch = lm.brokerEpoch();
            lastIncarnationEpoch = epoch;
            lm.close();
            try {
                rm.closeCleanly(epoch);
            } catch (RuntimeException e) {
                // A failed disk (contract §9): that directory keeps no clean-shutdown marker, so the next
                // start is unclean (LDR-5); the process exits all the same, as Kafka's does.
                LOG.warn("Broker {}: clean close failed ({}); stopping without the marker there", id, e.toString());
            }
            runtime.kill(node);
            clearProcessState();
            down.complete(null);
        });
        return down;
    }

    private void clearProcessState() {
        status = BrokerStatus.DOWN;
        scheduler = null;
        logDirectories = null;
        replicaManager = null;
        lifecycle = null;
        sequencer = null;
        metrics = null;
    }

    Optional<ReplicaManager> replicaManager() {
        return Optional.ofNullable(replicaManager);
    }

    Optional<Partition> partition(TopicPartition tp) {
        return replicaManager().flatMap(rm -> rm.partition(tp));
    }

    Optional<Log> log(TopicPartition tp) {
        List<LogDirectory> dirs = logDirectories;
        return dirs == null ? Optional.empty()
                : dirs.stream().map(d -> d.log(tp)).flatMap(Optional::stream).findFirst();
    }

    Optional<BrokerLifecycleManager> lifecycle() {
        return Optional.ofNullable(lifecycle);
    }

    Optional<InMemoryReplicationMetrics> metrics() {
        return Optional.ofNullable(metrics);
    }

    /**
     * Closes a running (or paused) broker without the clean-shutdown marker (cluster teardown). Its
     * threads stop first, none interrupted (the runtime lets a running task finish and waits for it),
     * and only then does its ReplicaManager stop and close the log directory, with a last HW
     * checkpoint: a close never lands in the middle of an append or a fetcher's write, so no
     * partition goes offline and every log reopens without recovery truncation.
     */
    void closeQuietly() {
        if (status == BrokerStatus.DOWN) {
            return;
        }
        runtime.kill(node);
        lifecycle.close();
        try {
            replicaManager.shutdown();
        } catch (RuntimeException e) {
            LOG.warn("Closing broker {} failed: {}", id, e.toString());
        }
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
