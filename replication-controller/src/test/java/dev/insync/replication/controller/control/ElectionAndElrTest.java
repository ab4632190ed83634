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

import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionRequest.BrokerState;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.Errors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.insync.replication.controller.control.ControllerFixture.REP;
import static org.assertj.core.api.Assertions.assertThat;

/** ISR-7 (ELR, LastKnownElr) and ISR-8 (election, unclean, RECOVERING, CTL-6) on the pure state machine. */
class ElectionAndElrTest {

    private final ControllerFixture h = new ControllerFixture();

    @Test
    @DisplayName("ISR-8 the current leader is kept while valid: fencing a follower changes neither leader nor leader epoch")
    void keepLeader() {
        h.startBrokers(1, 2, 3);
        h.createRep(1, false, 1, 2, 3);
        h.fence(3);
        PartitionRegistration p = h.rep();
        assertThat(p.leader()).isEqualTo(1);
        assertThat(p.leaderEpoch()).isZero();
        assertThat(p.isr()).containsExactly(1, 2);
        assertThat(p.partitionEpoch()).isEqualTo(1);
    }

    @Test
    @DisplayName("ISR-8 a new leader is the first active ISR member in assignment order, with leader epoch + 1")
    void assignmentOrder() {
        h.startBrokers(1, 2, 3);
        h.createRep(1, false, 1, 2, 3);
        h.alter(1, h.proposal(1, 3));
        h.alter(1, h.proposal(1, 3, 2));
        // The ISR is a set, kept in assignment order whatever the proposal's order.
        assertThat(h.rep().isr()).containsExactly(1, 2, 3);
        h.fence(1);
        PartitionRegistration p = h.rep();
        assertThat(p.leader()).isEqualTo(2);
        assertThat(p.leaderEpoch()).isEqualTo(1);
        assertThat(p.partitionEpoch()).isEqualTo(3);
        assertThat(p.isr()).containsExactly(2, 3);
    }

    @Test
    @DisplayName("ISR-7 ISR-8 with the ISR empty the first active ELR member leads with ISR = {itself} and leaves the ELR")
    void electFromElr() {
        h.startBrokers(1, 2, 3);
        h.createRep(3, false, 1, 2, 3);
        h.heartbeat(3, true);
        h.heartbeat(2, true);
        assertThat(h.rep().isr()).containsExactly(1);
        assertThat(h.rep().elr()).containsExactly(2, 3);
        h.fence(1);
        // 2 and 3 are shutting down: nobody can lead; the last leader moves into the ELR.
        PartitionRegistration leaderless = h.rep();
        assertThat(leaderless.leader()).isEqualTo(PartitionRegistration.NO_LEADER);
        assertThat(leaderless.isr()).isEmpty();
        assertThat(leaderless.elr()).containsExactly(1, 2, 3);
        assertThat(h.describeCompact("rep"))
                .isEqualTo("Topic: rep Partition: 0 Leader: none Replicas: 1,2,3 Isr: Elr: 1,2,3 LastKnownElr:");

        // Broker 3 restarts cleanly and catches up: elected from the ELR although 1 and 2 come first in the ELR.
        h.restart(3, true);
        assertThat(h.rep().leader()).isEqualTo(PartitionRegistration.NO_LEADER);
        assertThat(h.heartbeat(3, false).fenced()).isFalse();
        PartitionRegistration p = h.rep();
        assertThat(p.leader()).isEqualTo(3);
        assertThat(p.isr()).containsExactly(3);
        assertThat(p.elr()).containsExactly(1, 2);
        assertThat(p.leaderEpoch()).isEqualTo(leaderless.leaderEpoch() + 1);
    }

    @Test
    @DisplayName("ISR-7 below min ISR the ELR is (old ELR + old ISR) - new ISR; reaching min ISR clears ELR and LastKnownElr")
    void elrMaintenance() {
        h.startBrokers(1, 2, 3);
        h.createRep(2, false, 1, 2, 3);
        h.alter(1, h.proposal(1, 2));
        assertThat(h.rep().elr()).isEmpty();
        // 3 left the ISR while it still had min ISR members, so it is not eligible.
        h.alter(1, h.proposal(1));
        assertThat(h.rep().elr()).containsExactly(2);
        assertThat(h.rep().lastKnownElr()).isEmpty();
        h.alter(1, h.proposal(1, 3));
        assertThat(h.rep().elr()).isEmpty();
        assertThat(h.rep().lastKnownElr()).isEmpty();
    }

    @Test
    @DisplayName("ISR-7 fencing does not remove a replica from the ELR; rejoining the ISR does")
    void fencingKeepsElr() {
        h.startBrokers(1, 2, 3);
        h.createRep(3, false, 1, 2, 3);
        h.heartbeat(3, true);
        assertThat(h.describeCompact("rep"))
                .isEqualTo("Topic: rep Partition: 0 Leader: 1 Replicas: 1,2,3 Isr: 1,2 Elr: 3 LastKnownElr:");
        h.fence(3);
        assertThat(h.rep().elr()).containsExactly(3);
        h.restart(3, true);
        assertThat(h.heartbeat(3, false).fenced()).isFalse();
        assertThat(h.rep().elr()).containsExactly(3);
        h.alter(1, h.proposal(1, 2, 3));
        assertThat(h.rep().elr()).isEmpty();
    }

    @Test
    @DisplayName("ISR-7 a lower min.insync.replicas at run time clears the ELR where the ISR now reaches it, and is published")
    void minIsrChange() {
        h.startBrokers(1, 2, 3);
        h.createRep(3, false, 1, 2, 3);
        h.heartbeat(3, true);
        assertThat(h.rep().elr()).containsExactly(3);
        int epoch = h.rep().partitionEpoch();
        h.setMinInsyncReplicas("rep", 2);
        assertThat(h.state.topic("rep").minInsyncReplicas()).isEqualTo(2);
        assertThat(h.rep().elr()).isEmpty();
        assertThat(h.rep().partitionEpoch()).isEqualTo(epoch + 1);
        assertThat(h.deltas.get(h.deltas.size() - 1).minInsyncReplicasByTopic()).containsEntry("rep", 2);
        // The same value again writes nothing.
        long offset = h.latestOffset();
        h.setMinInsyncReplicas("rep", 2);
        assertThat(h.latestOffset()).isEqualTo(offset);
    }

    @Test
    @DisplayName("ISR-7 a higher min.insync.replicas at run time does not grow the ELR by itself (it needs an ISR change)")
    void minIsrRaise() {
        h.startBrokers(1, 2, 3);
        h.createRep(1, false, 1, 2, 3);
        h.alter(1, h.proposal(1, 2));
        h.setMinInsyncReplicas("rep", 3);
        // The ISR {1,2} is now below min ISR, but 3 left while it was in sync enough: no ELR.
        assertThat(h.rep().elr()).isEmpty();
        h.heartbeat(2, true);
        assertThat(h.rep().isr()).containsExactly(1);
        assertThat(h.rep().elr()).containsExactly(2);
    }

    @Test
    @DisplayName("ISR-7 ISR-5 a raise of min.insync.replicas moves the partition epoch on, so a shrink the leader proposed"
            + " under the old value is refused and cannot put the leaving replica in the ELR")
    void minIsrRaiseFencesProposalsUnderTheOldValue() {
        h.startBrokers(1, 2, 3);
        h.createRep(2, false, 1, 2, 3);
        // Proposed while the leader still enforced min ISR 2: with {1,2} it would advance the HW without 3.
        AlterPartitionRequest.Item shrinkUnderTwo = h.proposal(1, 2);
        int epoch = h.rep().partitionEpoch();
        h.setMinInsyncReplicas("rep", 3);
        assertThat(h.rep().partitionEpoch()).isEqualTo(epoch + 1);
        assertThat(h.rep().isr()).containsExactly(1, 2, 3);

        assertThat(h.alter(1, shrinkUnderTwo).error()).isEqualTo(Errors.INVALID_UPDATE_VERSION);
        assertThat(h.rep().isr()).containsExactly(1, 2, 3);
        assertThat(h.rep().elr()).isEmpty();
        // Proposed again with the metadata that carries the raise: now the leader freezes the HW, and 3 is eligible.
        assertThat(h.alter(1, h.proposal(1, 2)).error()).isEqualTo(Errors.NONE);
        assertThat(h.rep().elr()).containsExactly(3);
        // A lower value fences nothing: the leader's older, higher one only holds the HW back longer.
        int afterShrink = h.rep().partitionEpoch();
        h.setMinInsyncReplicas("rep", 1);
        assertThat(h.rep().partitionEpoch()).as("the ELR is cleared, one change").isEqualTo(afterShrink + 1);
        int lowered = h.rep().partitionEpoch();
        h.setMinInsyncReplicas("rep", 2);
        assertThat(h.rep().partitionEpoch()).as("raised again: ISR {1,2} reaches it, nothing else changes").isEqualTo(lowered + 1);
    }

    @Test
    @DisplayName("ISR-8 without a candidate the partition is leaderless (Leader: none) until one comes back")
    void leaderless() {
        h.startBrokers(1, 2);
        h.createRep(1, false, 1, 2);
        h.fence(2);
        h.fence(1);
        PartitionRegistration p = h.rep();
        assertThat(p.leader()).isEqualTo(PartitionRegistration.NO_LEADER);
        assertThat(p.leaderEpoch()).isEqualTo(1);
        assertThat(p.elr()).containsExactly(1);
        assertThat(h.heartbeat(2, false).fenced()).isFalse();
        assertThat(h.rep().leader()).as("2 was not in the ISR or ELR").isEqualTo(PartitionRegistration.NO_LEADER);
        assertThat(h.heartbeat(1, false).fenced()).isFalse();
        assertThat(h.rep().leader()).isEqualTo(1);
        assertThat(h.rep().leaderEpoch()).isEqualTo(2);
    }

    @Test
    @DisplayName("ISR-8 CTL-6 unclean election: first active replica, ISR = {it}, ELR cleared, RECOVERING refuses a larger ISR until recovered")
    void uncleanElection() {
        h.startBrokers(1, 2, 3);
        h.createRep(1, true, 1, 2, 3);
        h.alter(1, h.proposal(1));
        h.fence(2);
        h.fence(3);
        h.fence(1);
        assertThat(h.rep().elr()).containsExactly(1);
        // Broker 1 (the only ELR member) loses power: it may not come back from the ELR.
        h.restart(1, false);
        assertThat(h.rep().elr()).isEmpty();
        assertThat(h.rep().lastKnownElr()).containsExactly(1);
        assertThat(h.heartbeat(3, false).fenced()).isFalse();

        PartitionRegistration p = h.rep();
        assertThat(p.leader()).isEqualTo(3);
        assertThat(p.isr()).containsExactly(3);
        assertThat(p.elr()).isEmpty();
        assertThat(p.lastKnownElr()).isEmpty();
        assertThat(p.recovering()).isTrue();

        assertThat(h.heartbeat(2, false).fenced()).isFalse();
        assertThat(h.alter(3, h.proposal(3, 2)).error()).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(h.rep().recovering()).isTrue();
        PartitionRegistration r = h.rep();
        AlterPartitionRequest.Item recovered = new AlterPartitionRequest.Item(REP, r.leaderEpoch(), r.partitionEpoch(),
                List.of(new BrokerState(3, h.epochs.get(3)), new BrokerState(2, h.epochs.get(2))), true);
        assertThat(h.alter(3, recovered).error()).isEqualTo(Errors.NONE);
        assertThat(h.rep().recovering()).isFalse();
        assertThat(h.rep().isr()).containsExactly(2, 3);
    }

    @Test
    @DisplayName("CTL-6 the leader's recovered report with an unchanged ISR still leaves RECOVERING (one partition epoch)")
    void recoveredAlone() {
        h.startBrokers(1, 2);
        h.createRep(1, true, 1, 2);
        h.alter(1, h.proposal(1));
        h.fence(1);
        h.restart(1, false);
        PartitionRegistration p = h.rep();
        assertThat(p.leader()).isEqualTo(2);
        assertThat(p.recovering()).isTrue();
        AlterPartitionRequest.Item recovered = new AlterPartitionRequest.Item(REP, p.leaderEpoch(), p.partitionEpoch(),
                List.of(new BrokerState(2, h.epochs.get(2))), true);
        AlterPartitionRequest.Item notYet = new AlterPartitionRequest.Item(REP, p.leaderEpoch(), p.partitionEpoch(),
                List.of(new BrokerState(2, h.epochs.get(2))), false);
        long offset = h.latestOffset();
        assertThat(h.alter(2, notYet).error()).isEqualTo(Errors.NONE);
        assertThat(h.latestOffset()).as("an ISR of the leader alone while RECOVERING changes nothing").isEqualTo(offset);
        assertThat(h.alter(2, recovered).partitionEpoch()).isEqualTo(p.partitionEpoch() + 1);
        assertThat(h.rep().recovering()).isFalse();
        assertThat(h.rep().isr()).containsExactly(2);
    }

    @Test
    @DisplayName("ISR-8 without unclean.leader.election.enable an out-of-sync replica never leads; enabling it at run time elects")
    void uncleanDisabled() {
        h.startBrokers(1, 2);
        h.createRep(1, false, 1, 2);
        h.alter(1, h.proposal(1));
        h.fence(1);
        h.restart(1, false);
        assertThat(h.rep().leader()).isEqualTo(PartitionRegistration.NO_LEADER);
        h.setUncleanLeaderElection("rep", true);
        assertThat(h.rep().leader()).isEqualTo(2);
        assertThat(h.rep().recovering()).isTrue();
    }

    @Test
    @DisplayName("ISR-8 an unclean election bumps the leader epoch once and clears LastKnownElr")
    void uncleanElectionEpochs() {
        h.startBrokers(1, 2, 3);
        h.createRep(3, false, 1, 2, 3);
        h.fence(2);
        h.fence(3);
        h.fence(1);
        h.restart(1, false);
        h.restart(2, false);
        h.restart(3, false);
        PartitionRegistration before = h.rep();
        assertThat(before.leader()).isEqualTo(PartitionRegistration.NO_LEADER);
        assertThat(before.lastKnownElr()).containsExactly(1, 2, 3);
        h.heartbeat(2, false);
        assertThat(h.rep().leader()).isEqualTo(PartitionRegistration.NO_LEADER);
        h.setUncleanLeaderElection("rep", true);
        PartitionRegistration after = h.rep();
        assertThat(after.leader()).isEqualTo(2);
        assertThat(after.leaderEpoch()).isEqualTo(before.leaderEpoch() + 1);
        assertThat(after.isr()).containsExactly(2);
        assertThat(after.elr()).isEmpty();
        assertThat(after.lastKnownElr()).isEmpty();
    }
}
