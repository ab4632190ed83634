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

import dev.insync.replication.controller.record.PartitionChangeRecord;
import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionRequest.BrokerState;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static dev.insync.replication.controller.control.ControllerFixture.REP;
import static org.assertj.core.api.Assertions.assertThat;

/** ISR-6 on the pure state machine: every error, in order, and what a valid change writes. */
class AlterPartitionValidationTest {

    private final ControllerFixture h = new ControllerFixture();

    @BeforeEach
    void cluster() {
        h.startBrokers(1, 2, 3, 4);
        h.createRep(1, false, 1, 2, 3);
    }

    private AlterPartitionRequest.Item item(int leaderEpoch, int partitionEpoch, Integer... isr) {
        return new AlterPartitionRequest.Item(REP, leaderEpoch, partitionEpoch,
                Arrays.stream(isr).map(id -> new BrokerState(id, h.epochs.getOrDefault(id, -1L))).toList(), false);
    }

    private Errors error(int sender, AlterPartitionRequest.Item item) {
        return h.alter(sender, item).error();
    }

    /** Moves leadership to broker 2 (leader epoch 1) by fencing broker 1, then unfences it again. */
    private void bumpLeaderEpoch() {
        h.fence(1);
        assertThat(h.rep().leader()).isEqualTo(2);
        assertThat(h.heartbeat(1, false).fenced()).isFalse();
    }

    @Test
    @DisplayName("ISR-6 a stale sender broker epoch fails the whole request before any partition check, and writes nothing")
    void staleBrokerEpoch() {
        long before = h.latestOffset();
        AlterPartitionRequest.Item unknown = new AlterPartitionRequest.Item(new TopicPartition("nope", 0), 0, 0, List.of(), false);
        AlterPartitionResponse response = h.alterPartition(
                new AlterPartitionRequest(1, h.epochs.get(1) - 1, List.of(h.proposal(1, 2), unknown)));
        assertThat(response.error()).isEqualTo(Errors.STALE_BROKER_EPOCH);
        assertThat(response.partitions()).isEmpty();
        assertThat(h.rep().isr()).containsExactly(1, 2, 3);
        assertThat(h.latestOffset()).isEqualTo(before);
        // An unknown sender too.
        assertThat(h.alterPartition(new AlterPartitionRequest(9, 0, List.of(h.proposal(1, 2)))).error())
                .isEqualTo(Errors.STALE_BROKER_EPOCH);
    }

    @Test
    @DisplayName("ISR-6 an unknown partition is UNKNOWN_TOPIC_OR_PARTITION, other items of the batch still commit")
    void unknownPartition() {
        AlterPartitionRequest.Item unknown = new AlterPartitionRequest.Item(new TopicPartition("nope", 0), 0, 0,
                List.of(new BrokerState(1, h.epochs.get(1))), false);
        AlterPartitionResponse response = h.alterPartition(
                new AlterPartitionRequest(1, h.epochs.get(1), List.of(unknown, h.proposal(1, 2))));
        assertThat(response.error()).isEqualTo(Errors.NONE);
        assertThat(response.partitions().get(unknown.topicPartition()).error()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(response.partitions().get(REP).error()).isEqualTo(Errors.NONE);
        assertThat(h.rep().isr()).containsExactly(1, 2);
    }

    @Test
    @DisplayName("ISR-6 leader or partition epoch above the controller's is NOT_CONTROLLER, even from a non-leader")
    void notController() {
        assertThat(error(1, item(1, 0, 1, 2))).isEqualTo(Errors.NOT_CONTROLLER);
        assertThat(error(1, item(0, 1, 1, 2))).isEqualTo(Errors.NOT_CONTROLLER);
        // Checked before the sender-is-leader and the subset rules.
        assertThat(error(2, item(0, 5, 9))).isEqualTo(Errors.NOT_CONTROLLER);
        assertThat(h.rep().partitionEpoch()).isZero();
    }

    @Test
    @DisplayName("ISR-6 a leader epoch below the controller's is FENCED_LEADER_EPOCH, before the sender check")
    void fencedLeaderEpoch() {
        bumpLeaderEpoch();
        PartitionRegistration p = h.rep();
        // Broker 1 is no longer leader, but the stale epoch is reported first.
        assertThat(error(1, item(0, p.partitionEpoch(), 1, 2))).isEqualTo(Errors.FENCED_LEADER_EPOCH);
        assertThat(error(2, item(0, p.partitionEpoch() - 1, 2, 3))).isEqualTo(Errors.FENCED_LEADER_EPOCH);
    }

    @Test
    @DisplayName("ISR-6 a sender that is not the leader is INVALID_REQUEST, before the partition-epoch check")
    void senderNotLeader() {
        h.alter(1, h.proposal(1, 2));
        PartitionRegistration p = h.rep();
        assertThat(p.partitionEpoch()).isEqualTo(1);
        assertThat(error(2, item(p.leaderEpoch(), 0, 1, 2))).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(error(2, item(p.leaderEpoch(), 1, 1, 2, 3))).isEqualTo(Errors.INVALID_REQUEST);
    }

    @Test
    @DisplayName("ISR-6 a partition epoch below is INVALID_UPDATE_VERSION, before the subset check")
    void invalidUpdateVersion() {
        h.alter(1, h.proposal(1, 2));
        assertThat(error(1, item(0, 0, 1, 2, 3))).isEqualTo(Errors.INVALID_UPDATE_VERSION);
        assertThat(error(1, item(0, 0, 1, 9))).isEqualTo(Errors.INVALID_UPDATE_VERSION);
        assertThat(h.rep().isr()).containsExactly(1, 2);
    }

    @Test
    @DisplayName("ISR-6 an ISR that is not a subset of the replicas, lacks the leader or repeats a member is INVALID_REQUEST, before eligibility")
    void notSubset() {
        h.fence(3);
        assertThat(error(1, h.proposal(1, 4))).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(error(1, h.proposal(2, 3))).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(error(1, h.proposal(1, 2, 2))).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(h.rep().isr()).containsExactly(1, 2);
    }

    @Test
    @DisplayName("ISR-6 any member fenced, in controlled shutdown or with another broker epoch is INELIGIBLE_REPLICA; -1 skips the epoch check")
    void ineligible() {
        h.alter(1, h.proposal(1, 2));
        h.fence(3);
        assertThat(error(1, h.proposal(1, 2, 3))).isEqualTo(Errors.INELIGIBLE_REPLICA);
        assertThat(h.heartbeat(3, false).fenced()).isFalse();

        // An existing member, not only the new one, is checked: broker 2 asks to shut down.
        h.heartbeat(2, true);
        assertThat(h.rep().isr()).containsExactly(1);
        assertThat(error(1, h.proposal(1, 3))).isEqualTo(Errors.NONE);
        assertThat(error(1, h.proposal(1, 3, 2))).isEqualTo(Errors.INELIGIBLE_REPLICA);

        PartitionRegistration p = h.rep();
        AlterPartitionRequest.Item wrongEpoch = new AlterPartitionRequest.Item(REP, p.leaderEpoch(), p.partitionEpoch(),
                List.of(new BrokerState(1, h.epochs.get(1)), new BrokerState(3, h.epochs.get(3) + 100)), false);
        assertThat(error(1, wrongEpoch)).isEqualTo(Errors.INELIGIBLE_REPLICA);
        AlterPartitionRequest.Item unknownEpoch = new AlterPartitionRequest.Item(REP, p.leaderEpoch(), p.partitionEpoch(),
                List.of(new BrokerState(1, -1), new BrokerState(3, -1)), false);
        assertThat(error(1, unknownEpoch)).isEqualTo(Errors.NONE);
    }

    @Test
    @DisplayName("ISR-6 a stale broker epoch of a member (an old incarnation's fetch) is INELIGIBLE_REPLICA after its restart")
    void staleMemberEpoch() {
        h.alter(1, h.proposal(1, 2));
        long oldEpoch = h.epochs.get(3);
        h.restart(3, true);
        assertThat(h.heartbeat(3, false).fenced()).isFalse();
        PartitionRegistration p = h.rep();
        AlterPartitionRequest.Item stale = new AlterPartitionRequest.Item(REP, p.leaderEpoch(), p.partitionEpoch(),
                List.of(new BrokerState(1, h.epochs.get(1)), new BrokerState(2, h.epochs.get(2)), new BrokerState(3, oldEpoch)),
                false);
        assertThat(error(1, stale)).isEqualTo(Errors.INELIGIBLE_REPLICA);
        assertThat(error(1, h.proposal(1, 2, 3))).isEqualTo(Errors.NONE);
    }

    @Test
    @DisplayName("ISR-6 a valid change bumps the partition epoch only, answers the new state and is one PartitionChangeRecord published to brokers")
    void commit() {
        PartitionRegistration before = h.rep();
        int records = h.log.size();
        AlterPartitionResponse.PartitionResult result = h.alter(1, h.proposal(2, 1));
        assertThat(result).isEqualTo(new AlterPartitionResponse.PartitionResult(Errors.NONE, 1, 0, List.of(1, 2), 1));
        PartitionRegistration after = h.rep();
        assertThat(after.partitionEpoch()).isEqualTo(before.partitionEpoch() + 1);
        assertThat(after.leaderEpoch()).isEqualTo(before.leaderEpoch());
        assertThat(after.leader()).isEqualTo(1);
        assertThat(after.isr()).containsExactly(1, 2);

        assertThat(h.log).hasSize(records + 1);
        assertThat(h.log.get(h.log.size() - 1).records()).containsExactly(PartitionChangeRecord.of(after));
        MetadataDelta delta = h.deltas.get(h.deltas.size() - 1);
        assertThat(delta.partitions()).containsExactly(after);
        assertThat(delta.offset()).isEqualTo(h.latestOffset());
    }

    @Test
    @DisplayName("ISR-6 an unchanged ISR (in any order) writes nothing and bumps nothing")
    void unchanged() {
        long offset = h.latestOffset();
        AlterPartitionResponse.PartitionResult result = h.alter(1, h.proposal(3, 2, 1));
        assertThat(result.error()).isEqualTo(Errors.NONE);
        assertThat(result.partitionEpoch()).isZero();
        assertThat(result.isr()).containsExactly(1, 2, 3);
        assertThat(h.latestOffset()).isEqualTo(offset);
        assertThat(h.partitionEpochs(REP)).containsExactly(0);
    }

    @Test
    @DisplayName("ISR-6 partition epochs go 0 -> 1 -> 2 over a shrink and an expand (SCN-1's history)")
    void epochHistory() {
        h.alter(1, h.proposal(1, 2));
        h.alter(1, h.proposal(2, 1, 3));
        assertThat(h.partitionEpochs(REP)).containsExactly(0, 1, 2);
        assertThat(h.history(REP)).extracting(PartitionRegistration::leaderEpoch).containsOnly(0);
    }

    @Test
    @DisplayName("ISR-6 two items for one partition in one request: the second sees the first's commit (stale partition epoch)")
    void twoItemsOnePartition() {
        AlterPartitionRequest.Item shrink = h.proposal(1, 2);
        AlterPartitionRequest.Item again = h.proposal(1);
        AlterPartitionResponse response = h.alterPartition(new AlterPartitionRequest(1, h.epochs.get(1), List.of(shrink, again)));
        // A map keeps the last answer per partition: the second item's, refused as based on epoch 0.
        assertThat(response.partitions().get(REP).error()).isEqualTo(Errors.INVALID_UPDATE_VERSION);
        assertThat(h.rep().isr()).containsExactly(1, 2);
        assertThat(h.rep().partitionEpoch()).isEqualTo(1);
    }
}
