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
import dev.insync.replication.core.partition.ReplicaEligibility;
import dev.insync.replication.core.produce.DelayedProduce;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.purgatory.DelayedOperationPurgatory;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.core.rpc.ReplicaTransport;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.Log;
import dev.insync.replication.log.LogAppendInfo;
import dev.insync.replication.log.LogDirectory;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.MemoryRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * One broker's replication (Kafka's {@code ReplicaManager}): its log directory, the partitions it
 * hosts, the produce and fetch purgatories, the follower fetchers, the AlterPartition manager and
 * the periodic ISR-expiration and HW-checkpoint tasks.
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
    private static final Comparator<Partition> BY_TOPIC_PARTITION = Comparator
            .comparing((Partition p) -> p.topicPartition().topic())
            .thenComparingInt(p -> p.topicPartition().partition());
    /** A read that satisfies nothing and answers nothing (the fetch stays parked). */
    private static final DelayedFetch.Read NOTHING_NEW = new DelayedFetch.Read(null, false);
    /** How often recovery points and log start offsets are checkpointed (Kafka's default, 60 s). */
    static final long OFFSET_CHECKPOINT_INTERVAL_MS = 60_000L;

    /** Gauge ({@code kafka.server:type=ReplicaFetcherManager,name=FailedPartitionsCount}): followed partitions marked failed (FOL-6). */
    public static final String FAILED_PARTITIONS_COUNT = "FailedPartitionsCount";

    private final int brokerId;
    private final ReplicationConfig config;
    private final LogDirectory logDirectory;
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
    private volatile boolean logDirOffline;
    private volatile boolean started;
    private volatile boolean shutDown;
    private volatile long lastAppliedMetadataOffset = -1L;

    /**
     * @param brokerId      this broker's id
     * @param config        replication settings (Kafka's property names)
     * @param logDirectory  the broker's open log directory; the HW checkpoint restores HWs at open (HW-5)
     * @param scheduler     the clock, timers and serial executors for every background task
     * @param transport     how fetchers reach leaders
     * @param controller    AlterPartition towards the controller
     * @param brokerEpoch   this broker's current epoch (from registration), read when needed
     * @param metrics       where gauges and ISR events go
     */
    public ReplicaManager(int brokerId, ReplicationConfig config, LogDirectory logDirectory, Scheduler scheduler,
                          ReplicaTransport transport, ControllerChannel controller, LongSupplier brokerEpoch,
                          ReplicationMetrics metrics) {
        if (brokerId < 0) {
            throw new IllegalArgumentException("Negative broker id " + brokerId);
        }
        this.brokerId = brokerId;
        this.config = Objects.requireNonNull(config, "config");
        this.logDirectory = Objects.requireNonNull(logDirectory, "logDirectory");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.brokerEpoch = Objects.requireNonNull(brokerEpoch, "brokerEpoch");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(controller, "controller");
        this.logPrefix = "[ReplicaManager broker=" + brokerId + "] ";
        this.topicConfigs = new TopicConfigs(config);
        this.backgroundExecutor = scheduler.newSerialExecutor("ReplicaManager-" + brokerId);
        this.alterPartitionManager = new AlterPartitionManager(brokerId, brokerEpoch, controller,
                scheduler.newSerialExecutor("AlterPartitionManager-" + brokerId), scheduler,
                config.alterPartitionRetryBackoffMs(), config.requestTimeoutMs());
        this.producePurgatory = DelayedOperationPurgatory.create("Produce-" + brokerId, scheduler, backgroundExecutor);
        this.fetchPurgatory = DelayedOperationPurgatory.create("Fetch-" + brokerId, scheduler, backgroundExecutor);
        this.fetcherManager = new FetcherManager(FetcherConfig.from(brokerId, config), scheduler, transport,
                brokerEpoch, new FollowerEvents());
        this.logFlusher = new LogFlusher(scheduler.newSerialExecutor("LogFlusher-" + brokerId), new FlushEvents());
        this.partitionSettings = new PartitionSettings(brokerId, brokerEpoch, scheduler.time(),
                config.replicaLagTimeMaxMs(), new MetadataEligibility(), alterPartitionManager::submit,
                new PartitionEvents());
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
        LOG.info("{}Started with {} logs in {}", logPrefix, logDirectory.logs().size(), logDirectory.path());
    }

    /**
     * Stops everything and closes the log directory without the clean-shutdown marker: fetchers,
     * periodic tasks, then every waiting produce and fetch is answered (PRO-5: waiting acks=all ends
     * with NOT_LEADER_OR_FOLLOWER), HWs are checkpointed one last time. Idempotent.
     */
    public void shutdown() {
        if (stopComponents()) {
            closeLogDirectory(() -> logDirectory.close());
        }
    }

    /**
     * LDR-4: as {@link #shutdown()}, but flushes and checkpoints every log and leaves the
     * clean-shutdown marker with {@code brokerEpoch} (LOG-9), so the next start counts as clean.
     */
    public void closeCleanly(long brokerEpochAtShutdown) {
        if (stopComponents()) {
            closeLogDirectory(() -> logDirectory.closeCleanly(brokerEpochAtShutdown));
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
        producePurgatory.shutdown();
        fetchPurgatory.shutdown();
        alterPartitionManager.close();
        metrics.removeGauge(ReplicationMetrics.UNDER_REPLICATED_PARTITIONS);
        metrics.removeGauge(ReplicationMetrics.UNDER_MIN_ISR_PARTITION_COUNT);
        metrics.removeGauge(ReplicationMetrics.MAX_LAG);
        metrics.removeGauge(FAILED_PARTITIONS_COUNT);
        return true;
    }

    private void closeLogDirectory(Runnable close) {
        if (logDirOffline) {
            LOG.warn("{}Log directory {} is offline; closing it without checkpoints", logPrefix, logDirectory.path());
            try {
                logDirectory.close();
            } catch (RuntimeException e) {
                LOG.warn("{}Closing offline log directory {} failed: {}", logPrefix, logDirectory.path(), e.toString());
            }
            return;
        }
        try {
            logDirectory.checkpointHighWatermarks();
        } catch (RuntimeException e) {
            LOG.error("{}Final HW checkpoint of {} failed", logPrefix, logDirectory.path(), e);
        }
        close.run();
        LOG.info("{}Shut down", logPrefix);
    }

    // -------------------------------------------------------------------------------------------- produce

    /**
     * PRO-1..PRO-5: appends to each partition this broker leads. acks 0 and 1 complete after the
     * local append; acks -1 waits in the produce purgatory until the HW passes the appended records,
     * at most {@code timeoutMs}. LOG-11 group commit: an append that made a flush due
     * ({@code flush.messages} / {@code flush.ms}) does not force the disk on this thread; the log is
     * handed to the broker's flusher, and an acks=1 or acks=-1 produce also waits (in the purgatory,
     * at most {@code timeoutMs}) until the leader's recovery point passes its records, so an
     * acknowledged record is on the leader's disk as when Kafka flushes inside the append. Every call
     * completes exactly once; every partition of the request gets a result.
     */
    public CompletableFuture<Map<TopicPartition, ProduceResult>> produce(Map<TopicPartition, MemoryRecords> entries,
                                                                         int requiredAcks, long timeoutMs) {
        Objects.requireNonNull(entries, "entries");
        CompletableFuture<Map<TopicPartition, ProduceResult>> future = new CompletableFuture<>();
        Map<TopicPartition, ProduceResult> results = new LinkedHashMap<>();
        if (requiredAcks != -1 && requiredAcks != 0 && requiredAcks != 1) {
            // PRO-1
            entries.keySet().forEach(tp -> results.put(tp, ProduceResult.failed(Errors.INVALID_REQUIRED_ACKS)));
            future.complete(Collections.unmodifiableMap(results));
            return future;
        }
        Map<TopicPartition, DelayedProduce.PartitionWait> waits = new LinkedHashMap<>();
        for (Map.Entry<TopicPartition, MemoryRecords> e : entries.entrySet()) {
            TopicPartition tp = e.getKey();
            ProduceResult result = appendToLeader(tp, e.getValue(), requiredAcks, waits);
            results.put(tp, result);
        }
        boolean anyAppended = waits.values().stream().anyMatch(w -> w.appendResult().error() == Errors.NONE);
        boolean anyAwaitsFlush = waits.values().stream().anyMatch(DelayedProduce.PartitionWait::awaitFlush);
        if (requiredAcks == 0 || !anyAppended || shutDown || (requiredAcks == 1 && !anyAwaitsFlush)) {
            future.complete(Collections.unmodifiableMap(results));
            return future;
        }
        // PRO-3: park until the HW (acks=-1) and the leader's flush (a flush was due) pass every appended
        // partition; failed ones keep their error.
        DelayedProduce delayed = new DelayedProduce(timeoutMs, waits, this::onlinePartition);
        delayed.result().thenAccept(answer -> future.complete(Collections.unmodifiableMap(new LinkedHashMap<>(answer))));
        try {
            producePurgatory.tryCompleteElseWatch(delayed, delayed.keys());
        } catch (IllegalStateException shuttingDown) {
            delayed.forceComplete();
        }
        return future;
    }

    private ProduceResult appendToLeader(TopicPartition tp, MemoryRecords records, int requiredAcks,
                                         Map<TopicPartition, DelayedProduce.PartitionWait> waits) {
        ProduceResult result = tryAppendToLeader(tp, records, requiredAcks, waits);
        if (result.error() != Errors.NONE) {
            // Nothing to wait for; DelayedProduce keeps this error as the partition's answer.
            waits.put(tp, new DelayedProduce.PartitionWait(-1L, ProduceResult.failed(result.error())));
        }
        return result;
    }

    private ProduceResult tryAppendToLeader(TopicPartition tp, MemoryRecords records, int requiredAcks,
                                            Map<TopicPartition, DelayedProduce.PartitionWait> waits) {
        Partition partition = partitions.get(tp);
        if (partition == null) {
            return ProduceResult.failed(notHostedError(tp));
        }
        LeaderAppendResult result;
        try {
            result = partition.appendRecordsToLeader(records, requiredAcks);
        } catch (ApiException e) {
            if (e.error() == Errors.KAFKA_STORAGE_ERROR) {
                handleStorageFailure(tp, e);
            }
            LOG.debug("{}Produce to {} failed: {}", logPrefix, tp, e.toString());
            return ProduceResult.failed(e.error());
        } catch (UncheckedIOException e) {
            handleStorageFailure(tp, e);
            return ProduceResult.failed(Errors.KAFKA_STORAGE_ERROR);
        }
        LogAppendInfo info = result.info();
        // FET-5: every leader append checks the fetch purgatory (a parked follower fetch wakes on new data).
        fetchPurgatory.checkAndComplete(tp);
        if (result.highWatermarkIncreased()) {
            producePurgatory.checkAndComplete(tp);
        }
        if (info.flushDue()) {
            // LOG-11 group commit: the flusher forces it (with whatever else is appended until it runs).
            logFlusher.requestFlush(tp, partition.localLog());
        }
        ProduceResult appended = new ProduceResult(Errors.NONE, info.firstOffset(), info.logAppendTimeMs());
        waits.put(tp, new DelayedProduce.PartitionWait(info.lastOffset() + 1, appended, requiredAcks == -1,
                info.flushDue() && requiredAcks != 0));
        return appended;
    }

    // ---------------------------------------------------------------------------------------------- fetch

    /**
     * FET-1..FET-6: answers a follower or consumer fetch. Reads every partition once (recording a
     * follower's position, FET-4); if fewer than {@code minBytes} are available and nothing failed
     * or diverged, parks the fetch for up to {@code maxWaitMs} (FET-5). The response holds at most
     * {@code maxBytes}, but at least one batch for the first partition with data (FET-6, LOG-3).
     */
    public CompletableFuture<FetchResponse> fetch(FetchRequest request) {
        Objects.requireNonNull(request, "request");
        boolean mayPark = request.maxWaitMs() > 0 && !request.partitions().isEmpty();
        // A fetch that may park records what its first read saw; parked, it never sends that read's
        // answer, so the answer is built only if it is sent now.
        ParkedFetch snapshot = mayPark ? new ParkedFetch(request, hostedGeneration) : null;
        DelayedFetch.Read first = read(request, true, null, snapshot, !mayPark || shutDown);
        CompletableFuture<FetchResponse> future = new CompletableFuture<>();
        if (!mayPark || first.satisfied() || shutDown) {
            future.complete(first.response() != null ? first.response()
                    : read(request, false, null, null, true).response());
            return future;
        }
        ParkedFetch parked = snapshot.isUsable() ? snapshot : null;
        DelayedFetch delayed = new DelayedFetch(request, wakeCheck(parked), r -> read(r, false, parked, null, true),
                future);
        try {
            fetchPurgatory.tryCompleteElseWatch(delayed, request.partitions().keySet());
        } catch (IllegalStateException shuttingDown) {
            delayed.forceComplete();
        }
        return future;
    }

    /**
     * What each wake of a parked fetch runs (FET-5): while every partition is unchanged since it
     * parked ({@link ParkedFetch}), nothing is read at all; otherwise only the changed partitions
     * are read, and an answer is built only if the fetch is now satisfied. Each wake of the
     * purgatory (every append, every HW change) once re-read every partition of every parked fetch:
     * O(partitions per fetch) log reads per append.
     */
    private Function<FetchRequest, DelayedFetch.Read> wakeCheck(ParkedFetch parked) {
        if (parked == null) {
            return r -> read(r, false, null, null, false);
        }
        return r -> {
            for (int k = 0; k < parked.size(); k++) {
                if (!isUnchanged(parked, k, parked.topicPartition(k))) {
                    return read(r, false, parked, null, false);
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
     * @param updateFetchState FET-4: whether this is the first read of a follower fetch
     * @param parked           for a parked fetch's re-read: partitions it shows unchanged are
     *                         answered from their fields instead of being read; null reads all
     * @param recording        for a first read that may park: where each partition's state and
     *                         answer are recorded; null records nothing
     * @param answerAlways     whether to build the response even when the fetch is not satisfied
     *                         (else the returned read carries none)
     */
    private DelayedFetch.Read read(FetchRequest request, boolean updateFetchState, ParkedFetch parked,
                                   ParkedFetch recording, boolean answerAlways) {
        long nowMs = scheduler.time().milliseconds();
        int n = request.partitions().size();
        TopicPartition[] tps = new TopicPartition[n];
        // null marks a partition the parked snapshot shows unchanged: its answer is built only if sent.
        FetchResponse.PartitionData[] answers = new FetchResponse.PartitionData[n];
        int remainingBytes = request.maxBytes();
        boolean gotData = false;
        long bytesReadable = 0;
        boolean satisfiedByState = false;
        List<TopicPartition> hwIncreased = null;
        for (int k = 0; k < n; k++) {
            TopicPartition tp = request.topicPartition(k);
            FetchRequest.PartitionData data = request.partitionData(k);
            tps[k] = tp;
            if (parked != null && isUnchanged(parked, k, tp)) {
                continue;
            }
            FetchResponse.PartitionData answer;
            Partition partition = partitions.get(tp);
            if (partition == null) {
                answer = FetchResponse.PartitionData.error(notHostedError(tp));
            } else {
                int maxBytes = Math.max(1, Math.min(data.partitionMaxBytes(), remainingBytes));
                partitionReads.increment();
                try {
                    PartitionFetchResult result = partition.fetchRecords(request, data, maxBytes, nowMs,
                            updateFetchState);
                    answer = result.data();
                    if (result.highWatermarkIncreased()) {
                        if (hwIncreased == null) {
                            hwIncreased = new ArrayList<>();
                        }
                        hwIncreased.add(tp);
                    }
                } catch (ApiException ex) {
                    if (ex.error() == Errors.KAFKA_STORAGE_ERROR) {
                        handleStorageFailure(tp, ex);
                    }
                    answer = FetchResponse.PartitionData.error(ex.error());
                } catch (UncheckedIOException ex) {
                    handleStorageFailure(tp, ex);
                    answer = FetchResponse.PartitionData.error(Errors.KAFKA_STORAGE_ERROR);
                }
            }
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
            hwIncreased.forEach(this::wakePurgatories);
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
     * Partitions read through {@link Partition#fetchRecords} (each a log read) since start-up; the
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
        synchronized (stateChangeLock) {
            if (shutDown) {
                return;
            }
            if (delta.offset() <= lastAppliedMetadataOffset) {
                LOG.debug("{}Ignoring metadata delta at offset {}; already at {}", logPrefix, delta.offset(),
                        lastAppliedMetadataOffset);
                return;
            }
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
            }
            for (PartitionRegistration registration : delta.partitions()) {
                applyPartition(registration, stopFetching, startFetching, toWake);
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

    private void applyPartition(PartitionRegistration registration, Set<TopicPartition> stopFetching,
                                Map<TopicPartition, InitialFetchState> startFetching, Set<TopicPartition> toWake) {
        TopicPartition tp = registration.topicPartition();
        metadataPartitions.put(tp, registration);
        if (!registration.replicas().contains(brokerId)) {
            if (stopReplica(tp)) {
                stopFetching.add(tp);
                toWake.add(tp);
            }
            return;
        }
        Partition partition;
        try {
            partition = getOrCreatePartition(tp);
        } catch (ApiException | UncheckedIOException e) {
            LOG.error("{}Could not create the log of {}: {}", logPrefix, tp, e.toString());
            return;
        }
        if (partition.isOffline()) {
            return;
        }
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

    private Partition getOrCreatePartition(TopicPartition tp) {
        Partition existing = partitions.get(tp);
        if (existing != null) {
            return existing;
        }
        Log log = logDirectory.getOrCreateLog(tp, config.logConfig());
        // LOG-11 group commit: leader appends leave due flushes to the LogFlusher (follower appends still flush).
        log.setLeaderFlushDeferred(true);
        Partition partition = new Partition(LocalLog.of(log), topicConfigs.minInsyncReplicas(tp.topic()),
                partitionSettings);
        partitions.put(tp, partition);
        hostedGeneration++;
        return partition;
    }

    /** Stops hosting {@code tp} (no longer assigned, or deleted) and deletes its log; returns whether it was hosted. */
    private boolean stopReplica(TopicPartition tp) {
        Partition removed = partitions.remove(tp);
        hostedGeneration++;
        if (removed == null) {
            return false;
        }
        LOG.info("{}Stopped the replica of {} and deleted its log", logPrefix, tp);
        if (!removed.isOffline()) {
            try {
                logDirectory.deleteLog(tp);
            } catch (ApiException | UncheckedIOException e) {
                LOG.error("{}Could not delete the log of {}: {}", logPrefix, tp, e.toString());
            }
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

    /** LOG-9: the body of the recovery-point and log-start-offset checkpoint task. */
    void checkpointRecoveryPoints() {
        if (logDirOffline || shutDown) {
            return;
        }
        try {
            logDirectory.checkpointRecoveryPointsAndLogStartOffsets();
        } catch (ApiException | UncheckedIOException e) {
            LOG.error("{}Writing the recovery-point checkpoints of {} failed", logPrefix, logDirectory.path(), e);
        }
    }

    /** LOG-11: the body of the flush.ms task; a storage failure takes that partition offline (§9). */
    void flushDueLogs() {
        if (logDirOffline || shutDown) {
            return;
        }
        for (Partition partition : sortedPartitions()) {
            if (partition.isOffline()) {
                continue;
            }
            logDirectory.log(partition.topicPartition()).ifPresent(log -> {
                try {
                    log.flushIfDue();
                } catch (ApiException e) {
                    handleStorageFailure(partition.topicPartition(), e);
                }
            });
        }
    }

    /** HW-5: the body of the HW-checkpoint task. An I/O failure takes the log directory offline (§9). */
    void checkpointHighWatermarks() {
        if (logDirOffline || shutDown) {
            return;
        }
        try {
            logDirectory.checkpointHighWatermarks();
        } catch (ApiException | UncheckedIOException e) {
            LOG.error("{}Writing the HW checkpoint of {} failed; taking the log directory offline", logPrefix,
                    logDirectory.path(), e);
            logDirOffline = true;
            sortedPartitions().forEach(p -> handleStorageFailure(p.topicPartition(), e));
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

    /** §9: an I/O failure takes the partition offline (answers KAFKA_STORAGE_ERROR); others go on. */
    private void handleStorageFailure(TopicPartition tp, RuntimeException cause) {
        if (!logDirOffline && logDirectory.isOffline()) {
            // §9: the I/O failure took the whole log directory offline (LogDirectory#isOffline): all its partitions go.
            logDirOffline = true;
            sortedPartitions().forEach(p -> handleStorageFailure(p.topicPartition(), cause));
        }
        Partition partition = partitions.get(tp);
        if (partition == null || partition.isOffline()) {
            return;
        }
        LOG.error("{}Storage failure on {} in {}; the partition is offline: {}", logPrefix, tp, logDirectory.path(),
                cause.toString());
        partition.markOffline();
        fetcherManager.removeFetcherForPartitions(Set.of(tp));
    }

    private Optional<Partition> onlinePartition(TopicPartition tp) {
        return Optional.ofNullable(partitions.get(tp));
    }

    private Errors notHostedError(TopicPartition tp) {
        return metadataPartitions.containsKey(tp) ? Errors.NOT_LEADER_OR_FOLLOWER : Errors.UNKNOWN_TOPIC_OR_PARTITION;
    }

    private void wakePurgatories(TopicPartition tp) {
        producePurgatory.checkAndComplete(tp);
        fetchPurgatory.checkAndComplete(tp);
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

    /** The hosted partitions. */
    public Set<TopicPartition> hostedPartitions() {
        return Set.copyOf(partitions.keySet());
    }

    /** The follower fetchers. */
    public FetcherManager fetcherManager() {
        return fetcherManager;
    }

    /** The log directory. */
    public LogDirectory logDirectory() {
        return logDirectory;
    }

    /** Whether an I/O failure took the log directory offline (§9). */
    public boolean isLogDirOffline() {
        return logDirOffline;
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
            metrics.isrShrink(tp);
        }

        @Override
        public void onIsrExpand(TopicPartition tp) {
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
            handleStorageFailure(tp, cause);
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
                handleStorageFailure(tp, new ApiException(Errors.KAFKA_STORAGE_ERROR, reason));
            }
        }
    }
}
