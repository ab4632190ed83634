package dev.insync.replication.testkit.controller;

import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionRequest.BrokerState;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.insync.replication.testkit.controller.ControllerHarness.REP;
import static org.assertj.core.api.Assertions.assertThat;

class AlterPartitionValidationTest {

    private final ControllerHarness h = new ControllerHarness();

    @BeforeEach
    void cluster() {
        h.startBrokers(1, 2, 3, 4);
        h.createRep(1, false, 1, 2, 3);
    }

    private AlterPartitionRequest.Item item(int leaderEpoch, int partitionEpoch, Integer... isr) {
        return new AlterPartitionRequest.Item(REP, leaderEpoch, partitionEpoch,
                java.util.Arrays.stream(isr).map(id -> new BrokerState(id, h.epochs.getOrDefault(id, -1L))).toList(), false);
    }

    private Errors error(int sender, AlterPartitionRequest.Item item) {
        return h.alter(sender, item).error();
    }

    /** Moves leadership to broker 2 (leader epoch 1) by fencing broker 1, then unfences it again. */
    private void bumpLeaderEpoch() {
        h.controller.fence(1);
        assertThat(h.rep().leader()).isEqualTo(2);
        assertThat(h.heartbeat(1, false).fenced()).isFalse();
    }

    @Test
    @DisplayName("ISR-6 a stale sender broker epoch fails the whole request before any partition check")
    void staleBrokerEpoch() {
        long before = h.controller.latestOffset();
        AlterPartitionRequest.Item unknown = new AlterPartitionRequest.Item(new TopicPartition("nope", 0), 0, 0, List.of(), false);
        AlterPartitionResponse response = h.controller.alterPartition(
                new AlterPartitionRequest(1, h.epochs.get(1) - 1, List.of(h.proposal(1, 2), unknown)));
        assertThat(response.error()).isEqualTo(Errors.STALE_BROKER_EPOCH);
        assertThat(response.partitions()).isEmpty();
        assertThat(h.rep().isr()).containsExactly(1, 2, 3);
        assertThat(h.controller.latestOffset()).isEqualTo(before);
    }

    @Test
    @DisplayName("ISR-6 an unknown partition is UNKNOWN_TOPIC_OR_PARTITION, other items of the batch still commit")
    void unknownPartition() {
        AlterPartitionRequest.Item unknown = new AlterPartitionRequest.Item(new TopicPartition("nope", 0), 0, 0,
                List.of(new BrokerState(1, h.epochs.get(1))), false);
        AlterPartitionResponse response = h.controller.alterPartition(
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
    @DisplayName("ISR-6 an ISR that is not a subset of the replicas or lacks the leader is INVALID_REQUEST, before eligibility")
    void notSubset() {
        h.controller.fence(3);
        assertThat(error(1, h.proposal(1, 4))).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(error(1, h.proposal(2, 3))).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(error(1, h.proposal(1, 2, 2))).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(h.rep().isr()).containsExactly(1, 2);
    }

    @Test
    @DisplayName("ISR-6 any member fenced, in controlled shutdown or with another broker epoch is INELIGIBLE_REPLICA; -1 skips the epoch check")
    void ineligible() {
        h.alter(1, h.proposal(1, 2));
        h.controller.fence(3);
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
    @DisplayName("ISR-6 a valid change bumps the partition epoch only, answers the new state and publishes it")
    void commit() {
        PartitionRegistration before = h.rep();
        AlterPartitionResponse.PartitionResult result = h.alter(1, h.proposal(2, 1));
        assertThat(result).isEqualTo(new AlterPartitionResponse.PartitionResult(Errors.NONE, 1, 0, List.of(1, 2), 1));
        PartitionRegistration after = h.rep();
        assertThat(after.partitionEpoch()).isEqualTo(before.partitionEpoch() + 1);
        assertThat(after.leaderEpoch()).isEqualTo(before.leaderEpoch());
        assertThat(after.leader()).isEqualTo(1);
        assertThat(after.isr()).containsExactly(1, 2);

        h.loop.runFor(10);
        for (int broker : List.of(1, 2, 3, 4)) {
            assertThat(h.applied.get(broker).get(h.applied.get(broker).size() - 1).partitions()).containsExactly(after);
        }
    }

    @Test
    @DisplayName("ISR-6 an unchanged ISR (in any order) writes nothing and bumps nothing")
    void unchanged() {
        long offset = h.controller.latestOffset();
        AlterPartitionResponse.PartitionResult result = h.alter(1, h.proposal(3, 2, 1));
        assertThat(result.error()).isEqualTo(Errors.NONE);
        assertThat(result.partitionEpoch()).isZero();
        assertThat(result.isr()).containsExactly(1, 2, 3);
        assertThat(h.controller.latestOffset()).isEqualTo(offset);
        assertThat(h.controller.partitionEpochs(REP)).containsExactly(0);
    }

    @Test
    @DisplayName("ISR-6 partition epochs go 0 -> 1 -> 2 over a shrink and an expand (SCN-1's history)")
    void epochHistory() {
        h.alter(1, h.proposal(1, 2));
        h.alter(1, h.proposal(2, 1, 3));
        assertThat(h.controller.partitionEpochs(REP)).containsExactly(0, 1, 2);
        assertThat(h.controller.history(REP)).extracting(PartitionRegistration::leaderEpoch).containsOnly(0);
    }
}
