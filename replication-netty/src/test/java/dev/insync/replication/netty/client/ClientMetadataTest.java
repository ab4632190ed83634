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

package dev.insync.replication.netty.client;

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.netty.protocol.MetadataResponse;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * The client's leader-epoch bookkeeping (KIP-320): a Metadata answer older than the epochs seen
 * does not route a partition, a newer or equal one does, per partition.
 */
class ClientMetadataTest {

    private static final TopicPartition A = new TopicPartition("t", 0);
    private static final TopicPartition B = new TopicPartition("t", 1);

    private static PartitionRegistration reg(TopicPartition tp, int leader, int leaderEpoch) {
        return PartitionRegistration.builder(tp).replicas(1, 2, 3).isr(1, 2, 3).leader(leader).leaderEpoch(leaderEpoch)
                .build();
    }

    private static MetadataResponse answer(PartitionRegistration... partitions) {
        Map<String, List<PartitionRegistration>> byTopic = new HashMap<>();
        for (PartitionRegistration p : partitions) {
            byTopic.computeIfAbsent(p.topicPartition().topic(), t -> new ArrayList<>()).add(p);
        }
        List<MetadataResponse.TopicMetadata> topics = new ArrayList<>();
        byTopic.forEach((t, ps) -> topics.add(new MetadataResponse.TopicMetadata(Errors.NONE, t, ps)));
        return new MetadataResponse(List.of(), -1, topics);
    }

    @Test
    @DisplayName("KIP-320 FET-2: an answer naming an older leader epoch than one seen keeps the newer route; a newer one replaces it")
    void staleAnswerKeepsTheNewerRoute() {
        ClientMetadata m = new ClientMetadata();
        assertThat(m.update(answer(reg(A, 2, 5)))).isEmpty();
        assertThat(m.route(A)).isEqualTo(reg(A, 2, 5));

        // A broker cut off from the controller still names itself leader in epoch 4.
        assertThat(m.update(answer(reg(A, 1, 4)))).containsExactly(A);
        assertThat(m.leaderOf(A)).isEqualTo(2);
        assertThat(m.route(A).leaderEpoch()).isEqualTo(5);
        assertThat(m.lastSeenEpoch(A)).isEqualTo(OptionalInt.of(5));

        // The same epoch (an ISR change) and a newer one are used.
        PartitionRegistration sameEpoch = PartitionRegistration.builder(A).replicas(1, 2, 3).isr(2, 3).leader(2)
                .leaderEpoch(5).partitionEpoch(3).build();
        assertThat(m.update(answer(sameEpoch))).isEmpty();
        assertThat(m.route(A)).isEqualTo(sameEpoch);
        assertThat(m.update(answer(reg(A, 3, 6)))).isEmpty();
        assertThat(m.leaderOf(A)).isEqualTo(3);
        assertThat(m.lastSeenEpoch(A)).isEqualTo(OptionalInt.of(6));
    }

    @Test
    @DisplayName("KIP-320: a route dropped after NOT_LEADER_OR_FOLLOWER keeps its epoch: a stale answer then leaves the partition unrouted")
    void forgottenRouteKeepsItsEpoch() {
        ClientMetadata m = new ClientMetadata();
        m.update(answer(reg(A, 2, 5)));
        m.forget(A);
        assertThat(m.route(A)).isNull();
        assertThat(m.update(answer(reg(A, 1, 4)))).containsExactly(A);
        assertThat(m.route(A)).as("never back to the replaced leader 1").isNull();
        assertThat(m.leaderOf(A)).isEqualTo(PartitionRegistration.NO_LEADER);
        assertThat(m.knowsTopic("t")).isTrue();
        assertThat(m.update(answer(reg(A, 2, 5)))).isEmpty();
        assertThat(m.leaderOf(A)).isEqualTo(2);
    }

    @Test
    @DisplayName("KIP-320: epochs are kept per partition: a stale answer for one partition does not hold back another")
    void perPartition() {
        ClientMetadata m = new ClientMetadata();
        m.update(answer(reg(A, 2, 5), reg(B, 1, 0)));
        assertThat(m.update(answer(reg(A, 1, 4), reg(B, 3, 1)))).containsExactly(A);
        assertThat(m.leaderOf(A)).isEqualTo(2);
        assertThat(m.leaderOf(B)).isEqualTo(3);
        assertThat(m.lastSeenEpoch(B)).isEqualTo(OptionalInt.of(1));
        assertThat(m.lastSeenEpoch(new TopicPartition("t", 2))).isEmpty();
    }

    @Test
    @DisplayName("KIP-320: an epoch learned from a produce answer or a fetched batch makes older metadata stale; -1 and repeats are not news")
    void epochFromRecords() {
        ClientMetadata m = new ClientMetadata();
        m.update(answer(reg(A, 2, 5)));
        assertThat(m.updateLastSeenEpochIfNewer(A, 5)).isFalse();
        assertThat(m.updateLastSeenEpochIfNewer(A, -1)).isFalse();
        assertThat(m.updateLastSeenEpochIfNewer(A, 4)).isFalse();
        assertThat(m.updateLastSeenEpochIfNewer(A, 6)).isTrue();
        assertThat(m.update(answer(reg(A, 2, 5)))).containsExactly(A);
        assertThat(m.route(A).leaderEpoch()).as("the route it had is kept").isEqualTo(5);
        assertThat(m.update(answer(reg(A, 2, 6)))).isEmpty();
        assertThat(m.route(A).leaderEpoch()).isEqualTo(6);
        assertThat(m.updateLastSeenEpochIfNewer(B, 0)).as("the first epoch of an unknown partition").isTrue();
    }

    @Test
    @DisplayName("KIP-320: a topic missing from an answer (a broker that does not know it yet) leaves it unrouted, its epochs kept")
    void unknownTopic() {
        ClientMetadata m = new ClientMetadata();
        m.update(answer(reg(A, 2, 5)));
        m.update(new MetadataResponse(List.of(), -1,
                List.of(new MetadataResponse.TopicMetadata(Errors.UNKNOWN_TOPIC_OR_PARTITION, "t", List.of()))));
        assertThat(m.route(A)).isNull();
        assertThat(m.knowsTopic("t")).isFalse();
        assertThat(m.update(answer(reg(A, 1, 3)))).containsExactly(A);
        assertThat(m.route(A)).isNull();
    }

    @Test
    @DisplayName("KIP-320 property: over random sequences of answers (stale, equal, newer), forgotten routes and epochs from records,"
            + " the epoch a partition is routed by never decreases, and an answer at or above every epoch seen is always used")
    void routedEpochNeverDecreases() {
        List<TopicPartition> tps = List.of(A, B, new TopicPartition("u", 0));
        qt().withFixedSeed(320L).withExamples(300).forAll(longs().all()).checkAssert(seed -> {
            Random random = new Random(seed);
            ClientMetadata m = new ClientMetadata();
            Map<TopicPartition, Integer> highestRouted = new HashMap<>();
            Map<TopicPartition, Integer> highestSeen = new HashMap<>();
            for (int step = 0; step < 40; step++) {
                int kind = random.nextInt(10);
                if (kind < 7) {
                    List<PartitionRegistration> ps = new ArrayList<>();
                    for (TopicPartition tp : tps) {
                        if (random.nextInt(4) > 0) {
                            ps.add(reg(tp, 1 + random.nextInt(3), random.nextInt(8)));
                        }
                    }
                    m.update(answer(ps.toArray(PartitionRegistration[]::new)));
                    for (PartitionRegistration p : ps) {
                        TopicPartition tp = p.topicPartition();
                        boolean fresh = p.leaderEpoch() >= highestSeen.getOrDefault(tp, -1);
                        assertThat(m.route(tp) == p).as("step %d: %s used iff not older than %s", step, p,
                                highestSeen.get(tp)).isEqualTo(fresh);
                        highestSeen.merge(tp, p.leaderEpoch(), Math::max);
                    }
                } else if (kind < 9) {
                    m.forget(tps.get(random.nextInt(tps.size())));
                } else {
                    TopicPartition tp = tps.get(random.nextInt(tps.size()));
                    int epoch = random.nextInt(8);
                    m.updateLastSeenEpochIfNewer(tp, epoch);
                    highestSeen.merge(tp, epoch, Math::max);
                }
                for (TopicPartition tp : tps) {
                    PartitionRegistration r = m.route(tp);
                    if (r != null) {
                        assertThat(r.leaderEpoch()).as("step %d: %s routed by a lower epoch than before", step, tp)
                                .isGreaterThanOrEqualTo(highestRouted.getOrDefault(tp, -1));
                        highestRouted.merge(tp, r.leaderEpoch(), Math::max);
                    }
                    assertThat(m.lastSeenEpoch(tp).orElse(-1)).isEqualTo(highestSeen.getOrDefault(tp, -1));
                }
            }
        });
    }
}
