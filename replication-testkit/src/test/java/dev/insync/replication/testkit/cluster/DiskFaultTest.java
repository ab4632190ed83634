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

package dev.insync.replication.testkit.cluster;

import dev.insync.replication.core.server.ReplicaManager;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.LogDirectory;
import dev.insync.replication.log.StorageOperation;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.checkpoint.CleanShutdownFile;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Contract §9 through the testkit's disk-fault seam ({@link BrokerHandle#failDisk}: the
 * directory's FileSync fault hook), the way the simulator injects it: the leader's disk under one
 * of its two log directories fails at its next write; that directory goes offline, its partitions
 * answer KAFKA_STORAGE_ERROR, the controller learns it from the heartbeat and moves their
 * leadership, the other directory keeps serving; a restart on a replaced (empty) disk heals the
 * broker and it replicates the lost partitions back.
 */
class DiskFaultTest {

    private static final List<TopicPartition> PARTITIONS = List.of(new TopicPartition("rep", 0),
            new TopicPartition("rep", 1));

    @Test
    @DisplayName("§9 ISR-8 LDR-5 a failed disk takes its directory offline, leadership moves, the other directory"
            + " serves on, and a restart on a replaced disk replicates the lost partition back")
    void failedDiskIsHealedByARestartOnANewDisk() {
        try (InMemoryCluster cluster = InMemoryCluster.builder().brokers(3).seed(11).logDirsPerBroker(2)
                .config("min.insync.replicas", 2).build()) {
            TestProducer producer = topicWithFiveRecordsEach(cluster);
            BrokerHandle leader = cluster.broker(1);
            ReplicaManager rm = leader.replicaManager().orElseThrow();
            int failing = leader.logDirs().indexOf(dirOf(rm, PARTITIONS.get(0)));
            assertThat(dirOf(rm, PARTITIONS.get(1))).as("the other partition is in the other directory")
                    .isNotEqualTo(leader.logDirs().get(failing));

            cluster.failDisk(1, failing, StorageOperation.Kind.WRITE);
            ProduceOutcome failed = cluster.await(producer.send("rep", 0, null, "lost", -1, 30_000));

            assertThat(failed.error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
            assertThat(leader.diskFailure(failing)).hasValueSatisfying(op ->
                    assertThat(op.kind()).isEqualTo(StorageOperation.Kind.WRITE));
            assertThat(rm.offlineLogDirectories()).extracting(LogDirectory::path)
                    .containsExactly(leader.logDirs().get(failing));
            assertThat(rm.offlineReplicas()).containsExactly(PARTITIONS.get(0));
            assertThat(cluster.runUntil(() -> cluster.admin().partition("rep", 0).leader() != 1
                    && !cluster.admin().isr("rep", 0).contains(1), 10_000))
                    .as("leadership of rep-0 moves off the failed directory: %s", cluster.describe("rep")).isTrue();
            cluster.awaitLeader("rep", 0);
            assertThat(cluster.await(producer.send("rep", 0, null, "after", -1, 30_000)).error()).isEqualTo(Errors.NONE);
            assertThat(cluster.admin().partition("rep", 1).leader()).as("rep-1 stays on broker 1").isEqualTo(1);
            assertThat(cluster.await(producer.send("rep", 1, null, "after", -1, 30_000)).error()).isEqualTo(Errors.NONE);
            assertThat(leader.status()).isEqualTo(BrokerStatus.RUNNING);

            leader.kill();
            leader.replaceDisk(failing);
            assertThat(leader.logDirs().get(failing)).isEmptyDirectory();
            leader.restart();

            assertThat(leader.diskFailure(failing)).as("a restart brings a healthy disk").isEmpty();
            assertThat(cluster.runUntil(() -> cluster.admin().isr("rep", 0).contains(1)
                    && cluster.admin().isr("rep", 1).contains(1), 60_000))
                    .as("broker 1 rejoins both ISRs: %s", cluster.describe("rep")).isTrue();
            assertThat(cluster.admin().records(1, "rep", 0)).extracting(ConsumedRecord::value)
                    .containsExactly("v0", "v1", "v2", "v3", "v4", "after");
            assertThat(cluster.broker(1).replicaManager().orElseThrow().offlineLogDirectories()).isEmpty();
        }
    }

    @Test
    @DisplayName("LDR-4 LDR-5 a controlled shutdown whose clean close meets the failed disk still ends; only the healthy"
            + " directory keeps a clean-shutdown marker, so the next start counts as unclean")
    void controlledShutdownOverAFailedDiskEnds() {
        try (InMemoryCluster cluster = InMemoryCluster.builder().brokers(3).seed(7).logDirsPerBroker(2)
                .config("min.insync.replicas", 2).build()) {
            cluster.createTopic("rep", List.of(List.of(1, 2, 3), List.of(1, 2, 3)));
            TestProducer producer = cluster.producer("p1");
            for (int p = 0; p < 2; p++) {
                assertThat(cluster.await(producer.send("rep", p, null, "v", -1, 30_000)).error()).isEqualTo(Errors.NONE);
            }
            BrokerHandle broker = cluster.broker(2);
            // Fails at the first flush: no follower append or checkpoint flushes before the clean close does.
            broker.failDisk(0, StorageOperation.Kind.FLUSH);

            var down = broker.controlledShutdown();
            assertThat(cluster.runUntil(down::isDone, 30_000)).as("the controlled shutdown ends").isTrue();

            assertThat(down).isCompleted();
            assertThat(broker.status()).isEqualTo(BrokerStatus.DOWN);
            assertThat(broker.diskFailure(0)).isPresent();
            assertThat(broker.logDirs().get(0).resolve(CleanShutdownFile.FILE_NAME)).doesNotExist();
            assertThat(broker.logDirs().get(1).resolve(CleanShutdownFile.FILE_NAME)).exists();
            broker.restart();
            assertThat(cluster.runUntil(() -> cluster.admin().isr("rep", 0).contains(2)
                    && cluster.admin().isr("rep", 1).contains(2), 60_000)).as(cluster.describe("rep")).isTrue();
        }
    }

    @Test
    @DisplayName("LDR-5 a disk that fails first at the directory fsync after the clean-shutdown marker's rename leaves"
            + " the marker in place, and the testkit tells so (markerInPlace in the simulator's disk-offline line)")
    void directoryFsyncAfterTheMarkersRenameLeavesATrueMarker() {
        try (InMemoryCluster cluster = InMemoryCluster.builder().brokers(3).seed(7).logDirsPerBroker(2)
                .config("min.insync.replicas", 2).build()) {
            cluster.createTopic("rep", List.of(List.of(1, 2, 3)));
            TestProducer producer = cluster.producer("p1");
            assertThat(cluster.await(producer.send("rep", 0, null, "v", -1, 30_000)).error()).isEqualTo(Errors.NONE);
            BrokerHandle broker = cluster.broker(2);
            ReplicaManager rm = broker.replicaManager().orElseThrow();
            // The directory without the partition: once its (empty) checkpoints are written (the HW and
            // recovery-point checkpoint intervals, 5 s and 60 s), its next directory fsync is the marker's.
            cluster.runFor(70_000);
            int empty = 1 - broker.logDirs().indexOf(dirOf(rm, PARTITIONS.get(0)));
            broker.failDisk(empty, StorageOperation.Kind.DIRECTORY_FSYNC);

            var down = broker.controlledShutdown();
            assertThat(cluster.runUntil(down::isDone, 30_000)).as("the controlled shutdown ends").isTrue();

            assertThat(broker.diskFailure(empty)).hasValueSatisfying(op ->
                    assertThat(op.kind()).isEqualTo(StorageOperation.Kind.DIRECTORY_FSYNC));
            assertThat(broker.diskOperationBeforeFailure(empty)).hasValueSatisfying(op -> {
                assertThat(op.kind()).isEqualTo(StorageOperation.Kind.WRITE);
                assertThat(op.file().getFileName()).hasToString(CleanShutdownFile.FILE_NAME);
            });
            assertThat(broker.logDirs().get(empty).resolve(CleanShutdownFile.FILE_NAME)).exists();
            broker.restart();
            assertThat(broker.diskOperationBeforeFailure(empty)).as("a restart brings a healthy disk").isEmpty();
        }
    }

    @Test
    @DisplayName("§9 ISR-8 a directory that fails at start-up, before the metadata load, keeps its partitions offline:"
            + " no empty log is created for them in the healthy directory, and the broker leaves their ISR and ELR")
    void directoryFailedBeforeTheMetadataLoadKeepsItsPartitionsOffline() {
        try (InMemoryCluster cluster = InMemoryCluster.builder().brokers(3).seed(5).logDirsPerBroker(2)
                .config("min.insync.replicas", 2).build()) {
            TestProducer producer = topicWithFiveRecordsEach(cluster);
            BrokerHandle broker = cluster.broker(3);
            ReplicaManager before = broker.replicaManager().orElseThrow();
            int failing = broker.logDirs().indexOf(dirOf(before, PARTITIONS.get(0)));
            Path healthy = broker.logDirs().get(1 - failing);
            assertThat(dirOf(before, PARTITIONS.get(1))).isEqualTo(healthy);
            var down = broker.controlledShutdown();
            assertThat(cluster.runUntil(down::isDone, 30_000)).as("the controlled shutdown ends").isTrue();

            // The controller is away while the broker starts, so the directory fails (at the first
            // high-watermark checkpoint's flush) before any partition of the metadata is applied.
            cluster.pauseController();
            broker.restart();
            broker.failDisk(failing, StorageOperation.Kind.FLUSH);
            ReplicaManager rm = broker.replicaManager().orElseThrow();
            assertThat(cluster.runUntil(() -> !rm.offlineLogDirectories().isEmpty(), 30_000)).isTrue();
            assertThat(rm.offlineReplicas()).as("nothing hosted yet").isEmpty();
            cluster.resumeController();

            assertThat(cluster.runUntil(() -> cluster.admin().isr("rep", 1).contains(3), 60_000))
                    .as("the healthy directory's partition is back in sync: %s", cluster.describe("rep")).isTrue();
            cluster.runFor(10_000);
            assertThat(rm.offlineReplicas()).containsExactly(PARTITIONS.get(0));
            assertThat(rm.partition(PARTITIONS.get(0))).as("no replica without its log").isEmpty();
            assertThat(healthy.resolve("rep-0")).as("no empty log in the healthy directory").doesNotExist();
            assertThat(cluster.admin().isr("rep", 0)).doesNotContain(3);
            assertThat(cluster.admin().partition("rep", 0).elr()).doesNotContain(3);
            assertThat(cluster.await(producer.send("rep", 0, null, "after", -1, 30_000)).error()).isEqualTo(Errors.NONE);
        }
    }

    @Test
    @DisplayName("a disk fault needs a live broker and a known directory; a disk is replaced only while the broker is down")
    void badUseIsRefused() throws Exception {
        try (InMemoryCluster cluster = InMemoryCluster.builder().brokers(3).seed(3).logDirsPerBroker(2).build()) {
            Path dir = cluster.broker(2).logDirs().get(1);
            Files.writeString(dir.resolve("keep.txt"), "x");

            assertThatThrownBy(() -> cluster.failDisk(2, 2, StorageOperation.Kind.FLUSH))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0..1");
            assertThatThrownBy(() -> cluster.replaceDisk(2, 1)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("RUNNING");
            assertThat(dir.resolve("keep.txt")).exists();
            cluster.kill(2);
            assertThatThrownBy(() -> cluster.failDisk(2, 0, StorageOperation.Kind.WRITE))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("down");
        }
    }

    /** Topic rep, replicas 1,2,3 for both partitions, with v0..v4 written acks=all to each. */
    private static TestProducer topicWithFiveRecordsEach(InMemoryCluster cluster) {
        cluster.createTopic("rep", List.of(List.of(1, 2, 3), List.of(1, 2, 3)));
        TestProducer producer = cluster.producer("p1");
        for (int i = 0; i < 5; i++) {
            for (TopicPartition tp : PARTITIONS) {
                assertThat(cluster.await(producer.send("rep", tp.partition(), null, "v" + i, -1, 30_000)).error())
                        .isEqualTo(Errors.NONE);
            }
        }
        return producer;
    }

    private static Path dirOf(ReplicaManager rm, TopicPartition tp) {
        return rm.logDirectoryOf(tp).map(LogDirectory::path).orElseThrow();
    }
}
