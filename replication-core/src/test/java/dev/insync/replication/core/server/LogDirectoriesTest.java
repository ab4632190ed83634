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
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.produce.Acks;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.LogDirectory;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;

import static dev.insync.replication.core.server.TestCluster.records;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * §9 with several log directories per broker (Kafka's {@code log.dirs}): placement, and an I/O
 * failure that takes only its own directory offline. A failure is injected by closing a log under
 * the broker, after which every access to it fails as a failed disk's would.
 */
class LogDirectoriesTest extends TestClusterCase {

    static final TopicPartition REP2 = new TopicPartition("rep", 2);
    static final TopicPartition REP3 = new TopicPartition("rep", 3);

    TestCluster cluster(int logDirs, int... brokers) {
        cluster = new TestCluster(tmp, ReplicationConfig.builder().replicaLagTimeMaxMs(5000).build(), logDirs);
        for (int b : brokers) {
            cluster.start(b);
        }
        return cluster;
    }

    private Path dirOf(int broker, TopicPartition tp) {
        return rm(broker).logDirectoryOf(tp).map(LogDirectory::path).orElseThrow();
    }

    private void failDiskOf(int broker, TopicPartition tp) {
        rm(broker).logDirectoryOf(tp).flatMap(d -> d.log(tp)).orElseThrow().close();
    }

    private static ProduceResult only(CompletableFuture<Map<TopicPartition, ProduceResult>> f, TopicPartition tp) {
        assertThat(f).isDone();
        return f.join().get(tp);
    }

    private Errors consumerFetch(int broker, TopicPartition tp) {
        FetchRequest fetch = new FetchRequest(-1, -1L, 0, 1, 1 << 20, Map.of(tp,
                new FetchRequest.PartitionData(0, -1, 1 << 20, OptionalInt.empty(), OptionalInt.empty())));
        return rm(broker).fetch(fetch).join().partitions().get(tp).error();
    }

    @Test
    @DisplayName("§9 log.dirs: a new partition goes to the directory holding the fewest logs; a log found at start-up stays where it is")
    void placementByFewestLogs() throws Exception {
        cluster(2, 1);
        Path first = cluster.logDir(1, 0).toRealPath();
        Path second = cluster.logDir(1, 1).toRealPath();
        for (TopicPartition tp : List.of(REP0, REP1, REP2)) {
            cluster.setPartition(tp, List.of(1), List.of(1), 1, 0, 0);
        }
        assertThat(dirOf(1, REP0)).isEqualTo(first);
        assertThat(dirOf(1, REP1)).isEqualTo(second);
        assertThat(dirOf(1, REP2)).isEqualTo(first);
        assertThat(only(rm(1).produce(Map.of(REP1, records("in-the-second")), Acks.LEADER, 1000), REP1).error())
                .isEqualTo(Errors.NONE);

        cluster.stop(1, true);
        cluster.start(1);
        assertThat(dirOf(1, REP1)).as("found where it was").isEqualTo(second);
        assertThat(rm(1).partition(REP1).orElseThrow().logEndOffset()).isEqualTo(1);
        cluster.setPartition(REP3, List.of(1), List.of(1), 1, 0, 0);
        assertThat(dirOf(1, REP3)).as("2 logs against 1").isEqualTo(second);
    }

    @Test
    @DisplayName("§9 FET-2 PRO an I/O failure takes only that directory offline: its partitions answer KAFKA_STORAGE_ERROR; the other directory keeps serving")
    void leaderDirectoryFailure() {
        cluster(2, 1, 2);
        cluster.setPartition(REP0, List.of(1, 2), List.of(1, 2), 1, 0, 0);
        cluster.setPartition(REP1, List.of(1, 2), List.of(1, 2), 1, 0, 0);
        cluster.run(0);
        assertThat(dirOf(1, REP0)).isNotEqualTo(dirOf(1, REP1));
        CompletableFuture<Map<TopicPartition, ProduceResult>> waiting =
                rm(1).produce(Map.of(REP0, records("waits")), Acks.ALL, 30_000);
        assertThat(waiting).isNotDone();

        failDiskOf(1, REP0);
        assertThat(only(rm(1).produce(Map.of(REP0, records("a")), Acks.LEADER, 1000), REP0).error())
                .isEqualTo(Errors.KAFKA_STORAGE_ERROR);

        assertThat(rm(1).offlineLogDirectories()).extracting(LogDirectory::path).containsExactly(dirOf(1, REP0));
        assertThat(rm(1).offlineReplicas()).containsExactly(REP0);
        assertThat(rm(1).partition(REP0).orElseThrow().isOffline()).isTrue();
        assertThat(cluster.logDirEvents).containsExactly("1 offline broker-1 [rep-0]");
        assertThat(only(waiting, REP0).error()).as("a waiting acks=all ends at once").isEqualTo(Errors.KAFKA_STORAGE_ERROR);
        assertThat(consumerFetch(1, REP0)).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
        assertThat(rm(1).isShutDown()).isFalse();

        CompletableFuture<Map<TopicPartition, ProduceResult>> other =
                rm(1).produce(Map.of(REP1, records("b")), Acks.ALL, 30_000);
        cluster.run(0);
        assertThat(only(other, REP1)).isEqualTo(new ProduceResult(Errors.NONE, 0, -1, 0));
        assertThat(rm(2).partition(REP1).orElseThrow().logEndOffset()).isEqualTo(1);
    }

    @Test
    @DisplayName("§9 FOL-6 a follower's failed directory: its partitions leave the fetcher and are reported offline; the rest is still fetched")
    void followerDirectoryFailure() {
        cluster(2, 1, 2);
        cluster.setPartition(REP0, List.of(1, 2), List.of(1, 2), 1, 0, 0);
        cluster.setPartition(REP1, List.of(1, 2), List.of(1, 2), 1, 0, 0);
        cluster.run(0);
        failDiskOf(2, REP0);

        rm(1).produce(Map.of(REP0, records("a"), REP1, records("b")), Acks.LEADER, 1000);
        cluster.run(1000);

        assertThat(rm(2).offlineReplicas()).containsExactly(REP0);
        assertThat(rm(2).fetcherManager().fetchState(REP0)).as("no longer fetched").isEmpty();
        assertThat(rm(2).fetcherManager().fetchState(REP1)).isPresent();
        assertThat(rm(2).partition(REP1).orElseThrow().logEndOffset()).isEqualTo(1);
        assertThat(cluster.logDirEvents).containsExactly("2 offline broker-2 [rep-0]");
    }

    @Test
    @DisplayName("§9 with a directory offline a partition created afterwards still gets its log in the healthy one;"
            + " one the broker knew before it is not created there")
    void newPartitionsGoToTheHealthyDirectoryOnly() {
        cluster(2, 1);
        cluster.setPartition(REP0, List.of(1), List.of(1), 1, 0, 0);
        cluster.setPartition(REP1, List.of(1), List.of(1), 1, 0, 0);
        Path second = dirOf(1, REP1);
        failDiskOf(1, REP0);
        assertThat(only(rm(1).produce(Map.of(REP0, records("a")), Acks.LEADER, 1000), REP0).error())
                .isEqualTo(Errors.KAFKA_STORAGE_ERROR);

        cluster.setPartition(REP2, List.of(1), List.of(1), 1, 0, 0);
        assertThat(dirOf(1, REP2)).as("created after the failure").isEqualTo(second);
        assertThat(only(rm(1).produce(Map.of(REP2, records("b")), Acks.LEADER, 1000), REP2).error())
                .isEqualTo(Errors.NONE);
        assertThat(rm(1).offlineReplicas()).containsExactly(REP0);
    }

    @Test
    @DisplayName("§9 with no online log directory left the broker stops, and the embedder is told")
    void lastDirectoryFailureStopsTheBroker() {
        cluster(1, 1);
        cluster.setPartition(REP0, List.of(1), List.of(1), 1, 0, 0);
        cluster.setPartition(REP1, List.of(1), List.of(1), 1, 0, 0);
        failDiskOf(1, REP0);

        assertThat(only(rm(1).produce(Map.of(REP0, records("a")), Acks.LEADER, 1000), REP0).error())
                .isEqualTo(Errors.KAFKA_STORAGE_ERROR);
        assertThat(cluster.logDirEvents).containsExactly("1 offline broker-1 [rep-0, rep-1]", "1 none online");
        cluster.run(0); // the shutdown runs on the broker's LogDirFailureHandler executor
        assertThat(rm(1).isShutDown()).isTrue();
        assertThat(only(rm(1).produce(Map.of(REP1, records("b")), Acks.LEADER, 1000), REP1).error())
                .isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
    }

    @Test
    @DisplayName("§9 a storage failure while metadata makes this broker leader takes that directory offline; the rest of the delta is applied and nothing escapes")
    void storageFailureWhileApplyingMetadata() {
        cluster(2, 1, 2);
        cluster.setPartition(REP0, List.of(2, 1), List.of(2, 1), 2, 0, 0);
        cluster.setPartition(REP1, List.of(2, 1), List.of(2, 1), 2, 0, 0);
        cluster.run(0);
        assertThat(dirOf(1, REP0)).isNotEqualTo(dirOf(1, REP1));
        failDiskOf(1, REP0);

        long offset = cluster.nextMetadataOffset();
        PartitionRegistration rep0 = new PartitionRegistration(REP0, List.of(2, 1), List.of(1), List.of(), List.of(), 1, 1, 1,
                false);
        PartitionRegistration rep1 = new PartitionRegistration(REP1, List.of(2, 1), List.of(1), List.of(), List.of(), 1, 1, 1,
                false);
        rm(1).applyMetadataDelta(new MetadataDelta(offset, List.of(), List.of(rep0, rep1), List.of(), Map.of()));

        assertThat(rm(1).lastAppliedMetadataOffset()).isEqualTo(offset);
        assertThat(rm(1).offlineReplicas()).containsExactly(REP0);
        assertThat(rm(1).partition(REP1).orElseThrow().isLeader()).as("the other partition of the delta").isTrue();
        assertThat(cluster.logDirEvents).containsExactly("1 offline broker-1 [rep-0]");
        assertThat(only(rm(1).produce(Map.of(REP1, records("b")), Acks.LEADER, 1000), REP1).error()).isEqualTo(Errors.NONE);
    }
}
