package dev.insync.replication.testkit.cluster;

import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.testkit.sim.EventLoop;
import dev.insync.replication.testkit.sim.NodeId;
import dev.insync.replication.testkit.sim.NodeScheduler;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class InitialMetadataLoadTest {

    private static final TopicPartition TP = new TopicPartition("sim", 0);

    private static MetadataDelta delta(long offset, int leader, int leaderEpoch) {
        PartitionRegistration p = new PartitionRegistration(TP, List.of(1, 2, 3), List.of(1, 2, 3), List.of(), List.of(),
                leader, leaderEpoch, leaderEpoch, false);
        return new MetadataDelta(offset, List.of(), List.of(p), List.of(), Map.of("sim", 2));
    }

    @Test
    @DisplayName("LDR-4 a new incarnation applies the replayed metadata log as one image, never an old leadership")
    void replayIsAppliedAsTheCurrentImage() {
        EventLoop loop = EventLoop.withSeed(1);
        NodeScheduler scheduler = loop.forNode(NodeId.broker(3));
        List<MetadataDelta> applied = new ArrayList<>();
        AtomicLong brokerEpoch = new AtomicLong(-1);
        InitialMetadataLoad load = new InitialMetadataLoad(applied::add, brokerEpoch::get, scheduler,
                scheduler.newSerialExecutor("load"));

        // The replay: broker 3 led epoch 1 once, broker 1 leads epoch 2 now; offset 7 is broker 3's registration.
        load.accept(delta(0, 1, 0));
        load.accept(delta(3, 3, 1));
        load.accept(delta(5, 1, 2));
        load.accept(new MetadataDelta(7, List.of(), List.of(), List.of(), Map.of()));
        loop.runFor(5);
        assertThat(applied).as("nothing before the registration answer").isEmpty();

        brokerEpoch.set(7);
        loop.runFor(5);
        assertThat(applied).hasSize(1);
        assertThat(applied.get(0).offset()).isEqualTo(7);
        assertThat(applied.get(0).partitions()).singleElement()
                .satisfies(p -> {
                    assertThat(p.leader()).isEqualTo(1);
                    assertThat(p.leaderEpoch()).isEqualTo(2);
                });
        assertThat(applied.get(0).minInsyncReplicasByTopic()).containsEntry("sim", 2);

        // Once loaded, deltas pass straight through.
        load.accept(delta(8, 3, 3));
        assertThat(applied).hasSize(2);
        assertThat(applied.get(1).offset()).isEqualTo(8);
    }
}
