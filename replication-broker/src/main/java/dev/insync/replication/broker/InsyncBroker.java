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

package dev.insync.replication.broker;

import dev.insync.replication.controller.api.ControllerApi;
import dev.insync.replication.controller.channel.QuorumControllerChannel;
import dev.insync.replication.core.broker.BrokerLifecycleManager;
import dev.insync.replication.core.config.ReplicationConfig;
import dev.insync.replication.core.metadata.ControllerChannel;
import dev.insync.replication.core.metadata.Endpoint;
import dev.insync.replication.core.metadata.follower.MetadataChannel;
import dev.insync.replication.core.metadata.follower.MetadataFollower;
import dev.insync.replication.core.metrics.ReplicationMetrics;
import dev.insync.replication.core.rpc.ReplicaTransport;
import dev.insync.replication.core.server.LogDirFailureListener;
import dev.insync.replication.core.server.ReplicaManager;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.core.time.ThreadScheduler;
import dev.insync.replication.log.FileSync;
import dev.insync.replication.log.Log;
import dev.insync.replication.log.LogDirectory;
import dev.insync.replication.log.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * One Insync broker, assembled the one way production and the testkit assemble it: its log
 * directories (Kafka's {@code log.dirs}), a {@link ReplicaManager}, a {@link BrokerLifecycleManager}
 * (registration, heartbeats, controlled shutdown), a {@link MetadataFollower} (its only metadata
 * source), the handling of failed log directories, the controller client, and retention.
 *
 * <pre>{@code
 * InsyncBroker broker = InsyncBroker.builder(Map.of(
 *                 "node.id", 1,
 *                 "log.dirs", "/disk1/insync,/disk2/insync",
 *                 "replica.lag.time.max.ms", 10_000))
 *         .transport(replicaTransport)                       // fetches to other brokers
 *         .controllerEndpoints(Map.of(1, api1, 2, api2, 3, api3))  // one ControllerApi per controller node
 *         .requestServer(handlers -> myServer.serve(handlers))     // expose fetch, produce, metadata
 *         .build();
 * broker.start().join();                 // open, register, load metadata, serve
 * ...
 * broker.controlledShutdown().join();    // move leadership away, stop, leave .kafka_cleanshutdown
 * }</pre>
 *
 * <p>The network is a seam: the builder takes the {@link ReplicaTransport} to reach other brokers,
 * the controller (one {@link ControllerApi} endpoint per controller node, reached through a
 * {@link QuorumControllerChannel}, or a ready {@link ControllerChannel} and {@link MetadataChannel}),
 * and a {@link RequestServer} to expose {@link BrokerRequestHandlers}. The testkit plugs in its
 * in-memory network; replication-netty its server and client.
 *
 * <p>Life: {@link #start()} opens (and recovers) every log directory, reads the clean-shutdown
 * markers (LDR-5), registers, follows the metadata log and, once the initial load is applied,
 * serves (the returned future completes then). {@link #controlledShutdown()} asks the controller to
 * move leadership away, waits until it says the broker may stop, and closes cleanly, leaving
 * {@code .kafka_cleanshutdown} in every healthy log directory. {@link #close()} stops without
 * controlled shutdown and without the marker; {@link #halt()} stops as {@code kill -9} would leave
 * it: no further write at all. One object is one process's life: it starts once; a restart is a new
 * {@code InsyncBroker} over the same directories.
 *
 * <p>Threads: with no {@link Builder#scheduler scheduler} given the broker owns a
 * {@link ThreadScheduler} (named threads, closed when it stops); with one given (the simulator's)
 * everything runs there and the caller owns it. Public methods may be called from any thread.
 */
public final class InsyncBroker implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(InsyncBroker.class);

    /** Where a broker is in its life. */
    public enum State {
        /** Built, nothing opened. */
        NOT_STARTED,
        /** Directories open; registering and loading metadata; not serving yet. */
        STARTING,
        /** Serving requests. */
        SERVING,
        /** A controlled shutdown is under way (still serving until leadership has moved). */
        SHUTTING_DOWN,
        /** Stopped (controlled shutdown done, closed, halted, or no log directory left). */
        STOPPED,
        /** Could not start (a directory did not open, the server refused the handlers). */
        FAILED
    }

    private final BrokerConfig config;
    private final ReplicaTransport transport;
    private final Map<Integer, ControllerApi> controllerEndpoints;
    private final ControllerChannel givenControllerChannel;
    private final MetadataChannel givenMetadataChannel;
    private final RequestServer requestServer;
    private final Scheduler givenScheduler;
    private final Function<Path, FileSync> fileSyncs;
    private final ReplicationMetrics metrics;
    private final LogDirFailureListener embedderListener;
    private final MetadataFollower.Settings followerSettings;
    private final List<Endpoint> advertisedEndpoints;

    private final Object lock = new Object();
    private final CompletableFuture<Void> serving = new CompletableFuture<>();
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    // Guarded by lock.
    private State state = State.NOT_STARTED;
    private CompletableFuture<Void> controlledShutdown;
    private AutoCloseable serverHandle;
    private Scheduler.Cancellable retentionTask;
    // Set once by start(), before anything runs.
    private volatile Scheduler scheduler;
    private ThreadScheduler ownedScheduler;
    private QuorumControllerChannel ownedChannel;
    private volatile List<LogDirectory> logDirectories;
    private volatile long previousCleanShutdownEpoch = BrokerLifecycleManager.NO_EPOCH;
    private volatile ReplicaManager replicaManager;
    private volatile BrokerLifecycleManager lifecycle;
    private volatile MetadataFollower follower;
    private volatile BrokerMetadataView metadataView;
    private volatile BrokerRequestHandlers handlers;

    private InsyncBroker(Builder b) {
        this.config = b.config;
        this.transport = b.transport;
        this.controllerEndpoints = b.controllerEndpoints;
        this.givenControllerChannel = b.controllerChannel;
        this.givenMetadataChannel = b.metadataChannel;
        this.requestServer = b.requestServer;
        this.givenScheduler = b.scheduler;
        this.fileSyncs = b.fileSyncs;
        this.metrics = b.metrics;
        this.embedderListener = b.logDirFailureListener;
        this.followerSettings = b.followerSettings;
        this.advertisedEndpoints = b.advertisedEndpoints;
    }

    /**
     * A builder from Kafka-named properties ({@code node.id}, {@code log.dirs} and every replication
     * setting: see {@link BrokerConfig}).
     *
     * @throws IllegalArgumentException naming a missing or bad property
     */
    public static Builder builder(Map<String, ?> properties) {
        return new Builder(BrokerConfig.fromProperties(properties));
    }

    /** A builder from parsed settings. */
    public static Builder builder(BrokerConfig config) {
        return new Builder(Objects.requireNonNull(config, "config"));
    }

    // ================================================================================ lifecycle

    /**
     * Starts the broker: opens and recovers every log directory, registers with the controller
     * (with the previous broker epoch from the clean-shutdown markers, LDR-5), follows the metadata
     * log, and serves once the initial load is applied.
     *
     * @return completes when the broker serves; exceptionally if it stops or cannot serve first
     * @throws IllegalStateException if started before
     * @throws RuntimeException      if a log directory does not open (nothing stays open then)
     */
    public CompletableFuture<Void> start() {
        synchronized (lock) {
            if (state != State.NOT_STARTED) {
                throw new IllegalStateException("Broker " + brokerId() + " was started before (" + state
                        + "); a restart is a new InsyncBroker");
            }
            state = State.STARTING;
        }
        try {
            assemble();
        } catch (RuntimeException e) {
            synchronized (lock) {
                state = State.FAILED;
            }
            closeOwned();
            serving.completeExceptionally(e);
            stopped.complete(null);
            throw e;
        }
        return serving;
    }

    private void assemble() {
        int id = brokerId();
        ReplicationConfig replication = config.replication();
        Scheduler s = givenScheduler;
        if (s == null) {
            ownedScheduler = new ThreadScheduler();
            s = ownedScheduler;
        }
        scheduler = s;
        List<LogDirectory> dirs = openLogDirectories(s);
        logDirectories = dirs;
        previousCleanShutdownEpoch = previousCleanShutdownEpoch(dirs);
        ControllerChannel controllerChannel;
        MetadataChannel metadataChannel;
        if (controllerEndpoints != null) {
            ownedChannel = new QuorumControllerChannel(controllerEndpoints, s, new QuorumControllerChannel.Settings(
                    config.retryBackoffMs(), config.retryBackoffMaxMs(), Math.max(1, replication.requestTimeoutMs()),
                    QuorumControllerChannel.Settings.DEFAULT.maxRounds()));
            controllerChannel = ownedChannel;
            metadataChannel = ownedChannel;
        } else {
            controllerChannel = givenControllerChannel;
            metadataChannel = givenMetadataChannel;
        }
        lifecycle = BrokerLifecycleManager.builder(id, controllerChannel, s)
                .previousBrokerEpoch(previousCleanShutdownEpoch)
                .heartbeatIntervalMs(replication.brokerHeartbeatIntervalMs())
                .registrationRetryBackoffMs(replication.brokerRegistrationRetryBackoffMs())
                .metadataOffset(() -> follower == null ? -1 : follower.appliedOffset())
                // Contract §9: every heartbeat lists the replicas on failed log directories.
                .offlineReplicas(() -> replicaManager == null ? List.of() : replicaManager.offlineReplicas())
                // LDR-4: other brokers and clients learn where this one listens from its registration.
                .endpoints(advertisedEndpoints)
                .build();
        replicaManager = ReplicaManager.builder(id).config(replication).logDirectories(dirs).scheduler(s)
                .transport(transport).controller(controllerChannel).brokerEpoch(lifecycle::brokerEpoch)
                .metrics(metrics).logDirFailureListener(new DirectoryFailures()).build();
        follower = new MetadataFollower(replicaManager, metadataChannel, s, followerSettings);
        metadataView = new BrokerMetadataView(follower::image,
                () -> ownedChannel == null ? OptionalInt.empty() : ownedChannel.knownActiveController());
        handlers = new BrokerRequestHandlers(replicaManager, metadataView);
        replicaManager.startup();
        // CTL-5: the first broker epoch ends the initial load; the broker serves once it is applied.
        follower.start(lifecycle.start());
        follower.initialLoad().whenComplete((offset, error) -> {
            if (error == null) {
                serve(offset);
            }
        });
        scheduleRetention(s, dirs);
        LOG.info("Broker {} started: {} log director{} (previous clean broker epoch {}), registering", id, dirs.size(),
                dirs.size() == 1 ? "y" : "ies", previousCleanShutdownEpoch);
    }

    private List<LogDirectory> openLogDirectories(Scheduler s) {
        List<LogDirectory> opened = new ArrayList<>();
        try {
            for (Path dir : config.logDirs()) {
                FileSync fileSync = Objects.requireNonNull(fileSyncs.apply(dir), "fileSync of " + dir);
                opened.add(LogDirectory.open(dir, config.replication().logConfig(), s.time()::milliseconds, fileSync));
            }
        } catch (RuntimeException e) {
            opened.forEach(LogDirectory::close);
            throw e;
        }
        return List.copyOf(opened);
    }

    /** LDR-5: the last stop was clean only if every log directory says so, with the same broker epoch. */
    private static long previousCleanShutdownEpoch(List<LogDirectory> dirs) {
        OptionalLong first = dirs.get(0).previousCleanShutdownBrokerEpoch();
        boolean allSame = dirs.stream().allMatch(d -> d.previousCleanShutdownBrokerEpoch().equals(first));
        return allSame ? first.orElse(BrokerLifecycleManager.NO_EPOCH) : BrokerLifecycleManager.NO_EPOCH;
    }

    private void serve(long metadataOffset) {
        synchronized (lock) {
            if (state != State.STARTING) {
                return;
            }
            try {
                serverHandle = requestServer.serve(handlers);
            } catch (RuntimeException e) {
                LOG.error("Broker {}: the request server refused its handlers; stopping", brokerId(), e);
                state = State.FAILED;
                serving.completeExceptionally(e);
            }
            if (state == State.STARTING) {
                state = State.SERVING;
            }
        }
        if (state() == State.FAILED) {
            // On the follower's executor: the replica manager stops here, the threads from outside.
            lifecycle.close();
            follower.close();
            replicaManager.shutdown();
            finish(true);
            return;
        }
        LOG.info("Broker {} serves (metadata loaded up to offset {}, broker epoch {})", brokerId(), metadataOffset,
                lifecycle.brokerEpoch());
        // LDR-4: caught up with its registration, so tell the controller now rather than at the next tick.
        lifecycle.caughtUpWithMetadata();
        serving.complete(null);
    }

    /**
     * LOG-10: core leaves retention to the embedder (Kafka's LogManager runs it); the broker applies
     * {@code retention.ms} / {@code retention.bytes} every {@code log.retention.check.interval.ms}.
     */
    private void scheduleRetention(Scheduler s, List<LogDirectory> dirs) {
        long intervalMs = config.logRetentionCheckIntervalMs();
        if (intervalMs <= 0 || (config.replication().logConfig().retentionMs() < 0
                && config.replication().logConfig().retentionBytes() < 0)) {
            return;
        }
        Scheduler.Cancellable task = s.schedulePeriodically(s.newSerialExecutor("log-retention-" + brokerId()), () -> {
            long nowMs = s.time().milliseconds();
            for (LogDirectory dir : dirs) {
                for (Log log : dir.logs().values()) {
                    try {
                        log.deleteOldSegments(nowMs);
                    } catch (RuntimeException e) {
                        LOG.warn("Broker {}: retention of {} failed: {}", brokerId(), log.topicPartition(), e.toString());
                    }
                }
            }
        }, intervalMs, intervalMs);
        synchronized (lock) {
            retentionTask = task;
        }
    }

    /**
     * Controlled shutdown (LDR-4): asks the controller to move leadership and ISR membership away,
     * waits until it answers that the broker may stop, then closes cleanly: fetchers stop, what waits
     * is answered, the HWs are checkpointed and every healthy log directory gets its
     * {@code .kafka_cleanshutdown} marker with the broker epoch. Idempotent.
     *
     * @return completes when the broker is stopped; exceptionally if it was stopped otherwise first
     */
    public CompletableFuture<Void> controlledShutdown() {
        BrokerLifecycleManager lm;
        CompletableFuture<Void> done;
        synchronized (lock) {
            if (controlledShutdown != null) {
                return controlledShutdown;
            }
            controlledShutdown = new CompletableFuture<>();
            done = controlledShutdown;
            if (state != State.STARTING && state != State.SERVING) {
                done.completeExceptionally(new IllegalStateException("Broker " + brokerId() + " is " + state
                        + ": no controlled shutdown"));
                return done;
            }
            state = State.SHUTTING_DOWN;
            lm = lifecycle;
        }
        LOG.info("Broker {} begins a controlled shutdown", brokerId());
        lm.beginControlledShutdown().whenComplete((ignored, error) -> {
            if (error != null) {
                done.completeExceptionally(error);
                return;
            }
            long epoch = lm.brokerEpoch();
            lm.close();
            follower.close();
            stopServing();
            try {
                replicaManager.closeCleanly(epoch);
            } catch (RuntimeException e) {
                // A failed disk (contract §9): that directory has no clean-shutdown marker (unless only the
                // fsync after its rename failed, see LogDirectory.closeCleanly), so its next start is
                // unclean (LDR-5); the broker stops all the same, as Kafka's does.
                LOG.warn("Broker {}: clean close failed ({}); stopping, that directory may have no clean-shutdown marker",
                        brokerId(), e.toString());
            }
            finish(true);
            LOG.info("Broker {} stopped after a controlled shutdown (broker epoch {})", brokerId(), epoch);
            done.complete(null);
        });
        return done;
    }

    /**
     * Stops without a controlled shutdown and without the clean-shutdown marker (so the next start
     * counts as unclean, LDR-5): heartbeats and metadata stop, the server stops exposing the
     * handlers, the replica manager shuts down (fetchers first, then what waits is answered, HWs are
     * checkpointed, directories closed). Idempotent.
     */
    @Override
    public void close() {
        stop(false);
    }

    /**
     * Stops as {@code kill -9} leaves a broker: nothing more is written (no HW checkpoint, no
     * marker); the log directories' files are closed as the OS would close them. With a scheduler
     * given to the builder, the caller stops its tasks first (the simulator kills the node).
     * Idempotent.
     */
    public void halt() {
        stop(true);
    }

    private void stop(boolean halt) {
        synchronized (lock) {
            if (state == State.STOPPED || (state == State.FAILED && stopped.isDone())) {
                // Stopped from inside (controlled shutdown, no log directory left): release the threads now.
                closeOwned();
                return;
            }
            if (state == State.NOT_STARTED) {
                state = State.STOPPED;
                serving.completeExceptionally(new IllegalStateException("Broker " + brokerId() + " stopped before it started"));
                stopped.complete(null);
                return;
            }
        }
        BrokerLifecycleManager lm = lifecycle;
        if (lm != null) {
            lm.close();
        }
        if (follower != null) {
            follower.close();
        }
        stopServing();
        if (halt) {
            if (ownedScheduler != null) {
                ownedScheduler.close();
            }
            List<LogDirectory> dirs = logDirectories;
            if (dirs != null) {
                dirs.forEach(LogDirectory::close);
            }
        } else if (replicaManager != null) {
            try {
                replicaManager.shutdown();
            } catch (RuntimeException e) {
                LOG.warn("Broker {}: shutdown failed: {}", brokerId(), e.toString());
            }
        }
        finish(false);
    }

    private void stopServing() {
        AutoCloseable handle;
        Scheduler.Cancellable retention;
        synchronized (lock) {
            handle = serverHandle;
            serverHandle = null;
            retention = retentionTask;
            retentionTask = null;
        }
        if (retention != null) {
            retention.cancel();
        }
        if (handle != null) {
            try {
                handle.close();
            } catch (Exception e) {
                LOG.warn("Broker {}: stopping its request server failed: {}", brokerId(), e.toString());
            }
        }
    }

    /**
     * Marks the broker stopped and releases what it owns. {@code fromOwnThread}: called from a task of
     * the broker's own scheduler (a controlled shutdown's end, a failed last directory), which cannot
     * wait for its own thread to end: a short-lived, named thread closes the scheduler then.
     */
    private void finish(boolean fromOwnThread) {
        synchronized (lock) {
            if (state != State.FAILED) {
                state = State.STOPPED;
            }
        }
        if (fromOwnThread && ownedScheduler != null) {
            Thread closer = new Thread(this::closeOwned, "InsyncBroker-" + brokerId() + "-stop");
            closer.setDaemon(true);
            closer.start();
        } else {
            closeOwned();
        }
        serving.completeExceptionally(new IllegalStateException("Broker " + brokerId() + " stopped"));
        stopped.complete(null);
    }

    private void closeOwned() {
        if (ownedChannel != null) {
            ownedChannel.close();
        }
        if (ownedScheduler != null) {
            ownedScheduler.close();
        }
    }

    /** Contract §9: a failed directory is reported to the controller at once; with none left the broker stops. */
    private final class DirectoryFailures implements LogDirFailureListener {
        @Override
        public void onLogDirOffline(Path dir, Set<TopicPartition> offlinePartitions) {
            LOG.warn("Broker {}: log directory {} is offline ({}); telling the controller", brokerId(), dir,
                    offlinePartitions);
            lifecycle.reportOfflineReplicas();
            embedderListener.onLogDirOffline(dir, offlinePartitions);
        }

        @Override
        public void onNoOnlineLogDir() {
            // The replica manager has shut itself down; as Kafka halts such a broker, this one stops.
            LOG.error("Broker {} has no online log directory left: it stops", brokerId());
            lifecycle.close();
            follower.close();
            stopServing();
            finish(true);
            embedderListener.onNoOnlineLogDir();
        }
    }

    // ================================================================================ views

    /** This broker's id ({@code node.id}). */
    public int brokerId() {
        return config.nodeId();
    }

    /** Its settings. */
    public BrokerConfig config() {
        return config;
    }

    /** Where it is in its life. */
    public State state() {
        synchronized (lock) {
            return state;
        }
    }

    /** Completes when the broker serves (see {@link #start()}). */
    public CompletableFuture<Void> serving() {
        return serving;
    }

    /** Completes when the broker has stopped, however. */
    public CompletableFuture<Void> stopped() {
        return stopped;
    }

    /** LDR-5: the broker epoch the clean-shutdown markers held at start, -1 after an unclean stop (or before start). */
    public long previousCleanShutdownEpoch() {
        return previousCleanShutdownEpoch;
    }

    /** The replica manager. @throws IllegalStateException before {@link #start()} */
    public ReplicaManager replicaManager() {
        return started(replicaManager);
    }

    /** Registration, heartbeats, the broker epoch. @throws IllegalStateException before {@link #start()} */
    public BrokerLifecycleManager lifecycle() {
        return started(lifecycle);
    }

    /** The follower of the metadata log. @throws IllegalStateException before {@link #start()} */
    public MetadataFollower metadataFollower() {
        return started(follower);
    }

    /** The metadata this broker has applied, for Metadata answers. @throws IllegalStateException before {@link #start()} */
    public BrokerMetadataView metadataView() {
        return started(metadataView);
    }

    /** What its {@link RequestServer} was given. @throws IllegalStateException before {@link #start()} */
    public BrokerRequestHandlers requestHandlers() {
        return started(handlers);
    }

    /** Its log directories in {@code log.dirs} order. @throws IllegalStateException before {@link #start()} */
    public List<LogDirectory> logDirectories() {
        return started(logDirectories);
    }

    /** The log of {@code tp} in whichever directory holds it. @throws IllegalStateException before {@link #start()} */
    public Optional<Log> log(TopicPartition tp) {
        return logDirectories().stream().map(d -> d.log(tp)).flatMap(Optional::stream).findFirst();
    }

    /** The scheduler everything runs on. @throws IllegalStateException before {@link #start()} */
    public Scheduler scheduler() {
        return started(scheduler);
    }

    private <T> T started(T value) {
        if (value == null) {
            throw new IllegalStateException("Broker " + brokerId() + " is not started");
        }
        return value;
    }

    @Override
    public String toString() {
        return "InsyncBroker(" + brokerId() + ", " + state() + ")";
    }

    // ================================================================================ builder

    /**
     * Settings of one broker. Required: a {@link #transport} and the controller
     * ({@link #controllerEndpoints} or {@link #controllerChannels}). Defaults: no request server
     * ({@link RequestServer#NONE}), an owned {@link ThreadScheduler}, durable files
     * ({@link FileSync#durable()}) in every directory, no metrics, no extra log-directory listener,
     * {@link MetadataFollower.Settings#DEFAULT}.
     */
    public static final class Builder {
        private final BrokerConfig config;
        private ReplicaTransport transport;
        private Map<Integer, ControllerApi> controllerEndpoints;
        private ControllerChannel controllerChannel;
        private MetadataChannel metadataChannel;
        private RequestServer requestServer = RequestServer.NONE;
        private Scheduler scheduler;
        private Function<Path, FileSync> fileSyncs = dir -> FileSync.durable();
        private ReplicationMetrics metrics = ReplicationMetrics.NOOP;
        private LogDirFailureListener logDirFailureListener = LogDirFailureListener.NONE;
        private MetadataFollower.Settings followerSettings = MetadataFollower.Settings.DEFAULT;
        private List<Endpoint> advertisedEndpoints = List.of();

        private Builder(BrokerConfig config) {
            this.config = config;
        }

        /** How this broker's fetchers reach other brokers (the network binding's client). */
        public Builder transport(ReplicaTransport value) {
            this.transport = Objects.requireNonNull(value, "transport");
            return this;
        }

        /**
         * The controller quorum: one {@link ControllerApi} per controller node id (an RPC client, or
         * in-JVM controllers), reached through a {@link QuorumControllerChannel} the broker owns
         * ({@code request.timeout.ms} per attempt, {@code retry.backoff.ms} doubling to
         * {@code retry.backoff.max.ms}).
         */
        public Builder controllerEndpoints(Map<Integer, ? extends ControllerApi> endpoints) {
            if (endpoints.isEmpty()) {
                throw new IllegalArgumentException("Broker " + config.nodeId() + " needs at least one controller endpoint");
            }
            this.controllerEndpoints = new TreeMap<>(endpoints);
            this.controllerChannel = null;
            this.metadataChannel = null;
            return this;
        }

        /** Instead of endpoints: a ready controller channel and metadata channel (the caller owns them). */
        public Builder controllerChannels(ControllerChannel controller, MetadataChannel metadata) {
            this.controllerChannel = Objects.requireNonNull(controller, "controller");
            this.metadataChannel = Objects.requireNonNull(metadata, "metadata");
            this.controllerEndpoints = null;
            return this;
        }

        /**
         * LDR-4: the listeners this broker advertises (Kafka's {@code advertised.listeners}), carried
         * by every registration so that other brokers' fetchers and clients find it through metadata.
         * Default none (the in-memory network dials broker ids, not addresses).
         *
         * @throws IllegalArgumentException for more than {@link Endpoint#MAX_ENDPOINTS} or a repeated listener name
         */
        public Builder advertisedEndpoints(List<Endpoint> endpoints) {
            this.advertisedEndpoints = Endpoint.checkedList(config.nodeId(), endpoints);
            return this;
        }

        /** Where the broker exposes its request handlers once it can serve (the network binding's server). */
        public Builder requestServer(RequestServer value) {
            this.requestServer = Objects.requireNonNull(value, "requestServer");
            return this;
        }

        /** Run on this scheduler (the caller owns and closes it) instead of threads of the broker's own. */
        public Builder scheduler(Scheduler value) {
            this.scheduler = Objects.requireNonNull(value, "scheduler");
            return this;
        }

        /**
         * The durability (and fault hook) of each log directory, asked once per directory at start:
         * e.g. {@code dir -> FileSync.withoutFsync()} in tests, or {@code FileSync.withFaults(...)}
         * per directory to fail one disk.
         */
        public Builder fileSync(Function<Path, FileSync> perDirectory) {
            this.fileSyncs = Objects.requireNonNull(perDirectory, "fileSync");
            return this;
        }

        /** The metrics (e.g. {@code JmxReplicationMetrics.forBroker(id, time)}). */
        public Builder metrics(ReplicationMetrics value) {
            this.metrics = Objects.requireNonNull(value, "metrics");
            return this;
        }

        /**
         * Told after the broker's own handling of a failed log directory (it reports the offline
         * replicas at once; with no directory left it stops): e.g. to exit the process.
         */
        public Builder logDirFailureListener(LogDirFailureListener value) {
            this.logDirFailureListener = Objects.requireNonNull(value, "logDirFailureListener");
            return this;
        }

        /** How the metadata follower polls. */
        public Builder metadataFollowerSettings(MetadataFollower.Settings value) {
            this.followerSettings = Objects.requireNonNull(value, "metadataFollowerSettings");
            return this;
        }

        /**
         * The broker, not started.
         *
         * @throws IllegalStateException if the transport or the controller is missing
         */
        public InsyncBroker build() {
            if (transport == null) {
                throw new IllegalStateException("Broker " + config.nodeId() + " needs a transport to other brokers");
            }
            if (controllerEndpoints == null && controllerChannel == null) {
                throw new IllegalStateException("Broker " + config.nodeId()
                        + " needs the controller: controllerEndpoints(...) or controllerChannels(...)");
            }
            return new InsyncBroker(this);
        }
    }
}
