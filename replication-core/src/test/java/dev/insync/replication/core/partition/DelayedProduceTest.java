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

package dev.insync.replication.core.partition;

import dev.insync.replication.core.produce.Acks;
import dev.insync.replication.core.produce.DelayedProduce;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.purgatory.DelayedOperationPurgatory;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.LogAppendInfo;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static dev.insync.replication.core.partition.PartitionFixture.TP;
import static dev.insync.replication.core.partition.PartitionFixture.registration;
import static org.assertj.core.api.Assertions.assertThat;

class DelayedProduceTest {

    private final HeldTimer timer = new HeldTimer();
    private final DelayedOperationPurgatory<DelayedProduce> purgatory = new DelayedOperationPurgatory<>("Produce", timer, 100);

    /** acks=-1 append of n records, parked like the ReplicaManager does. */
    private DelayedProduce produceAll(PartitionFixture f, int n) {
        LogAppendInfo info = f.partition.appendAsLeader(InMemoryLocalLog.records(n), Acks.ALL).info();
        DelayedProduce op = new DelayedProduce(30_000L, Map.of(TP, new DelayedProduce.PartitionWait(info.lastOffset() + 1,
                new ProduceResult(Errors.NONE, info.firstOffset(), -1L, 0))), tp -> Optional.of(f.partition));
        purgatory.tryCompleteElseWatch(op, op.keys());
        return op;
    }

    @Test
    @DisplayName("PRO-3 PRO-4 acks=all completes with NONE only after the HW passes its last offset, when a fetch raises the HW")
    void pro3CompletesOnHw() {
        PartitionFixture f = new PartitionFixture(2).leaderOf123();
        DelayedProduce op = produceAll(f, 3);
        assertThat(op.result()).isNotDone();

        var r2 = f.followerFetch(2, 3);
        assertThat(r2.highWatermarkIncreased()).isFalse();
        purgatory.checkAndComplete(TP);
        assertThat(op.result()).isNotDone();

        var r3 = f.followerFetch(3, 3);
        assertThat(r3.highWatermarkIncreased()).isTrue();
        purgatory.checkAndComplete(TP);
        assertThat(op.result()).isCompletedWithValue(Map.of(TP, new ProduceResult(Errors.NONE, 0L, -1L, 0)));
    }

    @Test
    @DisplayName("PRO-3 the HW reaching the offset with the maximal ISR below min ISR ends with NOT_ENOUGH_REPLICAS_AFTER_APPEND")
    void pro3AfterAppend() {
        PartitionFixture f = new PartitionFixture(2);
        f.partition.makeLeader(registration(1, 0, 0, List.of(1, 2), List.of(1, 2)));
        DelayedProduce op = produceAll(f, 2);
        f.followerFetch(2, 2);
        // the controller shrinks the ISR (same leader epoch) after the HW already covered the records
        f.partition.makeLeader(registration(1, 0, 1, List.of(1, 2), List.of(1)));
        purgatory.checkAndComplete(TP);
        assertThat(op.result().join().get(TP).error()).isEqualTo(Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
        assertThat(op.result().join().get(TP).baseOffset()).as("the records are in the leader's log").isZero();
    }

    @Test
    @DisplayName("PRO-3 HW-2 with the ISR fallen below min ISR before the HW reached the offset, the request times out")
    void pro3TimesOutUnderMinIsr() {
        PartitionFixture f = new PartitionFixture(2);
        f.partition.makeLeader(registration(1, 0, 0, List.of(1, 2), List.of(1, 2)));
        DelayedProduce op = produceAll(f, 2);
        f.partition.makeLeader(registration(1, 0, 1, List.of(1, 2), List.of(1)));
        f.followerFetch(2, 2);
        purgatory.checkAndComplete(TP);
        assertThat(op.result()).isNotDone();
        timer.expireAll();
        assertThat(op.result().join().get(TP).error()).isEqualTo(Errors.REQUEST_TIMED_OUT);
        assertThat(f.partition.highWatermark()).isZero();
    }

    @Test
    @DisplayName("PRO-3 LDR-2 losing leadership completes a waiting acks=all with NOT_LEADER_OR_FOLLOWER")
    void pro3LeadershipLost() {
        PartitionFixture f = new PartitionFixture(1).leaderOf123();
        DelayedProduce op = produceAll(f, 1);
        assertThat(f.partition.makeFollower(registration(2, 1, 1, List.of(1, 2, 3), List.of(2, 3)))).isTrue();
        purgatory.checkAndComplete(TP);
        assertThat(op.result().join().get(TP).error()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
    }

    @Test
    @DisplayName("PRO-5 every produce ends exactly once: a failed partition answers at once, a completed one ignores the timer")
    void pro5ExactlyOnce() {
        PartitionFixture f = new PartitionFixture(1).leaderOf123();
        TopicPartition other = new TopicPartition("rep", 1);
        LogAppendInfo info = f.partition.appendAsLeader(InMemoryLocalLog.records(1), Acks.ALL).info();
        DelayedProduce op = new DelayedProduce(30_000L, Map.of(
                TP, new DelayedProduce.PartitionWait(info.lastOffset() + 1, new ProduceResult(Errors.NONE, 0, -1, 0)),
                other, new DelayedProduce.PartitionWait(0, ProduceResult.failed(Errors.NOT_ENOUGH_REPLICAS))),
                tp -> tp.equals(TP) ? Optional.of(f.partition) : Optional.empty());
        purgatory.tryCompleteElseWatch(op, op.keys());
        bothFetch(f, 1);
        purgatory.checkAndComplete(TP);
        Map<TopicPartition, ProduceResult> answer = op.result().join();
        assertThat(answer.get(TP).error()).isEqualTo(Errors.NONE);
        assertThat(answer.get(other).error()).isEqualTo(Errors.NOT_ENOUGH_REPLICAS);
        timer.expireAll();
        assertThat(op.forceComplete()).isFalse();
        assertThat(op.result().join()).isSameAs(answer);
    }

    @Test
    @DisplayName("PRO-5 a partition no longer hosted answers NOT_LEADER_OR_FOLLOWER")
    void pro5NotHosted() {
        DelayedProduce op = new DelayedProduce(30_000L, Map.of(TP, new DelayedProduce.PartitionWait(5,
                new ProduceResult(Errors.NONE, 4, -1, 0))), tp -> Optional.empty());
        assertThat(purgatory.tryCompleteElseWatch(op, op.keys())).isTrue();
        assertThat(op.result().join().get(TP)).isEqualTo(new ProduceResult(Errors.NOT_LEADER_OR_FOLLOWER, 4, -1, 0));
    }

    /** An append of n records with the given acks whose flush was due (LOG-11 group commit), parked. */
    private DelayedProduce produceAwaitingFlush(PartitionFixture f, int n, Acks acks) {
        LogAppendInfo info = f.partition.appendAsLeader(InMemoryLocalLog.records(n), acks).info();
        DelayedProduce op = new DelayedProduce(30_000L, Map.of(TP, new DelayedProduce.PartitionWait(info.lastOffset() + 1,
                new ProduceResult(Errors.NONE, info.firstOffset(), -1L, 0), acks == Acks.ALL, true)),
                tp -> Optional.of(f.partition));
        purgatory.tryCompleteElseWatch(op, op.keys());
        return op;
    }

    @Test
    @DisplayName("LOG-11 PRO-3 acks=all whose append made a flush due needs the HW and the leader's flush, in either order")
    void acksAllWaitsForHwAndFlush() {
        PartitionFixture f = new PartitionFixture(2).leaderOf123();
        f.log.holdFlushes();
        DelayedProduce op = produceAwaitingFlush(f, 2, Acks.ALL);
        bothFetch(f, 2);
        assertThat(f.partition.highWatermark()).isEqualTo(2);
        purgatory.checkAndComplete(TP);
        assertThat(op.result()).as("HW reached, not yet on the leader's disk").isNotDone();
        f.log.flush(2);
        purgatory.checkAndComplete(TP);
        assertThat(op.result()).isCompletedWithValue(Map.of(TP, new ProduceResult(Errors.NONE, 0L, -1L, 0)));

        DelayedProduce second = produceAwaitingFlush(f, 1, Acks.ALL);
        f.log.flush(3);
        purgatory.checkAndComplete(TP);
        assertThat(second.result()).as("flushed, HW not reached").isNotDone();
        bothFetch(f, 3);
        purgatory.checkAndComplete(TP);
        assertThat(second.result().join().get(TP).error()).isEqualTo(Errors.NONE);
    }

    @Test
    @DisplayName("LOG-11 PRO-3 acks=1 whose append made a flush due completes on the leader's flush alone, not the HW")
    void acksOneWaitsForFlushOnly() {
        PartitionFixture f = new PartitionFixture(2).leaderOf123();
        f.log.holdFlushes();
        DelayedProduce op = produceAwaitingFlush(f, 3, Acks.LEADER);
        assertThat(op.result()).isNotDone();
        f.log.flush(3);
        purgatory.checkAndComplete(TP);
        assertThat(op.result()).isCompletedWithValue(Map.of(TP, new ProduceResult(Errors.NONE, 0L, -1L, 0)));
        assertThat(f.partition.highWatermark()).isZero();
    }

    @Test
    @DisplayName("LOG-11 §9 a flush wait on a partition whose log went offline ends with KAFKA_STORAGE_ERROR")
    void flushWaitEndsOnStorageError() {
        PartitionFixture f = new PartitionFixture(2).leaderOf123();
        f.log.holdFlushes();
        DelayedProduce acksOne = produceAwaitingFlush(f, 1, Acks.LEADER);
        DelayedProduce acksAll = produceAwaitingFlush(f, 1, Acks.ALL);
        f.partition.markOffline();
        purgatory.checkAndComplete(TP);
        assertThat(acksOne.result().join().get(TP)).isEqualTo(new ProduceResult(Errors.KAFKA_STORAGE_ERROR, 0L, -1L, 0));
        assertThat(acksAll.result().join().get(TP)).isEqualTo(new ProduceResult(Errors.KAFKA_STORAGE_ERROR, 1L, -1L, 0));
    }

    @Test
    @DisplayName("LOG-11 LDR-2 losing leadership before the flush ends an acks=1 flush wait with NOT_LEADER_OR_FOLLOWER")
    void flushWaitEndsOnLeadershipLoss() {
        PartitionFixture f = new PartitionFixture(1).leaderOf123();
        f.log.holdFlushes();
        DelayedProduce op = produceAwaitingFlush(f, 1, Acks.LEADER);
        f.partition.makeFollower(registration(2, 1, 1, List.of(1, 2, 3), List.of(2, 3)));
        purgatory.checkAndComplete(TP);
        assertThat(op.result().join().get(TP).error()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
    }

    private static void bothFetch(PartitionFixture f, long offset) {
        f.followerFetch(2, offset);
        f.followerFetch(3, offset);
    }
}
