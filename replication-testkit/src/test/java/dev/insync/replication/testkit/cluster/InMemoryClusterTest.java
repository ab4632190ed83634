package dev.insync.replication.testkit.cluster;

import dev.insync.replication.log.Errors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class InMemoryClusterTest {

    @Test
    @DisplayName("PRO-3 acks=all records replicate to every broker and raise the HW on all of them")
    void replicatesAndCommits() {
        try (InMemoryCluster cluster = InMemoryCluster.builder().brokers(3).seed(7).build()) {
            cluster.createTopic("rep", 1, 2, 3);
            TestProducer producer = cluster.producer("p1");
            for (int i = 0; i < 10; i++) {
                ProduceOutcome outcome = cluster.await(producer.send("rep", 0, null, "v" + i, -1, 30_000));
                assertThat(outcome.error()).isEqualTo(Errors.NONE);
                assertThat(outcome.offset()).isEqualTo(i);
            }
            cluster.runFor(2_000);
            for (int broker : List.of(1, 2, 3)) {
                assertThat(cluster.admin().highWatermark(broker, "rep", 0)).as("HW of broker " + broker).isEqualTo(10);
                assertThat(cluster.admin().records(broker, "rep", 0)).extracting(ConsumedRecord::value)
                        .containsExactly("v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9");
            }
            TestConsumer consumer = cluster.consumer("c1");
            assertThat(cluster.await(consumer.poll("rep", 0))).hasSize(10);
            assertThat(cluster.describe("rep")).contains("Leader: 1", "Isr: 1,2,3");
        }
    }
}
