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
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** The faults the simulator injects beyond pause, kill and cuts, each on a directed schedule. */
class ClusterFaultsTest {

    private static InMemoryCluster.Builder cluster() {
        return InMemoryCluster.builder().brokers(3).seed(3).config("min.insync.replicas", 2);
    }

    @Test
    @DisplayName("PRO-5 an acks=all request times out on the leader's monotonic clock, even when its wall clock steps back")
    void produceTimeoutIgnoresWallClockSteps() {
        try (InMemoryCluster cluster = cluster().build()) {
            cluster.createTopic("t", 1, 2, 3);
            TestProducer p = cluster.producer("p");
            assertThat(cluster.await(p.send("t", 0, null, "warm-up", -1, 5_000)).isSuccess()).isTrue();
            cluster.pause(2);
            cluster.pause(3);
            cluster.jumpClock(1, -60_000);
            long start = cluster.nowMs();
            CompletableFuture<ProduceOutcome> stuck = p.send("t", 0, null, "stuck", -1, 3_000);
            ProduceOutcome outcome = cluster.await(stuck, 10_000);
            long took = cluster.nowMs() - start;

            assertThat(outcome.error()).isEqualTo(Errors.REQUEST_TIMED_OUT);
            // The broker's own answer (at ~3 s), not the client's deadline (3 s + slack).
            assertThat(took).isGreaterThanOrEqualTo(3_000).isLessThan(3_000 + TestProducer.CLIENT_DEADLINE_SLACK_MS);
        }
    }

    @Test
    @DisplayName("LOG-7 a bit flipped in a crashed broker's data above its recovery point is found at recovery and the log is cut there")
    void bitFlipIsFoundAtRecovery() {
        try (InMemoryCluster cluster = cluster().config("segment.bytes", 1024).build()) {
            cluster.createTopic("t", 1, 2, 3);
            TestProducer p = cluster.producer("p");
            for (int i = 0; i < 40; i++) {
                assertThat(cluster.await(p.send("t", 0, null, "v" + i, -1, 5_000)).isSuccess()).isTrue();
            }
            long leo = cluster.admin().logEndOffset(3, "t", 0);
            cluster.kill(3);
            Optional<BitFlip.Flipped> flipped = cluster.flipBitAboveRecoveryPoint(3, new SplittableRandom(1));
            assertThat(flipped).isPresent();
            assertThat(flipped.get().topicPartition()).isEqualTo(new TopicPartition("t", 0));
            cluster.restart(3); // opens and recovers the log directory at once
            assertThat(cluster.admin().logEndOffset(3, "t", 0)).as("cut at the flipped batch")
                    .isLessThanOrEqualTo(flipped.get().batchBaseOffset()).isLessThan(leo);
            // Then it catches up from the leader and rejoins the ISR.
            assertThat(cluster.runUntil(() -> cluster.admin().isr("t", 0).size() == 3
                    && cluster.admin().logEndOffset(3, "t", 0) == leo, 30_000)).isTrue();
            assertThat(cluster.admin().records(3, "t", 0)).extracting(ConsumedRecord::value)
                    .isEqualTo(cluster.admin().records(1, "t", 0).stream().map(ConsumedRecord::value).toList());
        }
    }

    @Test
    @DisplayName("message loss on a broker's links: requests time out at the caller and replication recovers once it ends")
    void lossyLinksRecover() {
        try (InMemoryCluster cluster = cluster().config("request.timeout.ms", 2_000).build()) {
            cluster.createTopic("t", 1, 2, 3);
            TestProducer p = cluster.producer("p");
            cluster.setLinksOf(3, new dev.insync.replication.testkit.network.LinkConfig(1, 1, 1.0));
            for (int i = 0; i < 5; i++) {
                assertThat(cluster.await(p.send("t", 0, null, "v" + i, -1, 15_000)).isSuccess()).isTrue();
            }
            assertThat(cluster.admin().isr("t", 0)).doesNotContain(3);
            cluster.resetLinks();
            assertThat(cluster.runUntil(() -> cluster.admin().isr("t", 0).size() == 3
                    && cluster.admin().logEndOffset(3, "t", 0) == 5, 60_000)).isTrue();
            assertThat(cluster.admin().records(3, "t", 0)).extracting(ConsumedRecord::value)
                    .containsExactly("v0", "v1", "v2", "v3", "v4");
        }
    }
}
