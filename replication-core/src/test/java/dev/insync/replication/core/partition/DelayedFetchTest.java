package dev.insync.replication.core.partition;

import dev.insync.replication.core.fetch.DelayedFetch;
import dev.insync.replication.core.fetch.FetchRead;
import dev.insync.replication.core.purgatory.DelayedOperationPurgatory;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.epoch.EpochEndOffset;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import static dev.insync.replication.core.partition.PartitionFixture.TP;
import static dev.insync.replication.core.partition.PartitionFixture.registration;
import static org.assertj.core.api.Assertions.assertThat;

class DelayedFetchTest {

    private final HeldTimer timer = new HeldTimer();
    private final DelayedOperationPurgatory<DelayedFetch> purgatory = new DelayedOperationPurgatory<>("Fetch", timer, 100);

    private static FetchRequest fetch(int replicaId, long brokerEpoch, int minBytes, Map<TopicPartition, FetchRequest.PartitionData> parts) {
        return new FetchRequest(replicaId, brokerEpoch, 500, minBytes, 1 << 20, parts);
    }

    private static FetchRequest.PartitionData at(long offset, int epoch, int maxBytes) {
        return new FetchRequest.PartitionData(offset, 0L, maxBytes, OptionalInt.of(epoch), OptionalInt.empty());
    }

    /** The ReplicaManager's flow: first read (FET-4), then park unless satisfied. */
    private DelayedFetch park(PartitionFixture f, FetchRequest request, Map<TopicPartition, Partition> hosted) {
        FetchRead first = DelayedFetch.read(request, tp -> Optional.ofNullable(hosted.get(tp)), f.time.milliseconds(), true);
        assertThat(first.satisfies(request.minBytes())).as("the test parks only unsatisfied fetches").isFalse();
        DelayedFetch op = new DelayedFetch(request, tp -> Optional.ofNullable(hosted.get(tp)), f.time);
        purgatory.tryCompleteElseWatch(op, op.keys());
        return op;
    }

    @Test
    @DisplayName("FET-5 a follower's parked fetch wakes on a leader append even though the HW did not move")
    void fet5FollowerWakesOnAppend() {
        PartitionFixture f = new PartitionFixture(1).leaderOf123();
        DelayedFetch op = park(f, fetch(2, 102, 1, Map.of(TP, at(0, 0, 1000))), Map.of(TP, f.partition));
        assertThat(op.result()).isNotDone();
        f.append(3, 1);
        assertThat(f.partition.highWatermark()).isZero();
        purgatory.checkAndComplete(TP);
        FetchResponse.PartitionData d = op.result().join().partitions().get(TP);
        assertThat(d.records().sizeInBytes()).isEqualTo(3);
        assertThat(f.partition.remoteReplicaState(2).orElseThrow().lastFetchTimeMs())
                .as("FET-4: the parked re-read does not update the follower").isEqualTo(f.time.milliseconds());
    }

    @Test
    @DisplayName("FET-5 a consumer's parked fetch waits for the HW, not the LEO")
    void fet5ConsumerWaitsForHw() {
        PartitionFixture f = new PartitionFixture(1).leaderOf123();
        FetchRequest request = fetch(-1, -1, 1, Map.of(TP, new FetchRequest.PartitionData(0, -1, 1000, OptionalInt.empty(), OptionalInt.empty())));
        DelayedFetch op = park(f, request, Map.of(TP, f.partition));
        f.append(3, 1);
        purgatory.checkAndComplete(TP);
        assertThat(op.result()).isNotDone();
        f.followerFetch(2, 3);
        f.followerFetch(3, 3);
        purgatory.checkAndComplete(TP);
        assertThat(op.result().join().partitions().get(TP).records().sizeInBytes()).isEqualTo(3);
    }

    @Test
    @DisplayName("FET-5 minBytes is counted over partitions as min(readable bytes, partition max bytes)")
    void fet5MinBytesAcrossPartitions() {
        PartitionFixture a = new PartitionFixture(1).leaderOf123();
        InMemoryLocalLog logB = new InMemoryLocalLog(new TopicPartition("rep", 1));
        Partition b = new Partition(logB, 1, new PartitionSettings(1, () -> 101L, a.time, PartitionFixture.LAG_MS,
                ReplicaEligibility.ALL_ELIGIBLE, a.sender, PartitionListener.NOOP));
        TopicPartition tpB = logB.topicPartition();
        b.makeLeader(new dev.insync.replication.core.metadata.PartitionRegistration(tpB, List.of(1, 2, 3),
                List.of(1, 2, 3), List.of(), List.of(), 1, 0, 0, false));
        Map<TopicPartition, FetchRequest.PartitionData> parts = new LinkedHashMap<>();
        parts.put(TP, at(0, 0, 4));      // at most 4 bytes counted here
        parts.put(tpB, at(0, 0, 1000));
        DelayedFetch op = park(a, fetch(2, 102, 7, parts), Map.of(TP, a.partition, tpB, b));
        a.append(10, 1);                 // counts 4
        purgatory.checkAndComplete(TP);
        assertThat(op.result()).isNotDone();
        b.appendRecordsToLeader(InMemoryLocalLog.records(2), 1); // 4 + 2 = 6 < 7
        purgatory.checkAndComplete(tpB);
        assertThat(op.result()).isNotDone();
        b.appendRecordsToLeader(InMemoryLocalLog.records(1), 1); // 7
        purgatory.checkAndComplete(tpB);
        assertThat(op.result()).isDone();
        assertThat(op.result().join().partitions().get(tpB).records().sizeInBytes()).isEqualTo(3);
    }

    @Test
    @DisplayName("FET-5 an error (leadership lost) completes a parked fetch at once")
    void fet5ErrorCompletes() {
        PartitionFixture f = new PartitionFixture(1).leaderOf123();
        DelayedFetch op = park(f, fetch(2, 102, 1, Map.of(TP, at(0, 0, 1000))), Map.of(TP, f.partition));
        f.partition.makeFollower(registration(3, 1, 1, List.of(1, 2, 3), List.of(2, 3)));
        purgatory.checkAndComplete(TP);
        assertThat(op.result().join().partitions().get(TP).error()).isEqualTo(Errors.FENCED_LEADER_EPOCH);
    }

    @Test
    @DisplayName("FET-5 a divergence or a fetch offset past the readable end completes at once")
    void fet5DivergenceAndPastEnd() {
        PartitionFixture f = new PartitionFixture(1).leaderOf123();
        f.append(5, 1);
        f.partition.makeLeader(registration(1, 2, 1, List.of(1, 2, 3), List.of(1, 2, 3)));
        FetchRequest diverging = fetch(2, 102, 1, Map.of(TP, new FetchRequest.PartitionData(7, 0, 1000, OptionalInt.of(2), OptionalInt.of(1))));
        FetchRead read = DelayedFetch.read(diverging, tp -> Optional.of(f.partition), f.time.milliseconds(), true);
        assertThat(read.completeNow()).isTrue();
        assertThat(read.response().partitions().get(TP).divergingEpoch()).hasValue(new EpochEndOffset(0, 5));

        // a consumer whose offset is past the HW (e.g. a new leader whose HW lags) is answered at once
        FetchRequest consumer = fetch(-1, -1, 1, Map.of(TP, new FetchRequest.PartitionData(3, -1, 1000, OptionalInt.empty(), OptionalInt.empty())));
        assertThat(DelayedFetch.read(consumer, tp -> Optional.of(f.partition), f.time.milliseconds(), true).completeNow()).isTrue();
    }

    @Test
    @DisplayName("FET-5 on expiry the fetch answers with what there is")
    void fet5Expiry() {
        PartitionFixture f = new PartitionFixture(1).leaderOf123();
        f.append(2, 1);
        DelayedFetch op = park(f, fetch(2, 102, 100, Map.of(TP, at(0, 0, 1000))), Map.of(TP, f.partition));
        assertThat(op.result()).isNotDone();
        timer.expireAll();
        FetchResponse.PartitionData d = op.result().join().partitions().get(TP);
        assertThat(d.error()).isEqualTo(Errors.NONE);
        assertThat(d.records().sizeInBytes()).isEqualTo(2);
    }
}
