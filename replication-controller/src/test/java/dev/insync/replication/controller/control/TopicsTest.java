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
import dev.insync.replication.controller.record.TopicRecord;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
        assertThat(batch.records().get(0)).isEqualTo(new TopicRecord("t", 2));
        assertThat(batch.records().get(1)).isEqualTo(ConfigRecord.minInsyncReplicas("t", 2));
        assertThat(batch.records().get(2)).isEqualTo(ConfigRecord.uncleanLeaderElection("t", false));
        assertThat(h.deltas.get(h.deltas.size() - 1).partitions()).isEqualTo(created);
        assertThat(h.deltas.get(h.deltas.size() - 1).minInsyncReplicasByTopic()).containsEntry("t", 2);
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
