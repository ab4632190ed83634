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

import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.controller.record.ReplicasOfflineRecord;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.insync.replication.controller.control.ControllerFixture.REP;
import static org.assertj.core.api.Assertions.assertThat;

/** Replicas on a failed log directory, reported in heartbeats: like fencing, per partition. */
class OfflineReplicasTest {

    private static final TopicPartition OTHER = new TopicPartition("other", 0);

    private final ControllerFixture h = new ControllerFixture();

    private void offline(int broker, TopicPartition... partitions) {
        h.heartbeat(new HeartbeatRequest(broker, h.epochs.get(broker), h.latestOffset(), false, List.of(partitions)));
    }

    @Test
    @DisplayName("ISR-7 an offline replica of the leader moves leadership away and leaves ISR and ELR; its other partitions stay")
    void offlineLeaderReplica() {
        h.startBrokers(1, 2, 3);
        h.createRep(3, false, 1, 2, 3);
        h.createTopic("other", List.of(List.of(1, 2)), 1, false);
        h.alter(1, h.proposal(1, 2));
        assertThat(h.rep().elr()).containsExactly(3);
        offline(1, REP);
        PartitionRegistration p = h.rep();
        assertThat(p.leader()).isEqualTo(2);
        assertThat(p.leaderEpoch()).isEqualTo(1);
        assertThat(p.isr()).containsExactly(2);
        assertThat(p.elr()).containsExactly(3);
        assertThat(h.state.partition(OTHER).isr()).containsExactly(1, 2);
        assertThat(h.state.partition(OTHER).leader()).isEqualTo(1);
        assertThat(h.state.broker(1).offlineReplicas()).containsExactly(REP);
        assertThat(h.log.get(h.log.size() - 1).records().get(0))
                .isEqualTo(new ReplicasOfflineRecord(1, h.epochs.get(1), List.of(REP)));
    }

    @Test
    @DisplayName("ISR-6 ISR-8 an offline replica is INELIGIBLE_REPLICA for its partition's ISR and is never elected there")
    void offlineReplicaIsIneligible() {
        h.startBrokers(1, 2, 3);
        h.createRep(1, true, 1, 2, 3);
        offline(3, REP);
        assertThat(h.rep().isr()).containsExactly(1, 2);
        AlterPartitionResponse.PartitionResult result = h.alter(1, h.proposal(1, 2, 3));
        assertThat(result.error()).isEqualTo(Errors.INELIGIBLE_REPLICA);
        h.fence(1);
        h.fence(2);
        // Unclean election is enabled, but broker 3's replica is gone: nobody leads.
        assertThat(h.rep().leader()).isEqualTo(PartitionRegistration.NO_LEADER);
    }

    @Test
    @DisplayName("ISR-7 the same offline replicas reported again, unknown partitions and foreign ones write nothing")
    void repeatedReports() {
        h.startBrokers(1, 2, 3);
        h.createRep(1, false, 1, 2);
        long offset = h.latestOffset();
        offline(3, REP);
        assertThat(h.latestOffset()).as("broker 3 holds no replica of rep-0").isEqualTo(offset);
        offline(2, REP);
        long afterFirst = h.latestOffset();
        assertThat(afterFirst).isGreaterThan(offset);
        offline(2, REP, new TopicPartition("nope", 0));
        assertThat(h.latestOffset()).isEqualTo(afterFirst);
    }

    @Test
    @DisplayName("LDR-5 a new incarnation starts with no offline replicas")
    void restartClearsOffline() {
        h.startBrokers(1, 2);
        h.createRep(1, false, 1, 2);
        offline(2, REP);
        h.restart(2, true);
        assertThat(h.state.broker(2).offlineReplicas()).isEmpty();
        assertThat(h.heartbeat(2, false).fenced()).isFalse();
        assertThat(h.alter(1, h.proposal(1, 2)).error()).isEqualTo(Errors.NONE);
    }

    @Test
    @DisplayName("ISR-8 an offline replica cannot lead even by unclean election until a new incarnation registers; then it can")
    void offlineUntilRestart() {
        h.startBrokers(1, 2);
        h.createRep(1, true, 1, 2);
        offline(2, REP);
        assertThat(h.rep().isr()).containsExactly(1);
        h.fence(1);
        assertThat(h.rep().leader()).isEqualTo(PartitionRegistration.NO_LEADER);
        h.restart(2, true);
        assertThat(h.heartbeat(2, false).fenced()).isFalse();
        assertThat(h.rep().leader()).isEqualTo(2);
        assertThat(h.rep().recovering()).as("2 was in neither ISR nor ELR: an unclean election").isTrue();
    }

    @Test
    @DisplayName("ISR-7 a replica going offline below min ISR does not enter the ELR; the others keep theirs")
    void offlineBelowMinIsr() {
        h.startBrokers(1, 2, 3);
        h.createRep(3, false, 1, 2, 3);
        h.heartbeat(3, true);
        assertThat(h.rep().elr()).containsExactly(3);
        offline(2, REP);
        assertThat(h.rep().isr()).containsExactly(1);
        assertThat(h.rep().elr()).containsExactly(3);
        assertThat(h.rep().lastKnownElr()).containsExactly(2);
    }
}
