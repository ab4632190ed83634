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

package dev.insync.replication.netty.client;

import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.Header;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.RecordBatch;
import dev.insync.replication.log.record.RecordBatchBuilder;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

/**
 * The producer's batching, as plain logic over a clock value (no threads, no I/O): records wait per
 * partition in batches; a partition's oldest batch is ready to send when it is full
 * ({@code batch.size} bytes, or a newer batch exists behind it), when its first record has waited
 * {@code linger.ms}, or when a flush asks for everything; when one is ready, the other partitions with
 * the same leader send what they hold along with it. A batch given back for a retry goes to the
 * front of its partition, ready after its backoff.
 *
 * <p>Threads: callers' threads {@link #append} (as Kafka's producer appends in the caller), the
 * client's sender does everything else. One lock, this object's monitor, guards every method, so
 * each sees the queues between whole operations: a partition's batches stay in creation order,
 * creation times never decrease across partitions, and a flush sees every record appended before
 * it. Nothing here completes a future or calls out while holding it, except to the sender's own
 * functions ({@code drainReady}'s predicates, {@code forEachBatch}'s action), which read sender
 * state only and take no other lock, so it never nests and never deadlocks.
 *
 * <p>Cost: a partition's queue is always in creation order (creation times never decrease, and a
 * retried batch goes back to its place by creation sequence), so its head is both the batch that may
 * be sent next and the one whose {@code delivery.timeout.ms} ends first. {@link #nextDeadlineMs} and
 * {@link #expire} therefore look at one batch per partition (plus those they expire), never at every
 * waiting batch: with a full 32 MiB buffer that is thousands of batches, and the sender asks after
 * every append.
 */
final class RecordAccumulator {

    /** Upper bound of a record's framing in a v2 batch: length, attributes, timestamp and offset deltas, key/value lengths, header count. */
    static final int RECORD_OVERHEAD_BYTES = 5 + 1 + 10 + 5 + 5 + 5 + 5;
    /** Cap of a new batch's presized outcome list (a huge batch.size of tiny records grows it instead). */
    private static final int MAX_PRESIZED_RECORDS = 1_024;

    /** One record to append: encoded into its batch at once, so the arrays may change afterwards. */
    record PendingRecord(long timestampMs, byte[] key, byte[] value, List<Header> headers, SendCallback outcome) {
    }

    /** Records of one partition sent together as one v2 batch. */
    static final class Batch {
        final TopicPartition topicPartition;
        final long createdMs;
        final long sequence;
        /** Where its records' outcomes go, in offset order (sized for a full batch of its first record's size). */
        final List<SendCallback> outcomes;
        int estimatedBytes = RecordBatch.HEADER_SIZE;
        int attempts;
        long retryAtMs;
        /**
         * The leader epoch of the route it was last sent by, or {@link #NO_LEADER_EPOCH}: a route in a
         * newer epoch ends its retry backoff ({@link #retryNowOnNewerLeader}).
         */
        int sentLeaderEpoch = NO_LEADER_EPOCH;
        /** {@code buffer.memory} bytes its records hold until they have their outcome ({@link #takeReservedBytes}). */
        private long reservedBytes;
        /**
         * Its records, encoded as they are appended (in the callers' threads, under the accumulator's
         * lock, while their bytes are in cache); {@code null} once {@link #built}.
         */
        private RecordBatchBuilder builder = new RecordBatchBuilder(0);
        /** Built once, on the first send; a retry resends the same bytes. */
        private MemoryRecords built;
        /** Whether its records' outcomes were claimed ({@link #claimOutcomes}); guarded by the batch. */
        private boolean claimed;
        /** Whether every record has its outcome; guarded by the batch. */
        private boolean finished;
        /** Completed once every record has its outcome; made only when {@code flush()} asks. Guarded by the batch. */
        private CompletableFuture<Void> whenFinished;

        Batch(TopicPartition topicPartition, long createdMs, long sequence, int expectedRecords) {
            this.topicPartition = topicPartition;
            this.createdMs = createdMs;
            this.sequence = sequence;
            this.outcomes = new ArrayList<>(expectedRecords);
        }

        /** The batch's bytes (called by the sender once the batch left the accumulator, so no append races it). */
        MemoryRecords records() {
            if (built == null) {
                built = builder.build();
                builder = null;
            }
            return built;
        }

        int recordCount() {
            return outcomes.size();
        }

        /**
         * Whether the caller is the one to give the records their outcome: true once, so that a batch
         * failed twice (at its delivery timeout, then as its connection closes) reports each record once.
         */
        synchronized boolean claimOutcomes() {
            boolean first = !claimed;
            claimed = true;
            return first;
        }

        /** Whether its records have (or are being given) their outcome: a late answer to it is ignored. */
        synchronized boolean hasOutcome() {
            return claimed;
        }

        /** Every record has its outcome (called by the claimant, after the last outcome was given). */
        void finish() {
            CompletableFuture<Void> waiting;
            synchronized (this) {
                finished = true;
                waiting = whenFinished;
            }
            // Completed outside the lock: what waits on it (a flush's callers) may run here.
            if (waiting != null) {
                waiting.complete(null);
            }
        }

        /** Completes once every record has its outcome (at once if they have). */
        synchronized CompletableFuture<Void> whenFinished() {
            if (whenFinished == null) {
                whenFinished = finished ? CompletableFuture.completedFuture(null) : new CompletableFuture<>();
            }
            return whenFinished;
        }

        /** The bytes its records reserved, once: later calls answer 0, so a batch gives its room back only once. */
        long takeReservedBytes() {
            long bytes = reservedBytes;
            reservedBytes = 0;
            return bytes;
        }

        @Override
        public String toString() {
            return "Batch(" + topicPartition + ", " + outcomes.size() + " records, ~" + estimatedBytes + " bytes, attempt "
                    + attempts + ")";
        }
    }

    private final int batchSizeBytes;
    private final long lingerMs;
    private final Map<TopicPartition, ArrayDeque<Batch>> partitions = new LinkedHashMap<>();
    private boolean flushing;
    private boolean closed;
    private int batchCount;
    private long nextSequence;
    /** The newest batch's creation time: creation times never decrease, so each queue stays in deadline order. */
    private long lastCreatedMs = Long.MIN_VALUE;
    /** Batches looked at by {@link #nextDeadlineMs} and {@link #expire} since creation (tests check there is no full scan). */
    private long batchesExamined;

    RecordAccumulator(int batchSizeBytes, long lingerMs) {
        this.batchSizeBytes = batchSizeBytes;
        this.lingerMs = lingerMs;
    }

    /** An upper bound of what a record adds to a batch. */
    static int estimateBytes(byte[] key, byte[] value, List<Header> headers) {
        int size = RECORD_OVERHEAD_BYTES + (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
        for (Header h : headers) {
            size += 10 + h.key().getBytes(StandardCharsets.UTF_8).length + (h.value() == null ? 0 : h.value().length);
        }
        return size;
    }

    /** What {@link #append} did, and so whether the sender must look. */
    enum Appended {
        /** Into a batch that was waiting already, and is not full yet: nothing new for the sender. */
        JOINED,
        /** Into a new batch, or one it filled to {@code batch.size}: the sender should look (a linger to time, a batch ready). */
        WAKE,
        /** Not appended: the accumulator is closed ({@link #close}). */
        CLOSED
    }

    /**
     * Adds a record to its partition's last batch if it fits in {@code batch.size} (or that batch is
     * empty), else to a new batch created at {@code nowMs} (or at the previous batch's creation time
     * if the clock went back, so that every queue stays in deadline order). Called from any thread.
     */
    Appended append(TopicPartition tp, PendingRecord record, long nowMs) {
        return append(tp, record, estimateBytes(record.key(), record.value(), record.headers()), nowMs);
    }

    /** {@link #append(TopicPartition, PendingRecord, long)} of a record whose {@link #estimateBytes} are {@code bytes}, reserved by it. */
    synchronized Appended append(TopicPartition tp, PendingRecord record, int bytes, long nowMs) {
        if (closed) {
            return Appended.CLOSED;
        }
        boolean created = false;
        ArrayDeque<Batch> queue = partitions.computeIfAbsent(tp, k -> new ArrayDeque<>());
        Batch last = queue.peekLast();
        if (last == null || last.attempts > 0 || (last.estimatedBytes + bytes > batchSizeBytes && !last.outcomes.isEmpty())) {
            lastCreatedMs = Math.max(lastCreatedMs, nowMs);
            // Sized for a batch of records like this one, so the list does not grow while a send appends.
            last = new Batch(tp, lastCreatedMs, nextSequence++, Math.max(1, Math.min(MAX_PRESIZED_RECORDS,
                    (batchSizeBytes - RecordBatch.HEADER_SIZE) / bytes + 1)));
            queue.addLast(last);
            batchCount++;
            created = true;
        }
        last.builder.append(record.timestampMs(), record.key(), record.value(), record.headers());
        last.outcomes.add(record.outcome());
        last.estimatedBytes += bytes;
        last.reservedBytes += bytes;
        return created || last.estimatedBytes >= batchSizeBytes ? Appended.WAKE : Appended.JOINED;
    }

    /** Whether {@code b}, the oldest batch of its partition, may be sent at {@code nowMs}. */
    private boolean ready(Batch b, int queued, long nowMs) {
        if (b.attempts > 0) {
            return nowMs >= b.retryAtMs;
        }
        return flushing || queued > 1 || b.estimatedBytes >= batchSizeBytes || nowMs - b.createdMs >= lingerMs;
    }

    /**
     * Removes and returns the ready oldest batch of every partition {@code sendable} accepts (its
     * leader is known and has room), at most one per partition, in partition order; no batch goes
     * along with another partition's (as if every partition had a leader of its own).
     */
    List<Batch> drainReady(long nowMs, Predicate<TopicPartition> sendable) {
        return drainReady(nowMs, tp -> NO_LEADER, sendable);
    }

    /** What {@code leaderOf} answers for a partition whose leader is unknown. */
    static final int NO_LEADER = -1;

    /**
     * As Kafka's producer drains a ready node: once one partition's oldest batch is ready, the oldest
     * batch of every other partition with the same leader goes in the same pass too, full or not (a
     * batch waiting for its retry backoff excepted), so that a leader of many partitions gets one
     * request carrying all of them instead of one per partition as each lingers out. At most one batch
     * per partition, in partition order, each accepted by {@code sendable} (its leader is known and
     * has room).
     *
     * @param leaderOf the leader of a partition, {@link #NO_LEADER} if unknown
     */
    synchronized List<Batch> drainReady(long nowMs, ToIntFunction<TopicPartition> leaderOf, Predicate<TopicPartition> sendable) {
        Set<Integer> readyLeaders = new HashSet<>();
        for (Map.Entry<TopicPartition, ArrayDeque<Batch>> e : partitions.entrySet()) {
            Batch head = e.getValue().peekFirst();
            if (head != null && ready(head, e.getValue().size(), nowMs)) {
                int leader = leaderOf.applyAsInt(e.getKey());
                if (leader != NO_LEADER) {
                    readyLeaders.add(leader);
                }
            }
        }
        List<Batch> out = new ArrayList<>();
        for (Iterator<Map.Entry<TopicPartition, ArrayDeque<Batch>>> it = partitions.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<TopicPartition, ArrayDeque<Batch>> e = it.next();
            ArrayDeque<Batch> queue = e.getValue();
            Batch head = queue.peekFirst();
            boolean drainable = head != null && (ready(head, queue.size(), nowMs)
                    || head.attempts == 0 && readyLeaders.contains(leaderOf.applyAsInt(e.getKey())));
            if (drainable && sendable.test(e.getKey())) {
                out.add(queue.pollFirst());
                batchCount--;
            }
            if (queue.isEmpty()) {
                it.remove();
            }
        }
        if (batchCount == 0) {
            flushing = false;
        }
        return out;
    }

    /** Every waiting batch, partition by partition, oldest first. */
    synchronized void forEachBatch(Consumer<Batch> action) {
        partitions.values().forEach(queue -> queue.forEach(action));
    }

    /** Partitions whose oldest batch is ready at {@code nowMs} (the ones whose leader is needed). */
    synchronized List<TopicPartition> readyPartitions(long nowMs) {
        List<TopicPartition> out = new ArrayList<>();
        partitions.forEach((tp, q) -> {
            if (!q.isEmpty() && ready(q.peekFirst(), q.size(), nowMs)) {
                out.add(tp);
            }
        });
        return out;
    }

    /** Puts a batch back at the front of its partition, to be sent again at {@code retryAtMs}. */
    synchronized void reenqueue(Batch batch, long retryAtMs) {
        batch.retryAtMs = retryAtMs;
        ArrayDeque<Batch> queue = partitions.computeIfAbsent(batch.topicPartition, k -> new ArrayDeque<>());
        batchCount++;
        Batch head = queue.peekFirst();
        if (head == null || head.sequence > batch.sequence) {
            // The usual case: the batch left from the front, so it is older than everything still waiting.
            queue.addFirst(batch);
            return;
        }
        // Back in creation order: two batches of a partition failing in flight keep their order.
        List<Batch> rest = new ArrayList<>(queue);
        queue.clear();
        boolean placed = false;
        for (Batch b : rest) {
            if (!placed && b.sequence > batch.sequence) {
                queue.addLast(batch);
                placed = true;
            }
            queue.addLast(b);
        }
        if (!placed) {
            queue.addLast(batch);
        }
    }

    /** What a batch's {@code sentLeaderEpoch} is before its first send, and what an unrouted partition's epoch reads. */
    static final int NO_LEADER_EPOCH = -1;

    /**
     * Makes every batch waiting out its retry backoff ready at {@code nowMs} if its partition is now
     * routed in a newer leader epoch than the one it was sent by: the backoff spares a leader that
     * refused or could not be reached, and a new leader is another broker (Kafka's producer skips the
     * backoff when a batch's leader changed, KIP-951). Called when Metadata changed the routes.
     *
     * @param leaderEpochOf the epoch of a partition's route, {@link #NO_LEADER_EPOCH} if none
     * @return how many batches it made ready
     */
    synchronized int retryNowOnNewerLeader(long nowMs, ToIntFunction<TopicPartition> leaderEpochOf) {
        int readied = 0;
        for (Map.Entry<TopicPartition, ArrayDeque<Batch>> e : partitions.entrySet()) {
            int epoch = leaderEpochOf.applyAsInt(e.getKey());
            for (Batch b : e.getValue()) {
                if (b.attempts > 0 && b.retryAtMs > nowMs && epoch > b.sentLeaderEpoch) {
                    b.retryAtMs = nowMs;
                    readied++;
                }
            }
        }
        return readied;
    }

    /**
     * Removes and returns every waiting batch created at or before {@code createdAtOrBeforeMs}
     * (delivery.timeout.ms). Each queue is in creation order, so it stops at the first younger batch.
     */
    synchronized List<Batch> expire(long createdAtOrBeforeMs) {
        List<Batch> out = new ArrayList<>();
        for (Iterator<ArrayDeque<Batch>> it = partitions.values().iterator(); it.hasNext(); ) {
            ArrayDeque<Batch> queue = it.next();
            while (!queue.isEmpty()) {
                batchesExamined++;
                if (queue.peekFirst().createdMs > createdAtOrBeforeMs) {
                    break;
                }
                out.add(queue.pollFirst());
                batchCount--;
            }
            if (queue.isEmpty()) {
                it.remove();
            }
        }
        if (batchCount == 0) {
            flushing = false;
        }
        return out;
    }

    /** Removes and returns every waiting batch (on close). */
    synchronized List<Batch> drainAll() {
        return expire(Long.MAX_VALUE);
    }

    /** From now on every {@link #append} is refused ({@link Appended#CLOSED}); removes and returns every waiting batch. */
    synchronized List<Batch> close() {
        closed = true;
        return drainAll();
    }

    /** From now until the accumulator is empty, every batch is ready (Kafka's {@code flush()}). */
    synchronized void beginFlush() {
        if (batchCount > 0) {
            flushing = true;
        }
    }

    /**
     * The earliest time after {@code nowMs} at which a waiting batch becomes ready (linger, retry
     * backoff) or reaches its delivery timeout, or {@link Long#MAX_VALUE}. Batches ready already are
     * not counted: they wait for a leader or for room in flight, and those events wake the sender.
     * Only each partition's head is looked at: it is the only one that can become ready by time, and
     * the oldest, so the first to reach the delivery timeout.
     */
    synchronized long nextDeadlineMs(long nowMs, long deliveryTimeoutMs) {
        long next = Long.MAX_VALUE;
        for (ArrayDeque<Batch> q : partitions.values()) {
            Batch head = q.peekFirst();
            if (head == null) {
                continue;
            }
            batchesExamined++;
            if (!ready(head, q.size(), nowMs)) {
                next = Math.min(next, head.attempts > 0 ? head.retryAtMs : head.createdMs + lingerMs);
            }
            next = Math.min(next, head.createdMs + deliveryTimeoutMs);
        }
        return next;
    }

    /** Batches looked at by {@link #nextDeadlineMs} and {@link #expire} so far (for tests: one per partition, not all). */
    synchronized long batchesExamined() {
        return batchesExamined;
    }

    /** Batches waiting (not in flight). */
    synchronized int batchCount() {
        return batchCount;
    }

    synchronized boolean isEmpty() {
        return batchCount == 0;
    }
}
