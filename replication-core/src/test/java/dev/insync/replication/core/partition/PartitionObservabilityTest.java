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

import dev.insync.replication.core.fetcher.FollowerPartition;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metrics.InMemoryReplicationMetrics;
import dev.insync.replication.core.metrics.ReplicationMetrics;
import dev.insync.replication.core.produce.Acks;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.epoch.EpochEndOffset;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.insync.replication.core.partition.PartitionFixture.TP;
import static dev.insync.replication.core.partition.PartitionFixture.registration;
import static org.assertj.core.api.Assertions.assertThat;

class PartitionObservabilityTest {

    @Test
    @DisplayName("ISR-5 metrics: committed shrinks and expansions and failed proposals are counted; HW rises wake the purgatories")
    void metrics() {
        InMemoryReplicationMetrics metrics = new InMemoryReplicationMetrics();
        List<TopicPartition> woken = new ArrayList<>();
        HeldAlterPartitionSender sender = new HeldAlterPartitionSender();
        ManualTime time = new ManualTime(1_000_000L);
        InMemoryLocalLog log = new InMemoryLocalLog(TP);
        Partition p = new Partition(log, 1, new PartitionSettings(1, () -> 101L, time, PartitionFixture.LAG_MS,
                ReplicaEligibility.ALL_ELIGIBLE, sender, PartitionListener.of(metrics, woken::add)));
        p.makeLeader(registration(1, 0, 0, List.of(1, 2), List.of(1, 2)));
        p.appendAsLeader(InMemoryLocalLog.records(4), Acks.LEADER);
        time.advance(PartitionFixture.LAG_MS + 1);
        p.maybeShrinkIsr();
        sender.last().future().complete(AlterPartitionResponse.PartitionResult.failed(Errors.INELIGIBLE_REPLICA));
        assertThat(metrics.count(ReplicationMetrics.FAILED_ISR_UPDATES_PER_SEC)).isEqualTo(1);
        p.maybeShrinkIsr();
        sender.last().accept(1);
        assertThat(metrics.isrShrinks()).isEqualTo(1);
        assertThat(woken).containsExactly(TP);
        assertThat(p.highWatermark()).isEqualTo(4);

        var data = PartitionFixture.data(4, java.util.OptionalInt.of(0), java.util.OptionalInt.empty());
        p.fetch(PartitionFixture.request(2, -1, data), data, 1000, time.milliseconds(), true);
        sender.last().accept(1);
        assertThat(metrics.isrExpands()).isEqualTo(1);
        assertThat(p.isr()).containsExactly(1, 2);
    }

    @Test
    @DisplayName("ISR-1 gauges: under-replicated, under min ISR and at min ISR only on the leader")
    void gauges() {
        PartitionFixture f = new PartitionFixture(2);
        f.partition.makeLeader(registration(1, 0, 0, List.of(1, 2, 3), List.of(1, 2)));
        assertThat(f.partition.isUnderReplicated()).isTrue();
        assertThat(f.partition.isAtMinIsr()).isTrue();
        assertThat(f.partition.isUnderMinIsr()).isFalse();
        f.partition.makeLeader(registration(1, 0, 1, List.of(1, 2, 3), List.of(1)));
        assertThat(f.partition.isUnderMinIsr()).isTrue();
        f.partition.makeFollower(registration(2, 1, 2, List.of(1, 2, 3), List.of(2)));
        assertThat(f.partition.isUnderReplicated()).isFalse();
        assertThat(f.partition.isUnderMinIsr()).isFalse();
        assertThat(f.partition.isAtMinIsr()).isFalse();
    }

    @Test
    @DisplayName("FOL-5 FOL-8 the fetcher's view of a partition goes through its lock and knows only the epochs it has")
    void followerView() {
        PartitionFixture f = new PartitionFixture(1);
        f.partition.makeFollower(registration(2, 3, 0, List.of(1, 2, 3), List.of(1, 2, 3)));
        FollowerPartition view = f.partition.asFollowerPartition();
        view.appendRecordsAsFollower(InMemoryLocalLog.recordsWithEpochs(1, 1, 3, 3));
        assertThat(view.logEndOffset()).isEqualTo(4);
        assertThat(view.latestEpoch()).hasValue(3);
        assertThat(view.endOffsetForEpoch(2)).hasValue(new EpochEndOffset(1, 2));
        assertThat(view.endOffsetForEpoch(0)).isEmpty();
        assertThat(view.updateFollowerHighWatermark(10)).isEqualTo(4);
        view.truncateTo(2);
        assertThat(view.highWatermark()).isEqualTo(2);
        assertThat(view.topicPartition()).isEqualTo(TP);
    }
}
