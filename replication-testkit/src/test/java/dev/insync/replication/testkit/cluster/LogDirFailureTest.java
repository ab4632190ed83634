package dev.insync.replication.testkit.cluster;

import dev.insync.replication.core.server.ReplicaManager;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.LogDirectory;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * §9 end to end with two log directories per broker: one directory of the leader fails, the
 * controller learns it from the broker's heartbeat (KIP-858), leadership of that directory's
 * partitions moves away (ISR-8), acks=all keeps working, and the other directory's partitions stay
 * led by the same broker. The failure is injected by closing a log under the broker, after which
 * every access to it fails as a failed disk's would.
 */
class LogDirFailureTest {

    private static final List<TopicPartition> PARTITIONS = List.of(new TopicPartition("rep", 0),
            new TopicPartition("rep", 1), new TopicPartition("rep", 2), new TopicPartition("rep", 3));

    @Test
    @DisplayName("§9 ISR-8 a failed log directory of the leader moves leadership of its partitions only; acks=all keeps working")
    void failedDirectoryMovesLeadershipOfItsPartitionsOnly() {
        try (InMemoryCluster cluster = InMemoryCluster.builder().brokers(3).seed(5).logDirsPerBroker(2)
                .config("min.insync.replicas", 2).build()) {
            cluster.createTopic("rep", PARTITIONS.stream().map(tp -> List.of(1, 2, 3)).toList());
            TestProducer producer = cluster.producer("p1");
            for (TopicPartition tp : PARTITIONS) {
                assertThat(cluster.await(producer.send("rep", tp.partition(), null, "before", -1, 30_000)).error())
                        .isEqualTo(Errors.NONE);
            }
            ReplicaManager leader = cluster.broker(1).replicaManager().orElseThrow();
            Path failing = dirOf(leader, PARTITIONS.get(0));
            assertThat(dirOf(leader, PARTITIONS.get(2))).as("placement: fewest logs first").isEqualTo(failing);
            assertThat(dirOf(leader, PARTITIONS.get(1))).isNotEqualTo(failing);
            assertThat(dirOf(leader, PARTITIONS.get(3))).isNotEqualTo(failing);

            cluster.broker(1).log(PARTITIONS.get(0)).orElseThrow().close(); // the disk fails
            ProduceOutcome failed = cluster.await(producer.send("rep", 0, null, "fails", -1, 30_000));

            assertThat(failed.error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
            assertThat(leader.offlineReplicas()).containsExactly(PARTITIONS.get(0), PARTITIONS.get(2));
            assertThat(cluster.runUntil(() -> leaderOf(cluster, 0) != 1 && leaderOf(cluster, 2) != 1, 10_000))
                    .as("leadership of the failed directory's partitions moves: %s", cluster.describe("rep")).isTrue();
            for (int p : List.of(0, 2)) {
                assertThat(cluster.admin().isr("rep", p)).doesNotContain(1);
                cluster.awaitLeader("rep", p);
                assertThat(cluster.await(producer.send("rep", p, null, "after", -1, 30_000)).error())
                        .as("acks=all on the new leader of rep-%d", p).isEqualTo(Errors.NONE);
            }
            for (int p : List.of(1, 3)) {
                assertThat(leaderOf(cluster, p)).as("rep-%d stays led by broker 1", p).isEqualTo(1);
                assertThat(cluster.admin().isr("rep", p)).containsExactly(1, 2, 3);
                assertThat(cluster.await(producer.send("rep", p, null, "after", -1, 30_000)).error())
                        .isEqualTo(Errors.NONE);
            }
            assertThat(cluster.controller().broker(1).orElseThrow().fenced()).as("the broker keeps serving").isFalse();
            assertThat(cluster.broker(1).status()).isEqualTo(BrokerStatus.RUNNING);
        }
    }

    private static Path dirOf(ReplicaManager rm, TopicPartition tp) {
        return rm.logDirectoryOf(tp).map(LogDirectory::path).orElseThrow();
    }

    private static int leaderOf(InMemoryCluster cluster, int partition) {
        return cluster.admin().partition("rep", partition).leader();
    }
}
