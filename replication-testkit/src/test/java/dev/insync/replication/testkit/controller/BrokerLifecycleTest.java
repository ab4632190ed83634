package dev.insync.replication.testkit.controller;

import dev.insync.replication.controller.ControllerConfig;
import dev.insync.replication.core.metadata.ControllerChannel;
import dev.insync.replication.core.metadata.ControllerChannel.HeartbeatResponse;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.testkit.sim.NodeId;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The testkit's controller node on simulated time and the in-memory network. The rules themselves
 * (registration epochs, unfencing, controlled shutdown, LDR-5 verdicts) are the controller module's
 * tests, on the state machine.
 */
class BrokerLifecycleTest {

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
    @DisplayName("LDR-4 controlled shutdown over the channel: registration, heartbeats and shutdown travel the in-memory network")
    void overTheNetwork() {
        ControllerHarness h = new ControllerHarness();
        ControllerChannel channel = h.network.controllerChannelFor(1);
        CompletableFuture<Long> epoch = channel.registerBroker(1, -1).toCompletableFuture();
        h.loop.runFor(10);
        long brokerEpoch = ControllerHarness.done(epoch);
        CompletableFuture<HeartbeatResponse> hb = channel.heartbeat(new HeartbeatRequest(1, brokerEpoch,
                h.controller.latestOffset(), false)).toCompletableFuture();
        h.loop.runFor(10);
        assertThat(ControllerHarness.done(hb).fenced()).isFalse();
        h.epochs.put(1, brokerEpoch);
        h.await(h.controller.createTopic("solo", List.of(List.of(1))));
        CompletableFuture<HeartbeatResponse> shutdown = channel.heartbeat(new HeartbeatRequest(1, brokerEpoch,
                h.controller.latestOffset(), true)).toCompletableFuture();
        h.loop.runFor(10);
        assertThat(ControllerHarness.done(shutdown).shouldShutDown()).isTrue();
        assertThat(h.controller.describeCompact("solo"))
                .isEqualTo("Topic: solo Partition: 0 Leader: none Replicas: 1 Isr: Elr: 1 LastKnownElr:");
    }

    @Test
    @DisplayName("describe prints kafka-topics.sh --describe's tab-separated shape, from the committed log")
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
    @DisplayName("CTL-1 the committed reads come from the log: every partition registration in record order, one delta per batch")
    void committedReadsFollowTheLog() {
        ControllerHarness h = new ControllerHarness();
        h.startBrokers(1, 2, 3);
        h.createRep(2, false, 1, 2, 3);
        h.heartbeat(1, true);
        assertThat(h.controller.partitionEpochs(ControllerHarness.REP)).containsExactly(0, 1);
        assertThat(h.controller.history(ControllerHarness.REP)).extracting(PartitionRegistration::leader)
                .containsExactly(1, 2);
        // Deltas: one per committed batch, at its last offset, strictly increasing up to the log's end.
        List<Long> offsets = h.controller.metadataLog().stream().map(d -> d.offset()).toList();
        assertThat(offsets).isSorted().doesNotHaveDuplicates();
        assertThat(offsets.get(offsets.size() - 1)).isEqualTo(h.controller.latestOffset());
        assertThat(h.controller.latestOffset()).isEqualTo(h.controller.log().committedOffset());
        assertThat(h.controller.deltasAfter(offsets.get(0))).hasSize(offsets.size() - 1);
    }
}
