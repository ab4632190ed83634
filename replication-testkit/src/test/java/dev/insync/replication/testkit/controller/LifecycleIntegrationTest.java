package dev.insync.replication.testkit.controller;

import dev.insync.replication.controller.ControllerConfig;
import dev.insync.replication.core.broker.BrokerLifecycleManager;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.testkit.network.InMemoryNetwork;
import dev.insync.replication.testkit.network.LinkConfig;
import dev.insync.replication.testkit.sim.EventLoop;
import dev.insync.replication.testkit.sim.NodeId;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The testkit's controller node with core's broker-side {@link BrokerLifecycleManager}, over the
 * simulated network (the brokers report themselves caught up with the committed log).
 */
class LifecycleIntegrationTest {

    private static final TopicPartition REP = new TopicPartition("rep", 0);

    private final EventLoop loop = EventLoop.withSeed(99);
    private final InMemoryNetwork network = new InMemoryNetwork(loop);
    private final ClusterController controller = new ClusterController(loop, network,
            ControllerConfig.DEFAULT.withBrokerSessionTimeoutMs(9_000));
    private final Map<Integer, BrokerLifecycleManager> lifecycles = new TreeMap<>();

    private BrokerLifecycleManager startBroker(int id, long previousEpoch) {
        Scheduler scheduler = loop.forNode(NodeId.broker(id));
        BrokerLifecycleManager lifecycle = BrokerLifecycleManager.builder(id, network.controllerChannelFor(id), scheduler)
                .previousBrokerEpoch(previousEpoch).executor(scheduler.newSerialExecutor("broker-lifecycle-manager"))
                .heartbeatIntervalMs(2_000).registrationRetryBackoffMs(100).metadataOffset(controller::latestOffset).build();
        lifecycle.start();
        lifecycles.put(id, lifecycle);
        return lifecycle;
    }

    @Test
    @DisplayName("LDR-4 LDR-5 core's BrokerLifecycleManager registers, is unfenced, fenced when paused, shuts down and restarts uncleanly")
    void lifecycle() {
        controller.start();
        network.setDefaultLink(LinkConfig.uniform(1, 5));
        for (int id = 1; id <= 3; id++) {
            startBroker(id, -1);
        }
        assertThat(loop.runUntil(() -> lifecycles.values().stream().noneMatch(BrokerLifecycleManager::isFenced), 10_000)).isTrue();
        CompletableFuture<?> created = controller.createTopic("rep", List.of(List.of(1, 2, 3)), 2, false);
        assertThat(loop.runUntil(created::isDone, 1_000)).isTrue();

        // SIGSTOP broker 3: fenced after the session timeout, out of the ISR.
        loop.pause(NodeId.broker(3));
        assertThat(loop.runUntil(() -> controller.broker(3).orElseThrow().fenced(), 12_000)).isTrue();
        assertThat(controller.partition(REP).orElseThrow().isr()).containsExactly(1, 2);
        loop.resume(NodeId.broker(3));
        assertThat(loop.runUntil(() -> !controller.broker(3).orElseThrow().fenced(), 5_000)).isTrue();

        // Controlled shutdown of broker 1, the leader: leadership moves, then the broker is told to stop.
        CompletableFuture<Void> shutdown = lifecycles.get(1).beginControlledShutdown();
        assertThat(loop.runUntil(shutdown::isDone, 5_000)).isTrue();
        PartitionRegistration afterShutdown = controller.partition(REP).orElseThrow();
        assertThat(afterShutdown.leader()).isEqualTo(2);
        assertThat(afterShutdown.isr()).containsExactly(2);
        assertThat(afterShutdown.elr()).containsExactly(1);

        // Broker 2 is killed and comes back without a clean-shutdown marker.
        long oldEpoch = lifecycles.get(2).brokerEpoch();
        loop.kill(NodeId.broker(2));
        loop.start(NodeId.broker(2));
        BrokerLifecycleManager restarted = startBroker(2, -1);
        assertThat(loop.runUntil(() -> !restarted.isFenced(), 10_000)).isTrue();
        assertThat(restarted.brokerEpoch()).isGreaterThan(oldEpoch);
        PartitionRegistration after = controller.partition(REP).orElseThrow();
        assertThat(after.isr()).doesNotContain(2);
        assertThat(after.elr()).doesNotContain(2);
        assertThat(after.leader()).isEqualTo(PartitionRegistration.NO_LEADER);
    }
}
