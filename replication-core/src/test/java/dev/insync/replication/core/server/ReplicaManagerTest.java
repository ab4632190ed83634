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

import dev.insync.replication.core.config.ReplicationConfig;
import dev.insync.replication.core.fetcher.FetcherManager;
import dev.insync.replication.core.fetcher.PartitionFetchState;
import dev.insync.replication.core.fetcher.ReplicaFetcher;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.core.produce.Acks;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.Log;
import dev.insync.replication.log.LogDirectory;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.checkpoint.PartitionMetadataFile;
import dev.insync.replication.log.record.MemoryRecords;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import static dev.insync.replication.core.server.TestCluster.records;
import static org.assertj.core.api.Assertions.assertThat;

class ReplicaManagerTest extends TestClusterCase {


    private static ReplicationConfig defaults() {
        return ReplicationConfig.builder().replicaLagTimeMaxMs(5000).build();
    }

    private Partition partition(int broker, TopicPartition tp) {
        return rm(broker).partition(tp).orElseThrow();
    }

    private static ProduceResult only(CompletableFuture<Map<TopicPartition, ProduceResult>> f, TopicPartition tp) {
        assertThat(f).isDone();
        return f.join().get(tp);
    }

    @Test
    @DisplayName("LDR-2 PRO-3 three brokers replicate; acks=all completes only after the followers fetched")
    void replicateAcksAll() {
        cluster(defaults(), 1, 2, 3);
        cluster.setPartition(REP0, List.of(1, 2, 3), List.of(1, 2, 3), 1, 0, 0);
        cluster.run(0);
        assertThat(rm(2).fetcherManager().fetchers()).extracting(ReplicaFetcher::name)
                .containsExactly("ReplicaFetcherThread-0-1");

        CompletableFuture<Map<TopicPartition, ProduceResult>> f =
                rm(1).produce(Map.of(REP0, records("a", "b")), Acks.ALL, 30_000);
        assertThat(f).isNotDone(); // the followers have not fetched yet
        cluster.run(0);
        assertThat(only(f, REP0)).isEqualTo(new ProduceResult(Errors.NONE, 0, -1, 0));
        for (int b = 1; b <= 3; b++) {
            assertThat(partition(b, REP0).logEndOffset()).as("LEO of broker %d", b).isEqualTo(2);
        }
        assertThat(partition(1, REP0).highWatermark()).isEqualTo(2);
        cluster.run(1000); // the followers learn the HW on their next fetch
        assertThat(partition(2, REP0).highWatermark()).isEqualTo(2);
        assertThat(partition(3, REP0).highWatermark()).isEqualTo(2);
    }

    @Test
    @DisplayName("LOG-4 PRO-5 a produce answers the leader epoch stamped into its batch, also after a new leader epoch")
    void log4ProduceAnswersTheStampedEpoch() {
        cluster(defaults(), 1);
        cluster.setPartition(REP0, List.of(1), List.of(1), 1, 3, 0);
        ProduceResult first = only(rm(1).produce(Map.of(REP0, records("a")), Acks.LEADER, 30_000), REP0);
        cluster.setPartition(REP0, List.of(1), List.of(1), 1, 4, 1);
        ProduceResult second = only(rm(1).produce(Map.of(REP0, records("b")), Acks.ALL, 30_000), REP0);

        assertThat(first).isEqualTo(new ProduceResult(Errors.NONE, 0, -1, 3));
        assertThat(second).isEqualTo(new ProduceResult(Errors.NONE, 1, -1, 4));
        Log log = rm(1).logDirectory().log(REP0).orElseThrow();
        for (ProduceResult r : List.of(first, second)) {
            assertThat(log.read(r.baseOffset(), 1 << 20, r.baseOffset() + 1).records().batches().iterator().next()
                    .partitionLeaderEpoch()).isEqualTo(r.leaderEpoch());
        }
    }

    @Test
    @DisplayName("PRO-3 PRO-4 an HW step completes exactly the parked acks=all produces it reached, in offset order;"
            + " a produce over two partitions waits for both")
    void pro3HighWatermarkStepCompletesTheProducesItReached() {
        cluster(defaults(), 1); // the follower, broker 2, fetches by hand below
        cluster.setPartition(REP0, List.of(1, 2), List.of(1, 2), 1, 0, 0);
        cluster.setPartition(REP1, List.of(1, 2), List.of(1, 2), 1, 0, 0);
        List<CompletableFuture<Map<TopicPartition, ProduceResult>>> produces = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            produces.add(rm(1).produce(Map.of(REP0, records("r" + i)), Acks.ALL, 30_000));
        }
        Map<TopicPartition, MemoryRecords> both = new LinkedHashMap<>();
        both.put(REP0, records("both"));
        both.put(REP1, records("both"));
        CompletableFuture<Map<TopicPartition, ProduceResult>> twoPartitions = rm(1).produce(both, Acks.ALL, 30_000);
        assertThat(produces).allMatch(f -> !f.isDone());

        // FET-4: the follower's fetch at offset 3 acknowledges offsets 0..2; the HW moves to 3.
        rm(1).fetch(followerFetch(2, 1L, Map.of(REP0, 3L)));
        assertThat(partition(1, REP0).highWatermark()).isEqualTo(3);
        for (int i = 0; i < 5; i++) {
            if (i < 3) {
                assertThat(only(produces.get(i), REP0)).isEqualTo(new ProduceResult(Errors.NONE, i, -1, 0));
            } else {
                assertThat(produces.get(i)).as("offset %d is above the HW", i).isNotDone();
            }
        }
        rm(1).fetch(followerFetch(2, 1L, Map.of(REP0, 6L)));
        assertThat(produces).allMatch(CompletableFuture::isDone);
        assertThat(only(produces.get(4), REP0)).isEqualTo(new ProduceResult(Errors.NONE, 4, -1, 0));
        assertThat(twoPartitions).as("REP1's HW has not reached it").isNotDone();
        rm(1).fetch(followerFetch(2, 1L, Map.of(REP1, 1L)));
        assertThat(twoPartitions).isDone();
        assertThat(twoPartitions.join().get(REP0)).isEqualTo(new ProduceResult(Errors.NONE, 5, -1, 0));
        assertThat(twoPartitions.join().get(REP1)).isEqualTo(new ProduceResult(Errors.NONE, 0, -1, 0));
        assertThat(rm(1).pendingProduceCount()).isZero();
    }

    @Test
    @DisplayName("PRO-3 acks=1 completes right after the local append, before any follower has it")
    void acksOneCompletesAfterAppend() {
        cluster(defaults(), 1);
        cluster.setPartition(REP0, List.of(1, 2, 3), List.of(1, 2, 3), 1, 0, 0);
        CompletableFuture<Map<TopicPartition, ProduceResult>> f = rm(1).produce(Map.of(REP0, records("x")), Acks.LEADER, 30_000);
        assertThat(only(f, REP0)).isEqualTo(new ProduceResult(Errors.NONE, 0, -1, 0));
        assertThat(partition(1, REP0).highWatermark()).isZero();
    }

    @Test
    @DisplayName("FET-5 a parked follower fetch wakes on a leader append even though the HW does not move")
    void fet5LongPollWakesOnAppend() {
        cluster(defaults(), 1); // brokers 2 and 3 are not running: the HW cannot move
        cluster.setPartition(REP0, List.of(1, 2, 3), List.of(1, 2, 3), 1, 0, 0);
        FetchRequest req = new FetchRequest(2, 1L, 500, 1, 1 << 20, Map.of(REP0,
                new FetchRequest.PartitionData(0, 0, 1 << 20, OptionalInt.of(0), OptionalInt.empty())));
        CompletableFuture<FetchResponse> parked = rm(1).fetch(req);
        assertThat(parked).isNotDone();
        assertThat(rm(1).pendingFetchCount()).isEqualTo(1);

        rm(1).produce(Map.of(REP0, records("x")), Acks.LEADER, 30_000);
        assertThat(partition(1, REP0).highWatermark()).isZero();
        assertThat(parked).isDone();
        FetchResponse.PartitionData data = parked.join().partitions().get(REP0);
        assertThat(data.error()).isEqualTo(Errors.NONE);
        assertThat(data.records().batches()).hasSize(1);
        assertThat(data.highWatermark()).isZero();
        assertThat(data.logEndOffset()).isEqualTo(1);
    }

    @Test
    @DisplayName("NET-3 FET-5 a fetch asked in FILE form parks and completes in that form: the records are slices of the leader's segment")
    void net3ParkedFetchKeepsItsRecordsForm() {
        cluster(defaults(), 1);
        cluster.setPartition(REP0, List.of(1, 2, 3), List.of(1, 2, 3), 1, 0, 0);
        FetchRequest req = new FetchRequest(2, 1L, 500, 1, 1 << 20, Map.of(REP0,
                new FetchRequest.PartitionData(0, 0, 1 << 20, OptionalInt.of(0), OptionalInt.empty())));
        CompletableFuture<FetchResponse> parked = rm(1).fetch(req, dev.insync.replication.core.rpc.RecordsForm.FILE);
        assertThat(parked).isNotDone();
        rm(1).produce(Map.of(REP0, records("x")), Acks.LEADER, 30_000);
        assertThat(parked).isDone();
        FetchResponse.PartitionData data = parked.join().partitions().get(REP0);
        assertThat(data.records()).isInstanceOf(dev.insync.replication.log.segment.FileRecords.class);
        assertThat(data.records().toMemoryRecords())
                .isEqualTo(rm(1).fetch(req).join().partitions().get(REP0).records());
        assertThat(rm(1).fetch(req).join().partitions().get(REP0).records())
                .as("the default form copies into the heap").isInstanceOf(dev.insync.replication.log.record.MemoryRecords.class);
    }

    @Test
    @DisplayName("FET-5 a parked fetch with nothing new returns what there is after maxWaitMs")
    void fet5LongPollExpires() {
        cluster(defaults(), 1);
        cluster.setPartition(REP0, List.of(1, 2), List.of(1, 2), 1, 0, 0);
        FetchRequest req = new FetchRequest(2, 1L, 500, 1, 1 << 20, Map.of(REP0,
                new FetchRequest.PartitionData(0, 0, 1 << 20, OptionalInt.of(0), OptionalInt.empty())));
        CompletableFuture<FetchResponse> parked = rm(1).fetch(req);
        cluster.run(499);
        assertThat(parked).isNotDone();
        cluster.run(10);
        assertThat(parked).isDone();
        assertThat(parked.join().partitions().get(REP0).records().sizeInBytes()).isZero();
        assertThat(parked.join().partitions().get(REP0).error()).isEqualTo(Errors.NONE);
    }

    /** Broker 1 leads REP0 and REP1 (followed by broker 2), both empty; broker 2's fetch of both parks there. */
    private CompletableFuture<FetchResponse> parkedFollowerFetchOfTwoEmptyPartitions() {
        cluster(defaults(), 1);
        cluster.setPartition(REP0, List.of(1, 2), List.of(1, 2), 1, 0, 0);
        cluster.setPartition(REP1, List.of(1, 2), List.of(1, 2), 1, 0, 0);
        Map<TopicPartition, Long> atEnd = new LinkedHashMap<>();
        atEnd.put(REP0, 0L);
        atEnd.put(REP1, 0L);
        return rm(1).fetch(followerFetch(2, 1L, atEnd));
    }

    private static FetchRequest followerFetch(int replicaId, long brokerEpoch, Map<TopicPartition, Long> offsets) {
        Map<TopicPartition, FetchRequest.PartitionData> parts = new LinkedHashMap<>();
        offsets.forEach((tp, offset) -> parts.put(tp,
                new FetchRequest.PartitionData(offset, 0, 1 << 20, OptionalInt.of(0), OptionalInt.of(0))));
        return new FetchRequest(replicaId, brokerEpoch, 500, 1, 1 << 20, parts);
    }

    @Test
    @DisplayName("FET-5 an expired fetch whose partitions are caught up answers from their offsets without reading"
            + " their logs, with the same fields a read gives")
    void fet5ExpiryOfCaughtUpPartitionsReadsNoLog() {
        cluster(defaults(), 1);
        cluster.setPartition(REP0, List.of(1, 2), List.of(1, 2), 1, 0, 0);
        cluster.setPartition(REP1, List.of(1, 2), List.of(1, 2), 1, 0, 0);
        rm(1).produce(Map.of(REP0, records("a", "b")), Acks.LEADER, 30_000);
        Map<TopicPartition, Long> atEnd = new LinkedHashMap<>();
        atEnd.put(REP0, 2L);
        atEnd.put(REP1, 0L);
        FetchRequest caughtUp = followerFetch(2, 1L, atEnd);
        long before = rm(1).partitionReads();
        CompletableFuture<FetchResponse> parked = rm(1).fetch(caughtUp);
        assertThat(parked).isNotDone();
        assertThat(rm(1).partitionReads() - before).as("FET-4: the first read reads every partition").isEqualTo(2);

        cluster.run(510);
        assertThat(parked).isDone();
        assertThat(rm(1).partitionReads() - before).as("expiry read no log").isEqualTo(2);
        assertThat(parked.join().partitions().keySet()).containsExactly(REP0, REP1);
        // The same answer a full read of the caught-up partitions gives (maxWaitMs 0 answers at once).
        FetchResponse read = rm(1).fetch(new FetchRequest(2, 1L, 0, 1, 1 << 20, caughtUp.partitions())).join();
        assertThat(parked.join()).isEqualTo(read);
        FetchResponse.PartitionData p0 = parked.join().partitions().get(REP0);
        assertThat(p0.error()).isEqualTo(Errors.NONE);
        assertThat(p0.records().sizeInBytes()).isZero();
        assertThat(p0.logEndOffset()).isEqualTo(2);
        assertThat(p0.lastStableOffset()).isEqualTo(p0.highWatermark());
        assertThat(p0.divergingEpoch()).isEmpty();
    }

    @Test
    @DisplayName("FET-5 a parked follower fetch woken by a produce to several partitions carries every partition"
            + " of that produce, not only the first one appended")
    void fet5WakeAfterTheWholeProduceIsAppended() {
        CompletableFuture<FetchResponse> parked = parkedFollowerFetchOfTwoEmptyPartitions();
        assertThat(parked).isNotDone();

        Map<TopicPartition, MemoryRecords> both = new LinkedHashMap<>();
        both.put(REP0, records("a"));
        both.put(REP1, records("b"));
        rm(1).produce(both, Acks.ALL, 30_000);

        assertThat(parked).isDone();
        FetchResponse response = parked.join();
        assertThat(response.partitions().get(REP0).records().batches()).hasSize(1);
        assertThat(response.partitions().get(REP1).records().batches()).hasSize(1);
    }

    @Test
    @DisplayName("FET-5 a wake re-reads only the partitions that changed since the fetch parked")
    void fet5WakeReadsOnlyChangedPartitions() {
        CompletableFuture<FetchResponse> parked = parkedFollowerFetchOfTwoEmptyPartitions();
        long before = rm(1).partitionReads();

        rm(1).produce(Map.of(REP1, records("x")), Acks.LEADER, 30_000);
        assertThat(parked).isDone();
        assertThat(rm(1).partitionReads() - before).as("only REP1 is read").isEqualTo(1);
        FetchResponse response = parked.join();
        assertThat(response.partitions().keySet()).containsExactly(REP0, REP1);
        assertThat(response.partitions().get(REP1).records().batches()).hasSize(1);
        assertThat(response.partitions().get(REP0).records().sizeInBytes()).isZero();
        assertThat(response.partitions().get(REP0).error()).isEqualTo(Errors.NONE);
    }

    @Test
    @DisplayName("FET-2 FET-5 a parked fetch one of whose partitions lost its leadership is re-read and answers"
            + " at once with that partition's error")
    void fet5ExpiryRereadsChangedLeadership() {
        CompletableFuture<FetchResponse> parked = parkedFollowerFetchOfTwoEmptyPartitions();
        assertThat(parked).isNotDone();
        cluster.setPartition(REP1, List.of(1, 2), List.of(1, 2), 2, 1, 1);
        assertThat(parked).isDone();
        FetchResponse.PartitionData p1 = parked.join().partitions().get(REP1);
        assertThat(p1.error()).isEqualTo(Errors.FENCED_LEADER_EPOCH);
        assertThat(parked.join().partitions().get(REP0).error()).isEqualTo(Errors.NONE);
    }

    @Test
    @DisplayName("FET-2 FET-5 a parked fetch one of whose partitions was deleted answers at once with that"
            + " partition's error")
    void fet5ParkedFetchOfDeletedPartition() {
        CompletableFuture<FetchResponse> parked = parkedFollowerFetchOfTwoEmptyPartitions();
        assertThat(parked).isNotDone();
        cluster.publish(new MetadataDelta(1_000, List.of(), List.of(), List.of(REP1), Map.of()));
        assertThat(parked).isDone();
        assertThat(parked.join().partitions().get(REP1).error()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(parked.join().partitions().get(REP0).error()).isEqualTo(Errors.NONE);
    }

    @Test
    @DisplayName("FET-5 a fetch answering with an error completes at once instead of parking")
    void fet5ErrorCompletesAtOnce() {
        cluster(defaults(), 1);
        cluster.setPartition(REP0, List.of(1, 2), List.of(1, 2), 1, 3, 0);
        FetchRequest fenced = new FetchRequest(2, 1L, 500, 1, 1 << 20, Map.of(REP0,
                new FetchRequest.PartitionData(0, 0, 1 << 20, OptionalInt.of(2), OptionalInt.empty())));
        CompletableFuture<FetchResponse> f = rm(1).fetch(fenced);
        assertThat(f).isDone();
        assertThat(f.join().partitions().get(REP0).error()).isEqualTo(Errors.FENCED_LEADER_EPOCH);
        FetchRequest unknown = new FetchRequest(-1, -1L, 500, 1, 1 << 20, Map.of(new TopicPartition("nope", 0),
                new FetchRequest.PartitionData(0, -1, 1 << 20, OptionalInt.empty(), OptionalInt.empty())));
        assertThat(rm(1).fetch(unknown).join().partitions().get(new TopicPartition("nope", 0)).error())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }

    @Test
    @DisplayName("FET-6 the response holds at most maxBytes, but one batch for the first partition with data")
    void fet6ResponseMaxBytes() {
        cluster(defaults(), 1);
        cluster.setPartition(REP0, List.of(1), List.of(1), 1, 0, 0);
        cluster.setPartition(REP1, List.of(1), List.of(1), 1, 0, 0);
        rm(1).produce(Map.of(REP0, records("a")), Acks.LEADER, 30_000);
        rm(1).produce(Map.of(REP0, records("b")), Acks.LEADER, 30_000);
        rm(1).produce(Map.of(REP1, records("c")), Acks.LEADER, 30_000);
        Map<TopicPartition, FetchRequest.PartitionData> parts = new LinkedHashMap<>();
        parts.put(REP0, new FetchRequest.PartitionData(0, -1, 1 << 20, OptionalInt.empty(), OptionalInt.empty()));
        parts.put(REP1, new FetchRequest.PartitionData(0, -1, 1 << 20, OptionalInt.empty(), OptionalInt.empty()));
        FetchResponse tiny = rm(1).fetch(new FetchRequest(-1, -1L, 0, 1, 1, parts)).join();
        assertThat(tiny.partitions().get(REP0).records().batches()).hasSize(1);
        assertThat(tiny.partitions().get(REP1).records().sizeInBytes()).isZero();
        assertThat(tiny.partitions().get(REP1).highWatermark()).isEqualTo(1);

        FetchResponse all = rm(1).fetch(new FetchRequest(-1, -1L, 0, 1, 1 << 20, parts)).join();
        assertThat(all.partitions().get(REP0).records().batches()).hasSize(2);
        assertThat(all.partitions().get(REP1).records().batches()).hasSize(1);
        FetchResponse.PartitionData p0 = all.partitions().get(REP0);
        assertThat(p0.lastStableOffset()).isEqualTo(p0.highWatermark());
        assertThat(p0.logStartOffset()).isZero();
        assertThat(p0.divergingEpoch()).isEmpty();
    }

    @Test
    @DisplayName("HW-5 the HW checkpoint is written every interval and restored on restart")
    void hw5CheckpointAndRestore() throws Exception {
        cluster(defaults(), 1, 2);
        cluster.setPartition(REP0, List.of(1, 2), List.of(1, 2), 1, 0, 0);
        cluster.run(0);
        rm(1).produce(Map.of(REP0, records("a", "b", "c")), Acks.ALL, 30_000);
        cluster.run(1000);
        assertThat(partition(2, REP0).highWatermark()).isEqualTo(3);
        Path checkpoint = tmp.resolve("broker-2").resolve("replication-offset-checkpoint");
        cluster.run(5000);
        assertThat(Files.readAllLines(checkpoint)).containsExactly("0", "1", "rep 0 3");
        assertThat(Files.readAllLines(tmp.resolve("broker-1").resolve("replication-offset-checkpoint")))
                .containsExactly("0", "1", "rep 0 3");

        cluster.stop(2, false);
        ReplicaManager restarted = cluster.start(2);
        assertThat(restarted.partition(REP0).orElseThrow().highWatermark()).isEqualTo(3);
    }

    @Test
    @DisplayName("LOG-9 recovery points and log start offsets are checkpointed every 60 s")
    void log9OffsetCheckpoints() throws Exception {
        cluster(defaults(), 1);
        cluster.setPartition(REP0, List.of(1), List.of(1), 1, 0, 0);
        cluster.run(0);
        rm(1).produce(Map.of(REP0, records("a", "b")), Acks.LEADER, 30_000);
        Path recoveryPoints = tmp.resolve("broker-1").resolve("recovery-point-offset-checkpoint");
        Path logStarts = tmp.resolve("broker-1").resolve("log-start-offset-checkpoint");
        cluster.run(ReplicaManager.OFFSET_CHECKPOINT_INTERVAL_MS - 10);
        assertThat(recoveryPoints).doesNotExist();
        cluster.run(20);
        assertThat(Files.readAllLines(recoveryPoints)).containsExactly("0", "1", "rep 0 0");
        assertThat(Files.readAllLines(logStarts)).containsExactly("0", "1", "rep 0 0");
    }

    @Test
    @DisplayName("LOG-11 with flush.ms set, a quiet log is flushed by the broker's periodic task")
    void log11FlushMsFlushesQuietLogs() {
        cluster(ReplicationConfig.builder().replicaLagTimeMaxMs(5000).set("flush.ms", 1000).build(), 1);
        cluster.setPartition(REP0, List.of(1), List.of(1), 1, 0, 0);
        cluster.run(0);
        rm(1).produce(Map.of(REP0, records("a", "b")), Acks.LEADER, 30_000);
        dev.insync.replication.log.Log log = rm(1).logDirectory().log(REP0).orElseThrow();
        assertThat(log.recoveryPoint()).isZero();
        cluster.run(2_100);
        assertThat(log.recoveryPoint()).isEqualTo(2);
    }

    @Test
    @DisplayName("HW-5 closeCleanly leaves the clean-shutdown marker and the final HW checkpoint")
    void hw5CloseCleanly() throws Exception {
        cluster(defaults(), 1);
        cluster.setPartition(REP0, List.of(1), List.of(1), 1, 0, 0);
        rm(1).produce(Map.of(REP0, records("a")), Acks.ALL, 30_000);
        cluster.stop(1, true);
        assertThat(Files.readAllLines(tmp.resolve("broker-1").resolve("replication-offset-checkpoint")))
                .containsExactly("0", "1", "rep 0 1");
        assertThat(Files.readString(tmp.resolve("broker-1").resolve(".kafka_cleanshutdown")))
                .contains("\"brokerEpoch\":1");
    }

    @Test
    @DisplayName("PRO-5 acks=all whose followers never fetch ends once with REQUEST_TIMED_OUT")
    void pro5TimesOut() {
        cluster(defaults(), 1);
        cluster.setPartition(REP0, List.of(1, 2, 3), List.of(1, 2, 3), 1, 0, 0);
        CompletableFuture<Map<TopicPartition, ProduceResult>> f = rm(1).produce(Map.of(REP0, records("a")), Acks.ALL, 2000);
        cluster.run(1999);
        assertThat(f).isNotDone();
        cluster.run(10);
        assertThat(only(f, REP0)).isEqualTo(new ProduceResult(Errors.REQUEST_TIMED_OUT, 0, -1, 0));
        assertThat(rm(1).pendingProduceCount()).isZero();
    }

    @Test
    @DisplayName("PRO-5 LDR-2 losing leadership fails waiting acks=all with NOT_LEADER_OR_FOLLOWER")
    void pro5LeadershipLoss() {
        cluster(defaults(), 1);
        cluster.setPartition(REP0, List.of(1, 2, 3), List.of(1, 2, 3), 1, 0, 0);
        CompletableFuture<Map<TopicPartition, ProduceResult>> f = rm(1).produce(Map.of(REP0, records("a")), Acks.ALL, 30_000);
        assertThat(f).isNotDone();
        cluster.setPartition(REP0, List.of(1, 2, 3), List.of(2, 3), 2, 1, 1);
        assertThat(only(f, REP0).error()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
        assertThat(rm(1).fetcherManager().fetchState(REP0)).get().extracting(PartitionFetchState::currentLeaderEpoch)
                .isEqualTo(1);
    }

    @Test
    @DisplayName("PRO-5 shutdown answers every waiting acks=all")
    void pro5Shutdown() {
        cluster(defaults(), 1);
        cluster.setPartition(REP0, List.of(1, 2), List.of(1, 2), 1, 0, 0);
        CompletableFuture<Map<TopicPartition, ProduceResult>> f = rm(1).produce(Map.of(REP0, records("a")), Acks.ALL, 30_000);
        cluster.stop(1, false);
        assertThat(only(f, REP0).error()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
    }

    @Test
    @DisplayName("PRO-2 PRO-5 not leader and unknown partitions each get one error")
    void pro5Errors() {
        cluster(defaults(), 1, 2);
        cluster.setPartition(REP0, List.of(1, 2), List.of(1, 2), 1, 0, 0);
        TopicPartition unknown = new TopicPartition("nope", 0);
        assertThat(only(rm(2).produce(Map.of(REP0, records("a")), Acks.LEADER, 1000), REP0).error())
                .isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
        assertThat(only(rm(1).produce(Map.of(unknown, records("a")), Acks.LEADER, 1000), unknown).error())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(partition(1, REP0).logEndOffset()).isZero();
    }

    @Test
    @DisplayName("LDR-2 a new leader moves the follower to the new leader's fetcher at initialFetchOffset; no leader, no fetcher")
    void ldr2MovesFetcher() {
        cluster(defaults(), 1, 2, 3);
        cluster.setPartition(REP0, List.of(1, 2, 3), List.of(1, 2, 3), 1, 0, 0);
        rm(1).produce(Map.of(REP0, records("a", "b")), Acks.ALL, 30_000);
        cluster.run(1000);
        assertThat(rm(3).fetcherManager().fetcherFor(REP0)).get().extracting(ReplicaFetcher::name)
                .isEqualTo("ReplicaFetcherThread-0-1");

        cluster.setPartition(REP0, List.of(1, 2, 3), List.of(2, 3), 2, 1, 1);
        FetcherManager fm3 = rm(3).fetcherManager();
        assertThat(fm3.fetcherFor(REP0)).get().extracting(ReplicaFetcher::name).isEqualTo("ReplicaFetcherThread-0-2");
        assertThat(fm3.fetchers()).hasSize(1); // the idle fetcher for broker 1 is gone
        assertThat(fm3.fetchState(REP0)).get().extracting(PartitionFetchState::fetchOffset).isEqualTo(2L);
        assertThat(rm(2).fetcherManager().fetchState(REP0)).isEmpty();
        assertThat(partition(2, REP0).isLeader()).isTrue();
        assertThat(rm(1).fetcherManager().fetcherFor(REP0)).get().extracting(ReplicaFetcher::name)
                .isEqualTo("ReplicaFetcherThread-0-2");

        // Same leader epoch (an ISR change): the fetch state is kept.
        PartitionFetchState before = fm3.fetchState(REP0).orElseThrow();
        cluster.setPartition(REP0, List.of(1, 2, 3), List.of(2, 3, 1), 2, 1, 2);
        assertThat(fm3.fetchState(REP0)).contains(before);

        // No leader: no fetcher.
        cluster.setPartition(REP0, List.of(1, 2, 3), List.of(), -1, 2, 3);
        assertThat(fm3.fetchState(REP0)).isEmpty();
        assertThat(fm3.fetchers()).isEmpty();
    }

    @Test
    @DisplayName("LDR-3 a registration with an older partition epoch is ignored")
    void ldr3StaleIgnored() {
        cluster(defaults(), 1, 2);
        cluster.setPartition(REP0, List.of(1, 2), List.of(1, 2), 1, 3, 5);
        cluster.setPartition(REP0, List.of(1, 2), List.of(2), 2, 4, 4);
        assertThat(partition(1, REP0).isLeader()).isTrue();
        assertThat(partition(1, REP0).leaderEpoch()).isEqualTo(3);
    }

    @Test
    @DisplayName("LDR-2 a replica removed from the assignment stops and its log is deleted")
    void ldr2ReplicaRemoved() {
        cluster(defaults(), 1, 2, 3);
        cluster.setPartition(REP0, List.of(1, 2, 3), List.of(1, 2, 3), 1, 0, 0);
        cluster.run(0);
        assertThat(Files.isDirectory(tmp.resolve("broker-3").resolve("rep-0"))).isTrue();
        cluster.setPartition(REP0, List.of(1, 2), List.of(1, 2), 1, 1, 1);
        assertThat(rm(3).partition(REP0)).isEmpty();
        assertThat(rm(3).fetcherManager().fetchState(REP0)).isEmpty();
        assertThat(Files.exists(tmp.resolve("broker-3").resolve("rep-0"))).isFalse();
    }

    @Test
    @DisplayName("INV-3 a hosted partition whose topic id changes (deleted and created again, unseen) is deleted and starts an empty log")
    void topicIdChangeStartsAFreshLog() throws Exception {
        cluster(defaults(), 1);
        UUID first = new UUID(1, 1);
        UUID second = new UUID(2, 2);
        PartitionRegistration reg = new PartitionRegistration(REP0, List.of(1), List.of(1), List.of(), List.of(), 1, 0, 0,
                false);
        cluster.publish(MetadataDelta.builder(cluster.nextMetadataOffset()).partition(reg).topicId("rep", first).build());
        assertThat(only(rm(1).produce(Map.of(REP0, records("a", "b", "c")), Acks.ALL, 1000), REP0).error())
                .isEqualTo(Errors.NONE);
        Path metadataFile = tmp.resolve("broker-1").resolve("rep-0").resolve(PartitionMetadataFile.FILE_NAME);
        assertThat(Files.readString(metadataFile)).contains(PartitionMetadataFile.format(first));
        // What an image load brings when the name was deleted and created again behind the broker's back.
        cluster.publish(MetadataDelta.builder(cluster.nextMetadataOffset()).partition(reg).topicId("rep", second).build());
        assertThat(partition(1, REP0).logEndOffset()).isZero();
        assertThat(Files.readString(metadataFile)).contains(PartitionMetadataFile.format(second));
        // The same id again changes nothing.
        assertThat(only(rm(1).produce(Map.of(REP0, records("d")), Acks.ALL, 1000), REP0).error()).isEqualTo(Errors.NONE);
        cluster.publish(MetadataDelta.builder(cluster.nextMetadataOffset()).partition(reg).topicId("rep", second).build());
        assertThat(partition(1, REP0).logEndOffset()).isEqualTo(1);
    }

    @Test
    @DisplayName("CTL-5 once the metadata is loaded, logs of partitions it assigns elsewhere or does not know are deleted; hosted ones stay")
    void strayLogsAreDeleted() {
        cluster(defaults(), 1);
        LogDirectory dir = rm(1).logDirectory();
        TopicPartition movedAway = new TopicPartition("rep", 1);
        TopicPartition unknown = new TopicPartition("gone", 0);
        // Logs a previous incarnation left: opened at start-up, never hosted by this one.
        dir.getOrCreateLog(movedAway, dir.defaultConfig());
        dir.getOrCreateLog(unknown, dir.defaultConfig());
        assertThat(dir.logs()).containsOnlyKeys(movedAway, unknown);

        cluster.publish(MetadataDelta.builder(cluster.nextMetadataOffset())
                .partition(new PartitionRegistration(REP0, List.of(1), List.of(1), List.of(), List.of(), 1, 0, 0, false))
                .partition(new PartitionRegistration(movedAway, List.of(2), List.of(2), List.of(), List.of(), 2, 0, 0,
                        false))
                .build());

        assertThat(rm(1).deleteStrayLogs()).containsExactly(unknown, movedAway);
        assertThat(dir.logs()).containsOnlyKeys(REP0);
        assertThat(tmp.resolve("broker-1").resolve("gone-0")).doesNotExist();
        assertThat(tmp.resolve("broker-1").resolve("rep-1")).doesNotExist();
        assertThat(only(rm(1).produce(Map.of(REP0, records("a")), Acks.ALL, 1000), REP0).error()).isEqualTo(Errors.NONE);
        assertThat(rm(1).deleteStrayLogs()).as("nothing left to delete").isEmpty();
    }

    @Test
    @DisplayName("ISR-1 the ISR-expiration task shrinks a stopped follower out and acks=all then completes")
    void isrExpirationShrinks() {
        cluster(defaults(), 1, 2, 3);
        cluster.setPartition(REP0, List.of(1, 2, 3), List.of(1, 2, 3), 1, 0, 0);
        cluster.run(0);
        cluster.unreachable.add(3);
        CompletableFuture<Map<TopicPartition, ProduceResult>> f = rm(1).produce(Map.of(REP0, records("a")), Acks.ALL, 30_000);
        cluster.run(4000);
        assertThat(f).isNotDone();
        cluster.run(4000);
        assertThat(only(f, REP0).error()).isEqualTo(Errors.NONE);
        assertThat(cluster.registrations.get(REP0).isr()).containsExactly(1, 2);
        assertThat(cluster.metrics.get(1).isrShrinks()).isEqualTo(1);
    }

    @Test
    @DisplayName("HW-2 a run-time min.insync.replicas change applies to hosted partitions")
    void minIsrChange() {
        cluster(defaults(), 1);
        cluster.setPartition(REP0, List.of(1, 2, 3), List.of(1), 1, 0, 0);
        cluster.publish(new MetadataDelta(cluster.nextMetadataOffset(), List.of(), List.of(), List.of(),
                Map.of("rep", 2)));
        assertThat(only(rm(1).produce(Map.of(REP0, records("a")), Acks.ALL, 1000), REP0).error())
                .isEqualTo(Errors.NOT_ENOUGH_REPLICAS);
        cluster.publish(new MetadataDelta(cluster.nextMetadataOffset(), List.of(), List.of(), List.of(),
                Map.of("rep", 1)));
        assertThat(only(rm(1).produce(Map.of(REP0, records("a")), Acks.ALL, 1000), REP0).error()).isEqualTo(Errors.NONE);
    }

    private static List<String> values(Log log) {
        List<String> out = new java.util.ArrayList<>();
        log.read(log.logStartOffset(), Integer.MAX_VALUE, log.logEndOffset()).records().batches()
                .forEach(b -> b.records().forEach(r -> {
                    java.nio.ByteBuffer v = r.value().duplicate();
                    byte[] bytes = new byte[v.remaining()];
                    v.get(bytes);
                    out.add(new String(bytes, java.nio.charset.StandardCharsets.UTF_8));
                }));
        return out;
    }

    @Test
    @DisplayName("FOL-8 SCN-3 a restarted old leader truncates its acks=1 records at the divergence and converges")
    void fol8Scn3Truncation() {
        cluster(ReplicationConfig.builder().replicaLagTimeMaxMs(10_000).build(), 1, 2, 3);
        cluster.setPartition(REP0, List.of(1, 2, 3), List.of(1, 2, 3), 1, 0, 0);
        cluster.run(0);
        for (int i = 1; i <= 10; i++) {
            CompletableFuture<Map<TopicPartition, ProduceResult>> f =
                    rm(1).produce(Map.of(REP0, records("ok-" + i)), Acks.ALL, 30_000);
            cluster.run(0);
            assertThat(only(f, REP0).error()).isEqualTo(Errors.NONE);
        }
        // Pause 2 and 3 (their fetches fail), wait for parked fetches to run out, write lost-* with acks=1.
        cluster.unreachable.addAll(List.of(2, 3));
        cluster.run(1000);
        for (int i = 1; i <= 5; i++) {
            assertThat(only(rm(1).produce(Map.of(REP0, records("lost-" + i)), Acks.LEADER, 30_000), REP0).baseOffset())
                    .isEqualTo(9 + i);
        }
        cluster.stop(1, false); // kill -9: files stay
        cluster.unreachable.clear();
        cluster.setPartition(REP0, List.of(1, 2, 3), List.of(2, 3), 2, 1, 1);
        CompletableFuture<Map<TopicPartition, ProduceResult>> f =
                rm(2).produce(Map.of(REP0, records("new-1", "new-2", "new-3")), Acks.ALL, 30_000);
        cluster.run(0);
        assertThat(only(f, REP0)).isEqualTo(new ProduceResult(Errors.NONE, 10, -1, 1));

        ReplicaManager restarted = cluster.start(1);
        cluster.run(2000);
        Log log1 = restarted.logDirectory().log(REP0).orElseThrow();
        Log log2 = rm(2).logDirectory().log(REP0).orElseThrow();
        assertThat(log1.logEndOffset()).isEqualTo(13);
        assertThat(values(log1)).isEqualTo(values(log2));
        assertThat(values(log1)).startsWith("ok-1").contains("ok-10", "new-1", "new-3").noneMatch(v -> v.startsWith("lost"));
        assertThat(log1.leaderEpochCache().epochEntries()).isEqualTo(log2.leaderEpochCache().epochEntries());
        assertThat(log1.leaderEpochCache().epochEntries()).extracting(e -> e.epoch() + " " + e.startOffset())
                .containsExactly("0 0", "1 10");
        assertThat(restarted.partition(REP0).orElseThrow().highWatermark()).isEqualTo(13);
    }

    @Test
    @DisplayName("ISR-3 broker registrations in metadata decide ISR eligibility: a fenced follower is not added back")
    void isr3EligibilityFromMetadata() {
        cluster(defaults(), 1, 2, 3);
        cluster.publish(List.of(new dev.insync.replication.core.metadata.BrokerRegistration(3,
                cluster.brokerEpochs.get(3), true, false)), List.of());
        cluster.setPartition(REP0, List.of(1, 2, 3), List.of(1, 2), 1, 0, 0);
        rm(1).produce(Map.of(REP0, records("a")), Acks.ALL, 30_000);
        cluster.run(3000);
        assertThat(partition(3, REP0).logEndOffset()).isEqualTo(1); // caught up
        assertThat(cluster.registrations.get(REP0).isr()).containsExactly(1, 2); // but fenced

        cluster.publish(List.of(new dev.insync.replication.core.metadata.BrokerRegistration(3,
                cluster.brokerEpochs.get(3), false, false)), List.of());
        cluster.run(3000);
        assertThat(cluster.registrations.get(REP0).isr()).containsExactly(1, 2, 3);
        assertThat(cluster.metrics.get(1).isrExpands()).isEqualTo(1);
    }
}
