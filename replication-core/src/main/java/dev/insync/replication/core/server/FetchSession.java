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

import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a leader remembers of one follower fetcher's fetch session (Kafka's KIP-227, FET-7): the
 * partitions it fetches with the data it last sent for each, what the leader last told it of each,
 * and for each whether it may be skipped.
 *
 * <p><b>Skipped partitions.</b> A partition whose last read found the follower at the leader's LEO
 * with nothing to tell it, while the follower is in the ISR with no ISR change in flight, is
 * <em>idle</em>: while the hosting {@link Partition} object, its leader and partition epochs, LEO, HW
 * and log start offset and its online state are the ones of that read ({@link #isStillIdle}, a few
 * field reads), a read would give the same empty answer and FET-4 would record the same fetch
 * offset again. Such a partition is neither read nor answered, and the fetches that skip it are
 * recorded for it later, once: just before the leader's LEO moves ({@code ReplicaManager}'s append
 * calls {@link #leaveIdle}), or when it leaves the session. A caught-up follower's position is all
 * ISR-1 looks at ({@code ReplicaState#isCaughtUp}: LEO equal to the leader's), so skipping changes no
 * ISR decision; a follower outside the ISR is read on every fetch so that ISR-2 may add it back.
 *
 * <p><b>Only what changed is looked at.</b> The session keeps its partitions that are not idle
 * ({@code active}); a read of the session goes over those alone, so an idle round of a session of
 * n partitions costs O(changed), not O(n). An idle partition becomes active again only when told:
 * {@link #leaveIdle} (its LEO is about to move, its HW rose, it changed role or storage), a fetch
 * naming it, or {@link #recheck} (its log start moved, its metadata or ISR changed), after which the
 * next read looks at it once with {@link #isStillIdle}. ISR-1 needs no per-round bookkeeping for the
 * idle ones: their skipped fetches are all at the session's {@code lastFetchTimeMs}, recorded once
 * when they leave the idle state.
 *
 * <p><b>Dirty partitions</b> had something happen that a parked fetch of the session should look
 * at (an append, a leadership or storage change): its next wake reads them.
 *
 * <p>Guarded by its own monitor, which is never held while a partition's lock is taken.
 */
final class FetchSession {

    final int id;
    final int replicaId;
    /** The follower's broker epoch when it opened the session: a later incarnation cannot use it. */
    final long brokerEpoch;

    // Guarded by this.
    private final Map<TopicPartition, SessionPartition> partitions = new LinkedHashMap<>();
    private final List<SessionPartition> dirty = new ArrayList<>();
    /** The partitions that are not idle, the only ones a read goes over, in session order. */
    private final Set<SessionPartition> active = new TreeSet<>(Comparator.comparingLong(sp -> sp.order));
    /** Idle partitions told of a change that {@link #isStillIdle} decides on at the next read. */
    private final List<SessionPartition> rechecks = new ArrayList<>();
    /** Partitions looked at by reads of this session so far (tests: an idle round is O(changed)). */
    private long examined;
    private int nextEpoch = 1;
    private long lastUsedMs;
    /** When the latest fetch of the session was accepted: the time of the skipped partitions' fetches. */
    private long lastFetchTimeMs;
    private long insertions;
    private boolean closed;

    FetchSession(int id, int replicaId, long brokerEpoch, long nowMs) {
        if (id == FetchRequest.NO_SESSION_ID) {
            throw new IllegalArgumentException("Fetch session id " + id + " means no session");
        }
        this.id = id;
        this.replicaId = replicaId;
        this.brokerEpoch = brokerEpoch;
        this.lastUsedMs = nowMs;
        this.lastFetchTimeMs = nowMs;
    }

    /** One partition of the session. Its mutable fields are guarded by the session. */
    static final class SessionPartition {
        final TopicPartition topicPartition;
        /** Position in the session: answers go in this order. */
        final long order;
        /** What the follower last sent for it (its fetch offset, log start, epochs). */
        private FetchRequest.PartitionData data;
        /** Raised by every change, so that a read racing a change does not mark it idle. */
        private long version;
        private boolean dirty;
        private boolean recheck;
        /** See the class comment; the fields below describe the read that made it idle. */
        private boolean idle;
        private Partition idlePartition;
        private int idleLeaderEpoch;
        private int idlePartitionEpoch;
        private long idleHighWatermark;
        private long idleLogStartOffset;
        private long idleLogEndOffset;
        /** What the follower was last told; {@code told} false before the first answer. */
        private boolean told;
        private long toldHighWatermark;
        private long toldLogStartOffset;
        private long toldLogEndOffset;

        private SessionPartition(TopicPartition topicPartition, long order, FetchRequest.PartitionData data) {
            this.topicPartition = topicPartition;
            this.order = order;
            this.data = data;
        }

        @Override
        public String toString() {
            return topicPartition + "@" + data.fetchOffset() + (idle ? " idle" : "") + (dirty ? " dirty" : "");
        }
    }

    /** A read about to be made of a session partition: its data and the version it starts from. */
    record PartitionRead(SessionPartition partition, FetchRequest.PartitionData data, long version,
                         Partition hosted, int leaderEpochBefore, int partitionEpochBefore) {
    }

    /** The deferred FET-4 record of an idle partition's skipped fetches (see {@link #leaveIdle}). */
    record IdleFetch(TopicPartition topicPartition, int replicaId, int leaderEpoch, long fetchOffset,
                     long logStartOffset, long fetchTimeMs, long brokerEpoch) {
    }

    // ------------------------------------------------------------------------------ the session

    synchronized boolean isClosed() {
        return closed;
    }

    /** Ends the session: every later use is refused; returns its idle partitions' deferred records. */
    synchronized List<IdleFetch> close() {
        closed = true;
        List<IdleFetch> out = new ArrayList<>();
        for (SessionPartition sp : partitions.values()) {
            IdleFetch f = endIdle(sp);
            if (f != null) {
                out.add(f);
            }
        }
        return out;
    }

    /** The epoch the next incremental fetch must carry. */
    synchronized int nextEpoch() {
        return nextEpoch;
    }

    /** Accepts the full fetch that opened the session. */
    synchronized void acceptOpening(long nowMs) {
        lastUsedMs = nowMs;
        lastFetchTimeMs = nowMs;
    }

    /**
     * Accepts an incremental fetch of {@code epoch} at {@code nowMs} if the session is open and that
     * is the epoch expected; the next one must then carry the following epoch.
     */
    synchronized boolean tryAccept(int epoch, long nowMs) {
        if (closed || epoch != nextEpoch) {
            return false;
        }
        nextEpoch = FetchRequest.nextEpoch(epoch);
        lastUsedMs = nowMs;
        lastFetchTimeMs = nowMs;
        return true;
    }

    synchronized long lastUsedMs() {
        return lastUsedMs;
    }

    synchronized int size() {
        return partitions.size();
    }

    /** The session's partitions in session order (tests, diagnostics). */
    synchronized List<TopicPartition> topicPartitions() {
        return List.copyOf(partitions.keySet());
    }

    /** Whether the session holds {@code tp} and it is idle (tests, diagnostics). */
    synchronized boolean isIdle(TopicPartition tp) {
        SessionPartition sp = partitions.get(tp);
        return sp != null && sp.idle;
    }

    // ------------------------------------------------------------------------ partitions in and out

    /**
     * Adds {@code tp} with {@code data}, or gives it this new data (the follower named it in a fetch:
     * it is read by that fetch, and an idle state ends without a deferred record, the read records it).
     *
     * @return whether it is new to the session
     */
    synchronized boolean put(TopicPartition tp, FetchRequest.PartitionData data) {
        SessionPartition sp = partitions.get(tp);
        if (sp == null) {
            sp = new SessionPartition(tp, insertions++, data);
            partitions.put(tp, sp);
            active.add(sp);
            return true;
        }
        sp.data = data;
        sp.version++;
        activate(sp);
        return false;
    }

    /** Removes {@code tp}; null if it was not in the session, else its deferred record (possibly none: {@link #NOT_IDLE}). */
    synchronized IdleFetch remove(TopicPartition tp) {
        SessionPartition sp = partitions.remove(tp);
        if (sp == null) {
            return null;
        }
        sp.version++;
        IdleFetch f = endIdle(sp);
        active.remove(sp);
        return f != null ? f : NOT_IDLE;
    }

    /** {@link #remove}'s answer for a partition that was in the session and not idle. */
    static final IdleFetch NOT_IDLE = new IdleFetch(null, -1, -1, -1L, -1L, -1L, -1L);

    /**
     * {@code tp}'s leader LEO is about to move, or it changed role or storage: ends its idle state
     * (returning the deferred record of its skipped fetches, to be applied before the LEO moves) and,
     * with {@code markDirty}, marks it for the next wake of a parked fetch.
     *
     * @return the deferred record, or null if none (not held, or not idle)
     */
    synchronized IdleFetch leaveIdle(TopicPartition tp, boolean markDirty) {
        SessionPartition sp = partitions.get(tp);
        if (sp == null) {
            return null;
        }
        sp.version++;
        if (markDirty && !sp.dirty) {
            sp.dirty = true;
            dirty.add(sp);
        }
        return endIdle(sp);
    }

    /**
     * {@code tp} changed in a way that may end its idle state without moving its LEO (its log start
     * moved, its metadata or ISR changed): the next read of the session looks at it once.
     */
    synchronized void recheck(TopicPartition tp) {
        SessionPartition sp = partitions.get(tp);
        if (sp != null && sp.idle && !sp.recheck) {
            sp.recheck = true;
            rechecks.add(sp);
        }
    }

    /** Partitions looked at by the reads of this session so far (tests, diagnostics). */
    synchronized long examined() {
        return examined;
    }

    /** Whether the session holds {@code tp}. */
    synchronized boolean holds(TopicPartition tp) {
        return partitions.containsKey(tp);
    }

    /** Ends {@code sp}'s idle state, if any, without a deferred record: it is read next. */
    private void activate(SessionPartition sp) {
        sp.idle = false;
        sp.idlePartition = null;
        active.add(sp);
    }

    private IdleFetch endIdle(SessionPartition sp) {
        if (!sp.idle) {
            return null;
        }
        activate(sp);
        return new IdleFetch(sp.topicPartition, replicaId, sp.idleLeaderEpoch, sp.data.fetchOffset(),
                sp.data.logStartOffset(), lastFetchTimeMs, brokerEpoch);
    }

    // ------------------------------------------------------------------------------------- reads

    /** Looks up what a partition is hosted as now. */
    @FunctionalInterface
    interface Hosted {
        Partition partition(TopicPartition tp);
    }

    /**
     * The partitions a read of the session reads; their dirty marks are cleared.
     *
     * @param named     partitions the fetch named (always read)
     * @param dirtyOnly a parked fetch's wake: only the dirty partitions; otherwise (a fetch's first read,
     *                  or a parked fetch's expiry) every partition but the idle ones still idle
     */
    synchronized List<PartitionRead> reads(List<TopicPartition> named, boolean dirtyOnly, Hosted hosted) {
        List<PartitionRead> out = new ArrayList<>();
        if (dirtyOnly) {
            for (SessionPartition sp : dirty) {
                sp.dirty = false;
                examined++;
                if (partitions.get(sp.topicPartition) == sp) {
                    out.add(readOf(sp, hosted.partition(sp.topicPartition)));
                }
            }
            dirty.clear();
            return out;
        }
        for (SessionPartition sp : dirty) {
            sp.dirty = false;
        }
        dirty.clear();
        for (TopicPartition tp : named) {
            SessionPartition sp = partitions.get(tp);
            if (sp != null) {
                activate(sp); // read below whatever its state
            }
        }
        for (SessionPartition sp : rechecks) {
            sp.recheck = false;
            examined++;
            if (sp.idle && partitions.get(sp.topicPartition) == sp
                    && !isStillIdle(sp, hosted.partition(sp.topicPartition))) {
                // Changed since it went idle: read now, and its skipped fetches recorded by the read (FET-4).
                activate(sp);
            }
        }
        rechecks.clear();
        for (SessionPartition sp : active) { // in session order, as a full fetch reads them
            examined++;
            out.add(readOf(sp, hosted.partition(sp.topicPartition)));
        }
        return out;
    }

    private static PartitionRead readOf(SessionPartition sp, Partition current) {
        return new PartitionRead(sp, sp.data, sp.version, current, current == null ? -1 : current.leaderEpoch(),
                current == null ? -1 : current.partitionEpoch());
    }

    /** Whether an idle partition would still read empty and record nothing new (see the class comment). */
    private static boolean isStillIdle(SessionPartition sp, Partition current) {
        return current == sp.idlePartition && isUnchangedSince(sp, current);
    }

    private static boolean isUnchangedSince(SessionPartition sp, Partition p) {
        return p != null && p.isLeader() && !p.isOffline() && p.leaderEpoch() == sp.idleLeaderEpoch
                && p.partitionEpoch() == sp.idlePartitionEpoch && p.logEndOffset() == sp.idleLogEndOffset
                && p.highWatermark() == sp.idleHighWatermark
                && p.localLog().logStartOffset() == sp.idleLogStartOffset;
    }

    /**
     * After {@code read} answered {@code answer} (of {@code partition} as hosted at the read, null if
     * none): idle if it found the follower caught up with nothing to send, nothing changed since the
     * read began, and {@code mayIdle} (the follower is in the ISR, nothing in flight).
     *
     * @param recorded whether the read recorded the fetch (FET-4, a fetch's first read); if not, an
     *                 idle partition that stops being idle hands back its deferred record
     * @return the deferred record to apply now, or null
     */
    synchronized IdleFetch afterRead(PartitionRead read, Partition partition, FetchResponse.PartitionData answer,
                                     boolean recordsDropped, boolean mayIdle, boolean recorded) {
        SessionPartition sp = read.partition();
        if (partitions.get(sp.topicPartition) != sp || sp.version != read.version()) {
            return null; // changed meanwhile: whoever changed it decided its state
        }
        boolean caughtUp = partition != null && answer.error() == Errors.NONE && answer.divergingEpoch().isEmpty()
                && answer.records().sizeInBytes() == 0 && !recordsDropped
                && answer.logEndOffset() == read.data().fetchOffset();
        if (caughtUp && mayIdle && read.leaderEpochBefore() >= 0) {
            sp.idle = true;
            active.remove(sp);
            sp.idlePartition = partition;
            // The epochs from before the read: if they moved during it, the partition is not idle next time.
            sp.idleLeaderEpoch = read.leaderEpochBefore();
            sp.idlePartitionEpoch = read.partitionEpochBefore();
            sp.idleHighWatermark = answer.highWatermark();
            sp.idleLogStartOffset = answer.logStartOffset();
            sp.idleLogEndOffset = answer.logEndOffset();
            return null;
        }
        if (recorded) {
            activate(sp);
            return null;
        }
        return endIdle(sp);
    }

    /**
     * Whether {@code answer} for {@code sp} tells the follower anything it was not told yet: records,
     * an error, a divergence, or a new HW, log start or log end offset (Kafka's rule for what an
     * incremental answer includes). Records it as told if so; {@code always}: it is sent (and told) regardless.
     */
    synchronized boolean tell(SessionPartition sp, FetchResponse.PartitionData answer, boolean always) {
        boolean news = always || !sp.told || answer.records().sizeInBytes() > 0 || answer.error() != Errors.NONE
                || answer.divergingEpoch().isPresent() || answer.highWatermark() != sp.toldHighWatermark
                || answer.logStartOffset() != sp.toldLogStartOffset || answer.logEndOffset() != sp.toldLogEndOffset;
        if (news) {
            sp.told = true;
            sp.toldHighWatermark = answer.highWatermark();
            sp.toldLogStartOffset = answer.logStartOffset();
            sp.toldLogEndOffset = answer.logEndOffset();
        }
        return news;
    }

    @Override
    public String toString() {
        return "FetchSession(" + id + ", replica " + replicaId + ", broker epoch " + brokerEpoch + ")";
    }
}
