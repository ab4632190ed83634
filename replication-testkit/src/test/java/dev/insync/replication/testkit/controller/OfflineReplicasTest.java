package dev.insync.replication.testkit.controller;

import dev.insync.replication.core.metadata.ControllerChannel.HeartbeatResponse;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.insync.replication.testkit.controller.ControllerHarness.REP;
import static org.assertj.core.api.Assertions.assertThat;

/** §9 ISR-8 at the controller: replicas a broker reports offline in its heartbeat (Kafka's KIP-858). */
class OfflineReplicasTest {

    private final ControllerHarness h = new ControllerHarness();

    private HeartbeatResponse heartbeatWithOffline(int id, TopicPartition... offline) {
        h.loop.runFor(10);
        return h.controller.heartbeat(new HeartbeatRequest(id, h.epochs.get(id), h.metadata.get(id).appliedOffset(),
                false, List.of(offline)));
    }

    @Test
    @DisplayName("ISR-8 §9 a leader reporting its replica offline leaves the ISR and leadership moves, as fencing does but for that partition only")
    void offlineLeaderReplicaMovesLeadership() {
        h.startBrokers(1, 2, 3);
        TopicPartition other = new TopicPartition("rep", 1);
        h.controller.createTopic("rep", List.of(List.of(1, 2, 3), List.of(1, 2, 3)), 2, false);

        assertThat(heartbeatWithOffline(1, REP).error()).isEqualTo(Errors.NONE);

        PartitionRegistration p = h.rep();
        assertThat(p.leader()).isEqualTo(2);
        assertThat(p.leaderEpoch()).isEqualTo(1);
        assertThat(p.isr()).containsExactly(2, 3);
        PartitionRegistration untouched = h.controller.partition(other).orElseThrow();
        assertThat(untouched.leader()).as("the broker's other partitions stay led by it").isEqualTo(1);
        assertThat(untouched.isr()).containsExactly(1, 2, 3);
        assertThat(h.controller.broker(1).orElseThrow().fenced()).isFalse();
        // Reported again (every heartbeat lists them all): nothing changes.
        int epoch = p.partitionEpoch();
        heartbeatWithOffline(1, REP);
        assertThat(h.rep().partitionEpoch()).isEqualTo(epoch);
    }

    @Test
    @DisplayName("ISR-6 ISR-8 §9 an offline replica cannot rejoin the ISR nor lead, even by unclean election, until a new incarnation registers")
    void offlineReplicaIneligibleUntilRestart() {
        h.startBrokers(1, 2);
        h.createRep(1, true, 1, 2);
        heartbeatWithOffline(2, REP);
        assertThat(h.rep().isr()).containsExactly(1);
        assertThat(h.alter(1, h.proposal(1, 2)).error()).isEqualTo(Errors.INELIGIBLE_REPLICA);

        h.controller.fence(1);
        assertThat(h.rep().leader()).as("2 is active but its replica is offline: no candidate, even unclean")
                .isEqualTo(PartitionRegistration.NO_LEADER);

        h.restart(2, true); // a new incarnation: its log directories were opened anew
        assertThat(h.heartbeat(2, false).fenced()).isFalse();
        assertThat(h.rep().leader()).isEqualTo(2);
    }

    @Test
    @DisplayName("ISR-7 §9 an offline replica leaves the ELR too")
    void offlineReplicaLeavesElr() {
        h.startBrokers(1, 2, 3);
        h.createRep(3, false, 1, 2, 3);
        h.heartbeat(3, true); // controlled shutdown: ISR 1,2 under min ISR 3, ELR 3
        assertThat(h.rep().elr()).containsExactly(3);
        heartbeatWithOffline(2, REP);
        PartitionRegistration p = h.rep();
        assertThat(p.isr()).containsExactly(1);
        assertThat(p.elr()).as("2 does not enter the ELR").containsExactly(3);
    }
}
