package dev.insync.replication.testkit.simulation;

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.testkit.cluster.InMemoryCluster;
import dev.insync.replication.testkit.cluster.Mutation;
import dev.insync.replication.testkit.cluster.ProduceOutcome;
import dev.insync.replication.testkit.cluster.TestProducer;
import dev.insync.replication.testkit.history.InvariantChecker;
import dev.insync.replication.testkit.history.Violation;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A deliberately broken library must be caught by the simulator. Each {@link Mutation} is injected
 * at the test kit's own seams; a directed fault schedule (and, where it is quick, the randomized
 * simulation) must make the {@link InvariantChecker} report a violation, while the same schedule
 * against the real library is clean.
 */
class MutationTest {

    private static final long TIMEOUT_MS = 5_000;
    private static final TopicPartition TP = new TopicPartition(Simulation.TOPIC, 0);

    @Test
    @DisplayName("INV-1 acks=all acknowledged right after the leader's append is lost when the leader dies: caught")
    void ackAllWithoutWaitingIsCaught() {
        List<Violation> broken = leaderDiesWithUnreplicatedAckAll(Optional.of(Mutation.ACK_ALL_AFTER_LOCAL_APPEND));
        List<Violation> real = leaderDiesWithUnreplicatedAckAll(Optional.empty());

        assertThat(broken).extracting(Violation::invariant).contains("INV-1");
        assertThat(broken).anyMatch(v -> v.detail().contains("'doomed'"));
        assertThat(real).as("the real library under the same schedule").isEmpty();
    }

    @Test
    @DisplayName("INV-3 INV-1 a follower never told about divergence (divergingEpoch stripped) keeps a diverged log: caught")
    void strippedDivergingEpochIsCaught() {
        List<Violation> broken = divergedFollowerRestarts(Optional.of(Mutation.STRIP_DIVERGING_EPOCH));
        List<Violation> real = divergedFollowerRestarts(Optional.empty());

        assertThat(broken).extracting(Violation::invariant).contains("INV-3", "INV-1");
        assertThat(real).as("the real library under the same schedule").isEmpty();
    }

    @ParameterizedTest(name = "INV-1 INV-3 the randomized simulation alone catches {0} within seeds 1..15")
    @EnumSource(Mutation.class)
    void randomSimulationCatchesMutation(Mutation mutation) {
        SimulationSettings settings = SimulationSettings.DEFAULT.withDurationMs(25_000).withMutation(mutation);
        List<String> caught = new ArrayList<>();
        for (long seed = 1; seed <= 15 && caught.isEmpty(); seed++) {
            SimulationResult result = Simulation.run(seed, settings);
            if (!result.clean()) {
                caught.add("seed " + seed + ": " + result.violations().get(0));
            }
        }
        assertThat(caught).as("seeds whose run reported a violation").isNotEmpty();
        assertThat(caught.get(0)).containsAnyOf("INV-1", "INV-2", "INV-3");
    }

    /**
     * Followers paused, one acks=all record sent to the leader, the leader killed before they fetch
     * it, followers resumed: a new leader is elected without the record. The real library never
     * acknowledges it (it waits for the HW, then the client's deadline ends it).
     */
    private static List<Violation> leaderDiesWithUnreplicatedAckAll(Optional<Mutation> mutation) {
        try (InMemoryCluster cluster = cluster(mutation)) {
            Recorder rec = start(cluster);
            TestProducer p = cluster.producer("p1");
            for (int i = 1; i <= 5; i++) {
                assertThat(cluster.await(rec.produce(p, -1, "ok-" + i, TIMEOUT_MS)).isSuccess()).isTrue();
            }
            fault(cluster, rec, "pause", 2);
            fault(cluster, rec, "pause", 3);
            cluster.runFor(1_000);
            rec.produce(p, -1, "doomed", TIMEOUT_MS);
            cluster.runFor(100);
            rec.sample();
            fault(cluster, rec, "kill", 1);
            fault(cluster, rec, "resume", 2);
            fault(cluster, rec, "resume", 3);
            assertThat(cluster.runUntil(() -> leaderIn(cluster, 2, 3), 30_000)).as("a new leader among 2 and 3").isTrue();
            fault(cluster, rec, "restart", 1);
            return quiesceAndCheck(cluster, rec);
        }
    }

    /**
     * SCN-3's schedule: acks=1 records only on the leader, which is killed; the others elect a new
     * leader and take acks=all writes at the same offsets; the old leader restarts and must truncate.
     */
    private static List<Violation> divergedFollowerRestarts(Optional<Mutation> mutation) {
        try (InMemoryCluster cluster = cluster(mutation)) {
            Recorder rec = start(cluster);
            TestProducer p = cluster.producer("p1");
            for (int i = 1; i <= 5; i++) {
                assertThat(cluster.await(rec.produce(p, -1, "ok-" + i, TIMEOUT_MS)).isSuccess()).isTrue();
            }
            fault(cluster, rec, "pause", 2);
            fault(cluster, rec, "pause", 3);
            cluster.runFor(1_000);
            for (int i = 1; i <= 3; i++) {
                ProduceOutcome lost = cluster.await(rec.produce(p, 1, "lost-" + i, TIMEOUT_MS));
                assertThat(lost.offset()).isEqualTo(4 + i);
            }
            fault(cluster, rec, "kill", 1);
            fault(cluster, rec, "resume", 2);
            fault(cluster, rec, "resume", 3);
            assertThat(cluster.runUntil(() -> leaderIn(cluster, 2, 3), 30_000)).as("a new leader among 2 and 3").isTrue();
            for (int i = 1; i <= 3; i++) {
                ProduceOutcome ok = cluster.await(rec.produce(p, -1, "new-" + i, TIMEOUT_MS));
                assertThat(ok.isSuccess()).as("new-" + i + ": " + ok).isTrue();
            }
            fault(cluster, rec, "restart", 1);
            return quiesceAndCheck(cluster, rec);
        }
    }

    private static InMemoryCluster cluster(Optional<Mutation> mutation) {
        InMemoryCluster.Builder b = InMemoryCluster.builder().brokers(3).seed(11)
                .config("replica.lag.time.max.ms", 10_000)
                .config("broker.session.timeout.ms", 6_000)
                .config("min.insync.replicas", 2);
        mutation.ifPresent(b::mutation);
        return b.build();
    }

    private static Recorder start(InMemoryCluster cluster) {
        cluster.createTopic(Simulation.TOPIC, 1, 2, 3);
        Recorder rec = new Recorder(cluster, Simulation.TOPIC, 0);
        rec.config(2, List.of(1, 2, 3), false);
        rec.sample();
        return rec;
    }

    private static void fault(InMemoryCluster cluster, Recorder rec, String kind, int broker) {
        switch (kind) {
            case "pause" -> cluster.pause(broker);
            case "resume" -> cluster.resume(broker);
            case "kill" -> cluster.kill(broker);
            case "restart" -> cluster.restart(broker);
            default -> throw new IllegalArgumentException(kind);
        }
        rec.fault(kind, List.of(broker));
        rec.sample();
    }

    private static boolean leaderIn(InMemoryCluster cluster, int... candidates) {
        int leader = cluster.controller().partition(TP).map(PartitionRegistration::leader).orElse(-1);
        for (int c : candidates) {
            if (c == leader) {
                return true;
            }
        }
        return false;
    }

    /** 30 s of sampled quiet time, then the final logs and the checker. */
    private static List<Violation> quiesceAndCheck(InMemoryCluster cluster, Recorder rec) {
        for (int i = 0; i < 120; i++) {
            cluster.runFor(250);
            rec.sample();
        }
        assertThat(rec.outstandingProduces()).isZero();
        rec.finals();
        return new InvariantChecker(TIMEOUT_MS, Simulation.COMPLETION_SLACK_MS).check(rec.history(), rec.samples());
    }
}
