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

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.produce.Acks;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.Log;
import dev.insync.replication.log.LogConfig;
import dev.insync.replication.log.epoch.EpochEndOffset;
import dev.insync.replication.log.epoch.EpochEntry;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.Record;
import dev.insync.replication.log.record.RecordBatch;
import dev.insync.replication.log.record.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import static dev.insync.replication.core.partition.PartitionFixture.TP;
import static org.assertj.core.api.Assertions.assertThat;

/** Three brokers' partitions over real {@link Log}s in temp dirs, replicating by calling each other directly. */
class PartitionWithLogTest {

    @TempDir
    Path dir;

    private final ManualTime time = new ManualTime(1_000_000L);
    private final Map<Integer, Log> logs = new HashMap<>();
    private final Map<Integer, Partition> brokers = new HashMap<>();
    private final Map<Integer, HeldAlterPartitionSender> senders = new HashMap<>();

    private Partition broker(int id) {
        return brokers.computeIfAbsent(id, k -> {
            Log log = Log.open(dir.resolve("broker-" + id).resolve(TP.toString()), TP, LogConfig.defaults().withSegmentBytes(1 << 20).withSegmentIndexBytes(1 << 12), 0L, 0L,
                    time::milliseconds);
            logs.put(id, log);
            HeldAlterPartitionSender sender = new HeldAlterPartitionSender();
            senders.put(id, sender);
            return new Partition(LocalLog.of(log), 1, new PartitionSettings(id, () -> 100L + id, time,
                    PartitionFixture.LAG_MS, ReplicaEligibility.ALL_ELIGIBLE, sender, PartitionListener.NOOP));
        });
    }

    @AfterEach
    void close() {
        logs.values().forEach(Log::close);
    }

    private static PartitionRegistration reg(int leader, int leaderEpoch, int partitionEpoch, List<Integer> isr) {
        return new PartitionRegistration(TP, List.of(1, 2, 3), isr, List.of(), List.of(), leader, leaderEpoch,
                partitionEpoch, false);
    }

    private static MemoryRecords values(String... values) {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(1000L + i, null, values[i].getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(records);
    }

    /** One follower fetch round: fetch from the leader at the follower's LEO, append, take the HW (FOL-4, FOL-5). */
    private FetchResponse.PartitionData replicate(int followerId, int leaderId) {
        Partition follower = broker(followerId);
        Partition leader = broker(leaderId);
        OptionalInt lastFetchedEpoch = follower.localLog().latestEpoch();
        FetchRequest.PartitionData data = new FetchRequest.PartitionData(follower.logEndOffset(),
                follower.localLog().logStartOffset(), 1 << 20, OptionalInt.of(leader.leaderEpoch()), lastFetchedEpoch);
        FetchRequest request = new FetchRequest(followerId, 100L + followerId, 500, 1, 1 << 20, Map.of(TP, data));
        FetchResponse.PartitionData answer = leader.fetch(request, data, 1 << 20, time.milliseconds(), true).data();
        if (answer.error() == Errors.NONE && answer.divergingEpoch().isEmpty() && answer.records().sizeInBytes() > 0) {
            follower.appendRecordsToFollower(answer.records().toMemoryRecords());
        }
        if (answer.error() == Errors.NONE) {
            follower.updateFollowerHighWatermark(answer.highWatermark());
        }
        return answer;
    }

    private static List<String> read(Partition p, long maxOffset) {
        List<String> out = new ArrayList<>();
        MemoryRecords records = p.localLog().read(0, 1 << 20, maxOffset).records();
        for (RecordBatch batch : records.batches()) {
            for (Record r : batch.records()) {
                out.add(new String(toArray(r.value()), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    private static byte[] toArray(Object value) {
        if (value instanceof byte[] bytes) {
            return bytes;
        }
        java.nio.ByteBuffer buffer = ((java.nio.ByteBuffer) value).duplicate();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    @Test
    @DisplayName("NET-3 FET-1 a fetch read in FILE form answers with slices of the leader's segment: the bytes a HEAP read copies, HW-bounded for consumers")
    void fileFormFetchesAreSegmentSlices() {
        broker(1).makeLeader(reg(1, 0, 0, List.of(1, 2)));
        broker(2).makeFollower(reg(1, 0, 0, List.of(1, 2)));
        broker(1).appendAsLeader(values("a", "b"), Acks.ALL);
        broker(1).appendAsLeader(values("c"), Acks.ALL);
        replicate(2, 1);
        replicate(2, 1);
        assertThat(broker(1).highWatermark()).isEqualTo(3);
        broker(1).appendAsLeader(values("d"), Acks.LEADER); // above the HW

        FetchRequest.PartitionData consumer = new FetchRequest.PartitionData(0, -1, 1 << 20, OptionalInt.empty(),
                OptionalInt.empty());
        FetchRequest consumerFetch = new FetchRequest(-1, -1, 0, 1, 1 << 20, Map.of(TP, consumer));
        FetchResponse.PartitionData file = broker(1).fetch(consumerFetch, consumer, 1 << 20, time.milliseconds(), false,
                dev.insync.replication.core.rpc.RecordsForm.FILE).data();
        FetchResponse.PartitionData heap = broker(1).fetch(consumerFetch, consumer, 1 << 20, time.milliseconds(), false,
                dev.insync.replication.core.rpc.RecordsForm.HEAP).data();
        assertThat(file.records()).isInstanceOf(dev.insync.replication.log.segment.FileRecords.class);
        assertThat(heap.records()).isInstanceOf(MemoryRecords.class);
        assertThat(file.records().toMemoryRecords()).isEqualTo(heap.records());
        assertThat(file.records().batches()).hasSize(2); // offsets 0..2, not d
        assertThat(file.highWatermark()).isEqualTo(heap.highWatermark()).isEqualTo(3);

        // A follower reads to the LEO in FILE form too.
        FetchRequest.PartitionData follower = new FetchRequest.PartitionData(3, 0, 1 << 20, OptionalInt.of(0),
                OptionalInt.of(0));
        FetchRequest followerFetch = new FetchRequest(2, 102L, 500, 1, 1 << 20, Map.of(TP, follower));
        FetchResponse.PartitionData tail = broker(1).fetch(followerFetch, follower, 1 << 20, time.milliseconds(), true,
                dev.insync.replication.core.rpc.RecordsForm.FILE).data();
        assertThat(tail.records()).isInstanceOf(dev.insync.replication.log.segment.FileRecords.class);
        assertThat(tail.records().batches().get(0).baseOffset()).isEqualTo(3);
    }

    @Test
    @DisplayName("FET-1 FET-4 HW-1 with real logs: the HW rises after the followers' next fetch; consumers read below it")
    void replicationWithRealLogs() {
        broker(1).makeLeader(reg(1, 0, 0, List.of(1, 2, 3)));
        broker(2).makeFollower(reg(1, 0, 0, List.of(1, 2, 3)));
        broker(3).makeFollower(reg(1, 0, 0, List.of(1, 2, 3)));

        broker(1).appendAsLeader(values("a", "b", "c"), Acks.ALL);
        assertThat(broker(1).checkEnoughReplicasReachOffset(3)).isEqualTo(AckCheck.NOT_YET);
        replicate(2, 1);
        replicate(3, 1);
        assertThat(broker(1).highWatermark()).as("HW-6: the followers hold 0..2 but have not said so").isZero();
        replicate(2, 1);
        replicate(3, 1);
        assertThat(broker(1).highWatermark()).isEqualTo(3);
        assertThat(broker(1).checkEnoughReplicasReachOffset(3)).isEqualTo(new AckCheck(true, Errors.NONE));

        broker(1).appendAsLeader(values("d"), Acks.LEADER);
        FetchRequest.PartitionData consumer = new FetchRequest.PartitionData(0, -1, 1 << 20, OptionalInt.empty(),
                OptionalInt.empty());
        FetchResponse.PartitionData answer = broker(1).fetch(new FetchRequest(-1, -1, 0, 1, 1 << 20,
                Map.of(TP, consumer)), consumer, 1 << 20, time.milliseconds(), true).data();
        int consumerRecords = answer.records().batches().stream().mapToInt(RecordBatch::recordCount).sum();
        assertThat(consumerRecords).isEqualTo(3);
        assertThat(replicate(2, 1).highWatermark()).isEqualTo(3);
        assertThat(broker(2).highWatermark()).as("FOL-5").isEqualTo(3);
        assertThat(read(broker(2), Long.MAX_VALUE)).containsExactly("a", "b", "c", "d");
    }

    @Test
    @DisplayName("CHS-1 INV-4 INV-7 INV-8 describe(): a leader reports its maximal ISR, HW, LEO and epoch cache, a follower its own; after a leader change both sides say so")
    void describeFollowsLeadership() {
        broker(1).makeLeader(reg(1, 0, 0, List.of(1, 2)));
        broker(2).makeFollower(reg(1, 0, 0, List.of(1, 2)));
        broker(1).appendAsLeader(values("a", "b"), Acks.ALL);
        replicate(2, 1);
        assertThat(broker(1).describe()).isEqualTo(new ReplicaDescription(TP, true, 0, List.of(1, 2), 0, 2, 0,
                List.of(new EpochEntry(0, 0))));
        replicate(2, 1);
        assertThat(broker(1).describe().highWatermark()).isEqualTo(2);
        assertThat(broker(2).describe()).isEqualTo(new ReplicaDescription(TP, false, 0, List.of(), 2, 2, 0,
                List.of(new EpochEntry(0, 0))));

        // Broker 2 takes over in epoch 1 and writes; broker 1 follows.
        broker(2).makeLeader(reg(2, 1, 1, List.of(2, 1)));
        broker(1).makeFollower(reg(2, 1, 1, List.of(2, 1)));
        broker(2).appendAsLeader(values("c"), Acks.ALL);
        replicate(1, 2);
        ReplicaDescription newLeader = broker(2).describe();
        assertThat(newLeader.leader()).isTrue();
        assertThat(newLeader.leaderEpoch()).isEqualTo(1);
        assertThat(newLeader.isr()).containsExactly(2, 1);
        assertThat(newLeader.logEndOffset()).isEqualTo(3);
        assertThat(newLeader.epochs()).containsExactly(new EpochEntry(0, 0), new EpochEntry(1, 2));
        ReplicaDescription oldLeader = broker(1).describe();
        assertThat(oldLeader.leader()).isFalse();
        assertThat(oldLeader.leaderEpoch()).isEqualTo(1);
        assertThat(oldLeader.isr()).isEmpty();
        assertThat(oldLeader.logEndOffset()).isEqualTo(3);
        assertThat(oldLeader.epochs()).containsExactly(new EpochEntry(0, 0), new EpochEntry(1, 2));
    }

    @Test
    @DisplayName("LDR-1 FET-3 SCN-3 with real logs: the new leader's epoch cache starts at its LEO and the old leader truncates its unreplicated tail")
    void leaderChangeAndTruncation() {
        broker(1).makeLeader(reg(1, 0, 0, List.of(1, 2, 3)));
        broker(2).makeFollower(reg(1, 0, 0, List.of(1, 2, 3)));
        broker(3).makeFollower(reg(1, 0, 0, List.of(1, 2, 3)));
        for (int i = 1; i <= 10; i++) {
            broker(1).appendAsLeader(values("ok-" + i), Acks.ALL);
        }
        for (int round = 0; round < 2; round++) {
            replicate(2, 1);
            replicate(3, 1);
        }
        assertThat(broker(1).highWatermark()).isEqualTo(10);
        for (int i = 1; i <= 5; i++) {
            broker(1).appendAsLeader(values("lost-" + i), Acks.LEADER);
        }
        assertThat(broker(1).logEndOffset()).isEqualTo(15);

        // broker 1 is gone; broker 2 is elected with epoch 1
        assertThat(broker(2).makeLeader(reg(2, 1, 1, List.of(2, 3)))).isTrue();
        broker(3).makeFollower(reg(2, 1, 1, List.of(2, 3)));
        assertThat(broker(2).leaderEpochStartOffset()).isEqualTo(10);
        assertThat(logs.get(2).leaderEpochCache().epochEntries())
                .containsExactly(new EpochEntry(0, 0), new EpochEntry(1, 10));
        for (int i = 1; i <= 3; i++) {
            broker(2).appendAsLeader(values("new-" + i), Acks.ALL);
        }
        replicate(3, 2);
        replicate(3, 2);
        assertThat(broker(2).highWatermark()).isEqualTo(13);

        // broker 1 comes back as a follower and fetches with lastFetchedEpoch 0 at 15
        assertThat(broker(1).makeFollower(reg(2, 1, 2, List.of(2, 3)))).isTrue();
        FetchResponse.PartitionData diverging = replicate(1, 2);
        assertThat(diverging.divergingEpoch()).hasValue(new EpochEndOffset(0, 10));
        assertThat(broker(2).remoteReplicaState(1).orElseThrow().logEndOffset())
                .as("FET-3: no follower-state update on divergence").isEqualTo(-1);
        broker(1).truncateTo(diverging.divergingEpoch().orElseThrow().endOffset());
        replicate(1, 2);
        replicate(1, 2);
        assertThat(read(broker(1), Long.MAX_VALUE)).isEqualTo(read(broker(2), Long.MAX_VALUE));
        assertThat(read(broker(1), Long.MAX_VALUE)).endsWith("ok-10", "new-1", "new-2", "new-3").doesNotContain("lost-1");
        assertThat(logs.get(1).leaderEpochCache().epochEntries())
                .containsExactly(new EpochEntry(0, 0), new EpochEntry(1, 10));
        // ISR-2: broker 1 caught up to the HW and the epoch start: the leader proposes it back
        assertThat(senders.get(2).last().item().newIsrIds()).containsExactly(2, 3, 1);
    }
}
