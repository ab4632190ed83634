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
