package dev.insync.replication.testkit.cluster;

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.metadata.follower.MetadataImage;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.testkit.controller.ClusterController;
import dev.insync.replication.testkit.network.ControllerRpc;
import dev.insync.replication.testkit.sim.NodeId;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The controller process dies and comes back on an in-memory cluster (CTL-1, CTL-3, CTL-5). */
class ControllerFailoverTest {

    private static final long SESSION_MS = 6_000;
    private static final TopicPartition REP = new TopicPartition("rep", 0);

    private static InMemoryCluster.Builder cluster() {
        return InMemoryCluster.builder().brokers(3).seed(5)
                .config("broker.session.timeout.ms", SESSION_MS)
                .config("broker.heartbeat.interval.ms", 1_000)
                .config("request.timeout.ms", 5_000);
    }

    @Test
    @DisplayName("CTL-3 after a controller failover no live broker is fenced, and a dead one only a full session timeout after the new controller started")
    void failoverGivesEveryBrokerAFullSessionTimeout() {
        try (InMemoryCluster cluster = cluster().build()) {
            cluster.createTopic("rep", 3, 1, 2);
            TestProducer producer = cluster.producer("p");
            assertThat(cluster.await(producer.send("rep", 0, null, "before", -1, 30_000)).error()).isEqualTo(Errors.NONE);
            long committedBefore = cluster.controller().latestOffset();
            List<Integer> epochsBefore = cluster.admin().partitionEpochs("rep", 0);

            // The leader dies, and at once the controller: nobody is left to notice the leader's silence.
            cluster.kill(3);
            cluster.killController();
            assertThat(cluster.controller().status()).isEqualTo(ClusterController.Status.DOWN);
            cluster.runFor(10_000); // longer than a session timeout with no controller at all
            assertThat(cluster.controller().broker(3).orElseThrow().fenced()).as("nothing was committed meanwhile").isFalse();
            assertThat(cluster.controller().latestOffset()).isEqualTo(committedBefore);

            cluster.restartController();
            long startedAt = cluster.nowMs();
            assertThat(cluster.controller().incarnation()).isEqualTo(2);
            List<Integer> fencedLive = new ArrayList<>();
            boolean deadFenced = cluster.runUntil(() -> {
                for (int live : List.of(1, 2)) {
                    if (cluster.controller().broker(live).orElseThrow().fenced() && !fencedLive.contains(live)) {
                        fencedLive.add(live);
                    }
                }
                return cluster.controller().broker(3).orElseThrow().fenced();
            }, 3 * SESSION_MS);
            long fencedAfterMs = cluster.nowMs() - startedAt;

            assertThat(deadFenced).as("the dead broker is fenced in the end").isTrue();
            assertThat(fencedLive).as("live brokers fenced by the failover").isEmpty();
            assertThat(fencedAfterMs).as("a full session timeout from the new controller's start")
                    .isBetween(SESSION_MS, SESSION_MS + 1_000);
            assertThat(cluster.controller().isActive()).isTrue();
            // The new incarnation rebuilt from the log: the history goes on from where it was.
            assertThat(cluster.admin().partitionEpochs("rep", 0)).startsWith(epochsBefore.toArray(Integer[]::new));
            PartitionRegistration rep = cluster.admin().partition("rep", 0);
            assertThat(rep.leader()).as("leadership moved away from the dead broker").isIn(1, 2);
            assertThat(rep.isr()).doesNotContain(3);
            cluster.awaitLeader("rep", 0);
            assertThat(cluster.await(producer.send("rep", 0, null, "after", -1, 30_000)).error()).isEqualTo(Errors.NONE);
        }
    }

    @Test
    @DisplayName("CTL-5 CTL-1 a broker down while many records were written and snapshotted catches up from an image, served by a controller rebuilt from snapshot plus tail")
    void laggingBrokerCatchesUpFromAnImage() {
        try (InMemoryCluster cluster = cluster()
                .config("metadata.log.max.snapshot.interval.records", 20)
                .config("insync.controller.metadata.delta.cache.size", 5)
                .build()) {
            cluster.createTopic("rep", 1, 2, 3);
            cluster.kill(3);
            assertThat(cluster.runUntil(() -> !cluster.admin().isr("rep", 0).contains(3), 3 * SESSION_MS))
                    .as("the dead broker fenced out of the ISR").isTrue();
            for (int i = 0; i < 10; i++) {
                cluster.createTopic("t" + i, List.of(List.of(1, 2)));
                cluster.setMinInsyncReplicas("rep", i % 2 == 0 ? 2 : 1);
            }
            cluster.setMinInsyncReplicas("rep", 2);
            assertThat(cluster.controller().log().latestSnapshot()).as("the controller snapshotted").isPresent();
            assertThat(cluster.controller().log().committedBatches().get(0).baseOffset())
                    .as("the batches a snapshot covers are gone from the log").isPositive();

            // A new controller incarnation loads the snapshot and replays the tail: same committed state.
            String described = cluster.describe("rep");
            cluster.killController();
            cluster.restartController();
            assertThat(cluster.runUntil(() -> cluster.controller().isActive(), 5_000)).isTrue();
            assertThat(cluster.describe("rep")).isEqualTo(described);

            AtomicInteger images = new AtomicInteger();
            cluster.network().bind(NodeId.CONTROLLER, ControllerRpc.FETCH_METADATA, request ->
                    cluster.controller().api().fetchMetadata(request).thenApply(response -> {
                        if (request.brokerId() == 3 && response.image().isPresent()) {
                            images.incrementAndGet();
                        }
                        return response;
                    }));
            cluster.restart(3);
            assertThat(cluster.runUntil(() -> cluster.admin().isr("rep", 0).contains(3), 30_000))
                    .as("broker 3 back in the ISR: %s", cluster.describe("rep")).isTrue();
            assertThat(images.get()).as("broker 3 loaded an image: the deltas it missed are gone").isPositive();
            MetadataImage seen = cluster.broker(3).insyncBroker().orElseThrow().metadataView().image();
            assertThat(seen.minInsyncReplicasByTopic()).containsEntry("rep", 2).containsKey("t9");
            assertThat(cluster.broker(3).replicaManager().orElseThrow().partition(REP).orElseThrow().minInsyncReplicas())
                    .isEqualTo(2);
        }
    }

    @Test
    @DisplayName("CTL-3 a short controller pause fences nobody; what queued meanwhile is handled when it resumes")
    void shortPause() {
        try (InMemoryCluster cluster = cluster().build()) {
            cluster.createTopic("rep", 1, 2, 3);
            cluster.pauseController();
            cluster.runFor(SESSION_MS - 2_000);
            cluster.resumeController();
            cluster.runFor(2 * SESSION_MS);
            for (int b : List.of(1, 2, 3)) {
                assertThat(cluster.controller().broker(b).orElseThrow().fenced()).as("broker %d", b).isFalse();
            }
            assertThat(cluster.admin().isr("rep", 0)).containsExactly(1, 2, 3);
        }
    }
}
