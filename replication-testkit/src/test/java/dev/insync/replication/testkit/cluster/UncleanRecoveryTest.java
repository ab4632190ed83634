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

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * CTL-6 end to end: after an unclean election the new leader reports the partition recovered, the controller
 * leaves RECOVERING, the ISR grows back by ISR-2 and acks=all works again under min ISR 2.
 */
class UncleanRecoveryTest {

    @Test
    @DisplayName("CTL-6 ISR-8 after an unclean election the partition leaves RECOVERING, the ISR regrows and acks=all succeeds again")
    void uncleanlyElectedLeaderRecovers() {
        try (InMemoryCluster cluster = InMemoryCluster.builder().brokers(3).seed(21)
                .config("unclean.leader.election.enable", true)
                .config("min.insync.replicas", 2)
                .config("replica.lag.time.max.ms", 2_000)
                .config("broker.session.timeout.ms", 3_000)
                .build()) {
            cluster.createTopic("rep", 1, 2, 3);
            TestProducer producer = cluster.producer("p1");
            assertThat(cluster.await(producer.send("rep", 0, null, "both", -1, 30_000)).error()).isEqualTo(Errors.NONE);

            // Broker 3 still heartbeats but cannot fetch: it falls out of the ISR and misses what follows.
            cluster.partition(1, 3);
            cluster.partition(2, 3);
            ProduceOutcome missed = cluster.await(producer.send("rep", 0, null, "missed-by-3", -1, 30_000));
            assertThat(missed.error()).isEqualTo(Errors.NONE);
            assertThat(cluster.admin().isr("rep", 0)).containsExactly(1, 2);

            // Both in-sync replicas die: the out-of-sync broker 3 is the only candidate, elected uncleanly.
            cluster.kill(1);
            cluster.kill(2);
            cluster.heal();
            assertThat(cluster.runUntil(() -> cluster.admin().partition("rep", 0).leader() == 3, 30_000)).isTrue();
            assertThat(cluster.controller().history(new TopicPartition("rep", 0)))
                    .as("ISR-8: elected with ISR {3} in RECOVERING")
                    .anyMatch(p -> p.leader() == 3 && p.isr().equals(List.of(3)) && p.recovering());

            // CTL-6: the new leader reports the recovery; the controller leaves RECOVERING.
            assertThat(cluster.runUntil(() -> !cluster.admin().partition("rep", 0).recovering(), 10_000)).isTrue();
            assertThat(cluster.admin().partition("rep", 0).isr()).containsExactly(3);
            assertThat(cluster.runUntil(() -> !cluster.admin().partitionState(3, "rep", 0).orElseThrow().isRecovering(),
                    10_000)).as("the leader learns its report was committed").isTrue();

            // The old replicas come back, truncate to the new leader's log and rejoin through ISR-2.
            cluster.restart(1);
            cluster.restart(2);
            assertThat(cluster.runUntil(() -> cluster.admin().isr("rep", 0).size() == 3, 30_000))
                    .as("ISR regrows to every replica: %s", cluster.describe("rep")).isTrue();
            PartitionRegistration recovered = cluster.admin().partition("rep", 0);
            assertThat(recovered.isr()).containsExactly(1, 2, 3);
            assertThat(recovered.recovering()).isFalse();

            ProduceOutcome after = cluster.await(producer.send("rep", 0, null, "after-recovery", -1, 30_000));
            assertThat(after.error()).as("acks=all under min ISR 2 works again").isEqualTo(Errors.NONE);
            assertThat(cluster.runUntil(() -> List.of(1, 2, 3).stream()
                    .allMatch(b -> cluster.admin().highWatermark(b, "rep", 0) == after.offset() + 1), 10_000)).isTrue();
            for (int broker : List.of(1, 2, 3)) {
                assertThat(cluster.admin().records(broker, "rep", 0)).extracting(ConsumedRecord::value)
                        .as("broker %d converged on the new leader's log", broker)
                        .containsExactly("both", "after-recovery");
            }
        }
    }
}
