package dev.insync.replication.testkit.controller;

import dev.insync.replication.controller.ControllerConfig;
import dev.insync.replication.controller.api.RegisterBrokerRequest;
import dev.insync.replication.core.metadata.ControllerChannel;
import dev.insync.replication.core.metadata.ControllerChannel.HeartbeatResponse;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.testkit.network.InMemoryNetwork;
import dev.insync.replication.testkit.sim.EventLoop;
import dev.insync.replication.testkit.sim.NodeId;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The testkit's controller node on a simulated network with brokers reduced to registration and
 * heartbeats (metadata is read from the committed log: these brokers are always caught up).
 */
final class ControllerHarness {

    static final TopicPartition REP = new TopicPartition("rep", 0);

    final EventLoop loop = EventLoop.withSeed(3);
    final InMemoryNetwork network = new InMemoryNetwork(loop);
    final ClusterController controller;
    final Map<Integer, Long> epochs = new TreeMap<>();

    ControllerHarness(ControllerConfig config) {
        controller = new ClusterController(loop, network, config);
        controller.start();
    }

    ControllerHarness() {
        this(ControllerConfig.DEFAULT);
    }

    /** Runs the loop until {@code stage} completes (bounded) and returns its value. */
    <T> T await(CompletionStage<T> stage) {
        CompletableFuture<T> future = stage.toCompletableFuture();
        assertThat(loop.runUntil(future::isDone, 10_000)).as("completed within 10 s of virtual time").isTrue();
        return future.join();
    }

    long register(int id, long previousEpoch) {
        long epoch = await(controller.api().registerBroker(new RegisterBrokerRequest(id, previousEpoch))).brokerEpoch();
        epochs.put(id, epoch);
        return epoch;
    }

    HeartbeatResponse heartbeat(int id, boolean wantShutDown) {
        return await(controller.api().brokerHeartbeat(
                new HeartbeatRequest(id, epochs.get(id), controller.latestOffset(), wantShutDown)));
    }

    void startBrokers(int... ids) {
        for (int id : ids) {
            register(id, -1);
        }
        for (int id : ids) {
            assertThat(heartbeat(id, false).fenced()).as("broker %d unfenced", id).isFalse();
        }
    }

    void createRep(int minIsr, boolean unclean, Integer... replicas) {
        await(controller.createTopic(REP.topic(), List.of(Arrays.asList(replicas)), minIsr, unclean));
    }

    PartitionRegistration rep() {
        return controller.partition(REP).orElseThrow();
    }

    /**
     * Makes broker {@code id} heartbeat over the network every {@code intervalMs} from its own node,
     * so that pausing or killing the node stops its heartbeats.
     */
    Scheduler.Cancellable heartbeatPeriodically(int id, long intervalMs) {
        Scheduler scheduler = loop.forNode(NodeId.broker(id));
        ControllerChannel channel = network.controllerChannelFor(id);
        long epoch = epochs.get(id);
        return scheduler.schedulePeriodically(scheduler.newSerialExecutor("heartbeat"),
                () -> channel.heartbeat(new HeartbeatRequest(id, epoch, controller.latestOffset(), false)),
                intervalMs, intervalMs);
    }

    static <T> T done(CompletableFuture<T> future) {
        assertThat(future).isDone();
        return future.join();
    }
}
