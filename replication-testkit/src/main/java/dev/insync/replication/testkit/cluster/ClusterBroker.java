package dev.insync.replication.testkit.cluster;

import dev.insync.replication.core.broker.BrokerLifecycleManager;
import dev.insync.replication.core.config.ReplicationConfig;
import dev.insync.replication.core.metadata.ControllerChannel;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metrics.InMemoryReplicationMetrics;
import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.server.ReplicaManager;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.Log;
import dev.insync.replication.log.LogDirectory;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.testkit.controller.MetadataDeltaSequencer;
import dev.insync.replication.testkit.network.InMemoryNetwork;
import dev.insync.replication.testkit.sim.NodeId;
import dev.insync.replication.testkit.sim.NodeRuntime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One broker of an {@link InMemoryCluster} across its incarnations: a real {@link LogDirectory},
 * {@link ReplicaManager} and {@link BrokerLifecycleManager} wired to the in-memory network, and the
 * faults a real process suffers. Each start is a new process: nothing in memory survives a stop.
 */
final class ClusterBroker {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterBroker.class);

    /** Where a broker is in its life. */
    enum Status { RUNNING, PAUSED, DOWN }

    private final int id;
    private final NodeId node;
    private final Path dataDir;
    private final ReplicationConfig config;
    private final NodeRuntime runtime;
    private final InMemoryNetwork network;
    private final MutationSeams seams;
    private final long retentionCheckIntervalMs;

    private volatile Status status = Status.DOWN;
    private int incarnation;
    private LogDirectory logDirectory;
    private ReplicaManager replicaManager;
    private BrokerLifecycleManager lifecycle;
    private MetadataDeltaSequencer sequencer;
    private InMemoryReplicationMetrics metrics;
    /** The broker epoch of the last incarnation that registered, -1 before. */
    private long lastIncarnationEpoch = BrokerLifecycleManager.NO_EPOCH;

    ClusterBroker(int id, Path dataDir, ReplicationConfig config, NodeRuntime runtime, InMemoryNetwork network,
                  Set<Mutation> mutations, long retentionCheckIntervalMs) {
        this.seams = new MutationSeams(mutations.isEmpty() ? EnumSet.noneOf(Mutation.class) : EnumSet.copyOf(mutations));
        this.retentionCheckIntervalMs = retentionCheckIntervalMs;
        this.id = id;
        this.node = NodeId.broker(id);
        this.dataDir = dataDir;
        this.config = config;
        this.runtime = runtime;
        this.network = network;
    }

    int id() {
        return id;
    }

    Path dataDir() {
        return dataDir;
    }

    Status status() {
        return status;
    }

    /** How many times this broker has started. */
    int incarnation() {
        return incarnation;
    }

    /** Starts a new process: opens (and recovers) the log directory, registers, serves. */
    void start() {
        if (status != Status.DOWN) {
            throw new IllegalStateException("Broker " + id + " is " + status + ", not down");
        }
        if (runtime.state(node) == NodeRuntime.NodeState.DOWN) {
            runtime.start(node);
        }
        incarnation++;
        Scheduler scheduler = runtime.forNode(node);
        LogDirectory dir = LogDirectory.open(dataDir, config.logConfig(), scheduler.time()::milliseconds);
        logDirectory = dir;
        long previousEpoch = seams.previousBrokerEpoch(
                dir.previousCleanShutdownBrokerEpoch().orElse(BrokerLifecycleManager.NO_EPOCH), lastIncarnationEpoch);
        metrics = new InMemoryReplicationMetrics();
        MetadataDeltaSequencer[] sequencerRef = new MetadataDeltaSequencer[1];
        ReplicaManager[] rmRef = new ReplicaManager[1];
        ControllerChannel channel = seams.controllerChannel(network.controllerChannelFor(id),
                tp -> rmRef[0] == null ? Optional.empty() : rmRef[0].partition(tp));
        lifecycle = new BrokerLifecycleManager(id, previousEpoch, channel,
                scheduler.newSerialExecutor("BrokerLifecycleManager-" + id), scheduler,
                config.brokerHeartbeatIntervalMs(), config.brokerRegistrationRetryBackoffMs(),
                () -> sequencerRef[0].appliedOffset());
        replicaManager = new ReplicaManager(id, config, dir, scheduler, network.transportFor(id), channel,
                lifecycle::brokerEpoch, metrics);
        rmRef[0] = replicaManager;
        // LDR-4: act on metadata only once caught up with the controller's log (see InitialMetadataLoad).
        BrokerLifecycleManager lm = lifecycle;
        Consumer<MetadataDelta> applier = seams.metadataApplier(replicaManager::applyMetadataDelta);
        sequencer = new MetadataDeltaSequencer(seams.skipsInitialLoadMerge() ? applier : new InitialMetadataLoad(applier,
                lm::brokerEpoch, scheduler, scheduler.newSerialExecutor("InitialMetadataLoad-" + id)));
        sequencerRef[0] = sequencer;
        ReplicaManager rm = replicaManager;
        network.bindFetchHandler(id, seams.fetchHandler(rm, dir::log));
        network.bindMetadataListener(id, sequencer::accept);
        network.bind(node, ClientRpc.PRODUCE, request -> produce(rm, seams.produceRequest(request)));
        rm.startup();
        lifecycle.start();
        scheduleRetention(scheduler, dir);
        status = Status.RUNNING;
        LOG.debug("Broker {} started (incarnation {}, previous clean epoch {})", id, incarnation, previousEpoch);
    }

    /**
     * LOG-10: core leaves retention to the embedder (Kafka's LogManager runs it); this broker
     * assembly runs it every {@code retentionCheckIntervalMs} when a retention limit is set.
     */
    private void scheduleRetention(Scheduler scheduler, LogDirectory dir) {
        if (retentionCheckIntervalMs <= 0
                || (config.logConfig().retentionMs() < 0 && config.logConfig().retentionBytes() < 0)) {
            return;
        }
        scheduler.schedulePeriodically(scheduler.newSerialExecutor("log-retention-" + id), () -> {
            long nowMs = scheduler.time().milliseconds();
            for (Log log : dir.logs().values()) {
                try {
                    log.deleteOldSegments(nowMs);
                } catch (RuntimeException e) {
                    LOG.warn("Broker {}: retention of {} failed: {}", id, log.topicPartition(), e.toString());
                }
            }
        }, retentionCheckIntervalMs, retentionCheckIntervalMs);
    }

    private static CompletableFuture<ClientRpc.ProduceResponse> produce(ReplicaManager rm, ClientRpc.ProduceRequest request) {
        TopicPartition tp = request.topicPartition();
        // The append happens inside produce() on this thread, so the epoch read just before it is
        // the one stamped into the batch (LOG-4).
        int epoch = rm.partition(tp).map(Partition::leaderEpoch).orElse(-1);
        return rm.produce(Map.of(tp, request.records()), request.acks(), request.timeoutMs())
                .thenApply(results -> {
                    ProduceResult r = results.get(tp);
                    return r == null
                            ? new ClientRpc.ProduceResponse(Errors.UNKNOWN_SERVER_ERROR, -1, -1)
                            : new ClientRpc.ProduceResponse(r.error(), r.baseOffset(), epoch);
                });
    }

    /** SIGSTOP. */
    void pause() {
        requireStatus(Status.RUNNING);
        runtime.pause(node);
        status = Status.PAUSED;
    }

    /** SIGCONT. */
    void resume() {
        requireStatus(Status.PAUSED);
        runtime.resume(node);
        status = Status.RUNNING;
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
        Map<TopicPartition, Long> recoveryPoints = new HashMap<>();
        for (Map.Entry<TopicPartition, Log> e : logDirectory.logs().entrySet()) {
            recoveryPoints.put(e.getKey(), e.getValue().recoveryPoint());
        }
        rememberEpoch();
        runtime.kill(node);
        closeFilesAfterDeath();
        recoveryPoints.forEach((tp, recoveryPoint) ->
                PowerLoss.discardUnflushed(dataDir.resolve(tp.toString()), recoveryPoint, runtime.random()));
    }

    private void rememberEpoch() {
        if (lifecycle != null && lifecycle.brokerEpoch() >= 0) {
            lastIncarnationEpoch = lifecycle.brokerEpoch();
        }
    }

    private void closeFilesAfterDeath() {
        // Nothing of the dead process runs any more; releasing its file handles is the OS's part.
        logDirectory.close();
        clearProcessState();
    }

    /**
     * Controlled shutdown (LDR-4): asks the controller to move leadership and ISR away, then closes
     * cleanly, leaving the clean-shutdown marker. The future completes when the broker is down.
     */
    CompletableFuture<Void> controlledShutdown() {
        requireStatus(Status.RUNNING);
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
            rm.closeCleanly(epoch);
            runtime.kill(node);
            clearProcessState();
            down.complete(null);
        });
        return down;
    }

    private void clearProcessState() {
        status = Status.DOWN;
        logDirectory = null;
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
        return Optional.ofNullable(logDirectory).flatMap(d -> d.log(tp));
    }

    Optional<BrokerLifecycleManager> lifecycle() {
        return Optional.ofNullable(lifecycle);
    }

    Optional<InMemoryReplicationMetrics> metrics() {
        return Optional.ofNullable(metrics);
    }

    /** Closes a running broker without the clean-shutdown marker (cluster teardown). */
    void closeQuietly() {
        if (status == Status.DOWN) {
            return;
        }
        if (status == Status.PAUSED) {
            runtime.resume(node);
        }
        runtime.kill(node);
        try {
            logDirectory.close();
        } catch (RuntimeException e) {
            LOG.warn("Closing broker {}'s log directory failed: {}", id, e.toString());
        }
        clearProcessState();
    }

    private void requireStatus(Status expected) {
        if (status != expected) {
            throw new IllegalStateException("Broker " + id + " is " + status + ", expected " + expected);
        }
    }

    private void requireAlive() {
        if (status == Status.DOWN) {
            throw new IllegalStateException("Broker " + id + " is already down");
        }
    }
}
