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
import dev.insync.replication.core.metadata.ControllerChannel.HeartbeatResponse;
import dev.insync.replication.controller.api.RegisterBrokerRequest;
import dev.insync.replication.controller.record.RegisterBrokerRecord;
import dev.insync.replication.controller.log.MetadataSnapshotSerde;
import dev.insync.replication.controller.state.BrokerEntry;
import dev.insync.replication.controller.state.ControllerState;
import dev.insync.replication.core.metadata.Endpoint;
import dev.insync.replication.core.metadata.BrokerRegistration;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** LDR-4 and LDR-5 on the pure state machine. Session expiry by time is QuorumControllerTest's (CTL-3). */
class BrokerLifecycleTest {

    private final ControllerFixture h = new ControllerFixture();

    @Test
    @DisplayName("LDR-4 every registration gets a new broker epoch, the offset of its RegisterBrokerRecord, and starts fenced")
    void registration() {
        long e1 = h.register(1, -1);
        long e2 = h.register(2, -1);
        long e1b = h.restart(1, true);
        assertThat(e1).isLessThan(e2);
        assertThat(e2).isLessThan(e1b);
        assertThat(h.state.broker(1).registration()).isEqualTo(new BrokerRegistration(1, e1b, true, false));
        assertThat(h.log.get(2).baseOffset()).isEqualTo(e1b);
        assertThat(h.log.get(2).records().get(0)).isEqualTo(RegisterBrokerRecord.newIncarnation(1, e1b, e1, false));
        assertThat(h.heartbeat(new HeartbeatRequest(1, e1, 100, false)).error()).isEqualTo(Errors.STALE_BROKER_EPOCH);
        assertThat(h.heartbeat(new HeartbeatRequest(9, 0, 100, false)).error()).isEqualTo(Errors.STALE_BROKER_EPOCH);
    }

    @Test
    @DisplayName("LDR-4 a registration's endpoints reach the record, the brokers' delta and image, survive a snapshot, and a re-registration replaces them")
    void registrationEndpoints() {
        List<Endpoint> first = List.of(new Endpoint("PLAINTEXT", "PLAINTEXT", "127.0.0.1", 41001));
        List<Endpoint> moved = List.of(new Endpoint("PLAINTEXT", "PLAINTEXT", "127.0.0.1", 41777));
        long e1 = h.commit(ClusterControl.registerBroker(h.state, new RegisterBrokerRequest(1, -1, first), false))
                .brokerEpoch();
        assertThat(h.log.get(0).records().get(0)).isEqualTo(RegisterBrokerRecord.newIncarnation(1, e1, -1, false, first));
        assertThat(h.deltas.get(0).brokers()).containsExactly(new BrokerRegistration(1, e1, true, false, first));
        assertThat(h.state.image().brokers().get(0).endpoints()).isEqualTo(first);
        // Unfencing keeps them.
        h.epochs.put(1, e1);
        h.heartbeat(1, false);
        assertThat(h.state.broker(1).registration()).isEqualTo(new BrokerRegistration(1, e1, false, false, first));

        ControllerState fromSnapshot = ControllerState.load(MetadataSnapshotSerde.decode(
                MetadataSnapshotSerde.encode(h.state.snapshot()), "test snapshot"));
        assertThat(fromSnapshot.broker(1).endpoints()).isEqualTo(first);
        assertThat(fromSnapshot.canonicalDump()).isEqualTo(h.state.canonicalDump());

        // The broker restarted on another port: its new incarnation is found there.
        long e2 = h.commit(ClusterControl.registerBroker(h.state, new RegisterBrokerRequest(1, e1, moved), true))
                .brokerEpoch();
        assertThat(h.state.broker(1).registration()).isEqualTo(new BrokerRegistration(1, e2, true, false, moved));
        assertThat(h.deltas.get(h.deltas.size() - 1).brokers()).extracting(BrokerRegistration::endpoints)
                .containsExactly(moved);
        ControllerState replayed = new ControllerState();
        h.log.forEach(replayed::replay);
        assertThat(replayed.broker(1).endpoints()).isEqualTo(moved);
    }

    @Test
    @DisplayName("LDR-4 an invalid registration is refused and writes nothing")
    void invalidRegistration() {
        assertThatThrownBy(() -> ClusterControl.registerBroker(h.state, new RegisterBrokerRequest(-1, -1), false))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.INVALID_REQUEST));
        assertThatThrownBy(() -> ClusterControl.registerBroker(h.state, new RegisterBrokerRequest(1, -5), false))
                .isInstanceOf(ApiException.class);
        assertThat(h.latestOffset()).isEqualTo(-1);
    }

    @Test
    @DisplayName("LDR-4 a broker is unfenced by a heartbeat only once its metadata has reached its registration")
    void unfenceWhenCaughtUp() {
        long epoch = h.register(1, -1);
        HeartbeatResponse behind = h.heartbeat(new HeartbeatRequest(1, epoch, epoch - 1, false));
        assertThat(behind).isEqualTo(new HeartbeatResponse(Errors.NONE, true, false));
        HeartbeatResponse caughtUp = h.heartbeat(new HeartbeatRequest(1, epoch, epoch, false));
        assertThat(caughtUp).isEqualTo(new HeartbeatResponse(Errors.NONE, false, false));
        assertThat(h.state.broker(1).fenced()).isFalse();
        // Further heartbeats write nothing.
        long offset = h.latestOffset();
        h.heartbeat(1, false);
        assertThat(h.latestOffset()).isEqualTo(offset);
    }

    @Test
    @DisplayName("LDR-4 ISR-7 fencing a broker removes it from ISR and leadership, keeps the ELR, and a fenced broker is not fenced twice")
    void fencing() {
        h.startBrokers(1, 2, 3);
        h.createRep(1, false, 1, 2, 3);
        assertThat(h.fence(1)).isTrue();
        PartitionRegistration p = h.rep();
        assertThat(p.leader()).isEqualTo(2);
        assertThat(p.isr()).containsExactly(2, 3);
        assertThat(p.leaderEpoch()).isEqualTo(1);
        long offset = h.latestOffset();
        assertThat(h.fence(1)).isFalse();
        assertThat(h.fence(9)).isFalse();
        assertThat(h.latestOffset()).isEqualTo(offset);
        // Unfenced again by a caught-up heartbeat; the controller does not put it back into the ISR.
        assertThat(h.heartbeat(1, false).fenced()).isFalse();
        assertThat(h.rep().isr()).containsExactly(2, 3);
    }

    @Test
    @DisplayName("LDR-4 ISR-7 controlled shutdown moves leadership and ISR away, then answers shouldShutDown")
    void controlledShutdown() {
        h.startBrokers(1, 2, 3);
        h.createRep(1, false, 1, 2, 3);
        assertThat(h.heartbeat(1, false).shouldShutDown()).isFalse();
        HeartbeatResponse response = h.heartbeat(1, true);
        assertThat(response.shouldShutDown()).isTrue();
        PartitionRegistration p = h.rep();
        assertThat(p.leader()).isEqualTo(2);
        assertThat(p.isr()).containsExactly(2, 3);
        BrokerEntry broker = h.state.broker(1);
        assertThat(broker.inControlledShutdown()).isTrue();
        assertThat(broker.isActive()).isFalse();
        // A shutting-down broker is not unfenced or moved back by later heartbeats.
        long offset = h.latestOffset();
        assertThat(h.heartbeat(1, true).shouldShutDown()).isTrue();
        assertThat(h.latestOffset()).isEqualTo(offset);
    }

    @Test
    @DisplayName("LDR-4 the only replica's controlled shutdown leaves the partition leaderless with it in the ELR")
    void controlledShutdownOfTheOnlyReplica() {
        h.startBrokers(1);
        h.createTopic("solo", List.of(List.of(1)), 1, false);
        assertThat(h.heartbeat(1, true).shouldShutDown()).isTrue();
        assertThat(h.describeCompact("solo")).isEqualTo("Topic: solo Partition: 0 Leader: none Replicas: 1 Isr: Elr: 1 LastKnownElr:");
    }

    @Test
    @DisplayName("LDR-5 a new incarnation is removed from every ISR; a clean restart keeps it in the ELR")
    void cleanRestart() {
        h.startBrokers(1, 2, 3);
        h.createRep(2, false, 1, 2, 3);
        h.alter(1, h.proposal(1));
        assertThat(h.rep().elr()).containsExactly(2, 3);
        h.restart(3, true);
        assertThat(h.rep().elr()).containsExactly(2, 3);
        // Restarted leader: removed from the ISR at once, before any session timeout; 2 leads from the ELR.
        h.restart(1, true);
        PartitionRegistration p = h.rep();
        assertThat(p.leader()).isEqualTo(2);
        assertThat(p.isr()).containsExactly(2);
        assertThat(p.elr()).containsExactly(1, 3);
        assertThat(h.state.broker(1).uncleanRestart()).isFalse();
    }

    @Test
    @DisplayName("LDR-5 an unclean restart (previousBrokerEpoch -1 or not the last epoch) also removes it from every ELR")
    void uncleanRestart() {
        h.startBrokers(1, 2, 3);
        h.createRep(3, false, 1, 2, 3);
        h.alter(1, h.proposal(1));
        assertThat(h.rep().elr()).containsExactly(2, 3);
        h.restart(2, false);
        assertThat(h.rep().elr()).containsExactly(3);
        assertThat(h.rep().lastKnownElr()).containsExactly(2);
        assertThat(h.state.broker(2).uncleanRestart()).isTrue();
        long stale = h.epochs.get(3) - 1;
        h.register(3, stale);
        assertThat(h.rep().elr()).isEmpty();

        // The leader dies uncleanly too: nobody may lead; the lost records of broker 1 stay lost.
        h.restart(1, false);
        assertThat(h.heartbeat(1, false).fenced()).isFalse();
        assertThat(h.heartbeat(2, false).fenced()).isFalse();
        assertThat(h.heartbeat(3, false).fenced()).isFalse();
        assertThat(h.rep().leader()).isEqualTo(PartitionRegistration.NO_LEADER);
        assertThat(h.rep().isr()).isEmpty();
        assertThat(h.rep().elr()).isEmpty();
    }

    @Test
    @DisplayName("LDR-5 a retried registration of the same incarnation (first answer lost) keeps the first attempt's clean verdict")
    void retriedRegistration() {
        h.startBrokers(1, 2, 3);
        h.createRep(3, false, 1, 2, 3);
        h.heartbeat(3, true);
        assertThat(h.rep().elr()).containsExactly(3);
        long marker = h.epochs.get(3);
        long first = h.register(3, marker);
        long retry = h.register(3, marker);
        assertThat(retry).isGreaterThan(first);
        assertThat(h.rep().elr()).containsExactly(3);
        // After a heartbeat the incarnation is confirmed: the same marker again is a new, unclean restart.
        assertThat(h.heartbeat(3, false).fenced()).isFalse();
        h.register(3, marker);
        assertThat(h.rep().elr()).isEmpty();
    }

    @Test
    @DisplayName("LDR-5 a retry after the incarnation was unfenced is a new restart even if this controller never saw its heartbeat (failover)")
    void retriedRegistrationAfterFailover() {
        h.startBrokers(1, 2, 3);
        h.createRep(3, false, 1, 2, 3);
        h.heartbeat(3, true);
        long marker = h.epochs.get(3);
        h.register(3, marker);
        assertThat(h.heartbeat(3, false).fenced()).isFalse();
        h.fence(3);
        // A new active controller has no heartbeat memory; the record of the unfencing is enough.
        h.heartbeated.clear();
        h.register(3, marker);
        assertThat(h.state.broker(3).uncleanRestart()).isTrue();
        assertThat(h.rep().elr()).doesNotContain(3);
    }

    @Test
    @DisplayName("describe prints kafka-topics.sh --describe's tab-separated shape")
    void describeFormat() {
        h.startBrokers(1, 2, 3);
        h.createRep(1, false, 1, 2, 3);
        assertThat(h.state.describe("rep"))
                .isEqualTo("Topic: rep\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2,3\tElr: \tLastKnownElr: ");
        assertThat(h.describeCompact("rep"))
                .isEqualTo("Topic: rep Partition: 0 Leader: 1 Replicas: 1,2,3 Isr: 1,2,3 Elr: LastKnownElr:");
    }

    @Test
    @DisplayName("LDR-4 a session expiry of an old incarnation does not fence the new one (stale epoch)")
    void staleExpiry() {
        h.startBrokers(1);
        long old = h.epochs.get(1);
        h.restart(1, true);
        assertThat(h.heartbeat(1, false).fenced()).isFalse();
        long offset = h.latestOffset();
        assertThat(h.commit(ClusterControl.fenceBroker(h.state, 1, old))).isFalse();
        assertThat(h.latestOffset()).isEqualTo(offset);
        assertThat(h.commit(ClusterControl.fenceBroker(h.state, 1, h.epochs.get(1)))).isTrue();
    }
}
