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

import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.partition.IsrState.CommittedIsr;
import dev.insync.replication.core.partition.IsrState.PendingExpandIsr;
import dev.insync.replication.core.partition.IsrState.PendingShrinkIsr;
import dev.insync.replication.core.produce.Acks;
import dev.insync.replication.core.replica.ReplicaState;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.epoch.EpochEndOffset;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;

import static dev.insync.replication.core.partition.PartitionFixture.MAX_BYTES;
import static dev.insync.replication.core.partition.PartitionFixture.data;
import static dev.insync.replication.core.partition.PartitionFixture.registration;
import static dev.insync.replication.core.partition.PartitionFixture.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PartitionTest {

    private static Errors errorOf(Runnable r) {
        try {
            r.run();
        } catch (ApiException e) {
            return e.error();
        }
        return Errors.NONE;
    }

    /** Follower 2 and 3 fetch at {@code offset}. */
    private static void bothFetch(PartitionFixture f, long offset) {
        f.followerFetch(2, offset);
        f.followerFetch(3, offset);
    }

    @Nested
    class Leadership {

        @Test
        @DisplayName("LDR-1 makeLeader: epoch start = LEO, epoch cache gets (epoch, LEO), remote replicas reset, then HW-4")
        void ldr1MakeLeader() {
            PartitionFixture f = new PartitionFixture(1);
            f.partition.makeFollower(registration(2, 0, 0, List.of(1, 2, 3), List.of(1, 2, 3)));
            f.partition.appendRecordsToFollower(InMemoryLocalLog.recordsWithEpochs(0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
            f.partition.updateFollowerHighWatermark(4);

            boolean newLeader = f.partition.makeLeader(registration(1, 1, 1, List.of(1, 2, 3), List.of(1, 2, 3)));

            assertThat(newLeader).isTrue();
            assertThat(f.partition.leaderEpochStartOffset()).isEqualTo(10);
            assertThat(f.log.latestEpoch()).hasValue(1);
            assertThat(f.log.endOffsetForEpoch(0)).isEqualTo(new EpochEndOffset(0, 10));
            long now = f.time.milliseconds();
            assertThat(f.partition.remoteReplicaState(2)).hasValue(new ReplicaState(-1, -1, -1, 0, now, -1));
            // HW-4: no follower LEO known yet, so the HW stays where the follower left it
            assertThat(f.partition.highWatermark()).isEqualTo(4);
        }

        @Test
        @DisplayName("HW-4 a new leader's HW cannot rise before every ISR follower fetched once in the new epoch")
        void hw4NewLeaderWaitsForEveryFollower() {
            PartitionFixture f = new PartitionFixture(1);
            f.partition.makeFollower(registration(2, 0, 0, List.of(1, 2, 3), List.of(1, 2, 3)));
            f.partition.appendRecordsToFollower(InMemoryLocalLog.recordsWithEpochs(0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
            f.partition.makeLeader(registration(1, 1, 1, List.of(1, 2, 3), List.of(1, 2, 3)));
            assertThat(f.partition.highWatermark()).isZero();

            PartitionFetchResult first = f.followerFetch(2, 10);
            assertThat(first.highWatermarkIncreased()).isFalse();
            assertThat(f.partition.highWatermark()).isZero();

            PartitionFetchResult second = f.followerFetch(3, 10);
            assertThat(second.highWatermarkIncreased()).isTrue();
            assertThat(f.partition.highWatermark()).isEqualTo(10);
        }

        @Test
        @DisplayName("LDR-1 re-elected leader keeps the followers' LEO and broker epoch; HW-4 re-evaluated in makeLeader")
        void ldr1ReElected() {
            PartitionFixture f = new PartitionFixture(1).leaderOf123();
            f.append(10, Acks.LEADER);
            f.followerFetch(2, 10);
            f.followerFetch(3, 5);
            f.time.advance(100);

            boolean newLeader = f.partition.makeLeader(registration(1, 1, 1, List.of(1, 2, 3), List.of(1, 2)));

            assertThat(newLeader).isFalse();
            long now = f.time.milliseconds();
            assertThat(f.partition.remoteReplicaState(2)).hasValue(new ReplicaState(0, 10, 10, now, now, 102));
            assertThat(f.partition.remoteReplicaState(3)).hasValue(new ReplicaState(0, 5, 10, 0, 0, 103));
            // ISR 1,2 both at 10, and 3 (not caught up since lastCaughtUp = 0) does not hold the HW: makeLeader raised it
            assertThat(f.partition.highWatermark()).isEqualTo(10);
            assertThat(f.events).contains("hw");
        }

        @Test
        @DisplayName("LDR-2 makeFollower reports a new leader epoch only once and clears the leader-only state")
        void ldr2MakeFollower() {
            PartitionFixture f = new PartitionFixture(1).leaderOf123();
            f.append(3, Acks.LEADER);
            f.followerFetch(2, 3);

            assertThat(f.partition.makeFollower(registration(2, 1, 1, List.of(1, 2, 3), List.of(1, 2, 3)))).isTrue();
            assertThat(f.partition.isLeader()).isFalse();
            assertThat(f.partition.leaderId()).isEqualTo(2);
            assertThat(f.partition.remoteReplicaState(2)).isEmpty();
            assertThat(f.partition.isr()).isEmpty();
            assertThat(f.partition.leaderEpochStartOffset()).isEqualTo(-1);
            assertThat(f.partition.checkEnoughReplicasReachOffset(1))
                    .isEqualTo(new AckCheck(true, Errors.NOT_LEADER_OR_FOLLOWER));
            // same leader epoch again (e.g. an ISR change published by the controller): not new
            assertThat(f.partition.makeFollower(registration(2, 1, 2, List.of(1, 2, 3), List.of(2, 3)))).isFalse();
            assertThat(f.partition.partitionEpoch()).isEqualTo(2);
        }

        @Test
        @DisplayName("LDR-3 a registration with a lower partition epoch is ignored")
        void ldr3StaleIgnored() {
            PartitionFixture f = new PartitionFixture(1);
            f.partition.makeLeader(registration(1, 2, 5, List.of(1, 2, 3), List.of(1, 2, 3)));

            assertThat(f.partition.makeLeader(registration(1, 2, 4, List.of(1, 2), List.of(1)))).isFalse();
            assertThat(f.partition.makeFollower(registration(2, 3, 4, List.of(1, 2, 3), List.of(2)))).isFalse();

            assertThat(f.partition.isLeader()).isTrue();
            assertThat(f.partition.isr()).containsExactly(1, 2, 3);
            assertThat(f.partition.assignment()).containsExactly(1, 2, 3);
            assertThat(f.partition.partitionEpoch()).isEqualTo(5);
            assertThat(f.partition.leaderEpoch()).isEqualTo(2);
        }

        @Test
        @DisplayName("LDR-3 a same-leader-epoch update replaces ISR and replicas without a reset and drops a pending change")
        void ldr3SameEpochUpdate() {
            PartitionFixture f = new PartitionFixture(1).leaderOf123();
            f.append(10, Acks.LEADER);
            f.followerFetch(2, 10);
            f.followerFetch(3, 4);
            f.time.advance(PartitionFixture.LAG_MS + 1);
            f.partition.maybeShrinkIsr();
            assertThat(f.partition.isrState()).isInstanceOf(PendingShrinkIsr.class);
            ReplicaState before2 = f.partition.remoteReplicaState(2).orElseThrow();

            f.partition.makeLeader(registration(1, 0, 1, List.of(1, 2, 3), List.of(1, 2)));

            assertThat(f.partition.isrState()).isEqualTo(new CommittedIsr(List.of(1, 2)));
            assertThat(f.partition.partitionEpoch()).isEqualTo(1);
            assertThat(f.partition.remoteReplicaState(2)).hasValue(before2);
            // the answer to the dropped proposal is stale now and is ignored
            f.sender.last().accept(1);
            assertThat(f.partition.isrState()).isEqualTo(new CommittedIsr(List.of(1, 2)));
            assertThat(f.partition.partitionEpoch()).isEqualTo(1);
        }
        @Test
        @DisplayName("LDR-3 ISR-4 HW-1 metadata repeating the committed state keeps an in-flight expansion: the controller may still commit it")
        void ldr3RedeliveryKeepsInFlightExpansion() {
            PartitionFixture f = new PartitionFixture(1).leaderOf123();
            f.time.advance(PartitionFixture.LAG_MS + 1);
            f.partition.maybeShrinkIsr();
            f.sender.last().accept(1);
            assertThat(f.partition.isrState()).isEqualTo(new CommittedIsr(List.of(1)));
            f.followerFetch(2, 0);
            assertThat(f.partition.isrState()).isInstanceOf(PendingExpandIsr.class);

            // the shrink's own record arrives after its answer: same leader epoch, same partition epoch, same ISR
            f.partition.makeLeader(registration(1, 0, 1, List.of(1, 2, 3), List.of(1)));
            assertThat(f.partition.isrState()).isInstanceOf(PendingExpandIsr.class);
            assertThat(f.partition.isrState().maximalIsr()).containsExactlyInAnyOrder(1, 2);

            // so an append waits for broker 2, which the controller puts in the ISR when it commits the expansion
            f.append(1, Acks.LEADER);
            assertThat(f.partition.highWatermark()).isZero();
            f.sender.last().accept(1);
            assertThat(f.partition.isr()).containsExactlyInAnyOrder(1, 2);
            assertThat(f.partition.highWatermark()).isZero();
        }
    }

    @Nested
    class Produce {

        @Test
        @DisplayName("PRO-2 not the leader: NOT_LEADER_OR_FOLLOWER")
        void pro2NotLeader() {
            PartitionFixture f = new PartitionFixture(1);
            f.partition.makeFollower(registration(2, 0, 0, List.of(1, 2, 3), List.of(1, 2, 3)));
            assertThat(errorOf(() -> f.append(1, Acks.LEADER))).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
            assertThat(f.partition.logEndOffset()).isZero();
        }

        @Test
        @DisplayName("PRO-2 SCN-2 acks=-1 below the effective min ISR: NOT_ENOUGH_REPLICAS and nothing written; acks=1 passes")
        void pro2NotEnoughReplicas() {
            PartitionFixture f = new PartitionFixture(3);
            f.partition.makeLeader(registration(1, 0, 0, List.of(1, 2, 3), List.of(1, 2)));
            assertThat(errorOf(() -> f.append(1, Acks.ALL))).isEqualTo(Errors.NOT_ENOUGH_REPLICAS);
            assertThat(f.partition.logEndOffset()).isZero();
            assertThat(errorOf(() -> f.append(1, Acks.LEADER))).isEqualTo(Errors.NONE);
            assertThat(errorOf(() -> f.append(1, Acks.NONE))).isEqualTo(Errors.NONE);
            // min.insync.replicas lowered at run time (SCN-2 step 3)
            f.partition.updateMinInsyncReplicas(2);
            assertThat(errorOf(() -> f.append(1, Acks.ALL))).isEqualTo(Errors.NONE);
            assertThat(f.partition.logEndOffset()).isEqualTo(3);
        }

        @Test
        @DisplayName("PRO-2 HW-2 the effective min ISR is min(min.insync.replicas, number of replicas)")
        void pro2EffectiveMinIsr() {
            PartitionFixture f = new PartitionFixture(3);
            f.partition.makeLeader(registration(1, 0, 0, List.of(1), List.of(1)));
            assertThat(f.partition.effectiveMinIsr()).isEqualTo(1);
            f.append(2, Acks.ALL);
            // HW-4: a single-replica ISR commits at once
            assertThat(f.partition.highWatermark()).isEqualTo(2);
        }

        @Test
        @DisplayName("PRO-3 acks=all is done with NONE once HW >= last offset + 1 and the maximal ISR meets min ISR")
        void pro3Completion() {
            PartitionFixture f = new PartitionFixture(2).leaderOf123();
            f.append(5, Acks.ALL);
            assertThat(f.partition.checkEnoughReplicasReachOffset(5)).isEqualTo(AckCheck.NOT_YET);
            f.followerFetch(2, 5);
            assertThat(f.partition.checkEnoughReplicasReachOffset(5)).isEqualTo(AckCheck.NOT_YET);
            f.followerFetch(3, 5);
            assertThat(f.partition.checkEnoughReplicasReachOffset(5)).isEqualTo(new AckCheck(true, Errors.NONE));
        }

        @Test
        @DisplayName("PRO-3 ISR below min ISR after the HW passed the offset: NOT_ENOUGH_REPLICAS_AFTER_APPEND")
        void pro3AfterAppend() {
            PartitionFixture f = new PartitionFixture(2);
            f.partition.makeLeader(registration(1, 0, 0, List.of(1, 2), List.of(1, 2)));
            f.append(5, Acks.ALL);
            f.followerFetch(2, 5);
            assertThat(f.partition.highWatermark()).isEqualTo(5);
            f.partition.makeLeader(registration(1, 0, 1, List.of(1, 2), List.of(1)));
            assertThat(f.partition.checkEnoughReplicasReachOffset(5))
                    .isEqualTo(new AckCheck(true, Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND));
        }

        @Test
        @DisplayName("PRO-3 SCN-1 acks=all waits for the HW, not all replicas: a shrink committed by the controller releases it")
        void pro3ShrinkReleases() {
            PartitionFixture f = new PartitionFixture(1).leaderOf123();
            f.append(12, Acks.ALL);
            bothFetch(f, 12);
            assertThat(f.partition.highWatermark()).isEqualTo(12);
            // broker 3 pauses; five acks=1 and one acks=all record follow
            f.append(5, Acks.LEADER);
            f.append(1, Acks.ALL);
            f.followerFetch(2, 18);
            assertThat(f.partition.highWatermark()).isEqualTo(12);
            assertThat(f.partition.checkEnoughReplicasReachOffset(18)).isEqualTo(AckCheck.NOT_YET);
            f.time.advance(PartitionFixture.LAG_MS + 1);
            f.followerFetch(2, 18);
            f.partition.maybeShrinkIsr();
            assertThat(f.partition.checkEnoughReplicasReachOffset(18))
                    .as("ISR-4: the pending shrink does not move the HW").isEqualTo(AckCheck.NOT_YET);
            f.sender.last().accept(1);
            assertThat(f.partition.highWatermark()).isEqualTo(18);
            assertThat(f.partition.checkEnoughReplicasReachOffset(18)).isEqualTo(new AckCheck(true, Errors.NONE));
            assertThat(f.events).containsSubsequence("shrink", "hw");
        }
    }

    /**
     * HW-1..HW-4 where the HW is computed: on the live partition, through follower fetches, appends and
     * AlterPartition answers (there is no standalone copy of the candidate to test instead).
     */
    @Nested
    class HighWatermark {

        @Test
        @DisplayName("HW-1 the HW is the lowest LEO of the ISR members, moving as each one's fetch offset moves")
        void hw1LowestIsrLeo() {
            PartitionFixture f = new PartitionFixture(1).leaderOf123();
            f.append(18, Acks.LEADER);
            f.followerFetch(2, 15);
            assertThat(f.partition.highWatermark()).as("3 has not fetched: its LEO is unknown").isZero();
            PartitionFetchResult third = f.followerFetch(3, 12);
            assertThat(third.highWatermarkIncreased()).isTrue();
            assertThat(f.partition.highWatermark()).isEqualTo(12);
            f.followerFetch(3, 16);
            assertThat(f.partition.highWatermark()).isEqualTo(15);
            f.followerFetch(2, 18);
            assertThat(f.partition.highWatermark()).isEqualTo(16);
        }

        @Test
        @DisplayName("HW-1 ISR-4 a pending expansion holds the HW at the joining replica's LEO even once it is no longer caught up")
        void hw1PendingExpansionHoldsTheHw() {
            PartitionFixture f = new PartitionFixture(1);
            f.partition.makeLeader(registration(1, 0, 0, List.of(1, 2, 3), List.of(1, 2)));
            f.append(10, Acks.LEADER);
            f.followerFetch(2, 10);
            f.followerFetch(3, 10); // ISR-2: 3 joins; the expansion is in flight
            assertThat(f.partition.isrState()).isInstanceOf(PendingExpandIsr.class);
            assertThat(f.partition.highWatermark()).isEqualTo(10);

            f.append(5, Acks.LEADER);
            f.time.advance(PartitionFixture.LAG_MS + 1); // 3 is no longer caught up by time
            f.followerFetch(2, 15);

            assertThat(f.partition.remoteReplicaState(3).orElseThrow()
                    .isCaughtUp(15, f.time.milliseconds(), PartitionFixture.LAG_MS)).isFalse();
            assertThat(f.partition.highWatermark()).as("3 is in the maximal ISR 1,2,3: the HW waits for it")
                    .isEqualTo(10);
            f.sender.last().accept(1);
            assertThat(f.partition.isr()).containsExactly(1, 2, 3);
            assertThat(f.partition.highWatermark()).isEqualTo(10);
            f.followerFetch(3, 15);
            assertThat(f.partition.highWatermark()).isEqualTo(15);
        }

        @Test
        @DisplayName("HW-1 a caught-up, ISR-eligible replica outside the ISR holds the HW back; once ineligible it does not")
        void hw1CaughtUpEligibleReplicaHoldsTheHw() {
            PartitionFixture f = new PartitionFixture(1);
            f.partition.makeLeader(registration(1, 0, 0, List.of(1, 2, 3), List.of(1)));
            f.append(10, Acks.LEADER);
            assertThat(f.partition.highWatermark()).as("nobody else is caught up: the leader alone commits").isEqualTo(10);
            f.followerFetch(3, 10); // 3 joins: an expansion is in flight, so 2 cannot join meanwhile (ISR-4)
            f.followerFetch(2, 10); // caught up and eligible, but not in the (maximal) ISR 1,3
            assertThat(f.partition.isrState().maximalIsr()).containsExactly(1, 3);

            f.append(5, Acks.LEADER);
            f.followerFetch(3, 15);

            assertThat(f.partition.highWatermark()).as("2 is about to join: the leader waits for it").isEqualTo(10);
            f.fenced.add(2); // ISR-3: no longer eligible, so no longer waited for (a re-evaluation, as on new metadata)
            assertThat(f.partition.maybeIncrementLeaderHW(f.time.milliseconds())).isTrue();
            assertThat(f.partition.highWatermark()).isEqualTo(15);
        }

        @Test
        @DisplayName("HW-2 HW-4 a committed expansion that lifts the ISR to min ISR re-evaluates the HW, which was frozen until then")
        void hw2CommittedExpansionUnfreezesTheHw() {
            PartitionFixture f = new PartitionFixture(2);
            f.partition.makeLeader(registration(1, 0, 0, List.of(1, 2), List.of(1)));
            f.append(4, Acks.LEADER);
            f.followerFetch(2, 4); // ISR-2: 2 joins, proposal in flight
            assertThat(f.partition.isrState()).isInstanceOf(PendingExpandIsr.class);
            assertThat(f.partition.highWatermark()).as("HW-2: the committed ISR 1 is under min ISR 2").isZero();

            f.sender.last().accept(1);

            assertThat(f.partition.isr()).containsExactly(1, 2);
            assertThat(f.partition.highWatermark()).isEqualTo(4);
            assertThat(f.events).containsSubsequence("expand", "hw");
        }

        @Test
        @DisplayName("HW-2 under min ISR the HW does not move at all, even for acks=1 records")
        void hw2Freeze() {
            PartitionFixture f = new PartitionFixture(2);
            f.partition.makeLeader(registration(1, 0, 0, List.of(1, 2, 3), List.of(1)));
            f.append(4, Acks.LEADER);
            f.followerFetch(2, 4);
            f.followerFetch(3, 4);
            assertThat(f.partition.isUnderMinIsr()).isTrue();
            assertThat(f.partition.highWatermark()).isZero();
            assertThat(f.partition.maybeIncrementLeaderHW(f.time.milliseconds())).isFalse();
            assertThat(f.consumerFetch(0).data().records().sizeInBytes()).isZero();
        }

        @Test
        @DisplayName("HW-3 the leader's HW only moves up, even when a known follower LEO goes down")
        void hw3Monotonic() {
            PartitionFixture f = new PartitionFixture(1).leaderOf123();
            f.append(10, Acks.LEADER);
            bothFetch(f, 10);
            assertThat(f.partition.highWatermark()).isEqualTo(10);
            f.followerFetch(3, 6);
            assertThat(f.partition.highWatermark()).isEqualTo(10);
            assertThat(f.partition.maybeIncrementLeaderHW(f.time.milliseconds())).isFalse();
        }

        @Test
        @DisplayName("HW-6 the leader learns a follower's LEO only from its next fetch: the HW can be too low, never too high")
        void hw6Lag() {
            PartitionFixture f = new PartitionFixture(1).leaderOf123();
            f.append(10, Acks.LEADER);
            PartitionFetchResult r2 = f.followerFetch(2, 0);
            PartitionFetchResult r3 = f.followerFetch(3, 0);
            assertThat(r2.data().records().sizeInBytes()).isEqualTo(10);
            assertThat(r3.data().records().sizeInBytes()).isEqualTo(10);
            // both followers now hold 0..9, but the leader has not heard it
            assertThat(f.partition.highWatermark()).isZero();
            f.followerFetch(2, 10);
            assertThat(f.partition.highWatermark()).isZero();
            f.followerFetch(3, 10);
            assertThat(f.partition.highWatermark()).isEqualTo(10);
        }

        @Test
        @DisplayName("HW-4 the HW is re-evaluated after the leader's append (single-replica ISR) and on follower LEO changes")
        void hw4Triggers() {
            PartitionFixture f = new PartitionFixture(1);
            f.partition.makeLeader(registration(1, 0, 0, List.of(1, 2), List.of(1)));
            // follower 2 is out of the ISR and has never caught up: the leader alone commits on append
            f.partition.appendAsLeader(InMemoryLocalLog.records(3), Acks.LEADER);
            assertThat(f.partition.highWatermark()).isEqualTo(3);
            PartitionFetchResult same = f.followerFetch(2, 0);
            assertThat(same.highWatermarkIncreased()).isFalse();
        }
    }

    @Nested
    class Fetch {

        @Test
        @DisplayName("FET-1 followers read up to the LEO, consumers up to the HW")
        void fet1ReadLimits() {
            PartitionFixture f = new PartitionFixture(1).leaderOf123();
            f.append(10, Acks.LEADER);
            bothFetch(f, 4);
            assertThat(f.partition.highWatermark()).isEqualTo(4);
            assertThat(f.followerFetch(2, 4).data().records().sizeInBytes()).isEqualTo(6);
            assertThat(f.consumerFetch(0).data().records().sizeInBytes()).isEqualTo(4);
            assertThat(f.consumerFetch(4).data().records().sizeInBytes()).isZero();
            assertThat(f.consumerFetch(7).data().error()).isEqualTo(Errors.NONE);
        }

        @Test
        @DisplayName("FET-2 fencing in order: epoch below, epoch above, not leader, unknown replica, stale broker epoch, offline; no state change")
        void fet2Fencing() {
            PartitionFixture f = new PartitionFixture(1);
            f.partition.makeLeader(registration(1, 5, 0, List.of(1, 2, 3), List.of(1, 2, 3)));
            f.append(4, Acks.LEADER);
            f.followerFetch(2, 2);
            ReplicaState before = f.partition.remoteReplicaState(2).orElseThrow();
            long now = f.time.milliseconds() + 1;

            assertThat(fetch(f, 2, 102, 4, OptionalInt.of(4), now)).isEqualTo(Errors.FENCED_LEADER_EPOCH);
            assertThat(fetch(f, 2, 102, 4, OptionalInt.of(6), now)).isEqualTo(Errors.UNKNOWN_LEADER_EPOCH);
            assertThat(fetch(f, 4, 104, 4, OptionalInt.of(5), now)).isEqualTo(Errors.UNKNOWN_LEADER_EPOCH);
            assertThat(fetch(f, 4, 104, 4, OptionalInt.empty(), now)).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
            assertThat(fetch(f, 2, 101, 4, OptionalInt.of(5), now)).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
            f.partition.markOffline();
            // epoch checks come before the storage error
            assertThat(fetch(f, 2, 102, 4, OptionalInt.of(4), now)).isEqualTo(Errors.FENCED_LEADER_EPOCH);
            assertThat(fetch(f, 2, 102, 4, OptionalInt.of(5), now)).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
            assertThat(f.partition.remoteReplicaState(2)).hasValue(before);
            assertThat(f.partition.highWatermark()).isZero();

            PartitionFixture follower = new PartitionFixture(1);
            follower.partition.makeFollower(registration(2, 5, 0, List.of(1, 2, 3), List.of(1, 2, 3)));
            assertThat(fetch(follower, 3, 103, 0, OptionalInt.of(4), now)).isEqualTo(Errors.FENCED_LEADER_EPOCH);
            assertThat(fetch(follower, 3, 103, 0, OptionalInt.of(5), now)).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
            assertThat(fetch(follower, 3, 103, 0, OptionalInt.empty(), now)).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
        }

        @Test
        @DisplayName("FET-2 a fetch naming another topic id is INCONSISTENT_TOPIC_ID before the epoch checks, with no state change; the same id, or none, is served")
        void fet2TopicId() {
            UUID id = new UUID(7, 7);
            PartitionFixture f = new PartitionFixture(1, null, Optional.of(id)).leaderOf123();
            f.append(4, Acks.LEADER);
            ReplicaState before = f.partition.remoteReplicaState(2).orElseThrow();
            long now = f.time.milliseconds() + 1;
            UUID other = new UUID(8, 8);

            assertThat(fetchWithTopicId(f, 4, OptionalInt.of(0), Optional.of(other), now))
                    .isEqualTo(Errors.INCONSISTENT_TOPIC_ID);
            // A replica of the deleted topic may well be in a newer epoch than the new topic's: the id comes first.
            assertThat(fetchWithTopicId(f, 4, OptionalInt.of(3), Optional.of(other), now))
                    .isEqualTo(Errors.INCONSISTENT_TOPIC_ID);
            assertThat(f.partition.remoteReplicaState(2)).hasValue(before);
            assertThat(f.partition.highWatermark()).isZero();

            assertThat(fetchWithTopicId(f, 4, OptionalInt.of(0), Optional.of(id), now)).isEqualTo(Errors.NONE);
            assertThat(f.partition.remoteReplicaState(2).orElseThrow().logEndOffset()).isEqualTo(4);
            assertThat(fetchWithTopicId(f, 4, OptionalInt.of(0), Optional.empty(), now)).isEqualTo(Errors.NONE);

            // A replica whose metadata named no id (a log from before topic ids) checks names only.
            PartitionFixture legacy = new PartitionFixture(1).leaderOf123();
            assertThat(fetchWithTopicId(legacy, 0, OptionalInt.of(0), Optional.of(other), now)).isEqualTo(Errors.NONE);
            assertThat(legacy.partition.topicId()).isEmpty();
            assertThat(f.partition.topicId()).hasValue(id);
        }

        private Errors fetchWithTopicId(PartitionFixture f, long offset, OptionalInt epoch, Optional<UUID> topicId,
                                        long now) {
            FetchRequest.PartitionData plain = data(offset, epoch, OptionalInt.empty());
            FetchRequest.PartitionData d = topicId.map(plain::withTopicId).orElse(plain);
            return f.partition.fetch(request(2, 102, d), d, MAX_BYTES, now, true).data().error();
        }

        private Errors fetch(PartitionFixture f, int replicaId, long brokerEpoch, long offset, OptionalInt epoch, long now) {
            FetchRequest.PartitionData d = data(offset, epoch, OptionalInt.empty());
            return f.partition.fetch(request(replicaId, brokerEpoch, d), d, MAX_BYTES, now, true).data().error();
        }

        /** Leader at epoch 2 whose log has epoch 0 at 0..9 and epoch 2 from 10 (epoch 1 never wrote). */
        private PartitionFixture divergenceFixture() {
            PartitionFixture f = new PartitionFixture(1);
            f.partition.makeLeader(registration(1, 0, 0, List.of(1, 2, 3), List.of(1, 2, 3)));
            f.append(10, Acks.LEADER);
            f.partition.makeLeader(registration(1, 2, 1, List.of(1, 2, 3), List.of(1, 2, 3)));
            f.append(5, Acks.LEADER);
            return f;
        }

        private PartitionFetchResult fetchWithEpoch(PartitionFixture f, long offset, int lastFetchedEpoch) {
            FetchRequest.PartitionData d = data(offset, OptionalInt.of(2), OptionalInt.of(lastFetchedEpoch));
            return f.partition.fetch(request(2, 102, d), d, MAX_BYTES, f.time.milliseconds(), true);
        }

        @Test
        @DisplayName("FET-3 divergence answers divergingEpoch, no records, and does not update the follower's state")
        void fet3Diverging() {
            PartitionFixture f = divergenceFixture();
            ReplicaState before = f.partition.remoteReplicaState(2).orElseThrow();

            // SCN-3: the old leader's follower fetches at 15 with lastFetchedEpoch 1, which this leader never had
            FetchResponse.PartitionData unknownEpoch = fetchWithEpoch(f, 15, 1).data();
            assertThat(unknownEpoch.error()).isEqualTo(Errors.NONE);
            assertThat(unknownEpoch.divergingEpoch()).hasValue(new EpochEndOffset(0, 10));
            assertThat(unknownEpoch.records().sizeInBytes()).isZero();

            // epoch 0 is known but ends at 10 < fetch offset 12
            FetchResponse.PartitionData pastEnd = fetchWithEpoch(f, 12, 0).data();
            assertThat(pastEnd.divergingEpoch()).hasValue(new EpochEndOffset(0, 10));
            assertThat(f.partition.remoteReplicaState(2)).hasValue(before);

            // no divergence: epoch 0 up to its end
            FetchResponse.PartitionData ok = fetchWithEpoch(f, 10, 0).data();
            assertThat(ok.divergingEpoch()).isEmpty();
            assertThat(ok.records().sizeInBytes()).isEqualTo(5);
            assertThat(f.partition.remoteReplicaState(2).orElseThrow().logEndOffset()).isEqualTo(10);
        }

        @Test
        @DisplayName("FET-3 OFFSET_OUT_OF_RANGE when the end of lastFetchedEpoch is undefined or the offset is outside the log")
        void fet3OutOfRange() {
            PartitionFixture f = divergenceFixture();
            FetchResponse.PartitionData undefined = fetchWithEpoch(f, 15, 7).data();
            assertThat(undefined.error()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE);
            // FOL-6: the answer carries the leader's LEO and log start
            assertThat(undefined.logEndOffset()).isEqualTo(15);
            assertThat(undefined.logStartOffset()).isZero();
            assertThat(f.followerFetch(2, 16).data().error()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE);
            f.log.updateHighWatermark(5);
            f.log.maybeIncrementLogStartOffset(3);
            assertThat(f.followerFetch(2, 2).data().error()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE);
            assertThat(f.partition.remoteReplicaState(2).orElseThrow().logEndOffset()).isEqualTo(-1);
        }

        @Test
        @DisplayName("FET-3 a fetch below the log start is OFFSET_OUT_OF_RANGE even when its lastFetchedEpoch diverges")
        void fet3BelowLogStartBeatsDivergence() {
            // epochs 0 at 0..9, 2 at 10..14, 4 at 15..19; everything committed, log start moved to 12
            PartitionFixture f = divergenceFixture();
            f.partition.makeLeader(registration(1, 4, 2, List.of(1, 2, 3), List.of(1, 2, 3)));
            f.append(5, Acks.LEADER);
            f.log.updateHighWatermark(20);
            f.log.maybeIncrementLogStartOffset(12);
            FetchRequest.PartitionData d = data(11, OptionalInt.of(4), OptionalInt.of(3));
            assertThat(f.log.endOffsetForEpoch(3)).as("epoch 3 diverges: the leader's largest epoch <= 3 is 2")
                    .isEqualTo(new EpochEndOffset(2, 15));

            FetchResponse.PartitionData answer = f.partition.fetch(request(2, 102, d), d, MAX_BYTES,
                    f.time.milliseconds(), true).data();

            assertThat(answer.error()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE);
            assertThat(answer.divergingEpoch()).isEmpty();
            assertThat(answer.logStartOffset()).as("FOL-6: the follower restarts its log there").isEqualTo(12);
            assertThat(f.partition.remoteReplicaState(2).orElseThrow().logEndOffset()).isEqualTo(-1);
            // at the log start the same diverging epoch is answered with the divergence
            FetchRequest.PartitionData atStart = data(12, OptionalInt.of(4), OptionalInt.of(3));
            assertThat(f.partition.fetch(request(2, 102, atStart), atStart, MAX_BYTES, f.time.milliseconds(),
                    true).data().divergingEpoch()).hasValue(new EpochEndOffset(2, 15));
        }

        @Test
        @DisplayName("FET-4 only the first read of a fetch updates the follower's state; a parked fetch's re-read does not")
        void fet4FirstReadOnly() {
            PartitionFixture f = new PartitionFixture(1).leaderOf123();
            f.append(10, Acks.LEADER);
            FetchRequest.PartitionData d = data(10, OptionalInt.of(0), OptionalInt.empty());
            PartitionFetchResult reread = f.partition.fetch(request(2, 102, d), d, MAX_BYTES,
                    f.time.milliseconds(), false);
            assertThat(reread.data().error()).isEqualTo(Errors.NONE);
            assertThat(f.partition.remoteReplicaState(2).orElseThrow().logEndOffset()).isEqualTo(-1);

            f.time.advance(7);
            f.partition.fetch(request(2, 102, d), d, MAX_BYTES, f.time.milliseconds(), true);
            ReplicaState s = f.partition.remoteReplicaState(2).orElseThrow();
            assertThat(s.logEndOffset()).isEqualTo(10);
            assertThat(s.lastFetchTimeMs()).isEqualTo(f.time.milliseconds());
            assertThat(s.lastCaughtUpTimeMs()).isEqualTo(f.time.milliseconds());
            assertThat(s.lastFetchLeaderLogEndOffset()).isEqualTo(10);
            assertThat(s.brokerEpoch()).isEqualTo(102);
        }

        @Test
        @DisplayName("FET-6 the answer carries error, HW, lastStableOffset = HW, log start, LEO and the records")
        void fet6Fields() {
            PartitionFixture f = new PartitionFixture(1).leaderOf123();
            f.append(10, Acks.LEADER);
            f.followerFetch(3, 10);
            FetchResponse.PartitionData d = f.followerFetch(2, 6).data();
            assertThat(d.error()).isEqualTo(Errors.NONE);
            assertThat(d.highWatermark()).isEqualTo(6);
            assertThat(d.lastStableOffset()).isEqualTo(6);
            assertThat(d.logStartOffset()).isZero();
            assertThat(d.logEndOffset()).isEqualTo(10);
            assertThat(d.records().sizeInBytes()).isEqualTo(4);
            assertThat(d.divergingEpoch()).isEmpty();
        }
    }

    @Nested
    class Isr {

        @Test
        @DisplayName("ISR-1 SCN-1 a lagging follower is proposed out with the seed's numbers; one change in flight (ISR-4)")
        void isr1Shrink() {
            PartitionFixture f = new PartitionFixture(1).leaderOf123();
            f.append(12, Acks.ALL);
            bothFetch(f, 12);
            long lastCaughtUp = f.time.milliseconds();
            f.append(6, Acks.LEADER);
            f.time.advance(PartitionFixture.LAG_MS);
            f.followerFetch(2, 18);
            f.partition.maybeShrinkIsr();
            assertThat(f.sender.count()).as("exactly the lag time: still in sync").isZero();

            f.time.advance(1);
            f.partition.maybeShrinkIsr();
            assertThat(f.partition.isrState()).isInstanceOf(PendingShrinkIsr.class);
            AlterPartitionRequest.Item item = f.sender.last().item();
            assertThat(item.newIsr()).containsExactly(new AlterPartitionRequest.BrokerState(1, 101),
                    new AlterPartitionRequest.BrokerState(2, 102));
            assertThat(item.leaderEpoch()).isZero();
            assertThat(item.partitionEpoch()).isZero();
            assertThat(Partition.shrinkingIsrMessage(List.of(1, 2, 3), List.of(1, 2), 12, 18,
                    java.util.Map.of(3, f.partition.remoteReplicaState(3).orElseThrow())))
                    .isEqualTo("Shrinking ISR from 1,2,3 to 1,2. Leader: (highWatermark: 12, endOffset: 18). "
                            + "Out of sync replicas: (brokerId: 3, endOffset: 12, lastCaughtUpTimeMs: " + lastCaughtUp + ").");

            f.time.advance(PartitionFixture.LAG_MS);
            f.partition.maybeShrinkIsr();
            assertThat(f.sender.count()).as("ISR-4: only one change in flight").isEqualTo(1);

            f.sender.last().accept(1);
            assertThat(f.partition.isrState()).isEqualTo(new CommittedIsr(List.of(1, 2)));
            assertThat(f.partition.partitionEpoch()).isEqualTo(1);
            assertThat(f.partition.highWatermark()).isEqualTo(18);
            assertThat(f.partition.isUnderReplicated()).isTrue();
        }

        @Test
        @DisplayName("ISR-1 SCN-1 a stopped follower of a partition with no writes stays in the ISR")
        void isr1IdleFollowerStays() {
            PartitionFixture f = new PartitionFixture(1).leaderOf123();
            f.append(10, Acks.ALL);
            bothFetch(f, 10);
            f.time.advance(12_000);
            f.followerFetch(2, 10);
            f.partition.maybeShrinkIsr();
            assertThat(f.sender.count()).isZero();
            assertThat(f.partition.isr()).containsExactly(1, 2, 3);
        }

        @Test
        @DisplayName("ISR-1 the periodic shrink check of a leader whose followers are in sync allocates nothing")
        void isr1InSyncCheckAllocatesNothing() {
            // The ISR-expiration task asks this of every led partition every replica.lag.time.max.ms / 2: an
            // idle broker leading 10,000 partitions used to copy each one's replica states into a new map.
            PartitionFixture f = new PartitionFixture(1).leaderOf123();
            f.append(10, Acks.ALL);
            bothFetch(f, 10);
            com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            long now = f.time.milliseconds();
            for (int i = 0; i < 10_000; i++) {
                f.partition.maybeShrinkIsr(now);
            }
            int checks = 100_000;
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < checks; i++) {
                f.partition.maybeShrinkIsr(now);
            }
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            assertThat(allocated).as("bytes allocated by %s in-sync checks", checks).isLessThan(checks);
            assertThat(f.sender.count()).isZero();
            assertThat(f.partition.isr()).containsExactly(1, 2, 3);
        }

        @Test
        @DisplayName("ISR-2 a follower joins when LEO >= HW and >= the leader epoch start, with its broker epoch in the proposal")
        void isr2Expand() {
            PartitionFixture f = new PartitionFixture(1);
            f.partition.makeLeader(registration(1, 0, 0, List.of(1, 2, 3), List.of(1, 2)));
            f.append(10, Acks.LEADER);
            f.followerFetch(2, 10);
            assertThat(f.partition.highWatermark()).isEqualTo(10);
            f.followerFetch(3, 9);
            assertThat(f.sender.count()).isZero();

            f.followerFetch(3, 10);
            assertThat(f.partition.isrState()).isInstanceOf(PendingExpandIsr.class);
            assertThat(f.partition.isrState().maximalIsr()).containsExactly(1, 2, 3);
            assertThat(f.sender.last().item().newIsr()).containsExactly(new AlterPartitionRequest.BrokerState(1, 101),
                    new AlterPartitionRequest.BrokerState(2, 102), new AlterPartitionRequest.BrokerState(3, 103));
            f.sender.last().accept(1);
            assertThat(f.partition.isr()).containsExactly(1, 2, 3);
            assertThat(f.events).contains("expand");
            assertThat(f.partition.isUnderReplicated()).isFalse();
        }

        @Test
        @DisplayName("ISR-2 a follower below the start offset of the current leader epoch does not join")
        void isr2EpochStart() {
            PartitionFixture f = new PartitionFixture(1);
            f.partition.makeLeader(registration(1, 0, 0, List.of(1, 2, 3), List.of(1, 2, 3)));
            f.append(10, Acks.LEADER);
            f.followerFetch(2, 4);
            f.followerFetch(3, 4);
            // new epoch starts at 10 with ISR 1,2; HW is still 4
            f.partition.makeLeader(registration(1, 1, 1, List.of(1, 2, 3), List.of(1, 2)));
            f.followerFetch(3, 8);
            assertThat(f.sender.count()).as("LEO 8 >= HW 4 but below the epoch start 10").isZero();
            f.followerFetch(3, 10);
            assertThat(f.sender.count()).isEqualTo(1);
        }

        @Test
        @DisplayName("ISR-3 a fenced broker or one fetching with another broker epoch does not join")
        void isr3Eligibility() {
            PartitionFixture f = new PartitionFixture(1);
            f.partition.makeLeader(registration(1, 0, 0, List.of(1, 2, 3), List.of(1, 2)));
            f.fenced.add(3);
            f.followerFetch(3, 0);
            assertThat(f.sender.count()).isZero();
            f.fenced.clear();
            // a newer incarnation registered: the fetch's epoch 103 no longer matches (and the old one is not stale: equal fetch epochs pass FET-2)
            f.registeredEpochs.put(3, 203L);
            FetchRequest.PartitionData d = data(0, OptionalInt.of(0), OptionalInt.empty());
            assertThat(f.partition.fetch(request(3, 103, d), d, MAX_BYTES, f.time.milliseconds(), true).data().error())
                    .isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
            f.registeredEpochs.put(3, 103L);
            f.followerFetch(3, 0);
            assertThat(f.sender.count()).isEqualTo(1);
        }

        @Test
        @DisplayName("ISR-5 OPERATION_NOT_ATTEMPTED and INELIGIBLE_REPLICA go back to the last committed state")
        void isr5Revert() {
            for (Errors error : List.of(Errors.OPERATION_NOT_ATTEMPTED, Errors.INELIGIBLE_REPLICA)) {
                PartitionFixture f = shrinkPending();
                f.sender.last().future().complete(AlterPartitionResponse.PartitionResult.failed(error));
                assertThat(f.partition.isrState()).isEqualTo(new CommittedIsr(List.of(1, 2, 3)));
                assertThat(f.events).contains("failed");
                // and a new attempt is possible
                f.partition.maybeShrinkIsr();
                assertThat(f.sender.count()).isEqualTo(2);
            }
        }

        @Test
        @DisplayName("ISR-5 an exceptional OPERATION_NOT_ATTEMPTED (a proposal already queued) also reverts")
        void isr5RevertOnException() {
            PartitionFixture f = shrinkPending();
            f.sender.last().future().completeExceptionally(Errors.OPERATION_NOT_ATTEMPTED.exception("queued for rep-0"));
            assertThat(f.partition.isrState()).isEqualTo(new CommittedIsr(List.of(1, 2, 3)));
        }

        @Test
        @DisplayName("ISR-5 an OPERATION_NOT_ATTEMPTED wrapped in a CompletionException (a dependent stage) reverts too, not resubmits")
        void isr5RevertOnWrappedException() {
            PartitionFixture f = shrinkPending();
            f.sender.last().future().completeExceptionally(new java.util.concurrent.CompletionException(
                    Errors.OPERATION_NOT_ATTEMPTED.exception("queued for rep-0")));
            assertThat(f.partition.isrState()).isEqualTo(new CommittedIsr(List.of(1, 2, 3)));
            assertThat(f.sender.count()).isEqualTo(1);
        }

        @Test
        @DisplayName("ISR-5 UNKNOWN_TOPIC_OR_PARTITION, FENCED_LEADER_EPOCH, INVALID_UPDATE_VERSION, INVALID_REQUEST, NEW_LEADER_ELECTED stay pending")
        void isr5StayPending() {
            for (Errors error : List.of(Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.FENCED_LEADER_EPOCH,
                    Errors.INVALID_UPDATE_VERSION, Errors.INVALID_REQUEST, Errors.NEW_LEADER_ELECTED)) {
                PartitionFixture f = shrinkPending();
                IsrState pending = f.partition.isrState();
                f.sender.last().future().complete(AlterPartitionResponse.PartitionResult.failed(error));
                assertThat(f.partition.isrState()).isSameAs(pending);
                assertThat(f.events).as("a failed ISR update is counted").contains("failed");
                f.time.advance(PartitionFixture.LAG_MS * 3);
                f.partition.maybeShrinkIsr();
                assertThat(f.sender.count()).isEqualTo(1);
                // newer metadata resolves it
                f.partition.makeLeader(registration(1, 0, 1, List.of(1, 2, 3), List.of(1, 2)));
                assertThat(f.partition.isrState()).isEqualTo(new CommittedIsr(List.of(1, 2)));
            }
        }

        @Test
        @DisplayName("ISR-5 any other error resubmits the same proposal")
        void isr5Resubmit() {
            PartitionFixture f = shrinkPending();
            AlterPartitionRequest.Item first = f.sender.last().item();
            f.sender.last().future().complete(AlterPartitionResponse.PartitionResult.failed(Errors.NOT_CONTROLLER));
            assertThat(f.sender.count()).isEqualTo(2);
            assertThat(f.events).as("a failed ISR update is counted").containsExactly("failed");
            assertThat(f.sender.last().item()).isEqualTo(first);
            assertThat(f.partition.isrState()).isInstanceOf(PendingShrinkIsr.class);
            f.sender.last().accept(1);
            assertThat(f.partition.isr()).containsExactly(1, 2);
        }

        @Test
        @DisplayName("ISR-5 a success for another leader epoch or an older partition epoch is ignored and the state stays pending")
        void isr5IgnoredSuccess() {
            PartitionFixture f = shrinkPending();
            IsrState pending = f.partition.isrState();
            f.sender.last().future().complete(new AlterPartitionResponse.PartitionResult(Errors.NONE, 1, 1, List.of(1, 2), 1));
            assertThat(f.partition.isrState()).isSameAs(pending);

            PartitionFixture g = new PartitionFixture(1);
            g.partition.makeLeader(registration(1, 0, 3, List.of(1, 2, 3), List.of(1, 2, 3)));
            g.append(5, Acks.LEADER);
            g.followerFetch(2, 5);
            g.time.advance(PartitionFixture.LAG_MS + 1);
            g.followerFetch(2, 5);
            g.partition.maybeShrinkIsr();
            IsrState pendingG = g.partition.isrState();
            g.sender.last().future().complete(new AlterPartitionResponse.PartitionResult(Errors.NONE, 1, 0, List.of(1, 2), 2));
            assertThat(g.partition.isrState()).isSameAs(pendingG);
        }

        @Test
        @DisplayName("ISR-5 commit under min ISR is logged (under-min-isr) and the HW freezes (HW-2)")
        void isr5CommitUnderMinIsr() {
            PartitionFixture f = new PartitionFixture(2);
            f.partition.makeLeader(registration(1, 0, 0, List.of(1, 2), List.of(1, 2)));
            f.append(5, Acks.LEADER);
            f.time.advance(PartitionFixture.LAG_MS + 1);
            f.partition.maybeShrinkIsr();
            f.sender.last().accept(1);
            assertThat(f.partition.isr()).containsExactly(1);
            assertThat(f.partition.isUnderMinIsr()).isTrue();
            assertThat(f.partition.isAtMinIsr()).isFalse();
            assertThat(f.partition.highWatermark()).isZero();
            assertThat(Partition.isrUpdatedMessage(f.partition.isr(), f.partition.isUnderMinIsr(), f.partition.partitionEpoch()))
                    .isEqualTo("ISR updated to 1 (under-min-isr) and version updated to 1");
        }

        /** Leader of 1,2,3 with 5 records; 2 caught up, 3 lagging; a shrink of 3 is pending. */
        private PartitionFixture shrinkPending() {
            PartitionFixture f = new PartitionFixture(1).leaderOf123();
            f.append(5, Acks.LEADER);
            f.followerFetch(2, 5);
            f.time.advance(PartitionFixture.LAG_MS + 1);
            f.followerFetch(2, 5);
            f.partition.maybeShrinkIsr();
            assertThat(f.partition.isrState()).isInstanceOf(PendingShrinkIsr.class);
            assertThat(f.sender.count()).isEqualTo(1);
            return f;
        }
    }

    /** CTL-6: leaving RECOVERING after an unclean election (Kafka's LeaderRecoveryState). */
    @Nested
    class Recovery {

        /** Broker 1 elected uncleanly: ISR = {1}, RECOVERING, leader epoch 1, partition epoch 3; min ISR 2. */
        private PartitionFixture uncleanlyElected() {
            PartitionFixture f = new PartitionFixture(2);
            f.partition.makeFollower(registration(2, 0, 2, List.of(1, 2, 3), List.of(2, 3)));
            f.partition.appendRecordsToFollower(InMemoryLocalLog.recordsWithEpochs(0, 0, 0, 0));
            f.partition.makeLeader(recovering(1, 3, List.of(1)));
            return f;
        }

        private PartitionRegistration recovering(int leaderEpoch, int partitionEpoch, List<Integer> isr) {
            return new PartitionRegistration(PartitionFixture.TP, List.of(1, 2, 3), isr, List.of(), List.of(), 1,
                    leaderEpoch, partitionEpoch, true);
        }

        @Test
        @DisplayName("CTL-6 a leader of a RECOVERING partition reports it recovered through the AlterPartition manager, ISR unchanged")
        void ctl6ReportsRecovered() {
            PartitionFixture f = uncleanlyElected();

            assertThat(f.partition.isRecovering()).isTrue();
            assertThat(f.partition.isrState()).isInstanceOf(IsrState.PendingRecovery.class);
            assertThat(f.sender.count()).isEqualTo(1);
            AlterPartitionRequest.Item item = f.sender.last().item();
            assertThat(item.recovered()).isTrue();
            assertThat(item.newIsr()).containsExactly(new AlterPartitionRequest.BrokerState(1, 101));
            assertThat(item.leaderEpoch()).isEqualTo(1);
            assertThat(item.partitionEpoch()).isEqualTo(3);
            assertThat(f.partition.isrState().maximalIsr()).containsExactly(1);
        }

        @Test
        @DisplayName("CTL-6 ISR-2 no expansion before the recovery is committed; afterwards the ISR grows as usual and acks=all completes")
        void ctl6NoExpansionUntilRecovered() {
            PartitionFixture f = uncleanlyElected();
            f.followerFetch(2, 4);
            f.followerFetch(3, 4);
            assertThat(f.sender.count()).as("caught up followers wait for the recovery").isEqualTo(1);
            assertThat(f.partition.isr()).containsExactly(1);

            f.sender.last().accept(1);

            assertThat(f.partition.isRecovering()).isFalse();
            assertThat(f.partition.isrState()).isEqualTo(new CommittedIsr(List.of(1)));
            assertThat(f.partition.partitionEpoch()).isEqualTo(4);
            assertThat(f.events).doesNotContain("expand", "shrink");
            f.followerFetch(2, 4);
            assertThat(f.partition.isrState()).isInstanceOf(PendingExpandIsr.class);
            AlterPartitionRequest.Item expansion = f.sender.last().item();
            assertThat(expansion.newIsrIds()).containsExactly(1, 2);
            assertThat(expansion.recovered()).as("a recovered leader's proposals say so").isTrue();
            f.sender.last().accept(1);
            assertThat(f.partition.isr()).containsExactly(1, 2);
            assertThat(errorOf(() -> f.append(1, Acks.ALL))).as("min ISR 2 is met again").isEqualTo(Errors.NONE);
            f.followerFetch(2, 5);
            f.followerFetch(3, 5); // HW-1: 3 is caught up and about to join, so the HW waits for it too
            assertThat(f.partition.checkEnoughReplicasReachOffset(5)).isEqualTo(new AckCheck(true, Errors.NONE));
        }

        @Test
        @DisplayName("CTL-6 a refused recovery report is retried by the ISR task and by follower fetches")
        void ctl6RefusedReportRetried() {
            PartitionFixture f = uncleanlyElected();
            f.sender.last().future().complete(AlterPartitionResponse.PartitionResult.failed(Errors.OPERATION_NOT_ATTEMPTED));
            assertThat(f.partition.isrState()).isEqualTo(new CommittedIsr(List.of(1)));
            assertThat(f.partition.isRecovering()).isTrue();

            f.partition.maybeShrinkIsr();
            assertThat(f.sender.count()).isEqualTo(2);
            assertThat(f.sender.last().item().recovered()).isTrue();
            f.sender.last().future().complete(AlterPartitionResponse.PartitionResult.failed(Errors.INELIGIBLE_REPLICA));

            f.followerFetch(2, 4);
            assertThat(f.sender.count()).isEqualTo(3);
            assertThat(f.sender.last().item().newIsrIds()).as("still the recovery, not an expansion").containsExactly(1);
            f.sender.last().accept(1);
            assertThat(f.partition.isRecovering()).isFalse();
        }

        @Test
        @DisplayName("CTL-6 LDR-3 metadata saying the partition is recovered ends RECOVERING even if the answer is lost")
        void ctl6MetadataEndsRecovery() {
            PartitionFixture f = uncleanlyElected();
            HeldAlterPartitionSender.Submitted report = f.sender.last();

            f.partition.makeLeader(registration(1, 1, 4, List.of(1, 2, 3), List.of(1)));

            assertThat(f.partition.isRecovering()).isFalse();
            assertThat(f.partition.isrState()).isEqualTo(new CommittedIsr(List.of(1)));
            report.accept(1); // the late answer to the dropped report changes nothing
            assertThat(f.partition.partitionEpoch()).isEqualTo(4);
            f.followerFetch(3, 4);
            assertThat(f.sender.last().item().newIsrIds()).containsExactly(1, 3);
        }

        @Test
        @DisplayName("CTL-6 a registration still RECOVERING on the same leader epoch sends the report again")
        void ctl6SameEpochStillRecovering() {
            PartitionFixture f = uncleanlyElected();
            f.sender.last().future().complete(AlterPartitionResponse.PartitionResult.failed(Errors.FENCED_LEADER_EPOCH));
            assertThat(f.partition.isrState()).as("ISR-5: stays pending until newer metadata")
                    .isInstanceOf(IsrState.PendingRecovery.class);

            f.partition.makeLeader(recovering(1, 3, List.of(1)));

            assertThat(f.sender.count()).isEqualTo(2);
            assertThat(f.partition.isrState()).isInstanceOf(IsrState.PendingRecovery.class);
        }
    }

    @Test
    @DisplayName("FOL-5 the follower HW takes the leader's, clamped to [log start, LEO], even when lower")
    void followerHighWatermark() {
        PartitionFixture f = new PartitionFixture(1);
        f.partition.makeFollower(registration(2, 0, 0, List.of(1, 2, 3), List.of(1, 2, 3)));
        f.partition.appendRecordsToFollower(InMemoryLocalLog.recordsWithEpochs(0, 0, 0, 0, 0));
        assertThat(f.partition.updateFollowerHighWatermark(9)).isEqualTo(5);
        assertThat(f.partition.updateFollowerHighWatermark(3)).isEqualTo(3);
        f.partition.truncateTo(2);
        assertThat(f.partition.highWatermark()).isEqualTo(2);
        assertThatThrownBy(() -> new PartitionFixture(1).leaderOf123().partition
                .appendRecordsToFollower(InMemoryLocalLog.recordsWithEpochs(0)))
                .isInstanceOf(ApiException.class).hasMessageContaining("rep-0");
    }

    @Test
    @DisplayName("PRO-3 a maximal ISR exactly at min ISR acknowledges acks=all with NONE")
    void pro3IsrAtMinIsrAcknowledges() {
        PartitionFixture f = new PartitionFixture(2);
        f.partition.makeLeader(registration(1, 0, 0, List.of(1, 2, 3), List.of(1, 2)));
        f.append(5, Acks.ALL);
        f.followerFetch(2, 5);
        assertThat(f.partition.highWatermark()).isEqualTo(5);
        assertThat(f.partition.checkEnoughReplicasReachOffset(5)).isEqualTo(new AckCheck(true, Errors.NONE));
    }

    @Test
    @DisplayName("LDR-3 only an older partition epoch is stale: an equal one is applied; makeLeader/makeFollower tell whether the leader epoch is new")
    void ldr3EqualPartitionEpochApplied() {
        PartitionFixture f = new PartitionFixture(1);
        assertThat(f.partition.makeFollower(registration(2, 1, 1, List.of(1, 2, 3), List.of(1, 2, 3)))).isTrue();
        assertThat(f.partition.makeFollower(registration(3, 2, 1, List.of(1, 2, 3), List.of(1, 2, 3)))).isTrue();
        assertThat(f.partition.leaderId()).isEqualTo(3);
        assertThat(f.partition.makeFollower(registration(3, 2, 2, List.of(1, 2, 3), List.of(1, 2, 3)))).isFalse();
        assertThat(f.partition.makeFollower(registration(2, 3, 1, List.of(1, 2, 3), List.of(1, 2, 3)))).isFalse();
        assertThat(f.partition.leaderId()).isEqualTo(3);
        assertThat(f.partition.makeLeader(registration(1, 3, 3, List.of(1, 2, 3), List.of(1, 2, 3)))).isTrue();
        assertThat(f.partition.makeLeader(registration(1, 3, 4, List.of(1, 2, 3), List.of(1, 2)))).isFalse();
        assertThat(f.partition.makeLeader(registration(1, 4, 2, List.of(1, 2, 3), List.of(1, 2, 3)))).isFalse();
        assertThat(f.partition.leaderEpoch()).isEqualTo(3);
    }

    @Test
    @DisplayName("ISR-1 broker id 0 is a valid local broker; replica.lag.time.max.ms must be positive")
    void isr1SettingsBounds() {
        PartitionListener none = new PartitionListener() {
        };
        ReplicaEligibility all = ReplicaEligibility.ALL_ELIGIBLE;
        ManualTime time = new ManualTime(0);
        HeldAlterPartitionSender sender = new HeldAlterPartitionSender();
        assertThat(new PartitionSettings(0, () -> 1L, time, 1, all, sender, none).localBrokerId()).isZero();
        assertThatThrownBy(() -> new PartitionSettings(0, () -> 1L, time, 0, all, sender, none))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("replica.lag.time.max.ms");
        assertThatThrownBy(() -> new PartitionSettings(-1, () -> 1L, time, 1, all, sender, none))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
    }
}
