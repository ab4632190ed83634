package dev.insync.replication.testkit.controller;

import dev.insync.replication.core.metadata.BrokerRegistration;
import dev.insync.replication.core.metadata.ControllerChannel;
import dev.insync.replication.core.metadata.ControllerChannel.HeartbeatResponse;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.Errors;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.testkit.network.LinkConfig;
import dev.insync.replication.testkit.sim.NodeId;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import static dev.insync.replication.testkit.controller.ControllerHarness.REP;
import static org.assertj.core.api.Assertions.assertThat;

class BrokerLifecycleTest {

    @Test
    @DisplayName("LDR-4 every registration gets a new, strictly increasing broker epoch and starts fenced")
    void registration() {
        ControllerHarness h = new ControllerHarness();
        long e1 = h.register(1, -1);
        long e2 = h.register(2, -1);
        long e1b = h.restart(1, true);
        assertThat(e1).isLessThan(e2);
        assertThat(e2).isLessThan(e1b);
        assertThat(h.controller.broker(1)).contains(new BrokerRegistration(1, e1b, true, false));
        assertThat(h.controller.heartbeat(new HeartbeatRequest(1, e1, 100, false)).error()).isEqualTo(Errors.STALE_BROKER_EPOCH);
        assertThat(h.controller.heartbeat(new HeartbeatRequest(9, 0, 100, false)).error()).isEqualTo(Errors.STALE_BROKER_EPOCH);
    }

    @Test
    @DisplayName("LDR-4 a broker is unfenced by a heartbeat only once its metadata has reached its registration")
    void unfenceWhenCaughtUp() {
        ControllerHarness h = new ControllerHarness();
        long epoch = h.register(1, -1);
        HeartbeatResponse behind = h.controller.heartbeat(new HeartbeatRequest(1, epoch, epoch - 1, false));
        assertThat(behind).isEqualTo(new HeartbeatResponse(Errors.NONE, true, false));
        HeartbeatResponse caughtUp = h.controller.heartbeat(new HeartbeatRequest(1, epoch, epoch, false));
        assertThat(caughtUp).isEqualTo(new HeartbeatResponse(Errors.NONE, false, false));
        assertThat(h.controller.broker(1).orElseThrow().fenced()).isFalse();
    }

    @Test
    @DisplayName("LDR-4 ISR-7 a broker without heartbeat for broker.session.timeout.ms is fenced on simulated time, leaving ISR and leadership")
    void sessionTimeout() {
        ControllerHarness h = new ControllerHarness(ControllerConfig.DEFAULT.withBrokerSessionTimeoutMs(30_000));
        h.startBrokers(1, 2, 3);
        h.createRep(1, false, 1, 2, 3);
        for (int id = 1; id <= 3; id++) {
            h.heartbeatPeriodically(id, 2_000);
        }
        h.loop.runFor(60_000);
        assertThat(h.rep().isr()).containsExactly(1, 2, 3);

        // SIGSTOP of the leader: its heartbeats stop, the others' go on.
        h.loop.pause(NodeId.broker(1));
        long pausedAt = h.loop.nowMs();
        assertThat(h.loop.runUntil(() -> h.controller.broker(1).orElseThrow().fenced(), 60_000)).isTrue();
        long fencedAfter = h.loop.nowMs() - pausedAt;
        // The last heartbeat was sent at most one interval before the pause and took the 1 ms link.
        assertThat(fencedAfter).isBetween(30_000L - 2_000 + 1, 30_000L + 1);
        PartitionRegistration p = h.rep();
        assertThat(p.leader()).isEqualTo(2);
        assertThat(p.isr()).containsExactly(2, 3);
        assertThat(p.leaderEpoch()).isEqualTo(1);

        // SIGCONT: its held heartbeat goes out and unfences it; it is not put back into the ISR by the controller.
        h.loop.resume(NodeId.broker(1));
        h.loop.runFor(5_000);
        assertThat(h.controller.broker(1).orElseThrow().fenced()).isFalse();
        assertThat(h.rep().isr()).containsExactly(2, 3);
    }

    @Test
    @DisplayName("LDR-4 ISR-7 controlled shutdown moves leadership and ISR away, then answers shouldShutDown")
    void controlledShutdown() {
        ControllerHarness h = new ControllerHarness();
        h.startBrokers(1, 2, 3);
        h.createRep(1, false, 1, 2, 3);
        assertThat(h.heartbeat(1, false).shouldShutDown()).isFalse();
        HeartbeatResponse response = h.heartbeat(1, true);
        assertThat(response.shouldShutDown()).isTrue();
        PartitionRegistration p = h.rep();
        assertThat(p.leader()).isEqualTo(2);
        assertThat(p.isr()).containsExactly(2, 3);
        assertThat(h.controller.broker(1).orElseThrow().inControlledShutdown()).isTrue();
        assertThat(h.controller.broker(1).orElseThrow().isActive()).isFalse();
    }

    @Test
    @DisplayName("LDR-4 controlled shutdown over the channel: registration, heartbeats and shutdown travel the in-memory network")
    void overTheNetwork() {
        ControllerHarness h = new ControllerHarness();
        ControllerChannel channel = h.network.controllerChannelFor(1);
        h.bindMetadata(1);
        CompletableFuture<Long> epoch = channel.registerBroker(1, -1).toCompletableFuture();
        h.loop.runFor(10);
        long brokerEpoch = ControllerHarness.done(epoch);
        CompletableFuture<HeartbeatResponse> hb = channel.heartbeat(new HeartbeatRequest(1, brokerEpoch, h.metadata.get(1).appliedOffset(), false))
                .toCompletableFuture();
        h.loop.runFor(10);
        assertThat(ControllerHarness.done(hb).fenced()).isFalse();
        h.epochs.put(1, brokerEpoch);
        h.controller.createTopic("solo", List.of(List.of(1)));
        CompletableFuture<HeartbeatResponse> shutdown = channel.heartbeat(new HeartbeatRequest(1, brokerEpoch, h.metadata.get(1).appliedOffset(), true))
                .toCompletableFuture();
        h.loop.runFor(10);
        assertThat(ControllerHarness.done(shutdown).shouldShutDown()).isTrue();
        assertThat(h.controller.describeCompact("solo"))
                .isEqualTo("Topic: solo Partition: 0 Leader: none Replicas: 1 Isr: Elr: 1 LastKnownElr:");
    }

    @Test
    @DisplayName("LDR-5 a new incarnation is removed from every ISR; a clean restart keeps it in the ELR")
    void cleanRestart() {
        ControllerHarness h = new ControllerHarness();
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
    }

    @Test
    @DisplayName("LDR-5 an unclean restart (previousBrokerEpoch -1 or not the last epoch) also removes it from every ELR")
    void uncleanRestart() {
        ControllerHarness h = new ControllerHarness();
        h.startBrokers(1, 2, 3);
        h.createRep(3, false, 1, 2, 3);
        h.alter(1, h.proposal(1));
        assertThat(h.rep().elr()).containsExactly(2, 3);
        h.restart(2, false);
        assertThat(h.rep().elr()).containsExactly(3);
        assertThat(h.rep().lastKnownElr()).containsExactly(2);
        long stale = h.epochs.get(3) - 1;
        h.loop.kill(NodeId.broker(3));
        h.loop.start(NodeId.broker(3));
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
        ControllerHarness h = new ControllerHarness();
        h.startBrokers(1, 2, 3);
        h.createRep(3, false, 1, 2, 3);
        h.heartbeat(3, true);
        assertThat(h.rep().elr()).containsExactly(3);
        long marker = h.epochs.get(3);
        h.loop.kill(NodeId.broker(3));
        h.loop.start(NodeId.broker(3));
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
    @DisplayName("LDR-4 lost metadata deltas are re-sent on the next heartbeats and applied once, in order")
    void lostDeltasRecovered() {
        ControllerHarness h = new ControllerHarness();
        h.startBrokers(1, 2);
        h.heartbeatPeriodically(1, 2_000);
        h.heartbeatPeriodically(2, 2_000);
        h.loop.runFor(5_000);
        h.network.setLink(NodeId.CONTROLLER, NodeId.broker(2), LinkConfig.DEFAULT.withDropProbability(1.0));
        h.createRep(1, false, 1, 2);
        h.controller.setMinInsyncReplicas("rep", 2);
        h.loop.runFor(100);
        assertThat(h.metadata.get(2).appliedOffset()).isLessThan(h.controller.latestOffset());
        h.network.setLink(NodeId.CONTROLLER, NodeId.broker(2), LinkConfig.uniform(1, 30));
        h.loop.runFor(10_000);
        assertThat(h.metadata.get(2).appliedOffset()).isEqualTo(h.controller.latestOffset());
        List<Long> offsets = h.applied.get(2).stream().map(MetadataDelta::offset).toList();
        assertThat(offsets).isEqualTo(h.controller.metadataLog().stream().map(MetadataDelta::offset).toList());
    }

    @Test
    @DisplayName("describe prints kafka-topics.sh --describe's tab-separated shape")
    void describeFormat() {
        ControllerHarness h = new ControllerHarness();
        h.startBrokers(1, 2, 3);
        h.createRep(1, false, 1, 2, 3);
        assertThat(h.controller.describe("rep"))
                .isEqualTo("Topic: rep\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2,3\tElr: \tLastKnownElr: ");
        assertThat(h.controller.describeCompact("rep"))
                .isEqualTo("Topic: rep Partition: 0 Leader: 1 Replicas: 1,2,3 Isr: 1,2,3 Elr: LastKnownElr:");
    }

    @Test
    @DisplayName("MetadataDeltaSequencer applies in offset order, once, buffering early deltas")
    void sequencer() {
        List<Long> seen = new java.util.ArrayList<>();
        MetadataDeltaSequencer sequencer = new MetadataDeltaSequencer(d -> seen.add(d.offset()));
        for (long offset : new long[] {0, 2, 3, 0, 1, 2, 5, 4}) {
            sequencer.accept(new MetadataDelta(offset, List.of(), List.of(), List.of(), java.util.Map.of()));
        }
        assertThat(seen).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
        assertThat(sequencer.appliedOffset()).isEqualTo(5);
        assertThat(sequencer.bufferedCount()).isZero();
    }
}
