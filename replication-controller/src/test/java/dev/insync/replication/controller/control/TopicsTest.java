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

import dev.insync.replication.controller.api.AlterTopicConfigRequest;
import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.controller.record.ConfigRecord;
import dev.insync.replication.controller.record.RemoveTopicRecord;
import dev.insync.replication.controller.record.TopicRecord;
import dev.insync.replication.controller.state.ControllerState;
import dev.insync.replication.controller.state.MetadataReplayException;
import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionRequest.BrokerState;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

class TopicsTest {

    private final ControllerFixture h = new ControllerFixture();

    private void refused(CreateTopicRequest request, String message) {
        long offset = h.latestOffset();
        assertThatThrownBy(() -> ReplicationControl.createTopic(h.state, request, h.config))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.INVALID_REQUEST))
                .hasMessageContaining(message);
        assertThat(h.latestOffset()).isEqualTo(offset);
    }

    @Test
    @DisplayName("CTL-2 a topic is one batch: TopicRecord, both configs written explicitly, one PartitionRecord per partition")
    void creationBatch() {
        h.startBrokers(1, 2, 3);
        List<PartitionRegistration> created = h.createTopic("t", List.of(List.of(1, 2), List.of(2, 3)), 2, false);
        assertThat(created).extracting(PartitionRegistration::leader).containsExactly(1, 2);
        var batch = h.log.get(h.log.size() - 1);
        assertThat(batch.records()).hasSize(5);
        assertThat(batch.records().get(0)).isEqualTo(new TopicRecord("t", 2, TopicRecord.idFor("t", batch.baseOffset())));
        assertThat(batch.records().get(1)).isEqualTo(ConfigRecord.minInsyncReplicas("t", 2));
        assertThat(batch.records().get(2)).isEqualTo(ConfigRecord.uncleanLeaderElection("t", false));
        assertThat(h.deltas.get(h.deltas.size() - 1).partitions()).isEqualTo(created);
        assertThat(h.deltas.get(h.deltas.size() - 1).minInsyncReplicasByTopic()).containsEntry("t", 2);
        assertThat(h.deltas.get(h.deltas.size() - 1).topicIds()).containsExactly(entry("t", TopicRecord.idFor("t",
                batch.baseOffset())));
    }

    @Test
    @DisplayName("CTL-2 deleting a topic is one RemoveTopicRecord: topic, configs and partitions leave the state and the delta deletes every partition")
    void deleteTopic() {
        h.startBrokers(1, 2, 3);
        h.createTopic("t", List.of(List.of(1, 2), List.of(2, 3)), 2, false);
        h.createTopic("u", List.of(List.of(3)), 1, false);
        UUID id = h.state.topic("t").topicId();
        h.commit(ReplicationControl.deleteTopic(h.state, "t"));
        var batch = h.log.get(h.log.size() - 1);
        assertThat(batch.records()).containsExactly(new RemoveTopicRecord("t", id));
        MetadataDelta delta = h.deltas.get(h.deltas.size() - 1);
        assertThat(delta.deletedPartitions()).containsExactly(new TopicPartition("t", 0), new TopicPartition("t", 1));
        assertThat(delta.partitions()).isEmpty();
        assertThat(h.state.topic("t")).isNull();
        assertThat(h.state.partitionsOf("t")).isEmpty();
        assertThat(h.state.partitions()).extracting(PartitionRegistration::topicPartition)
                .containsExactly(new TopicPartition("u", 0));
        // A replica's ISR proposal for the deleted partition is refused, not applied to a later topic of the name.
        var item = new AlterPartitionRequest.Item(new TopicPartition("t", 0), 0, 0,
                List.of(new BrokerState(1, h.epochs.get(1))), false);
        assertThat(h.alter(1, item).error()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        assertThatThrownBy(() -> ReplicationControl.deleteTopic(h.state, "t"))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION));
    }

    @Test
    @DisplayName("CTL-1 a topic created again under a deleted name has a new id, fresh epochs and configs, and replay and a snapshot agree")
    void recreateAfterDelete() {
        h.startBrokers(1, 2, 3);
        h.createTopic("t", List.of(List.of(1, 2, 3)), 2, false);
        UUID first = h.state.topic("t").topicId();
        h.fence(1); // leader epoch 1
        h.commit(ReplicationControl.deleteTopic(h.state, "t"));
        h.createTopic("t", List.of(List.of(2, 3)), 1, true);
        UUID second = h.state.topic("t").topicId();
        assertThat(second).isNotEqualTo(first);
        assertThat(h.state.topic("t").minInsyncReplicas()).isEqualTo(1);
        assertThat(h.state.topic("t").uncleanLeaderElection()).isTrue();
        assertThat(h.state.partition(new TopicPartition("t", 0)).leaderEpoch()).isZero();
        assertThat(h.deltas.get(h.deltas.size() - 1).topicIds()).containsExactly(entry("t", second));

        ControllerState replayed = new ControllerState();
        h.log.forEach(replayed::replay);
        assertThat(replayed.canonicalDump()).isEqualTo(h.state.canonicalDump());
        assertThat(ControllerState.load(h.state.snapshot()).canonicalDump()).isEqualTo(h.state.canonicalDump());
        assertThat(h.state.image().topicIds()).containsExactly(entry("t", second));
    }

    @Test
    @DisplayName("CTL-2 replay refuses a RemoveTopicRecord of an unknown topic or of another id of the name, naming the offset")
    void removeTopicMustFit() {
        h.startBrokers(1);
        h.createTopic("t", List.of(List.of(1)), 1, false);
        long next = h.state.nextOffset();
        ControllerState copy = h.state.copy();
        assertThatThrownBy(() -> copy.replay(next, new RemoveTopicRecord("t", new UUID(1, 2))))
                .isInstanceOf(MetadataReplayException.class).hasMessageContaining("offset " + next)
                .hasMessageContaining("its id is");
        ControllerState other = h.state.copy();
        assertThatThrownBy(() -> other.replay(next, new RemoveTopicRecord("x", new UUID(1, 2))))
                .isInstanceOf(MetadataReplayException.class).hasMessageContaining("unknown topic x");
    }

    @Test
    @DisplayName("deleting a topic clears brokers' offline replicas of it, so a later topic of the name does not inherit them")
    void deleteClearsOfflineReplicas() {
        h.startBrokers(1, 2);
        h.createTopic("t", List.of(List.of(1, 2)), 1, false);
        TopicPartition tp = new TopicPartition("t", 0);
        h.heartbeat(new HeartbeatRequest(1, h.epochs.get(1), h.state.lastOffset(), false, List.of(tp)));
        assertThat(h.state.broker(1).isOffline(tp)).isTrue();
        h.commit(ReplicationControl.deleteTopic(h.state, "t"));
        assertThat(h.state.broker(1).offlineReplicas()).isEmpty();
        h.createTopic("t", List.of(List.of(1, 2)), 1, false);
        assertThat(h.state.partition(tp).isr()).containsExactly(1, 2);
    }

    @Test
    @DisplayName("a new partition's ISR is its active replicas, its leader the first of them, epochs 0")
    void activeReplicasOnly() {
        h.startBrokers(1, 2, 3);
        h.fence(1);
        PartitionRegistration p = h.createTopic("t", List.of(List.of(1, 2, 3)), 1, false).get(0);
        assertThat(p.isr()).containsExactly(2, 3);
        assertThat(p.leader()).isEqualTo(2);
        assertThat(p.leaderEpoch()).isZero();
        assertThat(p.partitionEpoch()).isZero();
    }

    @Test
    @DisplayName("invalid topics are refused with INVALID_REQUEST naming the problem, and write nothing")
    void invalidTopics() {
        h.startBrokers(1, 2);
        h.createTopic("t", List.of(List.of(1)), 1, false);
        refused(CreateTopicRequest.withAssignment("t", List.of(List.of(1)), Map.of()), "already exists");
        refused(CreateTopicRequest.withAssignment("bad name", List.of(List.of(1)), Map.of()), "Invalid topic name");
        refused(CreateTopicRequest.withAssignment("u", List.of(), Map.of()), "at least one partition");
        refused(CreateTopicRequest.withAssignment("u", List.of(List.of(1, 1)), Map.of()), "Invalid replica assignment");
        refused(CreateTopicRequest.withAssignment("u", List.of(List.of()), Map.of()), "Invalid replica assignment");
        refused(CreateTopicRequest.withAssignment("u", List.of(List.of(7)), Map.of()), "not registered");
        refused(CreateTopicRequest.withAssignment("u", List.of(List.of(1)), Map.of("retention.ms", "1")), "Unknown topic config");
        refused(CreateTopicRequest.withAssignment("u", List.of(List.of(1)), Map.of("min.insync.replicas", "0")),
                "min.insync.replicas");
        refused(CreateTopicRequest.withPlacement("u", 3, 3, Map.of()), "replication factor 3");
        h.fence(1);
        h.fence(2);
        refused(CreateTopicRequest.withAssignment("u", List.of(List.of(1, 2)), Map.of()), "is active");
    }

    @Test
    @DisplayName("placement spreads leaders and followers round-robin over the unfenced brokers, deterministically")
    void placement() {
        h.startBrokers(1, 2, 3);
        List<PartitionRegistration> created = h.commit(ReplicationControl.createTopic(h.state,
                CreateTopicRequest.withPlacement("p", 6, 2, Map.of()), h.config));
        assertThat(created).extracting(PartitionRegistration::replicas).containsExactly(
                List.of(1, 2), List.of(2, 3), List.of(3, 1), List.of(1, 3), List.of(2, 1), List.of(3, 2));
        h.fence(3);
        List<PartitionRegistration> second = h.commit(ReplicationControl.createTopic(h.state,
                CreateTopicRequest.withPlacement("q", 2, -1, Map.of()), h.config));
        assertThat(second).extracting(PartitionRegistration::replicas).containsExactly(List.of(1), List.of(2));
    }

    @Test
    @DisplayName("alterTopicConfig refuses an unknown topic, an unknown config and a bad value")
    void alterConfigErrors() {
        h.startBrokers(1);
        h.createTopic("t", List.of(List.of(1)), 1, false);
        assertThatThrownBy(() -> ReplicationControl.alterTopicConfig(h.state, new AlterTopicConfigRequest("x", "min.insync.replicas", "2")))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION));
        assertThatThrownBy(() -> ReplicationControl.alterTopicConfig(h.state, new AlterTopicConfigRequest("t", "foo", "2")))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.INVALID_REQUEST));
        assertThatThrownBy(() -> ReplicationControl.alterTopicConfig(h.state,
                new AlterTopicConfigRequest("t", "unclean.leader.election.enable", "yes")))
                .isInstanceOf(ApiException.class).hasMessageContaining("true or false");
    }
}
