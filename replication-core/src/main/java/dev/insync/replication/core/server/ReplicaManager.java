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

import dev.insync.replication.core.alter.AlterPartitionManager;
import dev.insync.replication.core.config.ReplicationConfig;
import dev.insync.replication.core.config.TopicConfigs;
import dev.insync.replication.core.fetcher.FetcherConfig;
import dev.insync.replication.core.fetcher.FetcherListener;
import dev.insync.replication.core.fetcher.FetcherManager;
import dev.insync.replication.core.fetcher.FollowerPartition;
import dev.insync.replication.core.fetcher.InitialFetchState;
import dev.insync.replication.core.metadata.BrokerRegistration;
import dev.insync.replication.core.metadata.ControllerChannel;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.metrics.ReplicationMetrics;
import dev.insync.replication.core.partition.LeaderAppendResult;
import dev.insync.replication.core.partition.LocalLog;
import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.core.partition.PartitionFetchResult;
import dev.insync.replication.core.partition.PartitionListener;
import dev.insync.replication.core.partition.PartitionSettings;
import dev.insync.replication.core.partition.ReplicaDescription;
import dev.insync.replication.core.partition.ReplicaEligibility;
import dev.insync.replication.core.produce.Acks;
import dev.insync.replication.core.produce.DelayedProduce;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.purgatory.DelayedOperationPurgatory;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.core.rpc.RecordsForm;
import dev.insync.replication.core.rpc.ReplicaTransport;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.Log;
import dev.insync.replication.log.LogAppendInfo;
import dev.insync.replication.log.LogDirectory;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.checkpoint.PartitionMetadataFile;
import dev.insync.replication.log.record.MemoryRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

/**
 * One broker's replication (Kafka's {@code ReplicaManager}): its log directories (Kafka's
 * {@code log.dirs}), the partitions it hosts, the produce and fetch purgatories, the follower
 * fetchers, the AlterPartition manager and the periodic ISR-expiration and HW-checkpoint tasks.
 *
 * <p>Log directories (§9): a new partition's log goes to the online directory holding the fewest
 * logs (Kafka's default placement; the first such in the order given); a partition whose log exists
 * already stays where it is. An I/O failure takes only the directory it happened in offline: its
 * partitions answer {@code KAFKA_STORAGE_ERROR} (FET-2, PRO), are no longer fetched, and are listed
 * by {@link #offlineReplicas()} for the controller (the embedder's heartbeat); the others keep being
 * served. With no online directory left the manager shuts itself down. The embedder learns both
 * through its {@link LogDirFailureListener}.
 *
 * <p>The embedder's server calls {@link #produce}, {@link #fetch} and {@link #applyMetadataDelta}
 * on its own request-handling thread (or the simulator's loop); they do their work on the calling
 * thread and answer with futures that complete later when a request waits in a purgatory. All
 * background work runs on executors obtained from the {@link Scheduler} given here, so a
 * simulator's single loop makes the whole broker deterministic. Call {@link #startup()} once,
 * then {@link #shutdown()} or {@link #closeCleanly(long)} once.
 */
public final class ReplicaManager {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicaManager.class);
    private static final Comparator<TopicPartition> TOPIC_PARTITION_ORDER = Comparator
            .comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);
    private static final Comparator<Partition> BY_TOPIC_PARTITION = Comparator
            .comparing(Partition::topicPartition, TOPIC_PARTITION_ORDER);
    /** A read that satisfies nothing and answers nothing (the fetch stays parked). */
    private static final DelayedFetch.Read NOTHING_NEW = new DelayedFetch.Read(null, false);
    /** How often recovery points and log start offsets are checkpointed (Kafka's default, 60 s). */
    static final long OFFSET_CHECKPOINT_INTERVAL_MS = 60_000L;

    /** Gauge ({@code kafka.server:type=ReplicaFetcherManager,name=FailedPartitionsCount}): followed partitions marked failed (FOL-6). */
    public static final String FAILED_PARTITIONS_COUNT = "FailedPartitionsCount";

    private final int brokerId;
    private final ReplicationConfig config;
    /** Kafka's {@code log.dirs}, in the order given. */
    private final List<LogDirectory> logDirectories;
    private final LogDirFailureListener logDirFailureListener;
    /** Runs the shutdown of a broker whose every log directory failed (Kafka's LogDirFailureHandler thread). */
    private final Executor logDirFailureExecutor;
    private final Scheduler scheduler;
    private final LongSupplier brokerEpoch;
    private final ReplicationMetrics metrics;
    private final String logPrefix;

    private final Executor backgroundExecutor;
    private final TopicConfigs topicConfigs;
    private final AlterPartitionManager alterPartitionManager;
    private final FetcherManager fetcherManager;
    private final DelayedOperationPurgatory<DelayedProduce> producePurgatory;
    private final DelayedOperationPurgatory<DelayedFetch> fetchPurgatory;
    private final PartitionSettings partitionSettings;
    private final LogFlusher logFlusher;

    private final Map<TopicPartition, Partition> partitions = new ConcurrentHashMap<>();
    /** FET-7: the followers' fetch sessions this broker keeps as a leader; null when sessions are off. */
    private final FetchSessionCache fetchSessions;
    /**
     * FET-7: partitions whose leader log start moved (retention, DeleteRecords), noted by the log's
     * listener under its lock; the next session fetch has the sessions holding them re-check them.
     */
    private final Queue<TopicPartition> logStartMoves = new ConcurrentLinkedQueue<>();
    /** FET-7: log start moves of any hosted log so far; the follower's session builds look at every partition after one. */
    private final LongAdder localLogStartMoves = new LongAdder();
    /**
     * Raised after every creation or removal in {@link #partitions} (under the state-change lock):
     * a parked fetch's recorded Partition objects are still the hosted ones while it is unchanged.
     */
    private volatile long hostedGeneration;
    /** See {@link #sortedPartitions()}. */
    private volatile SortedPartitions sortedPartitions;
    /** See {@link #partitionReads()}. */
    private final LongAdder partitionReads = new LongAdder();
    private final Map<Integer, BrokerRegistration> brokers = new ConcurrentHashMap<>();
    /** The latest registration of every partition in metadata, hosted here or not (known vs unknown topic). */
    private final Map<TopicPartition, PartitionRegistration> metadataPartitions = new ConcurrentHashMap<>();

    /** Serializes metadata application (Kafka's {@code replicaStateChangeLock}). */
    private final Object stateChangeLock = new Object();
    private final List<Scheduler.Cancellable> periodicTasks = new ArrayList<>();
    /** Log directories an I/O failure took offline (§9); they are closed and never used again. */
    private final Set<LogDirectory> offlineLogDirs = ConcurrentHashMap.newKeySet();
    /**
     * Replicas assigned here that have no log in an online directory while some directory is
     * offline: their log may be in the offline one, so none is created elsewhere (see
     * {@link #getOrCreatePartition}); reported by {@link #offlineReplicas()} until unassigned.
     */
    private final Set<TopicPartition> withoutLogWhileDirOffline = ConcurrentHashMap.newKeySet();
    /** The directory holding each hosted partition's log (also while it is offline). */
    private final Map<TopicPartition, LogDirectory> logDirOfPartition = new ConcurrentHashMap<>();
    /** Logs in each directory, for placement; changed under the state-change lock. */
    private final Map<LogDirectory, Integer> logCounts = new ConcurrentHashMap<>();
    /** The id of every topic metadata named one (Kafka's topic ids); under the state-change lock. */
    private final Map<String, UUID> topicIds = new HashMap<>();
    private volatile boolean started;
    private volatile boolean shutDown;
    private volatile long lastAppliedMetadataOffset = -1L;

    /**
     * A builder of broker {@code brokerId}'s replica manager:
     *
     * <pre>{@code
     * ReplicaManager rm = ReplicaManager.builder(1).config(config).logDirectories(dirs).scheduler(scheduler)
     *         .transport(transport).controller(controller).brokerEpoch(lifecycle::brokerEpoch).build();
     * }</pre>
     */
    public static Builder builder(int brokerId) {
        return new Builder(brokerId);
    }

    private ReplicaManager(Builder b) {
        int brokerId = b.brokerId;
        ReplicationConfig config = b.config;
        LongSupplier brokerEpoch = b.require(b.brokerEpoch, "brokerEpoch");
        Scheduler scheduler = b.require(b.scheduler, "scheduler");
        ReplicaTransport transport = b.require(b.transport, "transport");
        ControllerChannel controller = b.require(b.controller, "controller");
        List<LogDirectory> logDirectories = b.require(b.logDirectories, "logDirectories");
        if (brokerId < 0) {
            throw new IllegalArgumentException("Negative broker id " + brokerId);
        }
        this.brokerId = brokerId;
        this.config = config;
        this.logDirectories = List.copyOf(logDirectories);
        if (this.logDirectories.isEmpty()) {
            throw new IllegalArgumentException("Broker " + brokerId + " needs at least one log directory");
        }
        if (this.logDirectories.stream().map(LogDirectory::path).distinct().count() != this.logDirectories.size()) {
            throw new IllegalArgumentException("Broker " + brokerId + " has a log directory twice: "
                    + this.logDirectories.stream().map(LogDirectory::path).toList());
        }
        this.logDirFailureListener = b.logDirFailureListener;
        this.logDirectories.forEach(dir -> logCounts.put(dir, dir.logs().size()));
        this.scheduler = scheduler;
        this.brokerEpoch = brokerEpoch;
        this.metrics = b.metrics;
        this.logPrefix = "[ReplicaManager broker=" + brokerId + "] ";
        this.topicConfigs = new TopicConfigs(config);
        this.backgroundExecutor = scheduler.newSerialExecutor("ReplicaManager-" + brokerId);
        this.logDirFailureExecutor = scheduler.newSerialExecutor("LogDirFailureHandler-" + brokerId);
        this.alterPartitionManager = new AlterPartitionManager(brokerId, brokerEpoch, controller,
                scheduler.newSerialExecutor("AlterPartitionManager-" + brokerId), scheduler,
                config.alterPartitionRetryBackoffMs(), config.requestTimeoutMs());
        this.producePurgatory = DelayedOperationPurgatory.create("Produce-" + brokerId, scheduler, backgroundExecutor);
        this.fetchPurgatory = DelayedOperationPurgatory.create("Fetch-" + brokerId, scheduler, backgroundExecutor);
        this.fetcherManager = new FetcherManager(FetcherConfig.from(brokerId, config), scheduler, transport,
                brokerEpoch, new FollowerEvents(), localLogStartMoves::sum);
        this.fetchSessions = config.fetchSessionsEnabled()
                ? new FetchSessionCache(config.fetchSessionCacheSlots(), FetchSessionCache.DEFAULT_EVICTION_MS) : null;
        this.logFlusher = new LogFlusher(scheduler.newSerialExecutor("LogFlusher-" + brokerId), new FlushEvents());
        this.partitionSettings = new PartitionSettings(brokerId, brokerEpoch, scheduler.time(),
                config.replicaLagTimeMaxMs(), new MetadataEligibility(), alterPartitionManager::submit,
                new PartitionEvents());
    }

    /**
     * Builds a {@link ReplicaManager}. Required: {@link #logDirectories}, {@link #scheduler}, {@link #transport},
     * {@link #controller} and {@link #brokerEpoch}. Defaults: {@link ReplicationConfig#defaults()},
     * {@link ReplicationMetrics#NOOP}, {@link LogDirFailureListener#NONE}.
     */
    public static final class Builder {
        private final int brokerId;
        private ReplicationConfig config = ReplicationConfig.defaults();
        private List<LogDirectory> logDirectories;
        private Scheduler scheduler;
        private ReplicaTransport transport;
        private ControllerChannel controller;
        private LongSupplier brokerEpoch;
        private ReplicationMetrics metrics = ReplicationMetrics.NOOP;
        private LogDirFailureListener logDirFailureListener = LogDirFailureListener.NONE;

        private Builder(int brokerId) {
            this.brokerId = brokerId;
        }

        /** Replication settings (Kafka's property names). */
        public Builder config(ReplicationConfig value) {
            this.config = Objects.requireNonNull(value, "config");
            return this;
        }

        /**
         * The broker's open log directories (Kafka's {@code log.dirs}): at least one, each path once, in the
         * order new logs are placed by (§9). Their HW checkpoints restored the HWs when they opened (HW-5).
         */
        public Builder logDirectories(List<LogDirectory> dirs) {
            this.logDirectories = List.copyOf(Objects.requireNonNull(dirs, "logDirectories"));
            return this;
        }

        /** The broker's only log directory: {@code logDirectories(List.of(dir))}. */
        public Builder logDirectory(LogDirectory dir) {
            return logDirectories(List.of(Objects.requireNonNull(dir, "logDirectory")));
        }

        /** The clock, timers and serial executors every background task runs on. */
        public Builder scheduler(Scheduler value) {
            this.scheduler = Objects.requireNonNull(value, "scheduler");
            return this;
        }

        /** How the followers' fetchers reach leaders. */
        public Builder transport(ReplicaTransport value) {
            this.transport = Objects.requireNonNull(value, "transport");
            return this;
        }

        /** AlterPartition towards the controller. */
        public Builder controller(ControllerChannel value) {
            this.controller = Objects.requireNonNull(value, "controller");
            return this;
        }

        /** This broker's current epoch (from registration, e.g. {@code lifecycle::brokerEpoch}), read when needed. */
        public Builder brokerEpoch(LongSupplier value) {
            this.brokerEpoch = Objects.requireNonNull(value, "brokerEpoch");
            return this;
        }

        /** Where gauges and ISR events go. */
        public Builder metrics(ReplicationMetrics value) {
            this.metrics = Objects.requireNonNull(value, "metrics");
            return this;
        }

        /** Told when a log directory goes offline, and when none is left (§9). */
        public Builder logDirFailureListener(LogDirFailureListener value) {
            this.logDirFailureListener = Objects.requireNonNull(value, "logDirFailureListener");
            return this;
        }

        /**
         * The manager, not started ({@link ReplicaManager#startup()}).
         *
         * @throws IllegalStateException naming what is missing when a required setting was not given
         * @throws IllegalArgumentException for a negative broker id, no log directory or one listed twice
         */
        public ReplicaManager build() {
            return new ReplicaManager(this);
        }

        private <T> T require(T value, String name) {
            if (value == null) {
                throw new IllegalStateException("ReplicaManager of broker " + brokerId + ": " + name + " not set");
            }
            return value;
        }
    }

    // ------------------------------------------------------------------------------------------ lifecycle

    /**
     * Starts the periodic tasks: ISR expiration every {@code replica.lag.time.max.ms / 2} (ISR-1) and
     * the HW checkpoint every {@code replica.high.watermark.checkpoint.interval.ms} (HW-5); registers
     * the gauges.
     */
    public synchronized void startup() {
        if (started) {
            throw new IllegalStateException(logPrefix + "already started");
        }
        started = true;
        long isrIntervalMs = Math.max(1L, config.replicaLagTimeMaxMs() / 2);
        periodicTasks.add(scheduler.schedulePeriodically(backgroundExecutor, this::maybeShrinkIsr, isrIntervalMs,
                isrIntervalMs));
        long hwIntervalMs = config.replicaHighWatermarkCheckpointIntervalMs();
        periodicTasks.add(scheduler.schedulePeriodically(backgroundExecutor, this::checkpointHighWatermarks,
                hwIntervalMs, hwIntervalMs));
        // Kafka's log.flush.offset.checkpoint.interval.ms / log.flush.start.offset.checkpoint.interval.ms.
        periodicTasks.add(scheduler.schedulePeriodically(backgroundExecutor, this::checkpointRecoveryPoints,
                OFFSET_CHECKPOINT_INTERVAL_MS, OFFSET_CHECKPOINT_INTERVAL_MS));
        long flushMs = config.logConfig().flushMs();
        if (flushMs < Long.MAX_VALUE) {
            // LOG-11: a quiet log gets no append to trigger its flush.ms flush.
            long intervalMs = Math.max(1L, flushMs);
            periodicTasks.add(scheduler.schedulePeriodically(backgroundExecutor, this::flushDueLogs, intervalMs,
                    intervalMs));
        }
        metrics.registerGauge(ReplicationMetrics.UNDER_REPLICATED_PARTITIONS,
                () -> partitions.values().stream().filter(Partition::isUnderReplicated).count());
        metrics.registerGauge(ReplicationMetrics.UNDER_MIN_ISR_PARTITION_COUNT,
                () -> partitions.values().stream().filter(Partition::isUnderMinIsr).count());
        metrics.registerGauge(ReplicationMetrics.MAX_LAG, fetcherManager::maxLag);
        metrics.registerGauge(FAILED_PARTITIONS_COUNT, () -> fetcherManager.failedPartitions().size());
        LOG.info("{}Started with {} logs in {}", logPrefix, logCounts.values().stream().mapToInt(Integer::intValue).sum(),
                logDirectories.stream().map(LogDirectory::path).toList());
    }

    /**
     * Stops everything and closes the online log directories without the clean-shutdown marker:
     * fetchers (each finishes the partition it is writing, never interrupted), periodic tasks, then
     * every waiting produce and fetch is answered (PRO-5: waiting acks=all ends with
     * NOT_LEADER_OR_FOLLOWER), HWs are checkpointed one last time. A request still running meanwhile
     * gets NOT_LEADER_OR_FOLLOWER, not a storage error, if its log closes under it. Idempotent.
     */
    public void shutdown() {
        if (stopComponents()) {
            closeLogDirectories(LogDirectory::close);
        }
    }

    /**
     * LDR-4: as {@link #shutdown()}, but flushes and checkpoints every log and leaves the
     * clean-shutdown marker with {@code brokerEpoch} (LOG-9) in every online log directory, so the
     * next start counts as clean.
     *
     * @throws dev.insync.replication.log.ApiException the first directory's failure to close cleanly (the
     *         others are still closed)
     */
    public void closeCleanly(long brokerEpochAtShutdown) {
        if (stopComponents()) {
            closeLogDirectories(dir -> dir.closeCleanly(brokerEpochAtShutdown));
        }
    }

    private synchronized boolean stopComponents() {
        if (shutDown) {
            return false;
        }
        shutDown = true;
        periodicTasks.forEach(Scheduler.Cancellable::cancel);
        periodicTasks.clear();
        fetcherManager.shutdown();
        Set<TopicPartition> hosted;
        synchronized (stateChangeLock) {
            hosted = new LinkedHashSet<>(partitions.keySet());
            // Waiting requests find no partition any more and end now (PRO-5).
            partitions.clear();
            hostedGeneration++;
        }
        hosted.forEach(this::wakePurgatories);
        if (fetchSessions != null) {
            fetchSessions.removeAll().forEach(FetchSession::close);
        }
        producePurgatory.shutdown();
        fetchPurgatory.shutdown();
        alterPartitionManager.close();
        metrics.removeGauge(ReplicationMetrics.UNDER_REPLICATED_PARTITIONS);
        metrics.removeGauge(ReplicationMetrics.UNDER_MIN_ISR_PARTITION_COUNT);
        metrics.removeGauge(ReplicationMetrics.MAX_LAG);
        metrics.removeGauge(FAILED_PARTITIONS_COUNT);
        return true;
    }

    /** Checkpoints and closes every online log directory (offline ones were closed when they failed). */
    private void closeLogDirectories(java.util.function.Consumer<LogDirectory> close) {
        RuntimeException failure = null;
        for (LogDirectory dir : logDirectories) {
            if (offlineLogDirs.contains(dir)) {
                continue;
            }
            try {
                dir.checkpointHighWatermarks();
            } catch (RuntimeException e) {
                LOG.error("{}Final HW checkpoint of {} failed", logPrefix, dir.path(), e);
            }
            try {
                close.accept(dir);
            } catch (RuntimeException e) {
                LOG.error("{}Closing log directory {} failed", logPrefix, dir.path(), e);
                failure = failure == null ? e : failure;
            }
        }
        LOG.info("{}Shut down", logPrefix);
        if (failure != null) {
            throw failure;
        }
    }

    // -------------------------------------------------------------------------------------------- produce

    /**
     * PRO-2..PRO-5: appends to each partition this broker leads ({@link Partition#appendAsLeader}).
     * {@link Acks#NONE} and {@link Acks#LEADER} complete after the local append; {@link Acks#ALL} waits
     * in the produce purgatory until the HW passes the appended records, at most {@code timeoutMs}.
     * LOG-11 group commit: an append that made a flush due ({@code flush.messages} / {@code flush.ms})
     * does not force the disk on this thread; the log is handed to the broker's flusher, and a
     * {@code LEADER} or {@code ALL} produce also waits (in the purgatory, at most {@code timeoutMs}) until
     * the leader's recovery point passes its records, so an acknowledged record is on the leader's disk
     * as when Kafka flushes inside the append. Every call completes exactly once; every partition of the
     * request gets a result, carrying the leader epoch its records were appended in on success.
     * Acks from the wire are parsed with {@link Acks#forCode} first (PRO-1).
     */
    public CompletableFuture<Map<TopicPartition, ProduceResult>> produce(Map<TopicPartition, MemoryRecords> entries,
                                                                         Acks acks, long timeoutMs) {
        Objects.requireNonNull(entries, "entries");
        Objects.requireNonNull(acks, "acks");
        CompletableFuture<Map<TopicPartition, ProduceResult>> future = new CompletableFuture<>();
        Map<TopicPartition, ProduceResult> results = new LinkedHashMap<>();
        Map<TopicPartition, DelayedProduce.PartitionWait> waits = new LinkedHashMap<>();
        for (Map.Entry<TopicPartition, MemoryRecords> e : entries.entrySet()) {
            TopicPartition tp = e.getKey();
            ProduceResult result = appendToLeader(tp, e.getValue(), acks, waits);
            results.put(tp, result);
        }
        // FET-5: every append checks the fetch purgatory, once the whole request is appended (as Kafka's
        // action queue does): a follower's parked fetch woken by the first partition would otherwise carry
        // that partition alone, and the request's other partitions would wait one more fetch round trip
        // for their HW.
        for (Map.Entry<TopicPartition, ProduceResult> r : results.entrySet()) {
            if (r.getValue().error() == Errors.NONE) {
                fetchPurgatory.checkAndComplete(r.getKey());
                wakeFetchSessions(r.getKey());
            }
        }
        boolean anyAppended = false;
        boolean anyAwaitsFlush = false;
        for (DelayedProduce.PartitionWait w : waits.values()) {
            anyAppended |= w.appendResult().error() == Errors.NONE;
            anyAwaitsFlush |= w.awaitFlush();
        }
        if (acks == Acks.NONE || !anyAppended || shutDown || (acks == Acks.LEADER && !anyAwaitsFlush)) {
            future.complete(Collections.unmodifiableMap(results));
            return future;
        }
        // PRO-3: park until the HW (acks=-1) and the leader's flush (a flush was due) pass every appended
        // partition; failed ones keep their error.
        DelayedProduce delayed = new DelayedProduce(timeoutMs, waits, this::onlinePartition);
        // The delayed produce's answer is an unmodifiable map of its own already.
        delayed.result().thenAccept(future::complete);
        try {
            producePurgatory.tryCompleteElseWatch(delayed, delayed.keys());
        } catch (IllegalStateException shuttingDown) {
            delayed.forceComplete();
        }
        return future;
    }

    private ProduceResult appendToLeader(TopicPartition tp, MemoryRecords records, Acks acks,
                                         Map<TopicPartition, DelayedProduce.PartitionWait> waits) {
        ProduceResult result = tryAppendToLeader(tp, records, acks, waits);
        if (result.error() != Errors.NONE) {
            // Nothing to wait for; DelayedProduce keeps this error as the partition's answer.
            waits.put(tp, new DelayedProduce.PartitionWait(-1L, ProduceResult.failed(result.error())));
        }
        return result;
    }

    private ProduceResult tryAppendToLeader(TopicPartition tp, MemoryRecords records, Acks acks,
                                            Map<TopicPartition, DelayedProduce.PartitionWait> waits) {
        Partition partition = partitions.get(tp);
        if (partition == null) {
            return ProduceResult.failed(notHostedError(tp));
        }
        LeaderAppendResult result;
        recordIdleSessionFetches(tp); // FET-7: before the LEO moves
        try {
            result = partition.appendAsLeader(records, acks);
        } catch (ApiException e) {
            Errors error = e.error() == Errors.KAFKA_STORAGE_ERROR ? onStorageFailure(tp, e) : e.error();
            LOG.debug("{}Produce to {} failed: {}", logPrefix, tp, e.toString());
            return ProduceResult.failed(error);
        } catch (UncheckedIOException e) {
            return ProduceResult.failed(onStorageFailure(tp, e));
        }
        LogAppendInfo info = result.info();
        if (result.highWatermarkIncreased()) {
            completeProducesUpToHighWatermark(tp, partition);
        }
        if (info.flushDue()) {
            // LOG-11 group commit: the flusher forces it (with whatever else is appended until it runs).
            logFlusher.requestFlush(tp, partition.localLog());
        }
        ProduceResult appended = new ProduceResult(Errors.NONE, info.firstOffset(), info.logAppendTimeMs(),
                result.leaderEpoch());
        waits.put(tp, new DelayedProduce.PartitionWait(info.lastOffset() + 1, appended, acks == Acks.ALL,
                info.flushDue() && acks != Acks.NONE));
        return appended;
    }

    // ---------------------------------------------------------------------------------------------- fetch

    /**
     * FET-1..FET-6: answers a follower or consumer fetch. Reads every partition once with
     * {@link Partition#fetch} (recording a follower's position, FET-4); if fewer than {@code minBytes}
     * are available and nothing failed
     * or diverged, parks the fetch for up to {@code maxWaitMs} (FET-5). The response holds at most
     * {@code maxBytes}, but at least one batch for the first partition with data (FET-6, LOG-3).
     * The records are copied into the heap ({@link RecordsForm#HEAP}).
     */
    public CompletableFuture<FetchResponse> fetch(FetchRequest request) {
        return fetch(request, RecordsForm.HEAP);
    }

    /**
     * {@link #fetch(FetchRequest)} with the records read in {@code form}: a plaintext network server
     * asks for {@link RecordsForm#FILE} and sends the segment bytes to the socket without copying them
     * (NET-3); a parked fetch reads in the same form when it completes.
     */
    public CompletableFuture<FetchResponse> fetch(FetchRequest request, RecordsForm form) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(form, "form");
        if (request.sessionId() != FetchRequest.NO_SESSION_ID || request.sessionEpoch() != FetchRequest.FINAL_EPOCH) {
            CompletableFuture<FetchResponse> inSession = sessionFetch(request, form);
            if (inSession != null) {
                return inSession;
            }
        }
        boolean mayPark = request.maxWaitMs() > 0 && !request.partitions().isEmpty();
        // A fetch that may park records what its first read saw; parked, it never sends that read's
        // answer, so the answer is built only if it is sent now.
        ParkedFetch snapshot = mayPark ? new ParkedFetch(request, hostedGeneration) : null;
        DelayedFetch.Read first = read(request, form, true, null, snapshot, !mayPark || shutDown);
        CompletableFuture<FetchResponse> future = new CompletableFuture<>();
        if (!mayPark || first.satisfied() || shutDown) {
            future.complete(first.response() != null ? first.response()
                    : read(request, form, false, null, null, true).response());
            return future;
        }
        ParkedFetch parked = snapshot.isUsable() ? snapshot : null;
        DelayedFetch delayed = new DelayedFetch(request, wakeCheck(parked, form),
                r -> read(r, form, false, parked, null, true), future);
        try {
            fetchPurgatory.tryCompleteElseWatch(delayed, request.partitions().keySet());
        } catch (IllegalStateException shuttingDown) {
            delayed.forceComplete();
        }
        return future;
    }

    // ------------------------------------------------------------------------------ fetch sessions

    /**
     * FET-7 (Kafka's KIP-227): a fetch carrying session fields. A follower's full fetch asking for a
     * session (epoch 0) opens one, unless sessions are off or the cache is full; an incremental one
     * is checked against its session (the id, the follower's id and broker epoch, the epoch) and
     * changes it: the forgotten partitions leave it, the named ones join it or get their new data.
     * Then every partition of the session is read (FET-4 recording each as a full fetch would),
     * except the idle ones ({@link FetchSession}), and the answer holds, for a full fetch, every
     * partition, for an incremental one, the partitions named plus those with news for the follower.
     * FET-5 as for any fetch; parked, the fetch is watched under its session, which an append to, or
     * a role or storage change of, any of its partitions wakes.
     *
     * @return null when the fetch is to be served without a session: it asks to close one (epoch -1),
     *         or asks to open one that is not opened (a consumer, sessions off, cache full)
     */
    private CompletableFuture<FetchResponse> sessionFetch(FetchRequest request, RecordsForm form) {
        long nowMs = scheduler.time().milliseconds();
        FetchSession session;
        if (request.isFull()) {
            if (request.sessionId() != FetchRequest.NO_SESSION_ID) {
                closeSession(request.sessionId(), request.replicaId());
            }
            if (request.sessionEpoch() == FetchRequest.FINAL_EPOCH || fetchSessions == null
                    || !request.isFromFollower() || shutDown) {
                return null;
            }
            FetchSessionCache.Opened opened = fetchSessions.open(request.replicaId(), request.brokerEpoch(), nowMs,
                    brokerEpoch.getAsLong());
            opened.ended().forEach(this::endSession);
            session = opened.session();
            if (session == null) {
                LOG.debug("{}Fetch session cache full; serving replica {} without a session", logPrefix,
                        request.replicaId());
                return null;
            }
            session.acceptOpening(nowMs);
        } else {
            session = fetchSessions == null ? null : fetchSessions.get(request.sessionId());
            if (session == null || session.replicaId != request.replicaId()
                    || session.brokerEpoch != request.brokerEpoch()) {
                return CompletableFuture.completedFuture(new FetchResponse(Errors.FETCH_SESSION_ID_NOT_FOUND, Map.of()));
            }
            OptionalLong registered = new MetadataEligibility().registeredBrokerEpoch(request.replicaId());
            if (session.brokerEpoch != -1L && registered.isPresent() && session.brokerEpoch < registered.getAsLong()) {
                // FET-2: an older incarnation of the follower; its fetch of every partition would be refused.
                closeSession(session.id, session.replicaId);
                return CompletableFuture.completedFuture(new FetchResponse(Errors.FETCH_SESSION_ID_NOT_FOUND, Map.of()));
            }
            if (!session.tryAccept(request.sessionEpoch(), nowMs)) {
                return CompletableFuture.completedFuture(new FetchResponse(Errors.INVALID_FETCH_SESSION_EPOCH, Map.of()));
            }
        }
        for (TopicPartition tp : request.forgotten()) {
            FetchSession.IdleFetch left = session.remove(tp);
            if (left != null) {
                fetchSessions.unindex(tp, session);
                applyIdleFetch(left);
            }
        }
        List<TopicPartition> named = new ArrayList<>(request.partitionCount());
        for (int k = 0; k < request.partitionCount(); k++) {
            TopicPartition tp = request.topicPartition(k);
            if (session.put(tp, request.partitionData(k))) {
                fetchSessions.index(tp, session);
            }
            named.add(tp);
        }
        SessionFetch fetch = new SessionFetch(session, request, form, named);
        boolean satisfied = fetch.read(sessionReads(session, named), nowMs, true);
        CompletableFuture<FetchResponse> future = new CompletableFuture<>();
        if (satisfied || request.maxWaitMs() <= 0 || session.size() == 0 || shutDown) {
            future.complete(fetch.response());
            return future;
        }
        DelayedFetch delayed = new DelayedFetch(request,
                r -> fetch.wake(scheduler.time().milliseconds()) ? READY : NOTHING_NEW,
                r -> new DelayedFetch.Read(fetch.finish(), true), future);
        try {
            fetchPurgatory.tryCompleteElseWatch(delayed, List.of(session));
        } catch (IllegalStateException shuttingDown) {
            delayed.forceComplete();
        }
        return future;
    }

    /** A read that satisfies a parked session fetch; its answer is built once, when it completes. */
    private static final DelayedFetch.Read READY = new DelayedFetch.Read(null, true);

    /**
     * One fetch in a session: what its reads answered, and its FET-6 byte accounting. A partition
     * read again (a wake, the completion) replaces its answer. Guarded by this; never held while
     * anything but a partition's read lock is taken (re-reads do not record, FET-4, so they call
     * nothing back).
     */
    private final class SessionFetch {
        private final FetchSession session;
        private final FetchRequest request;
        private final RecordsForm form;
        private final Set<TopicPartition> named;
        private final Map<FetchSession.SessionPartition, FetchResponse.PartitionData> answers =
                new java.util.IdentityHashMap<>();
        private int remainingBytes;
        private int answersWithData;
        private long bytesReadable;
        private boolean satisfiedByState;
        /**
         * A wake's read satisfied the fetch: every answer is as current as a re-read would make it
         * (the wake read every partition marked since the fetch's last read; the others have not
         * changed in a way that marks them), so {@link #finish} sends them without reading again.
         */
        private boolean answeredByWake;

        SessionFetch(FetchSession session, FetchRequest request, RecordsForm form, List<TopicPartition> named) {
            this.session = session;
            this.request = request;
            this.form = form;
            this.named = named.isEmpty() ? Set.of() : new java.util.HashSet<>(named);
            this.remainingBytes = request.maxBytes();
        }

        /**
         * Reads {@code reads} (FET-4 recording them with {@code updateFetchState}: the fetch's first read
         * only), wakes the purgatories for HWs the reads raised, and returns whether the fetch is
         * satisfied (FET-5): an error or divergence, or {@code minBytes} readable.
         */
        boolean read(List<FetchSession.PartitionRead> reads, long nowMs, boolean updateFetchState) {
            List<Partition> hwIncreased = null;
            List<FetchSession.IdleFetch> deferred = null;
            boolean satisfied;
            synchronized (this) {
                for (FetchSession.PartitionRead read : reads) {
                    FetchSession.SessionPartition sp = read.partition();
                    TopicPartition tp = sp.topicPartition;
                    FetchRequest.PartitionData data = read.data();
                    FetchResponse.PartitionData previous = answers.get(sp);
                    if (previous != null && previous.records().sizeInBytes() > 0) {
                        // Read again: its earlier records no longer count.
                        remainingBytes += previous.records().sizeInBytes();
                        bytesReadable -= Math.min(previous.records().sizeInBytes(), data.partitionMaxBytes());
                        answersWithData--;
                    }
                    Partition partition = partitions.get(tp);
                    PartitionFetchResult result = readPartition(tp, partition, request, data, remainingBytes, nowMs,
                            updateFetchState, form);
                    FetchResponse.PartitionData answer = result.data();
                    hwIncreased = withHwIncrease(hwIncreased, result, partition);
                    boolean dropped = false;
                    int size = answer.records().sizeInBytes();
                    if (size > 0) {
                        if (answersWithData > 0 && size > remainingBytes) {
                            // FET-6: only the first partition with data may exceed the response bound.
                            answer = new FetchResponse.PartitionData(answer.error(), answer.highWatermark(),
                                    answer.lastStableOffset(), answer.logStartOffset(), answer.logEndOffset(),
                                    MemoryRecords.EMPTY, answer.divergingEpoch());
                            dropped = true;
                        } else {
                            answersWithData++;
                            remainingBytes -= size;
                            bytesReadable += Math.min(size, data.partitionMaxBytes());
                        }
                    }
                    if (answer.error() != Errors.NONE || answer.divergingEpoch().isPresent()) {
                        satisfiedByState = true; // FET-5: errors and divergence answer at once
                    }
                    answers.put(sp, answer);
                    boolean mayIdle = partition != null && partition == read.hosted()
                            && partition.mayIdleInFetchSession(session.replicaId);
                    FetchSession.IdleFetch left = session.afterRead(read, partition, answer, dropped, mayIdle,
                            updateFetchState);
                    if (left != null) {
                        if (deferred == null) {
                            deferred = new ArrayList<>();
                        }
                        deferred.add(left);
                    }
                }
                satisfied = satisfiedByState || bytesReadable >= request.minBytes();
            }
            if (deferred != null) {
                deferred.forEach(ReplicaManager.this::applyIdleFetch);
            }
            if (hwIncreased != null) {
                for (Partition partition : hwIncreased) {
                    // PRO-4: the HW rose; parked follower fetches do not wait for it, consumers' may.
                    completeProducesUpToHighWatermark(partition.topicPartition(), partition);
                    fetchPurgatory.checkAndComplete(partition.topicPartition());
                    // This fetch's own answer already carries the new HW: only the other sessions are told
                    // (marking it here made its own park re-read the partition it had just read).
                    markHighWatermarkInSessions(partition.topicPartition(), session);
                }
            }
            return satisfied;
        }

        /**
         * FET-5: a wake of the parked fetch (an append or a role or storage change of one of its
         * partitions): reads the partitions marked since its last read, and whether it is now satisfied.
         */
        boolean wake(long nowMs) {
            boolean satisfied = read(session.reads(List.of(), true, partitions::get), nowMs, false);
            if (satisfied) {
                synchronized (this) {
                    answeredByWake = true;
                }
            }
            return satisfied;
        }

        /**
         * A parked fetch ends: satisfied by a wake, it answers what that wake read (on the waking
         * thread, which reads each partition once per wake); expired, every partition not idle is
         * read again first.
         */
        FetchResponse finish() {
            boolean current;
            synchronized (this) {
                current = answeredByWake;
            }
            if (!current) {
                read(sessionReads(session, List.of()), scheduler.time().milliseconds(), false);
            }
            return response();
        }

        /**
         * The answer, in session order: of a full fetch every partition, of an incremental one the
         * partitions it named and those with news for the follower; what is sent is recorded as told.
         */
        synchronized FetchResponse response() {
            List<Map.Entry<FetchSession.SessionPartition, FetchResponse.PartitionData>> read =
                    new ArrayList<>(answers.entrySet());
            read.sort(Comparator.comparingLong(e -> e.getKey().order));
            TopicPartition[] tps = new TopicPartition[read.size()];
            FetchResponse.PartitionData[] data = new FetchResponse.PartitionData[read.size()];
            int n = 0;
            boolean full = request.isFull();
            for (Map.Entry<FetchSession.SessionPartition, FetchResponse.PartitionData> e : read) {
                TopicPartition tp = e.getKey().topicPartition;
                boolean always = full || named.contains(tp);
                if (session.tell(e.getKey(), e.getValue(), always)) {
                    tps[n] = tp;
                    data[n] = e.getValue();
                    n++;
                }
            }
            return FetchResponse.of(Errors.NONE, tps, data, n, session.id);
        }
    }

    /** {@code hwIncreased} with {@code partition} added if its read raised its HW (a list made on the first). */
    private static List<Partition> withHwIncrease(List<Partition> hwIncreased, PartitionFetchResult result,
                                                  Partition partition) {
        if (!result.highWatermarkIncreased()) {
            return hwIncreased;
        }
        List<Partition> out = hwIncreased == null ? new ArrayList<>() : hwIncreased;
        out.add(partition);
        return out;
    }

    /**
     * One partition's read for a fetch, at most {@code remainingBytes} of the response (FET-6; at least
     * one byte, so the first batch always fits): a partition not hosted here answers its not-hosted
     * error, a storage failure takes the partition's directory offline (§9), any other refusal is
     * answered with its own error.
     */
    private PartitionFetchResult readPartition(TopicPartition tp, Partition partition, FetchRequest request,
                                               FetchRequest.PartitionData data, int remainingBytes, long nowMs,
                                               boolean updateFetchState, RecordsForm form) {
        if (partition == null) {
            return new PartitionFetchResult(FetchResponse.PartitionData.error(notHostedError(tp)), false);
        }
        int maxBytes = Math.max(1, Math.min(data.partitionMaxBytes(), remainingBytes));
        partitionReads.increment();
        try {
            return partition.fetch(request, data, maxBytes, nowMs, updateFetchState, form);
        } catch (ApiException ex) {
            return new PartitionFetchResult(FetchResponse.PartitionData.error(ex.error() == Errors.KAFKA_STORAGE_ERROR
                    ? onStorageFailure(tp, ex) : ex.error()), false);
        } catch (UncheckedIOException ex) {
            return new PartitionFetchResult(FetchResponse.PartitionData.error(onStorageFailure(tp, ex)), false);
        }
    }

    /**
     * What a fetch of {@code session} reads (FET-7): the partitions it named and the session's active
     * ones, after the log start moves noted since the last fetch are handed to the sessions holding
     * those partitions to re-check.
     */
    private List<FetchSession.PartitionRead> sessionReads(FetchSession session, List<TopicPartition> named) {
        for (TopicPartition tp; (tp = logStartMoves.poll()) != null; ) {
            recheckFetchSessions(tp);
        }
        return session.reads(named, false, partitions::get);
    }

    /** FET-7: {@code tp} changed without its LEO moving; sessions holding it look at it at their next read. */
    private void recheckFetchSessions(TopicPartition tp) {
        if (fetchSessions == null) {
            return;
        }
        for (FetchSession session : fetchSessions.sessionsOf(tp)) {
            session.recheck(tp);
        }
    }

    /** FET-4 for an idle session partition's skipped fetches (see {@link FetchSession}). */
    private void applyIdleFetch(FetchSession.IdleFetch f) {
        if (f == FetchSession.NOT_IDLE) {
            return;
        }
        Partition partition = partitions.get(f.topicPartition());
        if (partition != null) {
            partition.recordIdleSessionFetch(f.replicaId(), f.leaderEpoch(), f.fetchOffset(), f.logStartOffset(),
                    f.fetchTimeMs(), f.brokerEpoch());
        }
    }

    /** FET-7 before a leader append to {@code tp}: the skipped fetches of every session holding it are recorded. */
    private void recordIdleSessionFetches(TopicPartition tp) {
        if (fetchSessions == null) {
            return;
        }
        for (FetchSession session : fetchSessions.sessionsOf(tp)) {
            FetchSession.IdleFetch f = session.leaveIdle(tp, false);
            if (f != null) {
                applyIdleFetch(f);
            }
        }
    }

    /**
     * FET-5 for sessions: {@code tp} got records, changed role or storage, or its HW moved: the sessions
     * holding it read it at the next wake of their parked fetch, which is woken now.
     */
    private void wakeFetchSessions(TopicPartition tp) {
        if (fetchSessions == null) {
            return;
        }
        for (FetchSession session : fetchSessions.sessionsOf(tp)) {
            markForNextRead(session, tp);
            fetchPurgatory.checkAndComplete(session);
        }
    }

    /**
     * FET-5, FET-7: a follower's fetch raised {@code tp}'s HW. The sessions holding it, but
     * {@code reading} (null: none), read it at their next wake or fetch, so that answer tells the
     * follower the new HW; their parked fetches are not woken now: sessions are followers', whose
     * parked fetch an HW step cannot satisfy (no byte became readable, nothing failed), and each such
     * wake was a log read per session, on the thread whose fetch also completes the acks=all produces.
     */
    private void markHighWatermarkInSessions(TopicPartition tp, FetchSession reading) {
        if (fetchSessions == null) {
            return;
        }
        for (FetchSession session : fetchSessions.sessionsOf(tp)) {
            if (session != reading) {
                markForNextRead(session, tp);
            }
        }
    }

    /** {@code tp} leaves its idle state in {@code session} (its skipped fetches recorded, FET-4) and is read at the next wake or fetch. */
    private void markForNextRead(FetchSession session, TopicPartition tp) {
        FetchSession.IdleFetch f = session.leaveIdle(tp, true);
        if (f != null) {
            applyIdleFetch(f);
        }
    }

    /** Closes session {@code id} if it is {@code replicaId}'s (a full fetch replaces it, or asks to close it). */
    private void closeSession(int id, int replicaId) {
        if (fetchSessions == null) {
            return;
        }
        FetchSession session = fetchSessions.get(id);
        if (session != null && session.replicaId == replicaId && fetchSessions.remove(session)) {
            endSession(session);
        }
    }

    /** A session left the cache: its idle partitions' skipped fetches are recorded. */
    private void endSession(FetchSession session) {
        session.close().forEach(this::applyIdleFetch);
    }

    /** Fetch sessions open (tests, diagnostics). */
    int fetchSessionCount() {
        return fetchSessions == null ? 0 : fetchSessions.size();
    }

    /** The open fetch session {@code id}, or null (tests). */
    FetchSession fetchSession(int id) {
        return fetchSessions == null ? null : fetchSessions.get(id);
    }

    /**
     * What each wake of a parked fetch runs (FET-5): while every partition is unchanged since it
     * parked ({@link ParkedFetch}), nothing is read at all; otherwise only the changed partitions
     * are read, and an answer is built only if the fetch is now satisfied. Each wake of the
     * purgatory (every append, every HW change) once re-read every partition of every parked fetch:
     * O(partitions per fetch) log reads per append.
     */
    private Function<FetchRequest, DelayedFetch.Read> wakeCheck(ParkedFetch parked, RecordsForm form) {
        if (parked == null) {
            return r -> read(r, form, false, null, null, false);
        }
        return r -> {
            for (int k = 0; k < parked.size(); k++) {
                if (!isUnchanged(parked, k, parked.topicPartition(k))) {
                    return read(r, form, false, parked, null, false);
                }
            }
            return NOTHING_NEW;
        };
    }

    /**
     * {@link ParkedFetch#isUnchanged} for the {@code k}-th partition, {@code tp}: while no partition
     * was created or removed here since the snapshot, the recorded Partition is still the hosted one
     * and the map lookup is skipped (a parked fetch is checked on every wake and at expiry).
     */
    private boolean isUnchanged(ParkedFetch parked, int k, TopicPartition tp) {
        Partition current = parked.hostedGeneration() == hostedGeneration ? parked.partition(k) : partitions.get(tp);
        return parked.isUnchanged(k, current);
    }

    /**
     * Reads every partition of {@code request}; wakes the purgatories for HWs the read raised.
     *
     * @param form             how the records are read (NET-3)
     * @param updateFetchState FET-4: whether this is the first read of a follower fetch
     * @param parked           for a parked fetch's re-read: partitions it shows unchanged are
     *                         answered from their fields instead of being read; null reads all
     * @param recording        for a first read that may park: where each partition's state and
     *                         answer are recorded; null records nothing
     * @param answerAlways     whether to build the response even when the fetch is not satisfied
     *                         (else the returned read carries none)
     */
    private DelayedFetch.Read read(FetchRequest request, RecordsForm form, boolean updateFetchState,
                                   ParkedFetch parked, ParkedFetch recording, boolean answerAlways) {
        long nowMs = scheduler.time().milliseconds();
        int n = request.partitions().size();
        TopicPartition[] tps = new TopicPartition[n];
        // null marks a partition the parked snapshot shows unchanged: its answer is built only if sent.
        FetchResponse.PartitionData[] answers = new FetchResponse.PartitionData[n];
        int remainingBytes = request.maxBytes();
        boolean gotData = false;
        long bytesReadable = 0;
        boolean satisfiedByState = false;
        List<Partition> hwIncreased = null;
        for (int k = 0; k < n; k++) {
            TopicPartition tp = request.topicPartition(k);
            FetchRequest.PartitionData data = request.partitionData(k);
            tps[k] = tp;
            if (parked != null && isUnchanged(parked, k, tp)) {
                continue;
            }
            Partition partition = partitions.get(tp);
            PartitionFetchResult result = readPartition(tp, partition, request, data, remainingBytes, nowMs,
                    updateFetchState, form);
            FetchResponse.PartitionData answer = result.data();
            hwIncreased = withHwIncrease(hwIncreased, result, partition);
            int size = answer.records().sizeInBytes();
            if (size > 0) {
                if (gotData && size > remainingBytes) {
                    // FET-6: only the first partition with data may exceed the response bound.
                    answer = new FetchResponse.PartitionData(answer.error(), answer.highWatermark(),
                            answer.lastStableOffset(), answer.logStartOffset(), answer.logEndOffset(),
                            MemoryRecords.EMPTY, answer.divergingEpoch());
                } else {
                    gotData = true;
                    remainingBytes -= size;
                    bytesReadable += Math.min(size, data.partitionMaxBytes());
                }
            }
            if (answer.error() != Errors.NONE || answer.divergingEpoch().isPresent()) {
                satisfiedByState = true; // FET-5: errors and divergence answer at once
            } else if (!request.isFromFollower() && data.fetchOffset() > answer.highWatermark()) {
                satisfiedByState = true; // a consumer past the HW it may read (truncated under it)
            }
            if (recording != null) {
                recording.record(k, tp, partition, data.fetchOffset(), answer);
            }
            answers[k] = answer;
        }
        if (hwIncreased != null) {
            for (Partition partition : hwIncreased) {
                // PRO-4: the HW rose; parked follower fetches do not wait for it, consumers' may.
                completeProducesUpToHighWatermark(partition.topicPartition(), partition);
                fetchPurgatory.checkAndComplete(partition.topicPartition());
                markHighWatermarkInSessions(partition.topicPartition(), null); // FET-7: their next answer tells it
            }
        }
        boolean satisfied = satisfiedByState || bytesReadable >= request.minBytes();
        if (!satisfied && !answerAlways) {
            return NOTHING_NEW;
        }
        if (parked != null) {
            for (int i = 0; i < n; i++) {
                if (answers[i] == null) {
                    answers[i] = parked.caughtUpAnswer(i);
                }
            }
        }
        return new DelayedFetch.Read(FetchResponse.of(Errors.NONE, tps, answers, n), satisfied);
    }

    /**
     * Partitions read through {@link Partition#fetch} (each a log read) since start-up; the
     * partitions of a parked fetch that {@link ParkedFetch} shows unchanged are not counted. For
     * tests and diagnostics.
     */
    long partitionReads() {
        return partitionReads.sum();
    }

    // ------------------------------------------------------------------------------------------- metadata

    /**
     * LDR-2/LDR-3, ISR-3: applies a metadata delta: broker registrations (for ISR eligibility),
     * per-topic {@code min.insync.replicas}, deleted partitions, and every partition registration
     * that involves this broker: {@code makeLeader} or {@code makeFollower}, moving followers to the
     * new leader's fetcher at {@code initialFetchOffset} on a new leader epoch, failing waiting
     * acks=all requests of partitions no longer led here, and stopping (deleting) replicas no longer
     * assigned here. Deltas must be applied in offset order; an older offset is ignored.
     */
    public void applyMetadataDelta(MetadataDelta delta) {
        Objects.requireNonNull(delta, "delta");
        Set<TopicPartition> toWake = new LinkedHashSet<>();
        Map<TopicPartition, RuntimeException> storageFailures = new LinkedHashMap<>();
        synchronized (stateChangeLock) {
            if (shutDown) {
                return;
            }
            if (delta.offset() <= lastAppliedMetadataOffset) {
                LOG.debug("{}Ignoring metadata delta at offset {}; already at {}", logPrefix, delta.offset(),
                        lastAppliedMetadataOffset);
                return;
            }
            // Partitions first seen once the broker has caught up with its own registration were created
            // (or assigned here) after its logs were loaded: no directory can hold an older log of them.
            long epoch = brokerEpoch.getAsLong();
            boolean caughtUp = lastAppliedMetadataOffset >= 0 && lastAppliedMetadataOffset >= epoch;
            lastAppliedMetadataOffset = delta.offset();
            delta.brokers().forEach(b -> brokers.put(b.brokerId(), b));
            applyMinIsrChanges(delta.minInsyncReplicasByTopic(), toWake);
            Set<TopicPartition> stopFetching = new LinkedHashSet<>();
            Map<TopicPartition, InitialFetchState> startFetching = new LinkedHashMap<>();
            // Fetchers stop before their partition becomes leader or goes away, so that no fetched
            // data or truncation reaches a leader's log or a deleted one (Kafka does the same).
            Set<TopicPartition> stopFirst = new LinkedHashSet<>(delta.deletedPartitions());
            for (PartitionRegistration registration : delta.partitions()) {
                if (registration.leader() == brokerId || !registration.replicas().contains(brokerId)) {
                    stopFirst.add(registration.topicPartition());
                }
            }
            stopFirst.retainAll(partitions.keySet());
            if (!stopFirst.isEmpty()) {
                fetcherManager.removeFetcherForPartitions(stopFirst);
            }
            for (TopicPartition tp : delta.deletedPartitions()) {
                metadataPartitions.remove(tp);
                if (stopReplica(tp)) {
                    stopFetching.add(tp);
                    toWake.add(tp);
                }
                deleteStrayLog(tp, "its partition is deleted");
            }
            // After the deletions: a topic deleted and created again in one (merged) delta has the new id.
            topicIds.putAll(delta.topicIds());
            for (PartitionRegistration registration : delta.partitions()) {
                applyPartition(registration, caughtUp, stopFetching, startFetching, toWake, storageFailures);
            }
            if (!stopFetching.isEmpty()) {
                fetcherManager.removeFetcherForPartitions(stopFetching);
            }
            if (!startFetching.isEmpty()) {
                fetcherManager.addFetcherForPartitions(startFetching);
            }
            fetcherManager.shutdownIdleFetchers();
        }
        // Outside the state lock: waiting acks=all of partitions no longer led here end now.
        toWake.forEach(this::wakePurgatories);
        // FET-7: an idle session partition whose registration changed (ISR, epochs) is looked at again.
        delta.partitions().forEach(r -> recheckFetchSessions(r.topicPartition()));
        // §9: a disk failure met while changing a partition's role (the epoch checkpoint a new leader
        // writes, say) takes its directory offline, as anywhere else; the rest of the delta is applied.
        storageFailures.forEach(this::onStorageFailure);
    }

    private void applyMinIsrChanges(Map<String, Integer> minIsrByTopic, Set<TopicPartition> toWake) {
        minIsrByTopic.forEach((topic, minIsr) -> {
            topicConfigs.setMinInsyncReplicas(topic, minIsr);
            partitions.values().stream().filter(p -> p.topicPartition().topic().equals(topic)).forEach(p -> {
                p.updateMinInsyncReplicas(minIsr);
                // HW-2: a lower min ISR may unfreeze the HW; waiting acks=all may now complete.
                p.maybeIncrementLeaderHW(scheduler.time().milliseconds());
                toWake.add(p.topicPartition());
            });
        });
    }

    private void applyPartition(PartitionRegistration registration, boolean caughtUp, Set<TopicPartition> stopFetching,
                                Map<TopicPartition, InitialFetchState> startFetching, Set<TopicPartition> toWake,
                                Map<TopicPartition, RuntimeException> storageFailures) {
        TopicPartition tp = registration.topicPartition();
        boolean isNew = metadataPartitions.put(tp, registration) == null && caughtUp;
        if (!registration.replicas().contains(brokerId)) {
            if (stopReplica(tp)) {
                stopFetching.add(tp);
                toWake.add(tp);
            }
            return;
        }
        UUID topicId = topicIds.get(tp.topic());
        Partition hosted = partitions.get(tp);
        Optional<UUID> hostedId = hosted == null ? Optional.empty() : hosted.topicId();
        if (topicId != null && hostedId.isPresent() && !hostedId.get().equals(topicId)) {
            // The name was deleted and created again while this broker missed the deletion (it loaded an image).
            LOG.info("{}The replica of {} belongs to topic id {}, metadata names {}: it is a deleted topic's",
                    logPrefix, tp, PartitionMetadataFile.format(hostedId.get()), PartitionMetadataFile.format(topicId));
            if (stopReplica(tp)) {
                stopFetching.add(tp);
                toWake.add(tp);
            }
        }
        Partition partition;
        try {
            partition = getOrCreatePartition(tp, isNew);
        } catch (ApiException | UncheckedIOException e) {
            LOG.error("{}Could not create the log of {}: {}", logPrefix, tp, e.toString());
            return;
        }
        if (partition.isOffline()) {
            return;
        }
        try {
            changeRole(partition, registration, stopFetching, startFetching, toWake);
        } catch (ApiException | UncheckedIOException e) {
            if (e instanceof ApiException api && api.error() != Errors.KAFKA_STORAGE_ERROR) {
                throw e;
            }
            LOG.error("{}Storage error while applying the metadata of {}: {}", logPrefix, tp, e.toString());
            storageFailures.put(tp, e);
            stopFetching.add(tp);
            startFetching.remove(tp);
            toWake.add(tp);
        }
    }

    private void changeRole(Partition partition, PartitionRegistration registration, Set<TopicPartition> stopFetching,
                            Map<TopicPartition, InitialFetchState> startFetching, Set<TopicPartition> toWake) {
        TopicPartition tp = registration.topicPartition();
        if (registration.leader() == brokerId) {
            if (partition.makeLeader(registration)) {
                LOG.info("{}Became leader of {} in leader epoch {}", logPrefix, tp, registration.leaderEpoch());
            }
            stopFetching.add(tp);
            startFetching.remove(tp);
            toWake.add(tp);
        } else if (partition.makeFollower(registration)) {
            // LDR-2: only on a new leader epoch: fail waiting acks=all, move to the new leader's fetcher.
            toWake.add(tp);
            stopFetching.add(tp);
            if (registration.leader() != PartitionRegistration.NO_LEADER) {
                FollowerPartition follower = partition.asFollowerPartition();
                startFetching.put(tp, new InitialFetchState(follower, registration.leader(),
                        registration.leaderEpoch(), FetcherManager.initialFetchOffset(follower)));
                stopFetching.remove(tp);
            }
        }
    }

    /**
     * Called under the state-change lock. {@code isNew}: the partition was created (or assigned here)
     * after this broker loaded its logs. §9 (Kafka's {@code LogManager.getOrCreateLog}): a log that
     * is not new and is in no online directory is not created while a directory is offline, for
     * the offline one may hold it (a directory that failed at start-up, before its logs were
     * known). An empty log in another directory would make this broker an eligible replica, even a
     * leader, with none of the partition's records; instead the replica is reported offline and the
     * controller moves leadership, ISR and ELR membership away from it (ISR-8).
     */
    private Partition getOrCreatePartition(TopicPartition tp, boolean isNew) {
        Partition existing = partitions.get(tp);
        if (existing != null) {
            return existing;
        }
        UUID topicId = topicIds.get(tp.topic());
        Optional<LogDirectory> holding = onlineLogDirectoryHolding(tp);
        // The id next to the log found, read once: empty for a new log or one written before topic ids.
        Optional<UUID> stored = holding.isPresent() && topicId != null ? storedTopicId(holding.get(), tp) : Optional.empty();
        if (stored.isPresent() && !stored.get().equals(topicId)) {
            // A log of a deleted topic of the same name, kept while this broker was away: never served as this one.
            deleteStrayLog(tp, "it belongs to topic id " + PartitionMetadataFile.format(stored.get())
                    + ", metadata names " + PartitionMetadataFile.format(topicId));
            holding = onlineLogDirectoryHolding(tp);
            stored = Optional.empty();
        }
        if (holding.isEmpty() && !isNew && !offlineLogDirs.isEmpty()) {
            withoutLogWhileDirOffline.add(tp); // the embedder's next heartbeat reports it (offlineReplicas)
            throw new ApiException(Errors.KAFKA_STORAGE_ERROR, "Not creating a log of " + tp + " on broker " + brokerId
                    + ": log directories " + offlineLogDirs.stream().map(LogDirectory::path).toList()
                    + " are offline and may hold it");
        }
        LogDirectory dir = holding.orElseGet(() -> logDirectoryForNewLog(tp));
        boolean isNewLog = dir.log(tp).isEmpty();
        Log log;
        try {
            log = dir.getOrCreateLog(tp, config.logConfig());
        } catch (ApiException | UncheckedIOException e) {
            if (!(e instanceof ApiException api) || api.error() == Errors.KAFKA_STORAGE_ERROR) {
                handleLogDirFailure(dir, e); // §9: the directory could not create or open a log
            }
            throw e;
        }
        if (isNewLog) {
            logCounts.merge(dir, 1, Integer::sum);
        }
        logDirOfPartition.put(tp, dir);
        if (topicId != null && stored.isEmpty()) {
            writeTopicId(dir, log, topicId);
        }
        // LOG-11 group commit: leader appends leave due flushes to the LogFlusher (follower appends still flush).
        log.setLeaderFlushDeferred(true);
        if (config.fetchSessionsEnabled()) {
            log.setLogStartOffsetListener(() -> {
                localLogStartMoves.increment();
                if (fetchSessions.sessionsOf(tp).length > 0) { // lock-free; on whenever sessions are
                    logStartMoves.add(tp);
                }
            });
        }
        // FET-2: the id goes into this replica's fetches as a follower and is checked in others' as a leader.
        Partition partition = new Partition(LocalLog.of(log), topicConfigs.minInsyncReplicas(tp.topic()),
                partitionSettings, Optional.ofNullable(topicId));
        partitions.put(tp, partition);
        hostedGeneration++;
        return partition;
    }

    /**
     * Writes {@code partition.metadata} naming {@code topicId} into a log that has none yet (new, or
     * written before topic ids); a failure takes the directory offline (§9).
     */
    private void writeTopicId(LogDirectory dir, Log log, UUID topicId) {
        try {
            new PartitionMetadataFile(log.dir(), dir.fileSync()).write(topicId);
        } catch (ApiException e) {
            handleLogDirFailure(dir, e);
            throw e;
        }
    }

    /** The topic id in the {@code partition.metadata} of {@code tp}'s log in {@code dir}, if it has one. */
    private Optional<UUID> storedTopicId(LogDirectory dir, TopicPartition tp) {
        Optional<Log> log = dir.log(tp);
        if (log.isEmpty()) {
            return Optional.empty();
        }
        try {
            return new PartitionMetadataFile(log.get().dir(), dir.fileSync()).read();
        } catch (ApiException e) {
            handleLogDirFailure(dir, e);
            throw e;
        }
    }

    /**
     * Deletes a log of {@code tp} that this broker holds but does not host, from every online
     * directory: a deleted topic's log kept while the broker was away (Kafka's stray logs).
     */
    private void deleteStrayLog(TopicPartition tp, String why) {
        for (LogDirectory dir : logDirectories) {
            if (offlineLogDirs.contains(dir) || dir.log(tp).isEmpty() || partitions.containsKey(tp)) {
                continue;
            }
            LOG.info("{}Deleting the log of {} in {}: {}", logPrefix, tp, dir.path(), why);
            deleteLog(dir, tp);
        }
    }

    /**
     * Deletes every log in an online directory whose partition the applied metadata does not assign
     * to this broker: its topic was deleted, or its replica moved away, while this broker was down,
     * and the metadata it loaded no longer says so (a controller snapshot keeps no deletions).
     * Kafka's stray replicas, found at start-up against the first image. Call it once the applied
     * metadata is the whole current state (the {@code MetadataFollower} does, after its initial
     * load); before any metadata is applied it deletes nothing. Returns the partitions whose logs went.
     */
    public Set<TopicPartition> deleteStrayLogs() {
        synchronized (stateChangeLock) {
            if (shutDown || lastAppliedMetadataOffset < 0) {
                return Set.of();
            }
            Set<TopicPartition> stray = new TreeSet<>(TOPIC_PARTITION_ORDER);
            for (LogDirectory dir : logDirectories) {
                if (offlineLogDirs.contains(dir)) {
                    continue;
                }
                for (TopicPartition tp : dir.logs().keySet()) {
                    PartitionRegistration registration = metadataPartitions.get(tp);
                    if (registration == null || !registration.replicas().contains(brokerId)) {
                        stray.add(tp);
                    }
                }
            }
            for (TopicPartition tp : stray) {
                deleteStrayLog(tp, metadataPartitions.containsKey(tp)
                        ? "the metadata at offset " + lastAppliedMetadataOffset + " assigns it to other brokers"
                        : "the metadata at offset " + lastAppliedMetadataOffset + " has no such partition");
            }
            return Collections.unmodifiableSet(stray);
        }
    }

    /** Deletes {@code tp}'s log from {@code dir}; a failure takes the directory offline (§9). */
    private void deleteLog(LogDirectory dir, TopicPartition tp) {
        try {
            dir.deleteLog(tp);
            logCounts.merge(dir, -1, Integer::sum);
        } catch (ApiException | UncheckedIOException e) {
            LOG.error("{}Could not delete the log of {} from {}: {}", logPrefix, tp, dir.path(), e.toString());
            handleLogDirFailure(dir, e);
        }
    }

    /** The online directory that holds a log of {@code tp} already (opened at start-up), if any. */
    private Optional<LogDirectory> onlineLogDirectoryHolding(TopicPartition tp) {
        return logDirectories.stream().filter(d -> !offlineLogDirs.contains(d) && d.log(tp).isPresent()).findFirst();
    }

    /** Kafka's default placement: the online directory holding the fewest logs, the first such in the order given. */
    private LogDirectory logDirectoryForNewLog(TopicPartition tp) {
        return logDirectories.stream().filter(d -> !offlineLogDirs.contains(d))
                .min(Comparator.comparingInt(d -> logCounts.getOrDefault(d, 0)))
                .orElseThrow(() -> new ApiException(Errors.KAFKA_STORAGE_ERROR, "No online log directory on broker "
                        + brokerId + " for " + tp + " (offline: " + offlineLogDirs.stream().map(LogDirectory::path)
                        .toList() + ")"));
    }

    /** Stops hosting {@code tp} (no longer assigned, or deleted) and deletes its log; returns whether it was hosted. */
    private boolean stopReplica(TopicPartition tp) {
        withoutLogWhileDirOffline.remove(tp);
        Partition removed = partitions.remove(tp);
        hostedGeneration++;
        LogDirectory dir = logDirOfPartition.remove(tp);
        if (removed == null) {
            return false;
        }
        LOG.info("{}Stopped the replica of {} and deleted its log", logPrefix, tp);
        if (!removed.isOffline() && dir != null && !offlineLogDirs.contains(dir)) {
            deleteLog(dir, tp);
        }
        return true;
    }

    // ------------------------------------------------------------------------------------ periodic work

    /** ISR-1: the body of the ISR-expiration task, over every led partition. */
    void maybeShrinkIsr() {
        long nowMs = scheduler.time().milliseconds();
        for (Partition partition : sortedPartitions()) {
            if (partition.isLeader() && !partition.isOffline()) {
                partition.maybeShrinkIsr(nowMs);
            }
        }
    }

    /** LOG-9: the body of the recovery-point and log-start-offset checkpoint task; a failure takes that directory offline (§9). */
    void checkpointRecoveryPoints() {
        for (LogDirectory dir : logDirectories) {
            if (shutDown) {
                return;
            }
            if (offlineLogDirs.contains(dir)) {
                continue;
            }
            try {
                dir.checkpointRecoveryPointsAndLogStartOffsets();
            } catch (ApiException | UncheckedIOException e) {
                handleLogDirFailure(dir, e);
            }
        }
    }

    /** LOG-11: the body of the flush.ms task; a storage failure takes that partition's directory offline (§9). */
    void flushDueLogs() {
        for (Partition partition : sortedPartitions()) {
            if (shutDown) {
                return;
            }
            if (partition.isOffline()) {
                continue;
            }
            partition.localLog().underlyingLog().ifPresent(log -> {
                try {
                    log.flushIfDue();
                } catch (ApiException e) {
                    onStorageFailure(partition.topicPartition(), e);
                }
            });
        }
    }

    /** HW-5: the body of the HW-checkpoint task. An I/O failure takes that log directory offline (§9). */
    void checkpointHighWatermarks() {
        for (LogDirectory dir : logDirectories) {
            if (shutDown) {
                return;
            }
            if (offlineLogDirs.contains(dir)) {
                continue;
            }
            try {
                dir.checkpointHighWatermarks();
            } catch (ApiException | UncheckedIOException e) {
                handleLogDirFailure(dir, e);
            }
        }
    }

    /**
     * The hosted partitions by topic, then partition: periodic tasks visit them in a repeatable order.
     * Sorted again only after a partition was created or removed.
     */
    private List<Partition> sortedPartitions() {
        SortedPartitions cached = sortedPartitions;
        long generation = hostedGeneration;
        if (cached == null || cached.generation() != generation) {
            cached = new SortedPartitions(generation, partitions.values().stream().sorted(BY_TOPIC_PARTITION).toList());
            sortedPartitions = cached;
        }
        return cached.partitions();
    }

    /** The hosted partitions in {@link #BY_TOPIC_PARTITION} order as of a hosted-partitions generation. */
    private record SortedPartitions(long generation, List<Partition> partitions) {
    }

    // ------------------------------------------------------------------------------------------- helpers

    /**
     * A storage error met while serving {@code tp}: §9 takes its log directory offline, and the
     * answer is KAFKA_STORAGE_ERROR. While the broker shuts down the error is its own closing of the
     * log under a request still running, not a disk failure: nothing goes offline and the answer is
     * NOT_LEADER_OR_FOLLOWER (the client retries elsewhere, as with any stopping broker).
     */
    private Errors onStorageFailure(TopicPartition tp, RuntimeException cause) {
        if (shutDown) {
            LOG.debug("{}Storage error on {} while shutting down: {}", logPrefix, tp, cause.toString());
            return Errors.NOT_LEADER_OR_FOLLOWER;
        }
        handleStorageFailure(tp, cause);
        return Errors.KAFKA_STORAGE_ERROR;
    }

    /** §9: an I/O failure on {@code tp} takes the directory holding its log offline. */
    private void handleStorageFailure(TopicPartition tp, RuntimeException cause) {
        LogDirectory dir = logDirOfPartition.get(tp);
        if (dir != null) {
            handleLogDirFailure(dir, cause);
        }
    }

    /**
     * §9 (Kafka's {@code handleLogDirFailure}): takes {@code dir} offline once. Its partitions answer
     * KAFKA_STORAGE_ERROR from now on and leave the fetchers, waiting requests on them end, the
     * directory's logs are closed, and the listener is told (the embedder reports
     * {@link #offlineReplicas()} to the controller). With no online directory left, the broker stops.
     * Failures while shutting down are the shutdown's own closing and are ignored.
     */
    private void handleLogDirFailure(LogDirectory dir, RuntimeException cause) {
        Set<TopicPartition> affected = new TreeSet<>(TOPIC_PARTITION_ORDER);
        boolean noneOnline;
        synchronized (stateChangeLock) {
            if (shutDown || !offlineLogDirs.add(dir)) {
                return;
            }
            logDirOfPartition.forEach((tp, d) -> {
                if (d == dir) {
                    affected.add(tp);
                }
            });
            LOG.error("{}Log directory {} failed ({}); its partitions {} are offline and answer KAFKA_STORAGE_ERROR",
                    logPrefix, dir.path(), cause.toString(), affected);
            for (TopicPartition tp : affected) {
                Partition partition = partitions.get(tp);
                if (partition != null) {
                    partition.markOffline();
                }
            }
            fetcherManager.removeFetcherForPartitions(affected);
            noneOnline = offlineLogDirs.size() == logDirectories.size();
        }
        try {
            dir.close();
        } catch (RuntimeException e) {
            LOG.warn("{}Closing failed log directory {}: {}", logPrefix, dir.path(), e.toString());
        }
        affected.forEach(this::wakePurgatories);
        logDirFailureListener.onLogDirOffline(dir.path(), Collections.unmodifiableSet(affected));
        if (noneOnline) {
            LOG.error("{}Shutting down broker {}: every log directory {} has failed", logPrefix, brokerId,
                    logDirectories.stream().map(LogDirectory::path).toList());
            logDirFailureListener.onNoOnlineLogDir();
            // Not on this thread: it may be a fetcher's or the one a purgatory completes on.
            logDirFailureExecutor.execute(this::shutdown);
        }
    }

    private Optional<Partition> onlinePartition(TopicPartition tp) {
        return Optional.ofNullable(partitions.get(tp));
    }

    private Errors notHostedError(TopicPartition tp) {
        if (withoutLogWhileDirOffline.contains(tp)) {
            return Errors.KAFKA_STORAGE_ERROR;
        }
        return metadataPartitions.containsKey(tp) ? Errors.NOT_LEADER_OR_FOLLOWER : Errors.UNKNOWN_TOPIC_OR_PARTITION;
    }

    /**
     * PRO-3/PRO-4 after {@code tp}'s HW rose: its parked produces are tried in order of the offset
     * each waits for, up to the HW now, and the first one the HW has not reached ends the walk
     * ({@link DelayedProduce#watchPosition}); with 1,000 produces parked on a partition, re-checking
     * every one of them on every HW step was a fifth of the leader's request thread. Everything
     * else that may end a parked produce (leadership, the log going offline, min ISR, the leader's
     * flush) still checks them all ({@link #wakePurgatories}).
     */
    private void completeProducesUpToHighWatermark(TopicPartition tp, Partition partition) {
        producePurgatory.checkAndCompleteUpTo(tp, partition.highWatermark());
    }

    private void wakePurgatories(TopicPartition tp) {
        producePurgatory.checkAndComplete(tp);
        fetchPurgatory.checkAndComplete(tp);
        wakeFetchSessions(tp);
    }

    // -------------------------------------------------------------------------------------- inspection

    /** This broker's id. */
    public int brokerId() {
        return brokerId;
    }

    /** The hosted partition, if any. */
    public Optional<Partition> partition(TopicPartition tp) {
        return Optional.ofNullable(partitions.get(tp));
    }

    /**
     * Every hosted replica of {@code topics} (all topics when empty) as {@link Partition#describe()}
     * reads it, by topic then partition.
     */
    public List<ReplicaDescription> describeReplicas(Optional<? extends Collection<String>> topics) {
        List<ReplicaDescription> out = new ArrayList<>();
        for (Partition p : partitions.values()) {
            if (topics.isEmpty() || topics.get().contains(p.topicPartition().topic())) {
                out.add(p.describe());
            }
        }
        out.sort(Comparator.comparing((ReplicaDescription d) -> d.topicPartition().topic())
                .thenComparingInt(d -> d.topicPartition().partition()));
        return out;
    }

    /** The hosted partitions. */
    public Set<TopicPartition> hostedPartitions() {
        // In the map's order (Set.copyOf's is randomized per JVM: INV-6 for callers that iterate).
        return Collections.unmodifiableSet(new LinkedHashSet<>(partitions.keySet()));
    }

    /** The follower fetchers. */
    public FetcherManager fetcherManager() {
        return fetcherManager;
    }

    /** The first log directory (the only one of a single-directory broker). */
    public LogDirectory logDirectory() {
        return logDirectories.get(0);
    }

    /** Every log directory, online or not, in the order given. */
    public List<LogDirectory> logDirectories() {
        return logDirectories;
    }

    /** The log directory holding {@code tp}'s log, if this broker hosts it. */
    public Optional<LogDirectory> logDirectoryOf(TopicPartition tp) {
        return Optional.ofNullable(logDirOfPartition.get(tp));
    }

    /** The log directories an I/O failure took offline (§9), in the order given. */
    public List<LogDirectory> offlineLogDirectories() {
        return logDirectories.stream().filter(offlineLogDirs::contains).toList();
    }

    /**
     * The replicas whose log directory is offline, by topic then partition: the hosted ones in an
     * offline directory, and those with no log in an online one while a directory is offline (none is
     * created for them, see {@link #getOrCreatePartition}). What the controller must learn (KIP-858; {@link dev.insync.replication.core.metadata.HeartbeatRequest#offlineReplicas()})
     * so that leadership and ISR membership move away from them (ISR-8).
     */
    public List<TopicPartition> offlineReplicas() {
        if (offlineLogDirs.isEmpty()) {
            return List.of();
        }
        return Stream.concat(withoutLogWhileDirOffline.stream(), logDirOfPartition.entrySet().stream()
                        .filter(e -> offlineLogDirs.contains(e.getValue())).map(Map.Entry::getKey))
                .distinct()
                .sorted(TOPIC_PARTITION_ORDER)
                .toList();
    }

    /** Whether {@link #shutdown()} or {@link #closeCleanly(long)} ran, or the last log directory failed. */
    public boolean isShutDown() {
        return shutDown;
    }

    /**
     * LOG-11 group commit: how many flushes the broker's flusher has done (each covers every leader
     * append made before it ran).
     */
    public long leaderFlushCount() {
        return logFlusher.flushCount();
    }

    /** Produces waiting in the purgatory (acks=all for the HW, or any acks for the leader's flush). */
    public int pendingProduceCount() {
        return producePurgatory.numDelayed();
    }

    /** Long-poll fetches waiting in the purgatory. */
    public int pendingFetchCount() {
        return fetchPurgatory.numDelayed();
    }

    /** The offset of the last metadata delta applied, -1 before any. */
    public long lastAppliedMetadataOffset() {
        return lastAppliedMetadataOffset;
    }

    @Override
    public String toString() {
        return "ReplicaManager(broker=" + brokerId + ", partitions=" + partitions.keySet() + ")";
    }

    // ---------------------------------------------------------------------------------- inner adapters

    /** ISR-3 and FET-2 over the broker registrations received in metadata. */
    private final class MetadataEligibility implements ReplicaEligibility {
        @Override
        public boolean isBrokerEligible(int id, long brokerEpochFromFetch) {
            BrokerRegistration registration = brokers.get(id);
            return registration != null && registration.isActive()
                    && registration.brokerEpoch() == brokerEpochFromFetch;
        }

        @Override
        public OptionalLong registeredBrokerEpoch(int id) {
            BrokerRegistration registration = brokers.get(id);
            return registration == null ? OptionalLong.empty() : OptionalLong.of(registration.brokerEpoch());
        }
    }

    /** Partition side effects: purgatory wake-ups (PRO-4) and ISR metrics. */
    private final class PartitionEvents implements PartitionListener {
        @Override
        public void onHighWatermarkIncreased(TopicPartition tp) {
            wakePurgatories(tp);
        }

        @Override
        public void onIsrShrink(TopicPartition tp) {
            recheckFetchSessions(tp); // FET-7: a committed ISR change ends no idle state by itself
            metrics.isrShrink(tp);
        }

        @Override
        public void onIsrExpand(TopicPartition tp) {
            recheckFetchSessions(tp);
            metrics.isrExpand(tp);
        }

        @Override
        public void onFailedIsrUpdate(TopicPartition tp) {
            metrics.failedIsrUpdate(tp);
        }
    }

    /** Flusher side effects: produces waiting for the flush wake; a failed flush takes the partition offline (§9). */
    private final class FlushEvents implements LogFlusher.Listener {
        @Override
        public void onFlushed(TopicPartition tp, LocalLog log) {
            producePurgatory.checkAndComplete(tp);
        }

        @Override
        public void onFlushFailed(TopicPartition tp, LocalLog log, RuntimeException cause) {
            Partition partition = partitions.get(tp);
            if (shutDown || partition == null || partition.localLog() != log) {
                // The log was closed by a shutdown or replaced: not a disk failure of a hosted partition.
                LOG.debug("{}Flush of a log of {} that is no longer hosted failed: {}", logPrefix, tp, cause.toString());
                return;
            }
            onStorageFailure(tp, cause);
            // Produces waiting for this flush now end with KAFKA_STORAGE_ERROR, as a failed append would have.
            wakePurgatories(tp);
        }
    }

    /** Fetcher side effects: follower HW changes wake consumers' fetches; storage failures go offline. */
    private final class FollowerEvents implements FetcherListener {
        @Override
        public void onHighWatermarksChanged(Set<TopicPartition> changed) {
            changed.forEach(fetchPurgatory::checkAndComplete);
        }

        @Override
        public void onPartitionFailed(TopicPartition tp, Errors error, String reason) {
            if (error == Errors.KAFKA_STORAGE_ERROR) {
                onStorageFailure(tp, new ApiException(Errors.KAFKA_STORAGE_ERROR, reason));
            }
        }
    }
}
