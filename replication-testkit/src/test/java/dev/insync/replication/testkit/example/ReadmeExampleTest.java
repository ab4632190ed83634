package dev.insync.replication.testkit.example;

import dev.insync.replication.log.Errors;
import dev.insync.replication.testkit.cluster.InMemoryCluster;
import dev.insync.replication.testkit.cluster.ProduceOutcome;
import dev.insync.replication.testkit.cluster.TestProducer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** acks=all waits for the ISR to shrink, not for a paused follower (ISR-1, PRO-3). */
class ReadmeExampleTest {

    @Test
    void acksAllWaitsForTheIsrShrinkNotForThePausedFollower() {
        try (InMemoryCluster cluster = InMemoryCluster.builder().brokers(3).seed(42)
                .config("replica.lag.time.max.ms", 5_000).build()) {
            cluster.createTopic("orders", 1, 2, 3);
            TestProducer producer = cluster.producer("app");
            cluster.await(producer.send("orders", 0, "k", "first", -1, 30_000));

            cluster.pause(3);                                   // SIGSTOP a follower
            long pausedAt = cluster.nowMs();
            ProduceOutcome outcome = cluster.await(producer.send("orders", 0, "k", "second", -1, 30_000));

            assertThat(outcome.error()).isEqualTo(Errors.NONE);
            assertThat(cluster.nowMs() - pausedAt).isGreaterThanOrEqualTo(5_000);   // waited for the lag time
            assertThat(cluster.admin().isr("orders", 0)).containsExactly(1, 2);    // ...and the shrink
        }
    }
}
