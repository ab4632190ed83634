package dev.insync.replication.testkit.controller;

import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionRequest.BrokerState;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.ControllerChannel;
import dev.insync.replication.core.metadata.ControllerChannel.HeartbeatResponse;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.testkit.network.InMemoryNetwork;
import dev.insync.replication.testkit.sim.EventLoop;
import dev.insync.replication.testkit.sim.NodeId;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** A controller on a simulated network with brokers reduced to their metadata and heartbeats. */
final class ControllerHarness {

    static final TopicPartition REP = new TopicPartition("rep", 0);

    final EventLoop loop = EventLoop.withSeed(3);
    final InMemoryNetwork network = new InMemoryNetwork(loop);
    final ReferenceController controller;
    final Map<Integer, MetadataDeltaSequencer> metadata = new TreeMap<>();
    final Map<Integer, List<MetadataDelta>> applied = new TreeMap<>();
    final Map<Integer, Long> epochs = new TreeMap<>();

    ControllerHarness(ControllerConfig config) {
        controller = new ReferenceController(loop, network, config);
        controller.start();
    }

    ControllerHarness() {
        this(ControllerConfig.DEFAULT);
    }

    /** Binds a fresh metadata sequencer for the current incarnation of broker {@code id}. */
    void bindMetadata(int id) {
        List<MetadataDelta> log = new ArrayList<>();
        applied.put(id, log);
        MetadataDeltaSequencer sequencer = new MetadataDeltaSequencer(log::add);
        metadata.put(id, sequencer);
        network.bindMetadataListener(id, sequencer::accept);
    }

    long register(int id, long previousEpoch) {
        bindMetadata(id);
        long epoch = controller.registerBroker(id, previousEpoch);
        epochs.put(id, epoch);
        return epoch;
    }

    HeartbeatResponse heartbeat(int id, boolean wantShutDown) {
        loop.runFor(10);
        return controller.heartbeat(new HeartbeatRequest(id, epochs.get(id), metadata.get(id).appliedOffset(), wantShutDown));
    }

    void startBrokers(int... ids) {
        for (int id : ids) {
            register(id, -1);
        }
        for (int id : ids) {
            assertThat(heartbeat(id, false).fenced()).as("broker %d unfenced", id).isFalse();
        }
    }

    /** kill -9 and restart of broker {@code id}; registers clean (with its last epoch) or unclean (-1). */
    long restart(int id, boolean clean) {
        NodeId node = NodeId.broker(id);
        loop.kill(node);
        loop.start(node);
        return register(id, clean ? epochs.get(id) : -1);
    }

    void createRep(int minIsr, boolean unclean, Integer... replicas) {
        controller.createTopic(REP.topic(), List.of(Arrays.asList(replicas)), minIsr, unclean);
    }

    PartitionRegistration rep() {
        return controller.partition(REP).orElseThrow();
    }

    /** A proposal from the current leader with everyone's registered epoch. */
    AlterPartitionRequest.Item proposal(Integer... isr) {
        PartitionRegistration p = rep();
        return new AlterPartitionRequest.Item(REP, p.leaderEpoch(), p.partitionEpoch(),
                Arrays.stream(isr).map(id -> new BrokerState(id, epochs.getOrDefault(id, -1L))).toList(), false);
    }

    AlterPartitionResponse.PartitionResult alter(int sender, AlterPartitionRequest.Item item) {
        AlterPartitionResponse response = controller.alterPartition(new AlterPartitionRequest(sender, epochs.get(sender), List.of(item)));
        return response.partitions().get(item.topicPartition());
    }

    /**
     * Makes broker {@code id} heartbeat over the network every {@code intervalMs} from its own node,
     * so that pausing or killing the node stops its heartbeats.
     */
    Scheduler.Cancellable heartbeatPeriodically(int id, long intervalMs) {
        Scheduler scheduler = loop.forNode(NodeId.broker(id));
        ControllerChannel channel = network.controllerChannelFor(id);
        long epoch = epochs.get(id);
        MetadataDeltaSequencer sequencer = metadata.get(id);
        return scheduler.schedulePeriodically(scheduler.newSerialExecutor("heartbeat"),
                () -> channel.heartbeat(new HeartbeatRequest(id, epoch, sequencer.appliedOffset(), false)), intervalMs, intervalMs);
    }

    static <T> T done(CompletableFuture<T> future) {
        assertThat(future).isDone();
        return future.join();
    }
}
