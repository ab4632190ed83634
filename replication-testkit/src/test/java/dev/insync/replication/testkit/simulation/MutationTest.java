package dev.insync.replication.testkit.simulation;

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.partition.Partition;
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

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A deliberately broken library must be caught by the simulator. Each {@link Mutation} is injected
 * at the test kit's own seams; a directed fault schedule (and, where it is quick, the randomized
 * simulation) must make the {@link InvariantChecker} report a violation, while the same schedule
 * against the real library is clean. That no mutation means no violation over a wider seed range is
 * {@link SimulationTest}'s part.
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

    /** Seeds each mutation gets; the simulation must catch it in one of them. */
    static final int SEEDS = 100;
    /** Simulated seconds of faulty workload per seed. */
    static final long SECONDS = 12;

    /** The invariants that may catch each mutation (its javadoc says why); the first violation must be one. */
    private static final Map<Mutation, Set<String>> EXPECTED = new EnumMap<>(Map.ofEntries(
            Map.entry(Mutation.STRIP_DIVERGING_EPOCH, Set.of("INV-1", "INV-2", "INV-3", "LIVENESS")),
            Map.entry(Mutation.DIVERGING_END_OFFSET_OFF_BY_ONE, Set.of("INV-1", "INV-2", "INV-3", "LIVENESS")),
            Map.entry(Mutation.FOLLOWER_FETCH_OFFSET_AHEAD, Set.of("INV-1", "INV-2", "INV-3", "INV-7", "LIVENESS")),
            Map.entry(Mutation.FOLLOWER_HW_AT_LEADER_LEO, Set.of("INV-2", "INV-7")),
            Map.entry(Mutation.CONSUMER_READS_PAST_HW, Set.of("INV-2")),
            Map.entry(Mutation.ACK_ALL_AFTER_LOCAL_APPEND, Set.of("INV-1")),
            Map.entry(Mutation.ISR_EXPANSION_NEVER_DELIVERED, Set.of("LIVENESS")),
            Map.entry(Mutation.SHRINK_NEVER_DELIVERED, Set.of("LIVENESS")),
            Map.entry(Mutation.EXPANSION_PROPOSES_ALL_REPLICAS, Set.of("INV-7")),
            Map.entry(Mutation.UNCLEAN_RESTART_REPORTED_CLEAN, Set.of("LDR-5", "INV-1")),
            Map.entry(Mutation.INITIAL_LOAD_NOT_MERGED, Set.of("LOG-8", "INV-3", "INV-8")),
            Map.entry(Mutation.LEADER_EPOCH_NOT_BUMPED, Set.of("INV-1", "INV-2", "INV-8", "INV-3", "LIVENESS")),
            Map.entry(Mutation.CONSUMER_MOVES_ON_LATE_ANSWER, Set.of("INV-2"))));

    @Test
    @DisplayName("every mutation has the invariants that must catch it")
    void everyMutationHasExpectations() {
        assertThat(EXPECTED.keySet()).containsExactlyInAnyOrder(Mutation.values());
    }

    @ParameterizedTest(name = "INV-1..INV-8 LDR-5 LOG-8 LIVENESS the randomized simulation alone catches {0} within seeds 1..100")
    @EnumSource(Mutation.class)
    void randomSimulationCatchesMutation(Mutation mutation) {
        SimulationSettings settings = SimulationSettings.DEFAULT.withDurationMs(SECONDS * 1000).withMutation(mutation);
        Violation caught = null;
        long seed = 1;
        for (; seed <= SEEDS && caught == null; seed++) {
            SimulationResult result = Simulation.run(seed, settings);
            caught = result.violations().stream().filter(v -> EXPECTED.get(mutation).contains(v.invariant()))
                    .findFirst().orElse(null);
        }
        assertThat(caught).as(mutation + ": a violation of one of " + EXPECTED.get(mutation) + " in seeds 1.." + SEEDS)
                .isNotNull();
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

    /**
     * Whether the controller elected one of {@code candidates} and that broker has applied it (it
     * learns its election through its metadata fetch, a few events after the commit).
     */
    private static boolean leaderIn(InMemoryCluster cluster, int... candidates) {
        int leader = cluster.controller().partition(TP).map(PartitionRegistration::leader).orElse(-1);
        for (int c : candidates) {
            if (c == leader) {
                return cluster.broker(c).partition(TP).map(Partition::isLeader).orElse(false);
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
        return new InvariantChecker().violations(rec.history());
    }
}
