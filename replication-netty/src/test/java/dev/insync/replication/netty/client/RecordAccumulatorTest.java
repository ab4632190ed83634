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
import dev.insync.replication.netty.client.RecordAccumulator.Batch;
import dev.insync.replication.netty.client.RecordAccumulator.PendingRecord;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Batching by batch.size and linger.ms, on a clock value the test sets (no threads, no time passing by itself). */
class RecordAccumulatorTest {

    private static final TopicPartition A = new TopicPartition("t", 0);
    private static final TopicPartition B = new TopicPartition("t", 1);

    private static PendingRecord record(int valueBytes) {
        return new PendingRecord(0L, null, new byte[valueBytes], List.of(), (metadata, exception) -> { });
    }

    @Test
    @DisplayName("linger.ms: a batch that is not full waits until its first record is linger.ms old, then is drained with every record appended meanwhile")
    void lingerHoldsAPartialBatch() {
        RecordAccumulator acc = new RecordAccumulator(16_384, 10);
        acc.append(A, record(10), 1_000);
        acc.append(A, record(10), 1_005);
        assertThat(acc.drainReady(1_009, tp -> true)).isEmpty();
        assertThat(acc.nextDeadlineMs(1_009, 120_000)).isEqualTo(1_010);
        List<Batch> drained = acc.drainReady(1_010, tp -> true);
        assertThat(drained).hasSize(1);
        assertThat(drained.get(0).recordCount()).isEqualTo(2);
        assertThat(drained.get(0).records().batches()).hasSize(1);
        assertThat(acc.isEmpty()).isTrue();
    }

    @Test
    @DisplayName("linger.ms=0 sends each partition's batch at once")
    void lingerZero() {
        RecordAccumulator acc = new RecordAccumulator(16_384, 0);
        acc.append(A, record(10), 5);
        acc.append(B, record(10), 5);
        assertThat(acc.drainReady(5, tp -> true)).extracting(b -> b.topicPartition).containsExactly(A, B);
    }

    @Test
    @DisplayName("batch.size: a record that would overflow the batch starts a new one; the full batch is ready before linger.ms, the new one is not")
    void batchSizeClosesABatch() {
        int perRecord = RecordAccumulator.estimateBytes(null, new byte[100], List.of());
        int batchSize = 61 + 3 * perRecord; // header plus three records
        RecordAccumulator acc = new RecordAccumulator(batchSize, 60_000);
        for (int i = 0; i < 4; i++) {
            acc.append(A, record(100), 0);
        }
        assertThat(acc.batchCount()).isEqualTo(2);
        List<Batch> first = acc.drainReady(0, tp -> true);
        assertThat(first).hasSize(1);
        assertThat(first.get(0).recordCount()).isEqualTo(3);
        assertThat(acc.drainReady(0, tp -> true)).as("the fourth record lingers").isEmpty();
        assertThat(acc.drainReady(60_000, tp -> true).get(0).recordCount()).isEqualTo(1);
    }

    @Test
    @DisplayName("a record larger than batch.size goes alone into its own batch, which is ready at once")
    void oversizedRecord() {
        RecordAccumulator acc = new RecordAccumulator(100, 60_000);
        acc.append(A, record(1_000), 0);
        assertThat(acc.drainReady(0, tp -> true).get(0).recordCount()).isEqualTo(1);
    }

    @Test
    @DisplayName("flush makes every batch ready now, until the accumulator is empty")
    void flush() {
        RecordAccumulator acc = new RecordAccumulator(16_384, 60_000);
        acc.append(A, record(1), 0);
        acc.beginFlush();
        assertThat(acc.drainReady(0, tp -> true)).hasSize(1);
        acc.append(A, record(1), 0);
        assertThat(acc.drainReady(0, tp -> true)).as("the flush ended when the accumulator emptied").isEmpty();
    }

    @Test
    @DisplayName("a partition whose leader is unknown or busy keeps its batch; others are drained; one batch per partition per drain")
    void sendablePredicate() {
        RecordAccumulator acc = new RecordAccumulator(16_384, 0);
        acc.append(A, record(1), 0);
        acc.append(B, record(1), 0);
        acc.append(B, record(100_000), 0); // a second batch of B
        assertThat(acc.drainReady(0, tp -> tp.equals(B))).extracting(b -> b.topicPartition).containsExactly(B);
        assertThat(acc.batchCount()).isEqualTo(2);
        assertThat(acc.drainReady(0, tp -> true)).extracting(b -> b.topicPartition).containsExactly(A, B);
    }

    @Test
    @DisplayName("a ready batch takes along the lingering batches of its leader's other partitions, not those of another leader")
    void readyLeaderDrainsAllItsPartitions() {
        TopicPartition c = new TopicPartition("t", 2);
        RecordAccumulator acc = new RecordAccumulator(100, 60_000);
        acc.append(A, record(1), 0);
        acc.append(A, record(100), 0); // A's first batch is followed by a second: ready
        acc.append(B, record(1), 0);   // B lingers, but shares leader 1 with A
        acc.append(c, record(1), 0);   // c lingers with leader 2, which has nothing ready
        java.util.function.ToIntFunction<TopicPartition> leaderOf = tp -> tp.equals(c) ? 2 : 1;

        assertThat(acc.drainReady(0, leaderOf, tp -> true)).extracting(b -> b.topicPartition).containsExactly(A, B);
        assertThat(acc.drainReady(0, leaderOf, tp -> true)).extracting(b -> b.topicPartition)
                .as("A's second batch is ready by size; c still lingers").containsExactly(A);
        assertThat(acc.drainReady(0, leaderOf, tp -> true)).isEmpty();
        assertThat(acc.drainReady(60_000, leaderOf, tp -> true)).extracting(b -> b.topicPartition).containsExactly(c);
    }

    @Test
    @DisplayName("a batch waiting for its retry backoff does not go along with its leader's ready partitions; an unknown leader takes nothing along")
    void retryBackoffAndUnknownLeaderAreNotDrainedAlong() {
        RecordAccumulator acc = new RecordAccumulator(16_384, 60_000);
        acc.append(B, record(1), 0);
        Batch retried = acc.drainReady(60_000, tp -> true).get(0);
        retried.attempts = 1;
        acc.reenqueue(retried, 70_000);
        acc.append(A, record(1), 60_000);
        acc.beginFlush(); // A is ready now
        assertThat(acc.drainReady(60_001, tp -> 1, tp -> true)).extracting(b -> b.topicPartition).containsExactly(A);
        assertThat(acc.drainReady(70_000, tp -> 1, tp -> true)).extracting(b -> b.topicPartition).containsExactly(B);

        acc.append(A, record(1), 80_000);
        acc.append(A, record(20_000), 80_000); // ready: a second batch behind the first
        acc.append(B, record(1), 80_000);
        assertThat(acc.drainReady(80_000, tp -> RecordAccumulator.NO_LEADER, tp -> true))
                .extracting(b -> b.topicPartition).containsExactly(A);
    }

    @Test
    @DisplayName("a retried batch waits retry.backoff.ms at the front of its partition, and two batches failing in flight keep their order")
    void retryKeepsOrder() {
        RecordAccumulator acc = new RecordAccumulator(10, 0);
        acc.append(A, record(1), 0);
        acc.append(A, record(1), 0);
        Batch first = acc.drainReady(0, tp -> true).get(0);
        Batch second = acc.drainReady(0, tp -> true).get(0);
        first.attempts++;
        second.attempts++;
        acc.reenqueue(second, 100); // answers may come back in any order
        acc.reenqueue(first, 100);
        assertThat(acc.drainReady(99, tp -> true)).isEmpty();
        assertThat(acc.nextDeadlineMs(99, 120_000)).isEqualTo(100);
        assertThat(acc.drainReady(100, tp -> true)).containsExactly(first);
        assertThat(acc.drainReady(100, tp -> true)).containsExactly(second);
    }

    @Test
    @DisplayName("KIP-951 a batch in retry backoff goes at once when its partition is routed in a newer leader epoch; the same"
            + " epoch or no route leaves it waiting out its backoff; it keeps its place before the partition's newer batch")
    void newerLeaderEndsTheRetryBackoff() {
        RecordAccumulator acc = new RecordAccumulator(10, 60_000);
        acc.append(A, record(1), 0);
        acc.append(B, record(1), 0);
        acc.append(A, record(1), 0); // A's second batch: never sent, lingers
        acc.beginFlush();
        List<Batch> sent = acc.drainReady(0, tp -> true);
        for (Batch b : sent) {
            b.attempts++;
            b.sentLeaderEpoch = 4;
            acc.reenqueue(b, 100);
        }
        Batch retriedA = sent.get(0);
        Batch retriedB = sent.get(1);

        assertThat(acc.retryNowOnNewerLeader(10, tp -> 4)).as("the same epoch: the leader that refused").isZero();
        assertThat(acc.retryNowOnNewerLeader(10, tp -> RecordAccumulator.NO_LEADER_EPOCH)).as("no route").isZero();
        assertThat(acc.drainReady(10, tp -> true)).as("nothing ready before the backoff ends").isEmpty();

        assertThat(acc.retryNowOnNewerLeader(10, tp -> tp.equals(A) ? 5 : 4)).isEqualTo(1);
        assertThat(acc.drainReady(10, tp -> true)).as("A's retry goes at 10, not at 100; B's waits").containsExactly(retriedA);
        assertThat(acc.nextDeadlineMs(10, 120_000)).as("B's retry still waits for its backoff").isEqualTo(100);
        assertThat(acc.drainReady(100, tp -> true)).hasSize(2).contains(retriedB).doesNotContain(retriedA);
    }

    @Test
    @DisplayName("delivery.timeout.ms: batches created at or before the cut-off are removed for failing, younger ones stay")
    void expire() {
        RecordAccumulator acc = new RecordAccumulator(10, 60_000);
        acc.append(A, record(1), 0);
        acc.append(A, record(1), 50);
        assertThat(acc.nextDeadlineMs(10, 1_000)).isEqualTo(1_000);
        assertThat(acc.expire(0)).hasSize(1);
        assertThat(acc.batchCount()).isEqualTo(1);
    }

    @Test
    @DisplayName("a batch retried after an older retried batch goes between it and the newer batches still waiting")
    void retryBehindAnOlderRetry() {
        RecordAccumulator acc = new RecordAccumulator(10, 0);
        for (int i = 0; i < 3; i++) {
            acc.append(A, record(1), 0);
        }
        Batch first = acc.drainReady(0, tp -> true).get(0);
        Batch second = acc.drainReady(0, tp -> true).get(0);
        first.attempts++;
        second.attempts++;
        acc.reenqueue(first, 100);
        acc.reenqueue(second, 100);
        List<Batch> order = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            order.addAll(acc.drainReady(100, tp -> true));
        }
        assertThat(order).extracting(b -> b.sequence).containsExactly(0L, 1L, 2L);
    }

    private static final int PARTITIONS = 50;
    private static final int BATCHES_PER_PARTITION = 40;

    /** {@link #PARTITIONS} partitions of {@link #BATCHES_PER_PARTITION} one-record batches; batch i of every partition created at 1_000 + i. */
    private static RecordAccumulator manyWaitingBatches() {
        RecordAccumulator acc = new RecordAccumulator(10, 60_000);
        for (int i = 0; i < BATCHES_PER_PARTITION; i++) {
            for (int p = 0; p < PARTITIONS; p++) {
                acc.append(new TopicPartition("many", p), record(1), 1_000 + i);
            }
        }
        assertThat(acc.batchCount()).isEqualTo(PARTITIONS * BATCHES_PER_PARTITION);
        return acc;
    }

    @Test
    @DisplayName("PRO-5 with many partitions and many waiting batches the next deadline is the earliest delivery timeout, found from one batch per partition, not by a scan of all")
    void nextDeadlineLooksAtOneBatchPerPartition() {
        RecordAccumulator acc = manyWaitingBatches();
        long before = acc.batchesExamined();
        // Every head has batches behind it, so it is ready; what is left is the oldest one's delivery timeout.
        assertThat(acc.nextDeadlineMs(1_500, 120_000)).isEqualTo(1_000 + 120_000);
        assertThat(acc.batchesExamined() - before).isEqualTo(PARTITIONS);
    }

    @Test
    @DisplayName("PRO-5 delivery.timeout.ms with many waiting batches: expiry looks at the expired batches and one more per partition, and what stays keeps its order")
    void expireStopsAtTheFirstYoungerBatch() {
        RecordAccumulator acc = manyWaitingBatches();
        long before = acc.batchesExamined();
        List<Batch> expired = acc.expire(1_009); // batches 0..9 of every partition
        assertThat(expired).hasSize(PARTITIONS * 10).allMatch(b -> b.createdMs <= 1_009);
        assertThat(acc.batchesExamined() - before).isEqualTo(PARTITIONS * 11L);
        assertThat(acc.nextDeadlineMs(1_500, 120_000)).isEqualTo(1_010 + 120_000);
    }

    @Test
    @DisplayName("many partitions x many waiting batches all drain, each partition's batches in creation order, every record once")
    void manyPartitionsDrainInOrder() {
        RecordAccumulator acc = manyWaitingBatches();
        java.util.Map<TopicPartition, List<Long>> created = new java.util.HashMap<>();
        int records = 0;
        for (int round = 0; round < BATCHES_PER_PARTITION + 1 && !acc.isEmpty(); round++) {
            for (Batch b : acc.drainReady(61_100, tp -> true)) {
                created.computeIfAbsent(b.topicPartition, k -> new java.util.ArrayList<>()).add(b.createdMs);
                records += b.recordCount();
            }
        }
        assertThat(acc.isEmpty()).isTrue();
        assertThat(records).isEqualTo(PARTITIONS * BATCHES_PER_PARTITION);
        assertThat(created).hasSize(PARTITIONS);
        created.values().forEach(times -> assertThat(times).hasSize(BATCHES_PER_PARTITION).isSorted());
    }

    @Test
    @DisplayName("PRO-5 a clock that steps back does not reorder a partition: the new batch counts from the previous batch's creation, so its head is still the first to time out")
    void clockSteppingBack() {
        RecordAccumulator acc = new RecordAccumulator(10, 60_000);
        acc.append(A, record(1), 5_000);
        acc.append(A, record(1), 1_000); // the wall clock went back
        List<Batch> expired = acc.expire(5_000);
        assertThat(expired).hasSize(2).allMatch(b -> b.createdMs == 5_000);
        assertThat(acc.isEmpty()).isTrue();
    }

    @Test
    @DisplayName("PRO-5 append says when the sender must look: a new batch or a full one wakes it, a record joining a waiting batch does not; once closed every append is refused and close hands back what waited")
    void appendSaysWhenToWakeTheSender() {
        RecordAccumulator acc = new RecordAccumulator(3 * (RecordAccumulator.RECORD_OVERHEAD_BYTES + 10)
                + dev.insync.replication.log.record.RecordBatch.HEADER_SIZE, 1_000);
        assertThat(acc.append(A, record(10), 0)).isEqualTo(RecordAccumulator.Appended.WAKE);
        assertThat(acc.append(A, record(10), 1)).isEqualTo(RecordAccumulator.Appended.JOINED);
        assertThat(acc.append(A, record(10), 2)).as("fills batch.size").isEqualTo(RecordAccumulator.Appended.WAKE);
        assertThat(acc.append(A, record(10), 3)).as("opens the next batch").isEqualTo(RecordAccumulator.Appended.WAKE);
        assertThat(acc.append(B, record(10), 3)).isEqualTo(RecordAccumulator.Appended.WAKE);
        List<Batch> left = acc.close();
        assertThat(left).extracting(Batch::recordCount).containsExactly(3, 1, 1);
        assertThat(acc.append(A, record(10), 4)).isEqualTo(RecordAccumulator.Appended.CLOSED);
        assertThat(acc.isEmpty()).isTrue();
    }

    @Test
    @DisplayName("PRO-5 four callers appending on their own threads while a sender drains: every record is drained exactly once, each caller's records keep their order per partition, batches keep batch.size and creation order")
    void pro5ConcurrentAppendsAndDrains() throws Exception {
        int batchSize = 10 * (RecordAccumulator.RECORD_OVERHEAD_BYTES + 8) + dev.insync.replication.log.record.RecordBatch.HEADER_SIZE;
        RecordAccumulator acc = new RecordAccumulator(batchSize, 0);
        int callers = 4;
        int perCaller = 20_000;
        List<TopicPartition> tps = List.of(A, B, new TopicPartition("t", 2));
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger callersDone = new java.util.concurrent.atomic.AtomicInteger();
        List<Thread> threads = new java.util.ArrayList<>();
        for (int c = 0; c < callers; c++) {
            int caller = c;
            threads.add(new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < perCaller; i++) {
                    byte[] value = java.nio.ByteBuffer.allocate(8).putInt(caller).putInt(i).array();
                    acc.append(tps.get(i % tps.size()), new PendingRecord(i, null, value, List.of(),
                            (metadata, exception) -> { }), i);
                }
                callersDone.incrementAndGet();
            }, "caller-" + c));
        }
        threads.forEach(Thread::start);
        go.countDown();
        java.util.Map<TopicPartition, List<Batch>> drained = new java.util.HashMap<>();
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        while (callersDone.get() < callers || !acc.isEmpty()) {
            assertThat(System.nanoTime()).as("drained in time").isLessThan(deadline);
            for (Batch b : acc.drainReady(Long.MAX_VALUE / 2, tp -> true)) {
                drained.computeIfAbsent(b.topicPartition, k -> new java.util.ArrayList<>()).add(b);
            }
        }
        for (Thread t : threads) {
            t.join(10_000);
        }
        int total = 0;
        for (java.util.Map.Entry<TopicPartition, List<Batch>> e : drained.entrySet()) {
            int[] lastSeq = new int[callers];
            java.util.Arrays.fill(lastSeq, -1);
            long lastCreated = Long.MIN_VALUE;
            long lastSequence = Long.MIN_VALUE;
            for (Batch b : e.getValue()) {
                assertThat(b.estimatedBytes).as("batch.size").isLessThanOrEqualTo(batchSize);
                assertThat(b.createdMs).as("creation order").isGreaterThanOrEqualTo(lastCreated);
                assertThat(b.sequence).isGreaterThan(lastSequence);
                lastCreated = b.createdMs;
                lastSequence = b.sequence;
                for (dev.insync.replication.log.record.Record r : b.records().batches().get(0).records()) {
                    java.nio.ByteBuffer v = r.value();
                    int caller = v.getInt();
                    int seq = v.getInt();
                    assertThat(seq).as("caller %d on %s", caller, e.getKey()).isGreaterThan(lastSeq[caller]);
                    lastSeq[caller] = seq;
                    total++;
                }
            }
        }
        assertThat(total).as("records drained, each once").isEqualTo(callers * perCaller);
    }
}
