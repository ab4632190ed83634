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

package dev.insync.replication.core.fetcher;

import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.core.rpc.ReplicaTransport;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.epoch.EpochEndOffset;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongSupplier;
import java.util.Collections;

/**
 * Fetches every partition this broker follows from one leader broker, for one fetcher id
 * (Kafka's {@code ReplicaFetcherThread}, FOL-2..FOL-8).
 *
 * <p>It runs as tasks on its serial executor and never blocks: a round truncates the partitions
 * that need it, sends one Fetch for all fetchable partitions and returns; the response continues
 * on the same executor, and the next round follows at once or after {@code replica.fetch.backoff.ms}.
 * A fetch whose answer never comes is given up after {@link FetcherConfig#lostResponseTimeoutMs()}.
 *
 * <p>The partition map is guarded by this object's monitor, held while a response is applied, so
 * that after {@link #removePartitions} returns no fetched data reaches a removed partition.
 */
public final class ReplicaFetcher {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicaFetcher.class);

    private final String name;
    private final int fetcherId;
    private final int leaderId;
    private final FetcherConfig config;
    private final Scheduler scheduler;
    private final Executor executor;
    private final ReplicaTransport transport;
    private final LongSupplier brokerEpoch;
    private final FetcherListener listener;
    private final String logPrefix;

    // Guarded by this.
    private final Map<TopicPartition, Entry> partitions = new LinkedHashMap<>();
    private long sequence;
    private long scheduledRound = -1;
    private Scheduler.Cancellable pendingRound;
    private long inFlightRequest = -1;
    private FetchRequest inFlightFetch;
    /** When the fetch in flight was sent (the scheduler's clock), for the lost-response watchdog. */
    private long inFlightSentMs;
    /** The last request built; sent again as it is while nothing in it changed (see buildFetch). */
    private FetchRequest lastRequest;
    /** Whether a partition left the fetcher since lastRequest was built. */
    private boolean partitionsRemoved;
    /** FET-7: the fetch session with the leader (full or incremental fetches). */
    private final FetchSessionHandler session;
    /**
     * FET-7: the entries whose fetch state changed since an incremental build last looked at them
     * (every {@link Entry#moveTo}, new entries, and delayed ones until they are ready), so that an
     * idle incremental round looks at O(changed) entries, not at every partition (identity set).
     */
    private final Set<Entry> changed = new LinkedHashSet<>();
    /** Partitions removed since the last incremental build: it forgets them. */
    private final Set<TopicPartition> removedSinceBuild = new LinkedHashSet<>();
    /** Entries in a truncating state: the only ones {@link #maybeTruncate} looks at (identity set). */
    private final Set<Entry> truncating = new LinkedHashSet<>();
    /**
     * How many times a local log start offset moved on this broker (retention, DeleteRecords): the
     * fetch data carries it, so when it moved every entry is looked at once. Lock-free.
     */
    private final LongSupplier localLogStartMoves;
    private long localLogStartMovesSeen;
    /** Entries looked at by incremental builds so far (tests: an idle round is O(changed)). */
    private long examined;
    /** buildFetch's arrays, reused across rounds (the request copies them). */
    private TopicPartition[] requestPartitions = new TopicPartition[0];
    private FetchRequest.PartitionData[] requestData = new FetchRequest.PartitionData[0];
    private Entry[] requestEntries = new Entry[0];
    /** The entry of each partition of lastRequest, in request order. */
    private Entry[] lastRequestEntries = new Entry[0];
    /**
     * The lost-response watchdog: at most one timer pending, due when the oldest possible deadline
     * of the fetch in flight passes. Re-armed only when it fires, so a round costs no timer
     * operation (a schedule and a cancel per fetch were two locked operations on a shared timer).
     */
    private Scheduler.Cancellable watchdog;
    private boolean shutdown;
    /**
     * Set by {@link #shutdown()} before it waits for the monitor: a response being applied stops after
     * the partition it is appending to, so shutdown waits for at most one partition's log I/O.
     */
    private volatile boolean stopRequested;

    /**
     * One followed partition, changed in place under the fetcher's monitor: an idle round (an
     * empty answer at the fetch offset, the same request again) allocates and writes nothing here.
     */
    private final class Entry {
        private static final long UNKNOWN = Long.MIN_VALUE;

        private final FollowerPartition partition;
        private PartitionFetchState state;
        /** Leader HW minus the local LEO at the last answer (MaxLag); 0 before one and once failed. */
        private long lag;
        /** Removed from the fetcher, or replaced by a new entry for the same partition. */
        private boolean replaced;
        /** What the last request built carried for this partition; null if it was not in it. */
        private FetchRequest.PartitionData sent;
        /** The leader HW last applied with FOL-5, and the HW that produced. */
        private long appliedLeaderHighWatermark = UNKNOWN;
        private long highWatermarkAfterApply = UNKNOWN;
        /** The leader log start offset last applied with LOG-10. */
        private long appliedLeaderLogStartOffset = UNKNOWN;

        Entry(FollowerPartition partition, PartitionFetchState state) {
            this.partition = partition;
            changed.add(this);
            settleTo(state);
        }

        FollowerPartition partition() {
            return partition;
        }

        PartitionFetchState state() {
            return state;
        }

        /** Every change of the fetch state: the next incremental build looks at this entry (FET-7). */
        void moveTo(PartitionFetchState next) {
            changed.add(this);
            settleTo(next);
        }

        /**
         * A fetch state set by the build that looked at this entry: not a change for the next build to
         * look at; the truncating set follows it, as for every state.
         */
        void settleTo(PartitionFetchState next) {
            state = next;
            if (next.isTruncating()) {
                truncating.add(this);
            } else {
                truncating.remove(this);
            }
        }

        /** The local log changed other than by an append at its end: apply the next answer in full. */
        void forgetApplied() {
            appliedLeaderHighWatermark = UNKNOWN;
            highWatermarkAfterApply = UNKNOWN;
            appliedLeaderLogStartOffset = UNKNOWN;
        }
    }

    /** What one response did, reported to the listener outside the lock. */
    private record Failure(Errors error, String reason) {
    }

    private record Outcome(Set<TopicPartition> highWatermarkChanged, Map<TopicPartition, Failure> failed) {
        Outcome() {
            this(new LinkedHashSet<>(), new LinkedHashMap<>());
        }
    }

    ReplicaFetcher(String name, int fetcherId, int leaderId, FetcherConfig config, Scheduler scheduler,
                   Executor executor, ReplicaTransport transport, LongSupplier brokerEpoch, FetcherListener listener,
                   LongSupplier localLogStartMoves) {
        this.localLogStartMoves = Objects.requireNonNull(localLogStartMoves, "localLogStartMoves");
        this.name = Objects.requireNonNull(name, "name");
        this.fetcherId = fetcherId;
        this.leaderId = leaderId;
        this.config = Objects.requireNonNull(config, "config");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.transport = Objects.requireNonNull(transport, "transport");
        this.brokerEpoch = Objects.requireNonNull(brokerEpoch, "brokerEpoch");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.executor = Objects.requireNonNull(executor, "executor");
        this.logPrefix = "[ReplicaFetcher replicaId=" + config.replicaId() + ", leaderId=" + leaderId
                + ", fetcherId=" + fetcherId + "] ";
        this.session = new FetchSessionHandler(leaderId, config.fetchSessions());
    }

    /** The executor name, {@code ReplicaFetcherThread-<fetcherId>-<leaderId>} (FOL-1). */
    public String name() {
        return name;
    }

    /** The leader broker this fetcher fetches from. */
    public int leaderId() {
        return leaderId;
    }

    /** This fetcher's id among the leader's fetchers. */
    public int fetcherId() {
        return fetcherId;
    }

    /**
     * FOL-7: starts fetching these partitions. A partition already here with the same leader epoch
     * (and not failed) keeps its state; otherwise it starts at {@code initOffset}, fetching when its
     * log has epoch information and truncating to that offset (its HW) first when it has none.
     */
    public void addPartitions(Map<TopicPartition, InitialFetchState> initialStates) {
        synchronized (this) {
            if (shutdown) {
                throw new IllegalStateException(logPrefix + "is shut down; cannot add " + initialStates.keySet());
            }
            for (Map.Entry<TopicPartition, InitialFetchState> e : initialStates.entrySet()) {
                TopicPartition tp = e.getKey();
                InitialFetchState init = e.getValue();
                if (init.leaderId() != leaderId) {
                    throw new IllegalArgumentException(logPrefix + "partition " + tp + " follows leader "
                            + init.leaderId() + ", not " + leaderId);
                }
                Entry current = partitions.get(tp);
                if (current != null && !current.state().isFailed()
                        && current.state().currentLeaderEpoch() == init.currentLeaderEpoch()) {
                    continue; // FOL-7: same leader epoch keeps its position
                }
                OptionalInt latestEpoch = init.partition().latestEpoch();
                FetchState state = latestEpoch.isPresent() ? FetchState.FETCHING : FetchState.TRUNCATING;
                PartitionFetchState fetchState = new PartitionFetchState(init.initOffset(),
                        init.currentLeaderEpoch(), latestEpoch, state);
                if (current != null) {
                    current.replaced = true;
                    changed.remove(current);
                    truncating.remove(current);
                }
                partitions.put(tp, new Entry(init.partition(), fetchState));
                LOG.info("{}Added partition {} at fetch offset {} in leader epoch {} ({})", logPrefix, tp,
                        init.initOffset(), init.currentLeaderEpoch(), state);
            }
            wakeUp();
        }
    }

    /** Stops fetching these partitions; returns the states they had. No fetched data reaches them afterwards. */
    public synchronized Map<TopicPartition, PartitionFetchState> removePartitions(Set<TopicPartition> tps) {
        Map<TopicPartition, PartitionFetchState> removed = new LinkedHashMap<>();
        for (TopicPartition tp : tps) {
            Entry e = partitions.remove(tp);
            if (e != null) {
                removed.put(tp, e.state());
                e.replaced = true;
                partitionsRemoved = true;
                changed.remove(e);
                truncating.remove(e);
                removedSinceBuild.add(tp);
            }
        }
        if (!removed.isEmpty()) {
            LOG.info("{}Removed fetcher for partitions {}", logPrefix, removed.keySet());
        }
        return removed;
    }

    /** The partition's fetch state, if this fetcher has it. */
    public synchronized Optional<PartitionFetchState> fetchState(TopicPartition tp) {
        return Optional.ofNullable(partitions.get(tp)).map(Entry::state);
    }

    /** Every partition's fetch state, in the order they were added. */
    public synchronized Map<TopicPartition, PartitionFetchState> fetchStates() {
        Map<TopicPartition, PartitionFetchState> out = new LinkedHashMap<>();
        partitions.forEach((tp, e) -> out.put(tp, e.state()));
        return out;
    }

    /** How many partitions (including failed ones) this fetcher holds. */
    public synchronized int partitionCount() {
        return partitions.size();
    }

    /** The largest lag (leader HW minus local LEO) seen in the last responses, for the MaxLag metric. */
    public synchronized long maxLag() {
        long max = 0L;
        for (Entry e : partitions.values()) {
            max = Math.max(max, e.lag);
        }
        return max;
    }

    /**
     * Stops scheduling rounds and ignores any answer still in flight. Never interrupts anything: a
     * response being applied on the fetcher's executor finishes the partition it is appending to or
     * truncating (an interrupt there would close the log's channel), skips the rest, and only then
     * does this return, so afterwards the fetcher does no log I/O. Idempotent.
     */
    public void shutdown() {
        stopRequested = true;
        synchronized (this) {
            if (shutdown) {
                return;
            }
            shutdown = true;
            cancelPendingRound();
            clearInFlight();
            cancelWatchdog();
        }
        LOG.info("{}Stopped", logPrefix);
    }

    // ---------------------------------------------------------------------------------- rounds

    /** Runs a round now unless one is in flight (Kafka signals the fetcher's condition). */
    private void wakeUp() {
        if (!shutdown && inFlightRequest < 0) {
            cancelPendingRound();
            scheduleRound(0L);
        }
    }

    private void scheduleRound(long delayMs) {
        long id = ++sequence;
        scheduledRound = id;
        if (delayMs <= 0) {
            pendingRound = null;
            submit(() -> runRound(id));
        } else {
            pendingRound = scheduler.schedule(executor, () -> runRound(id), delayMs);
        }
    }

    private void cancelPendingRound() {
        scheduledRound = -1;
        if (pendingRound != null) {
            pendingRound.cancel();
            pendingRound = null;
        }
    }

    private void clearInFlight() {
        inFlightRequest = -1;
        inFlightFetch = null;
    }

    /** Stops the watchdog (shutdown only: while running it stays armed and re-arms itself). */
    private void cancelWatchdog() {
        if (watchdog != null) {
            watchdog.cancel();
            watchdog = null;
        }
    }

    /** Arms the watchdog for the fetch just sent unless it is armed already (for an earlier deadline). */
    private void armWatchdog() {
        if (watchdog == null) {
            watchdog = scheduler.schedule(executor, this::onWatchdog, config.lostResponseTimeoutMs());
        }
    }

    /**
     * The watchdog fired: a fetch in flight for {@link FetcherConfig#lostResponseTimeoutMs()} is given
     * up; one sent later re-arms the watchdog for its own deadline; with none in flight it stays
     * disarmed until the next send.
     */
    private void onWatchdog() {
        synchronized (this) {
            watchdog = null;
            if (shutdown || inFlightRequest < 0) {
                return;
            }
            long ageMs = scheduler.time().milliseconds() - inFlightSentMs;
            if (ageMs < config.lostResponseTimeoutMs()) {
                watchdog = scheduler.schedule(executor, this::onWatchdog, config.lostResponseTimeoutMs() - ageMs);
                return;
            }
            onLostResponse();
        }
    }

    private void submit(Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            LOG.debug("{}Executor rejected a task (shutting down)", logPrefix);
        }
    }

    /** FOL-2: truncate what needs it, then send one fetch for everything fetchable. */
    private void runRound(long id) {
        FetchRequest request;
        long requestId;
        Outcome outcome = new Outcome();
        synchronized (this) {
            if (shutdown || id != scheduledRound || inFlightRequest >= 0) {
                return; // superseded by a newer round, or a fetch is out
            }
            scheduledRound = -1;
            pendingRound = null;
            maybeTruncate(outcome);
            long nowMs = scheduler.time().milliseconds();
            request = buildFetch(nowMs, outcome);
            if (request == null) {
                scheduleRound(idleWaitMs(nowMs));
                requestId = -1;
            } else {
                requestId = ++sequence;
                inFlightRequest = requestId;
                inFlightFetch = request;
                inFlightSentMs = nowMs;
                armWatchdog();
            }
        }
        report(outcome);
        if (request == null) {
            return;
        }
        // The answer arrives as a task of this fetcher's executor (on the in-memory network straight
        // from the leader's thread, without a stop on this broker's network thread).
        transport.fetch(leaderId, fetcherId, request, executor,
                (response, error) -> onResponse(requestId, request, response, error));
    }

    /** With nothing to fetch: wait the backoff, or less if a delayed partition becomes ready sooner. */
    private long idleWaitMs(long nowMs) {
        long wait = config.fetchBackoffMs();
        for (Entry e : partitions.values()) {
            if (e.state().state() instanceof FetchState.Delayed d) {
                wait = Math.min(wait, Math.max(1L, d.untilMs() - nowMs));
            }
        }
        return wait;
    }

    /** FOL-7: a log without epoch information is truncated to its HW (the initial fetch offset) first. */
    private void maybeTruncate(Outcome outcome) {
        if (truncating.isEmpty()) {
            return;
        }
        // Only the truncating entries (a copy: moving one out of the truncating state changes the set).
        for (Entry e : List.copyOf(truncating)) {
            if (stopRequested) {
                return;
            }
            if (e.replaced || !e.state().isTruncating()) {
                continue;
            }
            TopicPartition tp = e.partition().topicPartition();
            try {
                long offset = e.state().fetchOffset();
                long hwBefore = e.partition().highWatermark();
                LOG.info("{}Truncating partition {} to local high watermark {}", logPrefix, tp, offset);
                e.partition().truncateTo(offset);
                e.forgetApplied();
                if (e.partition().highWatermark() != hwBefore) {
                    outcome.highWatermarkChanged().add(tp);
                }
                e.moveTo(fetchingAtLogEnd(e));
            } catch (RuntimeException ex) {
                markFailed(tp, e, "truncation to the high watermark failed: " + ex, ex, outcome);
            }
        }
    }

    /**
     * FOL-3: one request for every partition ready at {@code nowMs}; null when there is none.
     *
     * <p>Each partition keeps the data it was last sent with; while no partition's position, epochs
     * or log start offset changed and the same partitions are ready, the previous request is sent
     * again as it is. A fetcher with 1,000 idle partitions sends the same request every
     * {@code replica.fetch.wait.max.ms} instead of building a 1,000-entry request each round.
     */
    private FetchRequest buildFetch(long nowMs, Outcome outcome) {
        long epoch = brokerEpoch.getAsLong();
        if (session.nextIsIncremental(epoch)) {
            return buildIncrementalFetch(nowMs, outcome, epoch);
        }
        int n = partitions.size();
        if (requestPartitions.length < n) {
            requestPartitions = new TopicPartition[n];
            requestData = new FetchRequest.PartitionData[n];
            requestEntries = new Entry[n];
        }
        int sessionId = session.fullFetchSessionId();
        int sessionEpoch = session.fullFetchEpoch();
        boolean changed = partitionsRemoved || lastRequest == null || lastRequest.brokerEpoch() != epoch
                || lastRequest.sessionId() != sessionId || lastRequest.sessionEpoch() != sessionEpoch;
        // FET-7: a full request looks at every entry; an incremental build that may follow starts from
        // what changes after it (and the delayed entries, until they are ready).
        this.changed.clear();
        removedSinceBuild.clear();
        int count = 0;
        for (Map.Entry<TopicPartition, Entry> me : partitions.entrySet()) {
            Entry e = me.getValue();
            PartitionFetchState st = e.state();
            if (!st.isReadyForFetch(nowMs)) {
                changed |= e.sent != null;
                e.sent = null;
                if (st.state() instanceof FetchState.Delayed) {
                    this.changed.add(e);
                }
                continue;
            }
            TopicPartition tp = me.getKey();
            long logStartOffset;
            try {
                logStartOffset = e.partition().logStartOffset();
            } catch (RuntimeException ex) {
                markFailed(tp, e, "reading the local log start offset failed: " + ex, ex, outcome);
                changed |= e.sent != null;
                e.sent = null;
                continue;
            }
            FetchRequest.PartitionData before = e.sent;
            FetchRequest.PartitionData d = fetchData(e, st, logStartOffset);
            changed |= d != before;
            if (!(st.state() instanceof FetchState.Fetching)) {
                e.moveTo(st.withState(FetchState.FETCHING));
            }
            requestPartitions[count] = tp;
            requestData[count] = d;
            requestEntries[count] = e;
            count++;
        }
        if (count == 0) {
            lastRequest = null;
            return null;
        }
        // Every partition with data to send was in lastRequest (its sent data is cleared whenever it
        // is left out) and none left: the same set, so the size check is only a guard.
        if (!changed && lastRequest.partitions().size() == count) {
            session.fullFetchSent(lastRequest, epoch);
            return lastRequest;
        }
        // FET-7: with sessions on, a full fetch (re)opens the session, closing the one it had if any.
        lastRequest = FetchRequest.follower(config.replicaId(), epoch)
                .maxWaitMs(config.fetchWaitMaxMs()).minBytes(config.fetchMinBytes())
                .maxBytes(config.fetchResponseMaxBytes()).partitions(requestPartitions, requestData, count)
                .session(sessionId, sessionEpoch).build();
        lastRequestEntries = Arrays.copyOf(requestEntries, count);
        partitionsRemoved = false;
        session.fullFetchSent(lastRequest, epoch);
        return lastRequest;
    }

    /**
     * FOL-3 in a fetch session (FET-7): the same partitions are fetched with the same data as a full
     * fetch would carry, but the request names only those new to the session or whose data changed,
     * and forgets those that left it (removed, not ready, failed). An idle round sends an empty
     * fetch, which the leader answers with what changed. Null when nothing is fetchable and the
     * session holds nothing.
     */
    /**
     * The partition's fetch data for this round: the one sent last while nothing in it changed (the
     * same object: the session handler's check that leaves an unchanged partition out of an
     * incremental request, FET-7, is then an identity test), else a new one, remembered as sent.
     */
    private FetchRequest.PartitionData fetchData(Entry e, PartitionFetchState st, long logStartOffset) {
        FetchRequest.PartitionData d = e.sent;
        if (d == null || d.fetchOffset() != st.fetchOffset() || d.logStartOffset() != logStartOffset
                || d.currentLeaderEpoch().getAsInt() != st.currentLeaderEpoch()
                || !d.lastFetchedEpoch().equals(st.lastFetchedEpoch())) {
            d = new FetchRequest.PartitionData(st.fetchOffset(), logStartOffset, config.fetchMaxBytes(),
                    OptionalInt.of(st.currentLeaderEpoch()), st.lastFetchedEpoch(), e.partition().topicId());
            e.sent = d;
        }
        return d;
    }

    private FetchRequest buildIncrementalFetch(long nowMs, Outcome outcome, long epoch) {
        FetchSessionHandler.Incremental incremental = session.incremental();
        for (TopicPartition tp : removedSinceBuild) {
            if (!partitions.containsKey(tp)) { // re-added meanwhile: its new entry is looked at below
                incremental.forget(tp);
            }
        }
        removedSinceBuild.clear();
        // Only the entries whose state changed; every entry once after a local log start moved (its
        // fetch data carries the log start offset).
        long moves = localLogStartMoves.getAsLong();
        Collection<Entry> look;
        if (moves != localLogStartMovesSeen) {
            localLogStartMovesSeen = moves;
            look = List.copyOf(partitions.values());
        } else {
            look = new ArrayList<>(changed);
        }
        changed.clear();
        int n = look.size();
        if (requestPartitions.length < n) {
            requestPartitions = new TopicPartition[n];
            requestData = new FetchRequest.PartitionData[n];
            requestEntries = new Entry[n];
        }
        int count = 0;
        for (Entry e : look) {
            if (e.replaced) {
                continue;
            }
            examined++;
            TopicPartition tp = e.partition().topicPartition();
            PartitionFetchState st = e.state();
            if (!st.isReadyForFetch(nowMs)) {
                e.sent = null;
                incremental.forget(tp);
                if (st.state() instanceof FetchState.Delayed) {
                    changed.add(e); // looked at again each round until it is ready
                }
                continue;
            }
            long logStartOffset;
            try {
                logStartOffset = e.partition().logStartOffset();
            } catch (RuntimeException ex) {
                markFailed(tp, e, "reading the local log start offset failed: " + ex, ex, outcome);
                e.sent = null;
                incremental.forget(tp);
                continue;
            }
            FetchRequest.PartitionData d = fetchData(e, st, logStartOffset);
            if (!(st.state() instanceof FetchState.Fetching)) {
                e.settleTo(st.withState(FetchState.FETCHING));
            }
            if (incremental.add(tp, d)) {
                requestPartitions[count] = tp;
                requestData[count] = d;
                requestEntries[count] = e;
                count++;
            }
        }
        java.util.List<TopicPartition> forgotten = incremental.forgotten();
        // Full requests are rebuilt from scratch after the session ends.
        lastRequest = null;
        // Every ready entry is in the session (an entry leaves it only when a build finds it not ready).
        if (session.sessionPartitionCount() == 0 && forgotten.isEmpty()) {
            return null;
        }
        return FetchRequest.follower(config.replicaId(), epoch)
                .maxWaitMs(config.fetchWaitMaxMs()).minBytes(config.fetchMinBytes())
                .maxBytes(config.fetchResponseMaxBytes()).partitions(requestPartitions, requestData, count)
                .session(incremental.sessionId(), incremental.epoch()).forgotten(forgotten).build();
    }

    /** Entries looked at by incremental builds so far (tests, diagnostics). */
    synchronized long examinedByIncrementalBuilds() {
        return examined;
    }

    /** The partitions a fetch covered: those it named and, for one in a session, every one the session holds. */
    private Set<TopicPartition> coveredBy(FetchRequest request) {
        if (!request.isIncremental()) {
            return request.partitions().keySet();
        }
        Set<TopicPartition> covered = new LinkedHashSet<>(session.sessionPartitions());
        covered.addAll(request.partitions().keySet());
        return covered;
    }

    /** The fetch's answer was lost (link cut, stage never completed): back off and retry. Under the monitor. */
    private void onLostResponse() {
        inFlightRequest = -1;
        LOG.warn("{}No answer from leader {} within {} ms; retrying after {} ms", logPrefix, leaderId,
                config.lostResponseTimeoutMs(), config.fetchBackoffMs());
        delay(coveredBy(inFlightFetch));
        session.handleError(); // FET-7: the next fetch is full
        inFlightFetch = null;
        scheduleRound(0L);
    }

    /**
     * Applies an answer, then runs the next round right here (it is this executor's next task
     * anyway): the follower's next fetch, which carries the ack of what was just appended (FET-4),
     * leaves without another trip through the executor's queue.
     */
    private void onResponse(long requestId, FetchRequest request, FetchResponse response, Throwable error) {
        Outcome outcome = new Outcome();
        long nextRound;
        synchronized (this) {
            if (shutdown || inFlightRequest != requestId) {
                LOG.debug("{}Dropping the answer to an abandoned fetch", logPrefix);
                return;
            }
            clearInFlight();
            if (error != null) {
                Set<TopicPartition> covered = coveredBy(request);
                LOG.warn("{}Error in fetch from leader {} for partitions {}: {}", logPrefix, leaderId, covered,
                        error.toString());
                delay(covered);
                session.handleError(); // FET-7: a lost answer or connection: the next fetch is full
            } else if (response.error() == Errors.FETCH_SESSION_ID_NOT_FOUND
                    || response.error() == Errors.INVALID_FETCH_SESSION_EPOCH) {
                // FET-7: the leader lost, evicted or refused the session: a full fetch now opens a new one.
                LOG.info("{}Fetch session {} with leader {}: {}; sending a full fetch", logPrefix, session.sessionId(),
                        leaderId, response.error());
                session.handleResponse(request, response);
            } else if (response.error() != Errors.NONE) {
                LOG.warn("{}Fetch from leader {} failed with {}", logPrefix, leaderId, response.error());
                delay(coveredBy(request));
                session.handleResponse(request, response);
            } else if (!session.handleResponse(request, response)) {
                LOG.warn("{}Answer of leader {} does not fit fetch session {} (epoch {}); sending a full fetch",
                        logPrefix, leaderId, request.sessionId(), request.sessionEpoch());
            } else if (request.isIncremental()) {
                processSessionResponse(response, outcome);
            } else {
                processFetchResponse(request, response, outcome);
            }
            cancelPendingRound();
            nextRound = ++sequence;
            scheduledRound = nextRound;
        }
        reportFailures(outcome);
        try {
            runRound(nextRound);
        } finally {
            // After the next fetch left: the HW report only wakes fetches parked on this broker (FET-5,
            // consumers'), while that fetch carries the ack the leader's acks=all produces wait for (FET-4).
            reportHighWatermarks(outcome);
        }
    }

    private void report(Outcome outcome) {
        reportFailures(outcome);
        reportHighWatermarks(outcome);
    }

    /** FOL-6: before the next round, so that a storage failure takes its directory offline before it is fetched again. */
    private void reportFailures(Outcome outcome) {
        outcome.failed().forEach((tp, f) -> listener.onPartitionFailed(tp, f.error(), f.reason()));
    }

    private void reportHighWatermarks(Outcome outcome) {
        if (!outcome.highWatermarkChanged().isEmpty()) {
            // INV-6: the outcome's own insertion-ordered set (never Set.copyOf, whose order is randomized per
            // JVM: the order callbacks run in decides the order of simulated events); nothing changes it now.
            listener.onHighWatermarksChanged(Collections.unmodifiableSet(outcome.highWatermarkChanged()));
        }
    }

    // ------------------------------------------------------------------------ response processing

    /**
     * Applies every partition's answer. The answers come in request order (FET-6) and the request's
     * entries are known by position ({@link #lastRequestEntries}), so each partition is matched by
     * walking both in step; a partition out of step, or whose entry was removed or replaced meanwhile,
     * is looked up by name.
     */
    private void processFetchResponse(FetchRequest request, FetchResponse response, Outcome outcome) {
        Entry[] sentEntries = request == lastRequest ? lastRequestEntries : null;
        int answered = response.partitionCount();
        for (int i = 0; i < request.partitionCount(); i++) {
            if (stopRequested) {
                LOG.debug("{}Stopping: the rest of the answer is not applied", logPrefix);
                return;
            }
            TopicPartition tp = request.topicPartition(i);
            FetchRequest.PartitionData sent = request.partitionData(i);
            FetchResponse.PartitionData data = i < answered && response.topicPartition(i).equals(tp)
                    ? response.partitionData(i) : response.partitions().get(tp);
            Entry e = sentEntries != null && !sentEntries[i].replaced ? sentEntries[i] : partitions.get(tp);
            if (data == null || e == null) {
                continue;
            }
            applyAnswer(tp, e, sent, data, outcome);
        }
    }

    /**
     * FET-7: applies an incremental fetch's answer. The leader sent only the partitions with news, each
     * answering the data its session holds, which is what this fetcher last sent for it; a partition
     * left out has nothing new (its HW, log start and LEO are the ones last applied).
     */
    private void processSessionResponse(FetchResponse response, Outcome outcome) {
        for (int i = 0; i < response.partitionCount(); i++) {
            if (stopRequested) {
                LOG.debug("{}Stopping: the rest of the answer is not applied", logPrefix);
                return;
            }
            TopicPartition tp = response.topicPartition(i);
            Entry e = partitions.get(tp);
            FetchRequest.PartitionData sent = session.sessionData(tp);
            if (e == null || sent == null) {
                continue; // left the fetcher meanwhile
            }
            applyAnswer(tp, e, sent, response.partitionData(i), outcome);
        }
    }

    /** One partition's answer to a fetch that carried {@code sent} for it (FOL-4..FOL-8). */
    private void applyAnswer(TopicPartition tp, Entry e, FetchRequest.PartitionData sent,
                             FetchResponse.PartitionData data, Outcome outcome) {
        PartitionFetchState st = e.state();
        // FOL-6: removed, re-added or truncated while the fetch was out: the answer is stale.
        if (!(st.state() instanceof FetchState.Fetching) || st.fetchOffset() != sent.fetchOffset()) {
            LOG.debug("{}Ignoring the answer for {} at offset {}: fetch state is now {}", logPrefix, tp,
                    sent.fetchOffset(), st);
            return;
        }
        try {
            processPartition(tp, e, sent, data, outcome);
        } catch (ApiException ex) {
            if (ex.error() == Errors.CORRUPT_MESSAGE || ex.error() == Errors.INVALID_RECORD) {
                LOG.warn("{}Found invalid records in the fetch for {} at offset {}: {}", logPrefix, tp,
                        sent.fetchOffset(), ex.toString());
                delay(Set.of(tp));
            } else {
                markFailed(tp, e, "error processing the fetch at offset " + sent.fetchOffset() + ": " + ex,
                        ex, outcome);
            }
        } catch (RuntimeException ex) {
            markFailed(tp, e, "unexpected error processing the fetch at offset " + sent.fetchOffset()
                    + ": " + ex, ex, outcome);
        }
    }

    private void processPartition(TopicPartition tp, Entry e, FetchRequest.PartitionData sent,
                                  FetchResponse.PartitionData data, Outcome outcome) {
        PartitionFetchState st = e.state();
        boolean sameEpoch = sent.currentLeaderEpoch().isPresent()
                && sent.currentLeaderEpoch().getAsInt() == st.currentLeaderEpoch();
        switch (data.error()) {
            case NONE -> {
                if (!sameEpoch) {
                    return; // fetched in an older leader epoch: ask again in the current one
                }
                if (data.divergingEpoch().isPresent()) {
                    truncateOnDivergence(tp, e, data.divergingEpoch().get(), outcome);
                } else {
                    processPartitionData(tp, e, data, outcome);
                }
            }
            case OFFSET_OUT_OF_RANGE -> {
                if (sameEpoch) {
                    handleOutOfRange(tp, e, data, outcome);
                }
            }
            case FENCED_LEADER_EPOCH -> {
                if (sameEpoch) {
                    LOG.info("{}Partition {} has an older epoch ({}) than the leader; marking it failed until"
                            + " newer metadata arrives", logPrefix, tp, st.currentLeaderEpoch());
                    markFailed(tp, e, "fenced leader epoch " + st.currentLeaderEpoch(), null, outcome);
                } else {
                    delay(Set.of(tp));
                }
            }
            default -> {
                // NOT_LEADER_OR_FOLLOWER, UNKNOWN_LEADER_EPOCH, UNKNOWN_TOPIC_OR_PARTITION, INCONSISTENT_TOPIC_ID
                // (one of the two has not seen a deletion yet), CORRUPT_MESSAGE and any other leader-side error:
                // back off and retry (FOL-6).
                LOG.info("{}Error {} for partition {} at offset {}; retrying after {} ms", logPrefix,
                        data.error(), tp, sent.fetchOffset(), config.fetchBackoffMs());
                delay(Set.of(tp));
            }
        }
    }

    /**
     * FOL-4, FOL-5, LOG-10: append at the LEO, copy the leader's HW and log start offset.
     *
     * <p>An answer without records whose leader HW and log start offset are the ones already applied
     * (and nothing else moved the local HW or log since) would set the same values again: it is
     * taken as read, so an idle partition costs a few field reads per round.
     */
    private void processPartitionData(TopicPartition tp, Entry e, FetchResponse.PartitionData data,
                                      Outcome outcome) {
        FollowerPartition partition = e.partition();
        PartitionFetchState st = e.state();
        long logEndOffset = partition.logEndOffset();
        if (st.fetchOffset() != logEndOffset) {
            // Records are appended only at the LEO; resynchronise and fetch again from it.
            LOG.warn("{}Fetch offset {} of partition {} no longer equals its LEO {}; refetching from the LEO",
                    logPrefix, st.fetchOffset(), tp, logEndOffset);
            e.forgetApplied();
            e.moveTo(fetchingAtLogEnd(e));
            return;
        }
        boolean appended = data.records().sizeInBytes() > 0;
        if (appended) {
            MemoryRecords records;
            try {
                // In memory already when it came over a network or from an in-JVM leader's HEAP read (no copy).
                records = data.records().toMemoryRecords();
            } catch (ApiException gone) {
                // NET-3: a slice of the leader's segment file that changed before it was read here: a
                // leader-side error like NOT_LEADER_OR_FOLLOWER, so back off and fetch again (FOL-6).
                LOG.info("{}Records for partition {} are gone from the leader's file; retrying after {} ms: {}",
                        logPrefix, tp, config.fetchBackoffMs(), gone.getMessage());
                delay(Set.of(tp));
                return;
            }
            partition.appendRecordsAsFollower(records);
        }
        long hwBefore = partition.highWatermark();
        if (appended || data.highWatermark() != e.appliedLeaderHighWatermark || hwBefore != e.highWatermarkAfterApply) {
            long hw = partition.updateFollowerHighWatermark(data.highWatermark());
            if (hw != hwBefore) {
                if (hw < hwBefore) {
                    LOG.debug("{}Non-monotonic update of high watermark for {} from {} to {}", logPrefix, tp,
                            hwBefore, hw);
                }
                outcome.highWatermarkChanged().add(tp);
            }
            e.appliedLeaderHighWatermark = data.highWatermark();
            e.highWatermarkAfterApply = hw;
        }
        if (data.logStartOffset() >= 0 && (appended || data.logStartOffset() != e.appliedLeaderLogStartOffset)) {
            partition.maybeIncrementLogStartOffset(data.logStartOffset());
            e.appliedLeaderLogStartOffset = data.logStartOffset();
            changed.add(e); // FET-7: the local log start, which the fetch data carries, may have moved
        }
        if (appended) {
            e.moveTo(fetchingAtLogEnd(e));
        }
        // Not appended: still fetching at the same LEO with the same epochs, the state is unchanged.
        e.lag = Math.max(0L, data.highWatermark() - e.state().fetchOffset());
    }

    /** FOL-8: no records; truncate to the computed offset and fetch again from the new LEO. */
    private void truncateOnDivergence(TopicPartition tp, Entry e, EpochEndOffset divergingEpoch, Outcome outcome) {
        FollowerPartition partition = e.partition();
        long logEndOffset = partition.logEndOffset();
        Optional<EpochEndOffset> followerEnd = divergingEpoch.leaderEpoch() == EpochEndOffset.UNDEFINED_EPOCH
                ? Optional.empty()
                : partition.endOffsetForEpoch(divergingEpoch.leaderEpoch());
        Truncation.OffsetTruncationState truncation = Truncation.onDivergingEpoch(divergingEpoch,
                e.state().fetchOffset(), logEndOffset, followerEnd);
        LOG.info("{}{}", logPrefix, Truncation.truncationMessage(tp, truncation.offset(), divergingEpoch));
        truncate(tp, e, truncation.offset(), outcome);
    }

    /** FOL-6: use the leader's LEO and log start offset carried by the response. */
    private void handleOutOfRange(TopicPartition tp, Entry e, FetchResponse.PartitionData data, Outcome outcome) {
        FollowerPartition partition = e.partition();
        long logEndOffset = partition.logEndOffset();
        Truncation.OutOfRangeAction action = Truncation.onOffsetOutOfRange(data.logEndOffset(),
                data.logStartOffset(), logEndOffset);
        if (action instanceof Truncation.OutOfRangeAction.TruncateTo t) {
            LOG.warn("{}Leader's LEO {} is below the LEO {} of partition {}; truncating to it", logPrefix,
                    t.offset(), logEndOffset, tp);
            truncate(tp, e, t.offset(), outcome);
        } else if (action instanceof Truncation.OutOfRangeAction.TruncateFullyAndStartAt t) {
            LOG.warn("{}Leader's log start offset {} is above the LEO {} of partition {}; restarting the log"
                    + " at it", logPrefix, t.offset(), logEndOffset, tp);
            long hwBefore = partition.highWatermark();
            partition.truncateFullyAndStartAt(t.offset());
            e.forgetApplied();
            if (partition.highWatermark() != hwBefore) {
                outcome.highWatermarkChanged().add(tp);
            }
            e.moveTo(fetchingAtLogEnd(e));
        } else if (action instanceof Truncation.OutOfRangeAction.FetchFrom f && f.offset() != e.state().fetchOffset()) {
            e.forgetApplied();
            e.moveTo(fetchingAtLogEnd(e));
        } else {
            // Leader offsets unknown, or an immediate retry would change nothing: back off, do not spin.
            delay(Set.of(tp));
        }
    }

    private void truncate(TopicPartition tp, Entry e, long offset, Outcome outcome) {
        long hwBefore = e.partition().highWatermark();
        e.partition().truncateTo(offset);
        e.forgetApplied();
        if (e.partition().highWatermark() != hwBefore) {
            outcome.highWatermarkChanged().add(tp);
        }
        e.moveTo(fetchingAtLogEnd(e));
    }

    private static PartitionFetchState fetchingAtLogEnd(Entry e) {
        return new PartitionFetchState(e.partition().logEndOffset(), e.state().currentLeaderEpoch(),
                e.partition().latestEpoch(), FetchState.FETCHING);
    }

    /** FOL-2/FOL-6: a retriable error delays the partition by the backoff, never spins on it. */
    private void delay(Set<TopicPartition> tps) {
        long untilMs = scheduler.time().milliseconds() + config.fetchBackoffMs();
        for (TopicPartition tp : tps) {
            Entry e = partitions.get(tp);
            if (e != null && e.state().state() instanceof FetchState.Fetching) {
                e.moveTo(e.state().withState(new FetchState.Delayed(untilMs)));
            }
        }
    }

    private void markFailed(TopicPartition tp, Entry e, String reason, Throwable cause, Outcome outcome) {
        if (cause != null) {
            LOG.error("{}Partition {} marked failed: {}", logPrefix, tp, reason, cause);
        } else {
            LOG.warn("{}Partition {} marked failed: {}", logPrefix, tp, reason);
        }
        e.moveTo(e.state().withState(new FetchState.Failed(reason)));
        e.lag = 0L;
        Errors error;
        if (cause == null) {
            error = Errors.FENCED_LEADER_EPOCH;
        } else if (cause instanceof ApiException api) {
            error = api.error();
        } else if (cause instanceof java.io.UncheckedIOException) {
            error = Errors.KAFKA_STORAGE_ERROR;
        } else {
            error = Errors.UNKNOWN_SERVER_ERROR;
        }
        outcome.failed().put(tp, new Failure(error, tp + ": " + reason));
    }

    @Override
    public String toString() {
        return name;
    }
}
