package dev.insync.replication.testkit.controller;

import dev.insync.replication.controller.ControllerConfig;
import dev.insync.replication.core.metadata.ControllerChannel;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.testkit.network.InMemoryNetwork;
import dev.insync.replication.testkit.network.LinkConfig;
import dev.insync.replication.testkit.sim.EventLoop;
import dev.insync.replication.testkit.sim.NodeId;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class DeterminismTest {

    @Test
    @DisplayName("INV-6 controller, network and brokers' heartbeats with random delays and faults: same seed, same history")
    void sameSeedSameHistory() {
        Run a = run(1234);
        Run b = run(1234);
        Run c = run(1235);
        assertThat(a.traceHash).isEqualTo(b.traceHash);
        assertThat(a.describe).isEqualTo(b.describe);
        assertThat(a.events).isEqualTo(b.events);
        assertThat(c.traceHash).isNotEqualTo(a.traceHash);
    }

    private record Run(long traceHash, long events, String describe) {
    }

    private static Run run(long seed) {
        EventLoop loop = EventLoop.withSeed(seed);
        InMemoryNetwork network = new InMemoryNetwork(loop);
        network.setDefaultLink(new LinkConfig(1, 40, 0.05));
        ClusterController controller = new ClusterController(loop, network,
                ControllerConfig.DEFAULT.withBrokerSessionTimeoutMs(3_000));
        controller.start();
        for (int id = 1; id <= 3; id++) {
            startBroker(loop, network, id);
        }
        loop.runFor(5_000);
        CompletableFuture<?> created = controller.createTopic("rep", List.of(List.of(1, 2, 3), List.of(2, 3, 1)), 2, false);
        loop.runFor(2_000);
        assertThat(created).isCompleted();
        loop.pause(NodeId.broker(1));
        loop.runFor(loop.random().nextLong(2_000, 6_000));
        loop.resume(NodeId.broker(1));
        network.partition(NodeId.broker(2), NodeId.CONTROLLER);
        loop.runFor(5_000);
        network.healAll();
        loop.runFor(10_000);
        return new Run(loop.traceHash(), loop.eventsExecuted(), controller.describe("rep"));
    }

    /** A broker reduced to registration and heartbeats (reporting itself caught up), with retries, on its own node. */
    private static void startBroker(EventLoop loop, InMemoryNetwork network, int id) {
        Scheduler scheduler = loop.forNode(NodeId.broker(id));
        ControllerChannel channel = network.controllerChannelFor(id);
        AtomicLong epoch = new AtomicLong(-1);
        var executor = scheduler.newSerialExecutor("lifecycle");
        scheduler.schedulePeriodically(executor, () -> {
            if (epoch.get() < 0) {
                channel.registerBroker(id, -1).thenAccept(e -> epoch.compareAndSet(-1, e));
            } else {
                channel.heartbeat(new dev.insync.replication.core.metadata.HeartbeatRequest(id, epoch.get(), epoch.get(), false));
            }
        }, 0, 500);
    }
}
