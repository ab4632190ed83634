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
import dev.insync.replication.core.produce.Acks;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.Log;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static dev.insync.replication.core.server.TestCluster.records;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * LOG-11 group commit on the broker: with {@code flush.messages=1} the leader's append leaves the
 * force to the broker's flusher executor, and produces are answered only once it ran. The
 * {@link TestCluster}'s manual scheduler runs nothing until the test says so, so "before the flusher
 * ran" is a state the test can look at.
 */
class ReplicaManagerGroupCommitTest extends TestClusterCase {


    /**
     * Broker 1 alone leads REP0 and REP1 (replicas and ISR {1}, so the HW follows the leader's append); with two
     * log directories, REP0 is in the first and REP1 in the second (§9 placement).
     */
    private ReplicaManager singleBroker(ReplicationConfig config) {
        cluster = new TestCluster(tmp, config, 2);
        cluster.start(1);
        cluster.setPartition(REP0, List.of(1), List.of(1), 1, 0, 0);
        cluster.setPartition(REP1, List.of(1), List.of(1), 1, 0, 0);
        cluster.run(0);
        return cluster.managers.get(1);
    }

    private static ReplicationConfig flushEveryMessage() {
        return ReplicationConfig.builder().replicaLagTimeMaxMs(5000).set("flush.messages", 1).build();
    }

    private Log log(ReplicaManager rm, TopicPartition tp) {
        return rm.logDirectoryOf(tp).flatMap(d -> d.log(tp)).orElseThrow();
    }

    @Test
    @DisplayName("LOG-11 PRO-3 with flush.messages=1 acks=1 and acks=all are answered only after the flusher forced their records")
    void answeredOnlyAfterTheFlush() {
        ReplicaManager rm = singleBroker(flushEveryMessage());
        CompletableFuture<Map<TopicPartition, ProduceResult>> acksOne = rm.produce(Map.of(REP0, records("a")), Acks.LEADER, 30_000);
        CompletableFuture<Map<TopicPartition, ProduceResult>> acksAll = rm.produce(Map.of(REP0, records("b")), Acks.ALL, 30_000);
        Log log = log(rm, REP0);
        assertThat(log.logEndOffset()).isEqualTo(2);
        assertThat(log.highWatermark()).as("the single-replica ISR commits at once").isEqualTo(2);
        assertThat(log.recoveryPoint()).as("the append did not force").isZero();
        assertThat(acksOne).isNotDone();
        assertThat(acksAll).isNotDone();
        assertThat(rm.pendingProduceCount()).isEqualTo(2);

        cluster.scheduler.runReady();
        assertThat(log.recoveryPoint()).isEqualTo(2);
        assertThat(acksOne.join().get(REP0)).isEqualTo(new ProduceResult(Errors.NONE, 0, -1, 0));
        assertThat(acksAll.join().get(REP0)).isEqualTo(new ProduceResult(Errors.NONE, 1, -1, 0));
        assertThat(rm.leaderFlushCount()).isEqualTo(1);
    }

    @Test
    @DisplayName("LOG-11 N produces that arrive before the flusher runs are covered by one flush")
    void oneFlushCoversEveryQueuedAppend() {
        ReplicaManager rm = singleBroker(flushEveryMessage());
        List<CompletableFuture<Map<TopicPartition, ProduceResult>>> answers = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            answers.add(rm.produce(Map.of(REP0, records("r" + i)), i % 2 == 0 ? Acks.LEADER : Acks.ALL, 30_000));
        }
        assertThat(answers).noneMatch(CompletableFuture::isDone);
        assertThat(log(rm, REP0).recoveryPoint()).isZero();

        cluster.scheduler.runReady();
        assertThat(rm.leaderFlushCount()).as("one force for 20 appends").isEqualTo(1);
        assertThat(log(rm, REP0).recoveryPoint()).isEqualTo(20);
        for (int i = 0; i < 20; i++) {
            assertThat(answers.get(i).join().get(REP0)).isEqualTo(new ProduceResult(Errors.NONE, i, -1, 0));
        }
    }

    @Test
    @DisplayName("LOG-11 one flusher covers every partition; acks=0 does not wait but its record is flushed too")
    void flusherCoversPartitionsAndAcksZero() {
        ReplicaManager rm = singleBroker(flushEveryMessage());
        CompletableFuture<Map<TopicPartition, ProduceResult>> acksZero = rm.produce(Map.of(REP0, records("z")), Acks.NONE, 30_000);
        CompletableFuture<Map<TopicPartition, ProduceResult>> both =
                rm.produce(Map.of(REP0, records("a"), REP1, records("b")), Acks.LEADER, 30_000);
        assertThat(acksZero.join().get(REP0)).isEqualTo(new ProduceResult(Errors.NONE, 0, -1, 0));
        assertThat(both).isNotDone();
        cluster.scheduler.runReady();
        assertThat(both.join()).containsEntry(REP0, new ProduceResult(Errors.NONE, 1, -1, 0))
                .containsEntry(REP1, new ProduceResult(Errors.NONE, 0, -1, 0));
        assertThat(log(rm, REP0).recoveryPoint()).isEqualTo(2);
        assertThat(log(rm, REP1).recoveryPoint()).isEqualTo(1);
        assertThat(rm.leaderFlushCount()).as("one flush per log").isEqualTo(2);
    }

    @Test
    @DisplayName("PRO-3 without a flush due (default flush.messages) acks=1 still answers right after the append")
    void noFlushDueAnswersAtOnce() {
        ReplicaManager rm = singleBroker(ReplicationConfig.builder().replicaLagTimeMaxMs(5000).build());
        CompletableFuture<Map<TopicPartition, ProduceResult>> f = rm.produce(Map.of(REP0, records("a")), Acks.LEADER, 30_000);
        assertThat(f.join().get(REP0)).isEqualTo(new ProduceResult(Errors.NONE, 0, -1, 0));
        cluster.scheduler.runReady();
        assertThat(rm.leaderFlushCount()).isZero();
        assertThat(log(rm, REP0).recoveryPoint()).isZero();
    }

    @Test
    @DisplayName("LOG-11 §9 a failed deferred flush takes its log directory offline and fails its waiting produces with KAFKA_STORAGE_ERROR")
    void failedFlushIsAStorageError() {
        ReplicaManager rm = singleBroker(flushEveryMessage());
        CompletableFuture<Map<TopicPartition, ProduceResult>> acksOne = rm.produce(Map.of(REP0, records("a")), Acks.LEADER, 30_000);
        CompletableFuture<Map<TopicPartition, ProduceResult>> acksAll = rm.produce(Map.of(REP0, records("b")), Acks.ALL, 30_000);
        log(rm, REP0).close(); // the disk fails before the flusher runs: every further access fails
        cluster.scheduler.runReady();
        assertThat(acksOne.join().get(REP0).error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
        assertThat(acksAll.join().get(REP0).error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
        assertThat(rm.partition(REP0).orElseThrow().isOffline()).isTrue();
        assertThat(rm.produce(Map.of(REP0, records("c")), Acks.LEADER, 30_000).join().get(REP0).error())
                .isEqualTo(Errors.KAFKA_STORAGE_ERROR);

        CompletableFuture<Map<TopicPartition, ProduceResult>> other = rm.produce(Map.of(REP1, records("d")), Acks.LEADER, 30_000);
        cluster.scheduler.runReady();
        assertThat(other.join().get(REP1)).as("the other directory's partitions keep working")
                .isEqualTo(new ProduceResult(Errors.NONE, 0, -1, 0));
        assertThat(rm.offlineReplicas()).containsExactly(REP0);
    }

    @Test
    @DisplayName("PRO-5 a produce waiting for the flush when the broker shuts down is answered once")
    void shutdownAnswersFlushWaits() {
        ReplicaManager rm = singleBroker(flushEveryMessage());
        CompletableFuture<Map<TopicPartition, ProduceResult>> f = rm.produce(Map.of(REP0, records("a")), Acks.LEADER, 30_000);
        cluster.stop(1, false);
        assertThat(f.join().get(REP0).error()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
        cluster.scheduler.runReady(); // the queued flush finds the log closed: no error, nothing marked offline
        assertThat(rm.partition(REP0)).isEmpty();
    }
}
