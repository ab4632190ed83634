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

    @Test
    @DisplayName("PRO-3 a real-time cluster on real threads replicates acks=all the same way")
    void realTimeClusterReplicates() {
        try (InMemoryCluster cluster = InMemoryCluster.builder().brokers(3).realTime()
                .config("replica.fetch.wait.max.ms", 50).build()) {
            cluster.createTopic("rt", 1, 2, 3);
            TestProducer producer = cluster.producer("p1");
            for (int i = 0; i < 20; i++) {
                ProduceOutcome outcome = cluster.await(producer.send("rt", 0, null, "v" + i, -1, 30_000), 30_000);
                assertThat(outcome.error()).isEqualTo(Errors.NONE);
                assertThat(outcome.offset()).isEqualTo(i);
            }
            assertThat(cluster.runUntil(() -> cluster.admin().highWatermark(3, "rt", 0) == 20, 30_000)).isTrue();
        }
    }

    @Test
    @DisplayName("LOG-11 PRO-3 with flush.messages=1 a power loss of the leader right after acknowledged acks=1 produces keeps them in its own log")
    void acknowledgedAcksOneSurvivesLeaderPowerLoss() {
        try (InMemoryCluster cluster = InMemoryCluster.builder().brokers(3).seed(11).config("flush.messages", 1).build()) {
            cluster.createTopic("rep", 1, 2, 3);
            TestProducer producer = cluster.producer("p1");
            assertThat(cluster.await(producer.send("rep", 0, null, "warm", -1, 30_000)).error()).isEqualTo(Errors.NONE);
            // Only the leader's own disk can hold what follows.
            cluster.pause(2);
            cluster.pause(3);
            for (int i = 0; i < 5; i++) {
                ProduceOutcome outcome = cluster.await(producer.send("rep", 0, null, "acked-" + i, 1, 30_000));
                assertThat(outcome.error()).isEqualTo(Errors.NONE);
                assertThat(outcome.offset()).isEqualTo(1 + i);
            }

            cluster.powerLoss(1); // at once: no later event of broker 1 ran
            cluster.restart(1); // opening the log directory recovers it; nothing else has run yet
            assertThat(cluster.admin().records(1, "rep", 0)).extracting(ConsumedRecord::value)
                    .containsExactly("warm", "acked-0", "acked-1", "acked-2", "acked-3", "acked-4");
        }
    }

    @Test
    @DisplayName("ISR-1 a paused follower leaves the ISR once it lags; acks=all waits for the shrink, not for the follower")
    void pausedFollowerIsShrunk() {
        try (InMemoryCluster cluster = InMemoryCluster.builder().brokers(3).seed(3)
                .config("replica.lag.time.max.ms", 5000).build()) {
            cluster.createTopic("rep", 1, 2, 3);
            TestProducer producer = cluster.producer("p1");
            cluster.await(producer.send("rep", 0, null, "warm", -1, 30_000));
            cluster.pause(3);
            long pausedAt = cluster.nowMs();
            ProduceOutcome outcome = cluster.await(producer.send("rep", 0, null, "v", -1, 30_000));
            long waitedMs = cluster.nowMs() - pausedAt;
            assertThat(outcome.error()).isEqualTo(Errors.NONE);
            assertThat(waitedMs).isBetween(5_000L, 7_500L + 1_000L);
            assertThat(cluster.admin().isr("rep", 0)).containsExactly(1, 2);
            cluster.resume(3);
            assertThat(cluster.runUntil(() -> cluster.admin().isr("rep", 0).size() == 3, 10_000)).isTrue();
        }
    }
}
