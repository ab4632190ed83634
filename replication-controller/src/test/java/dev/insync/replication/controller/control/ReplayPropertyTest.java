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

package dev.insync.replication.controller.control;

import dev.insync.replication.controller.record.RandomRecords;
import dev.insync.replication.core.metadata.Endpoint;
import dev.insync.replication.controller.api.AlterTopicConfigRequest;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.controller.api.RegisterBrokerRequest;
import dev.insync.replication.controller.log.MetadataBatch;
import dev.insync.replication.controller.log.MetadataSnapshot;
import dev.insync.replication.controller.log.MetadataSnapshotSerde;
import dev.insync.replication.controller.state.BrokerEntry;
import dev.insync.replication.controller.state.ControllerState;
import dev.insync.replication.controller.state.TopicEntry;
import dev.insync.replication.core.config.ReplicationConfig;
import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionRequest.BrokerState;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

/**
 * CTL-1 as a property: random operation sequences (registrations clean and unclean, heartbeats
 * caught up, behind, stale, with shutdown or offline replicas, fencing, AlterPartitions valid and
 * not, topic creation, min ISR and unclean-election changes). Operations never write the state;
 * the state rebuilt by replaying the log from offset 0, and from a snapshot (through its bytes) at
 * a random batch plus the tail, equals the live one, and so do the deltas brokers would see.
 */
class ReplayPropertyTest {

    private static final int BROKERS = 5;

    @Test
    @DisplayName("CTL-1 LDR-4 property: replay from 0, and snapshot at a random offset plus the tail, rebuild the live state and deltas")
    void replayEqualsLive() {
        qt().withExamples(300)
                .forAll(lists().of(integers().all()).ofSizeBetween(1, 150), integers().between(0, 1_000))
                .checkAssert(ReplayPropertyTest::check);
    }

    private static void check(List<Integer> operations, int snapshotChoice) {
        ControllerFixture live = new ControllerFixture();
        int snapshotAfter = snapshotChoice % operations.size();
        MetadataSnapshot snapshot = null;
        int tailFrom = 0;
        for (int i = 0; i < operations.size(); i++) {
            step(live, new Random(operations.get(i)));
            assertInvariants(live.state);
            if (i == snapshotAfter) {
                snapshot = MetadataSnapshotSerde.decode(MetadataSnapshotSerde.encode(live.state.snapshot()), "test");
                tailFrom = live.log.size();
            }
        }
        String expected = live.state.canonicalDump();

        ControllerState fromZero = new ControllerState();
        List<MetadataDelta> replayedDeltas = new ArrayList<>();
        for (MetadataBatch batch : live.log) {
            replayedDeltas.add(fromZero.replay(batch));
        }
        assertThat(fromZero.canonicalDump()).isEqualTo(expected);
        assertThat(replayedDeltas).isEqualTo(live.deltas);

        ControllerState fromSnapshot = ControllerState.load(snapshot);
        List<MetadataDelta> tailDeltas = new ArrayList<>();
        for (MetadataBatch batch : live.log.subList(tailFrom, live.log.size())) {
            tailDeltas.add(fromSnapshot.replay(batch));
        }
        assertThat(fromSnapshot.canonicalDump()).isEqualTo(expected);
        assertThat(tailDeltas).isEqualTo(live.deltas.subList(tailFrom, live.deltas.size()));

        assertThat(ControllerState.load(live.state.snapshot()).canonicalDump()).isEqualTo(expected);
    }

    /** One random operation; an operation refused with an ApiException writes nothing, as the controller would. */
    private static void step(ControllerFixture h, Random r) {
        ControllerState s = h.state;
        int id = 1 + r.nextInt(BROKERS);
        Long epoch = h.epochs.get(id);
        switch (r.nextInt(12)) {
            case 0, 1 -> {
                long previous = epoch == null || r.nextInt(3) == 0 ? -1 : r.nextInt(4) == 0 ? epoch - 1 : epoch;
                boolean hb = h.heartbeated.remove(id);
                // LDR-4: each incarnation may advertise different endpoints (a restart on another port).
                List<Endpoint> endpoints = RandomRecords.endpoints(r);
                long newEpoch = pure(h, () -> ClusterControl.registerBroker(s,
                        new RegisterBrokerRequest(id, previous, endpoints), hb)).brokerEpoch();
                h.epochs.put(id, newEpoch);
            }
            case 2, 3, 4 -> {
                if (epoch != null) {
                    long offset = r.nextInt(4) == 0 ? epoch - 1 : s.lastOffset();
                    heartbeat(h, new HeartbeatRequest(id, epoch, offset, r.nextInt(8) == 0));
                }
            }
            case 5 -> {
                if (epoch != null && !s.partitions().isEmpty()) {
                    List<TopicPartition> offline = new ArrayList<>();
                    offline.add(randomPartition(s, r).topicPartition());
                    if (r.nextBoolean()) {
                        offline.add(new TopicPartition("unknown", 0));
                    }
                    heartbeat(h, new HeartbeatRequest(id, epoch, s.lastOffset(), false, offline));
                }
            }
            case 6 -> heartbeat(h, new HeartbeatRequest(id, epoch == null ? 0 : epoch - 1, s.lastOffset(), false));
            case 7 -> pure(h, () -> ClusterControl.fenceBroker(s, id, r.nextInt(4) == 0 ? -1 : epoch == null ? 0 : epoch));
            case 8, 9 -> {
                if (!s.partitions().isEmpty()) {
                    pure(h, () -> ReplicationControl.alterPartition(s, randomAlter(h, r)));
                }
            }
            case 10 -> {
                String topic = "t" + r.nextInt(4);
                CreateTopicRequest request;
                Map<String, String> configs = Map.of(
                        ReplicationConfig.MIN_INSYNC_REPLICAS, Integer.toString(1 + r.nextInt(3)),
                        ReplicationConfig.UNCLEAN_LEADER_ELECTION_ENABLE, Boolean.toString(r.nextInt(3) == 0));
                if (r.nextBoolean()) {
                    List<List<Integer>> assignment = new ArrayList<>();
                    for (int p = 0, n = 1 + r.nextInt(3); p < n; p++) {
                        List<Integer> ids = new ArrayList<>(List.of(1, 2, 3, 4, 5));
                        Collections.shuffle(ids, r);
                        assignment.add(ids.subList(0, 1 + r.nextInt(3)));
                    }
                    request = CreateTopicRequest.withAssignment(topic, assignment, configs);
                } else {
                    request = CreateTopicRequest.withPlacement(topic, 1 + r.nextInt(3), 1 + r.nextInt(3), configs);
                }
                pure(h, () -> ReplicationControl.createTopic(s, request, h.config));
            }
            default -> {
                if (!s.topics().isEmpty()) {
                    List<TopicEntry> topics = List.copyOf(s.topics());
                    String topic = topics.get(r.nextInt(topics.size())).name();
                    AlterTopicConfigRequest request = r.nextBoolean()
                            ? new AlterTopicConfigRequest(topic, ReplicationConfig.MIN_INSYNC_REPLICAS, Integer.toString(1 + r.nextInt(3)))
                            : new AlterTopicConfigRequest(topic, ReplicationConfig.UNCLEAN_LEADER_ELECTION_ENABLE,
                            Boolean.toString(r.nextBoolean()));
                    pure(h, () -> ReplicationControl.alterTopicConfig(s, request));
                }
            }
        }
    }

    private static void heartbeat(ControllerFixture h, HeartbeatRequest request) {
        BrokerEntry broker = h.state.broker(request.brokerId());
        if (broker != null && broker.brokerEpoch() == request.brokerEpoch()) {
            h.heartbeated.add(request.brokerId());
        }
        pure(h, () -> ClusterControl.heartbeat(h.state, request));
    }

    private static AlterPartitionRequest randomAlter(ControllerFixture h, Random r) {
        PartitionRegistration p = randomPartition(h.state, r);
        int sender = r.nextInt(5) > 0 && p.leader() >= 0 ? p.leader() : 1 + r.nextInt(BROKERS);
        List<Integer> isr = new ArrayList<>();
        for (int replica : p.replicas()) {
            if (replica == p.leader() ? r.nextInt(10) > 0 : r.nextBoolean()) {
                isr.add(replica);
            }
        }
        if (r.nextInt(10) == 0) {
            isr.add(9);
        }
        Collections.shuffle(isr, r);
        List<BrokerState> members = isr.stream().map(m -> new BrokerState(m, switch (r.nextInt(6)) {
            case 0 -> -1L;
            case 1 -> 12345L;
            default -> h.epochs.getOrDefault(m, -1L);
        })).toList();
        int leaderEpoch = p.leaderEpoch() + (r.nextInt(8) == 0 ? r.nextInt(3) - 1 : 0);
        int partitionEpoch = p.partitionEpoch() + (r.nextInt(8) == 0 ? r.nextInt(3) - 1 : 0);
        AlterPartitionRequest.Item item = new AlterPartitionRequest.Item(p.topicPartition(), leaderEpoch, partitionEpoch,
                members, r.nextInt(3) == 0);
        long senderEpoch = r.nextInt(10) == 0 ? 999_999 : h.epochs.getOrDefault(sender, -1L);
        return new AlterPartitionRequest(sender, senderEpoch, List.of(item));
    }

    private static PartitionRegistration randomPartition(ControllerState s, Random r) {
        List<PartitionRegistration> all = List.copyOf(s.partitions());
        return all.get(r.nextInt(all.size()));
    }

    /** Runs an operation, checks that it wrote nothing, then commits its records. */
    private static <T> T pure(ControllerFixture h, Supplier<ControllerResult<T>> operation) {
        String before = h.state.canonicalDump();
        ControllerResult<T> result;
        try {
            result = operation.get();
        } catch (ApiException refused) {
            assertThat(h.state.canonicalDump()).isEqualTo(before);
            return null;
        }
        assertThat(h.state.canonicalDump()).as("operations never write the state").isEqualTo(before);
        return h.commit(result);
    }

    /** ISR-7/ISR-8 invariants of every partition. */
    private static void assertInvariants(ControllerState s) {
        for (PartitionRegistration p : s.partitions()) {
            TopicEntry topic = s.topic(p.topicPartition().topic());
            for (int member : p.isr()) {
                assertThat(s.canServe(member, p.topicPartition())).as("ISR member %d of %s can serve", member, p).isTrue();
            }
            assertThat(p.leader() == PartitionRegistration.NO_LEADER).as("leaderless iff empty ISR: %s", p)
                    .isEqualTo(p.isr().isEmpty());
            if (p.isr().size() >= topic.effectiveMinIsr(p.replicas().size())) {
                assertThat(p.elr()).as("no ELR at min ISR: %s", p).isEmpty();
                assertThat(p.lastKnownElr()).as("no LastKnownElr at min ISR: %s", p).isEmpty();
            }
        }
    }
}
