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
import dev.insync.replication.core.partition.IsrState.CommittedIsr;
import dev.insync.replication.core.partition.IsrState.PendingExpandIsr;
import dev.insync.replication.core.partition.IsrState.PendingShrinkIsr;
import dev.insync.replication.core.replica.ReplicaState;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.insync.replication.core.partition.Partition.AlterPartitionOutcome.COMMIT;
import static dev.insync.replication.core.partition.Partition.AlterPartitionOutcome.IGNORE;
import static dev.insync.replication.core.partition.Partition.AlterPartitionOutcome.RESUBMIT;
import static dev.insync.replication.core.partition.Partition.AlterPartitionOutcome.REVERT;
import static dev.insync.replication.core.partition.Partition.AlterPartitionOutcome.STAY_PENDING;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The partition's decisions that are plain functions over state and a clock value (no threads, no files). The HW
 * candidate (HW-1, ISR-4) is not one of them: it has one implementation, over the live replica states, and is
 * tested where it runs, through follower fetches and AlterPartition answers ({@code PartitionTest.HighWatermark}).
 */
class PartitionLogicTest {

    private static final long LAG = 5000L;
    private static final IsrProposal DUMMY = new IsrProposal(new AlterPartitionRequest.Item(
            new TopicPartition("rep", 0), 0, 0, List.of(), false));

    private static ReplicaState at(long leo, long lastCaughtUpMs, long brokerEpoch) {
        return new ReplicaState(0L, leo, leo, lastCaughtUpMs, lastCaughtUpMs, brokerEpoch);
    }

    private static Map<Integer, ReplicaState> states(Object... idAndState) {
        Map<Integer, ReplicaState> map = new LinkedHashMap<>();
        for (int i = 0; i < idAndState.length; i += 2) {
            map.put((Integer) idAndState[i], (ReplicaState) idAndState[i + 1]);
        }
        return map;
    }

    @Test
    @DisplayName("ISR-4 states: committed is not in flight; pending expand/shrink are, and remember the last committed state")
    void isr4States() {
        CommittedIsr committed = new CommittedIsr(List.of(1, 2));
        assertThat(committed.isInflight()).isFalse();
        assertThat(committed.maximalIsr()).containsExactly(1, 2);
        assertThat(committed.lastCommittedState()).isSameAs(committed);
        PendingExpandIsr expand = new PendingExpandIsr(List.of(1, 2), 3, DUMMY, committed);
        assertThat(expand.isInflight()).isTrue();
        assertThat(expand.isr()).containsExactly(1, 2);
        assertThat(expand.lastCommittedState()).isSameAs(committed);
        PendingShrinkIsr shrink = new PendingShrinkIsr(List.of(1, 2), List.of(2), DUMMY, committed);
        assertThat(shrink.isInflight()).isTrue();
        assertThat(shrink.maximalIsr()).containsExactly(1, 2);
    }

    @Test
    @DisplayName("ISR-1 out-of-sync = ISR members other than the leader that are not caught up; none while a change is in flight")
    void isr1OutOfSync() {
        Map<Integer, ReplicaState> s = states(2, at(18, 90_000, 1), 3, at(12, 90_000, 1));
        CommittedIsr isr = new CommittedIsr(List.of(1, 2, 3));
        // 3 last caught up at 90 000; lag 5000: still in sync at 95 000, out at 95 001
        assertThat(Partition.outOfSyncReplicas(isr, 1, s, 18, 95_000, LAG)).isEmpty();
        assertThat(Partition.outOfSyncReplicas(isr, 1, s, 18, 95_001, LAG)).containsExactly(3);
        // 2 has the leader's LEO: caught up however long ago
        assertThat(Partition.outOfSyncReplicas(isr, 1, s, 18, 1_000_000, LAG)).containsExactly(3);
        IsrState inflight = new PendingExpandIsr(List.of(1, 2, 3), 4, DUMMY, isr);
        assertThat(Partition.outOfSyncReplicas(inflight, 1, s, 18, 1_000_000, LAG)).isEmpty();
    }

    @Test
    @DisplayName("ISR-1 a stopped follower of a partition that receives no writes stays in sync (lag is time, not count)")
    void isr1IdlePartition() {
        Map<Integer, ReplicaState> s = states(2, at(10, 1000, 1), 3, at(10, 1000, 1));
        assertThat(Partition.outOfSyncReplicas(new CommittedIsr(List.of(1, 2, 3)), 1, s, 10, 1000 + 12_000, LAG))
                .isEmpty();
    }

    @ParameterizedTest(name = "ISR-2 follower LEO {0}, HW {1}, epoch start {2} -> in sync {3}")
    @DisplayName("ISR-2 a follower may join when its LEO reaches the HW and the leader epoch's start offset")
    @CsvSource({
            "12, 12, 10, true",
            "11, 12, 10, false",  // below HW
            "12, 10, 15, false",  // below the start of the current leader epoch
            "15, 10, 15, true",
            "20, 10, -1, false",  // not leader (no epoch start)
    })
    void isr2FollowerInSync(long leo, long hw, long epochStart, boolean expected) {
        assertThat(Partition.isFollowerInSync(leo, hw, epochStart)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "ISR-5 {0} (result epochs {1}/{2}, current 3/5) -> {3}")
    @DisplayName("ISR-5 the per-partition result table")
    @CsvSource({
            "NONE, 3, 5, COMMIT",
            "NONE, 3, 6, COMMIT",
            "NONE, 3, 4, IGNORE",                 // partition epoch below the current one
            "NONE, 4, 6, IGNORE",                 // another leader epoch
            "OPERATION_NOT_ATTEMPTED, -1, -1, REVERT",
            "INELIGIBLE_REPLICA, -1, -1, REVERT",
            "UNKNOWN_TOPIC_OR_PARTITION, -1, -1, STAY_PENDING",
            "FENCED_LEADER_EPOCH, -1, -1, STAY_PENDING",
            "INVALID_UPDATE_VERSION, -1, -1, STAY_PENDING",
            "INVALID_REQUEST, -1, -1, STAY_PENDING",
            "NEW_LEADER_ELECTED, -1, -1, STAY_PENDING",
            "NOT_CONTROLLER, -1, -1, RESUBMIT",
            "UNKNOWN_SERVER_ERROR, -1, -1, RESUBMIT",
            "REQUEST_TIMED_OUT, -1, -1, RESUBMIT",
    })
    void isr5Table(Errors error, int leaderEpoch, int partitionEpoch, Partition.AlterPartitionOutcome expected) {
        assertThat(Partition.interpret(error, leaderEpoch, partitionEpoch, 3, 5)).isEqualTo(expected);
        assertThat(List.of(COMMIT, IGNORE, REVERT, STAY_PENDING, RESUBMIT)).contains(expected);
    }

    @Test
    @DisplayName("ISR-1 ISR-5 log lines have the seed's wording")
    void logLines() {
        Map<Integer, ReplicaState> oos = states(3, at(12, 4242, 1));
        assertThat(Partition.shrinkingIsrMessage(List.of(1, 2, 3), List.of(1, 2), 12, 18, oos)).isEqualTo(
                "Shrinking ISR from 1,2,3 to 1,2. Leader: (highWatermark: 12, endOffset: 18). "
                        + "Out of sync replicas: (brokerId: 3, endOffset: 12, lastCaughtUpTimeMs: 4242).");
        assertThat(Partition.isrUpdatedMessage(List.of(1, 2), false, 1)).isEqualTo("ISR updated to 1,2  and version updated to 1");
        assertThat(Partition.isrUpdatedMessage(List.of(1), true, 3))
                .isEqualTo("ISR updated to 1 (under-min-isr) and version updated to 3");
    }
}
