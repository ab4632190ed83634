package dev.insync.replication.testkit.simulation;

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.testkit.cluster.BrokerStatus;
import dev.insync.replication.testkit.cluster.InMemoryCluster;
import dev.insync.replication.testkit.history.Violation;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;

/**
 * What every {@link FaultAction} shares: the cluster, the recorder, the fault schedule's own random
 * stream, which brokers are cut off from the controller, shutting down or down after a crash, and
 * the guards that keep a run of a seed without unclean leader election inside what Kafka promises
 * to survive.
 *
 * <p>The guard for taking a broker down (kill, power loss, controlled shutdown): for every partition,
 * another member of the controller's ISR must stay <em>eligible</em> — running, not shutting down,
 * not cut off from the controller, and known to the controller as registered in its current
 * incarnation and unfenced. An unclean restart removes a broker from the ISR and the ELR (LDR-5),
 * so taking away the last eligible member would leave the partition without a leader until an
 * unclean election; with the guard, two brokers may be down at once (of three) whenever the third is
 * such a member, and a power loss is allowed whatever the ISR: every record below the HW is on
 * every ISR member (INV-7), the eligible one has not lost power since it joined, and the one that
 * lost power cannot lead before it caught up again. Faults that destroy part of a copy (power loss,
 * failed disk, flipped bit) also take turns ({@link #mayLoseData}): one damaged copy at a time. Seeds with unclean election enabled skip the
 * guard: there, losing the last eligible member is what unclean election is for.
 */
final class FaultContext {

    /** How often a crash targets a partition's leader when it may (the leader holds what nobody else has yet). */
    private static final double TARGET_LEADER_PROBABILITY = 0.5;

    final InMemoryCluster cluster;
    final Recorder recorder;
    final SplittableRandom random;
    final List<Integer> replicas;
    final int partitions;
    final String topic;
    final boolean unclean;
    /** min.insync.replicas in force now. */
    final IntSupplier minIsr;
    /** Brokers isolated from everyone or cut from the controller: the controller fences them. */
    final Set<Integer> cutFromController = new TreeSet<>();
    /** Brokers down after a kill or a power loss, not restarted yet. */
    final Set<Integer> crashed = new TreeSet<>();
    /** Brokers with a failed disk ({@link DiskFaults}) not healed by a restart yet. */
    final Set<Integer> diskFailed = new TreeSet<>();
    /**
     * Brokers whose copy a fault destroyed in part (a power loss, a failed disk, a flipped bit) and
     * that have not been back in every ISR since: until then they may hold less than what the
     * leader counted them for.
     */
    private final Set<Integer> lostData = new TreeSet<>();
    /** Failures of the run itself (not of an invariant over the history), e.g. a shutdown that never ended. */
    final List<Violation> runFailures = new ArrayList<>();
    private int shuttingDown = -1;
    private CompletableFuture<Void> shutdownFuture;

    FaultContext(InMemoryCluster cluster, Recorder recorder, SplittableRandom random, List<Integer> replicas,
                 int partitions, String topic, boolean unclean, IntSupplier minIsr) {
        this.cluster = cluster;
        this.recorder = recorder;
        this.random = random;
        this.replicas = List.copyOf(replicas);
        this.partitions = partitions;
        this.topic = topic;
        this.unclean = unclean;
        this.minIsr = minIsr;
    }

    /** Records a fault as injected. */
    void record(String kind, List<Integer> brokers, Map<String, Object> params) {
        recorder.fault(kind, brokers, params);
    }

    /** A uniformly drawn element. */
    int pick(List<Integer> from) {
        return from.get(random.nextInt(from.size()));
    }

    /** Brokers in {@code status} (RUNNING, PAUSED, DOWN), the one shutting down excluded, in id order. */
    List<Integer> brokersIn(BrokerStatus status) {
        List<Integer> out = new ArrayList<>();
        for (int b : replicas) {
            if (cluster.broker(b).status() == status && b != shuttingDown) {
                out.add(b);
            }
        }
        return out;
    }

    /** Brokers paused, down or shutting down. */
    int notRunning() {
        return brokersIn(BrokerStatus.PAUSED).size() + brokersIn(BrokerStatus.DOWN).size() + (shuttingDown >= 0 ? 1 : 0);
    }

    /** At most all but one broker may be not running at once. */
    boolean mayStopAnother() {
        return notRunning() < replicas.size() - 1;
    }

    // ------------------------------------------------------------------ controlled shutdown

    /** The broker in a controlled shutdown, or -1. */
    int shuttingDown() {
        pollShutdown();
        return shuttingDown;
    }

    void startShutdown(int broker) {
        shuttingDown = broker;
        shutdownFuture = cluster.controlledShutdown(broker);
        record("shutdown", List.of(broker), Map.of());
    }

    /** Notices a controlled shutdown that has finished, and records it. */
    void pollShutdown() {
        if (shuttingDown >= 0 && shutdownFuture.isDone()) {
            record("shutdown-done", List.of(shuttingDown), Map.of());
            shuttingDown = -1;
            shutdownFuture = null;
        }
    }

    /** Waits (bounded) for a pending controlled shutdown; kills the broker if it never ends (a run failure). */
    void finishShutdown(long boundMs) {
        if (shuttingDown < 0) {
            return;
        }
        CompletableFuture<Void> f = shutdownFuture;
        if (!cluster.runUntil(f::isDone, boundMs)) {
            int b = shuttingDown;
            runFailures.add(new Violation("LDR-4", cluster.nowMs(), "controlled shutdown of broker " + b
                    + " did not finish within " + boundMs + " ms after healing"));
            shuttingDown = -1;
            shutdownFuture = null;
            cluster.kill(b);
            record("kill", List.of(b), Map.of());
            crashed.add(b);
            return;
        }
        pollShutdown();
    }

    // ------------------------------------------------------------------ guards

    /**
     * Whether {@code broker} can stay in an ISR, or be elected from one, right now. A broker with a
     * failed disk does not count, whichever partitions that directory holds (conservative).
     */
    boolean eligible(int broker) {
        return cluster.broker(broker).status() == BrokerStatus.RUNNING && broker != shuttingDown
                && !cutFromController.contains(broker) && !diskFailed.contains(broker)
                && cluster.admin().activeAtController(broker);
    }

    /**
     * Brokers that may go down now: running (or also paused), and, without unclean election, leaving
     * every partition an eligible ISR member. Sometimes narrowed to a partition's leader.
     */
    List<Integer> crashable(boolean pausedToo) {
        List<Integer> candidates = new ArrayList<>(brokersIn(BrokerStatus.RUNNING));
        if (pausedToo) {
            candidates.addAll(brokersIn(BrokerStatus.PAUSED));
        }
        candidates.sort(null);
        if (!unclean) {
            candidates.removeIf(b -> !othersEligibleInEveryIsr(b));
        }
        List<Integer> leaders = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            int leader = registration(p).map(PartitionRegistration::leader).orElse(PartitionRegistration.NO_LEADER);
            if (candidates.contains(leader) && !leaders.contains(leader)) {
                leaders.add(leader);
            }
        }
        if (!leaders.isEmpty() && random.nextDouble() < TARGET_LEADER_PROBABILITY) {
            return leaders;
        }
        return candidates;
    }

    /**
     * Whether a fault may destroy part of {@code broker}'s copy now. Without unclean election, only
     * when no other broker's copy is still damaged: min ISR 2 survives one lost copy, not two. A
     * leader counts a follower by its last fetch, so a follower that lost power still counts until
     * it leaves the ISR; should the third replica fall behind (a cut link) and leave first, the
     * leader acknowledges on its own copy plus that dead one's, and a failed disk under the leader
     * would then lose acknowledged records, as it would in Kafka.
     */
    boolean mayLoseData(int broker) {
        lostData.removeIf(this::backInEveryIsr);
        return unclean || lostData.isEmpty() || lostData.equals(Set.of(broker));
    }

    /** Records that a fault destroyed part of {@code broker}'s copy (see {@link #mayLoseData}). */
    void lostData(int broker) {
        lostData.add(broker);
    }

    private boolean backInEveryIsr(int broker) {
        if (!eligible(broker)) {
            return false;
        }
        for (int p = 0; p < partitions; p++) {
            if (!registration(p).map(PartitionRegistration::isr).orElse(List.of()).contains(broker)) {
                return false;
            }
        }
        return true;
    }

    /** Whether every partition's ISR has an eligible member other than {@code broker}. */
    boolean othersEligibleInEveryIsr(int broker) {
        for (int p = 0; p < partitions; p++) {
            List<Integer> isr = registration(p).map(PartitionRegistration::isr).orElse(List.of());
            if (isr.stream().noneMatch(m -> m != broker && eligible(m))) {
                return false;
            }
        }
        return true;
    }

    private java.util.Optional<PartitionRegistration> registration(int partition) {
        return cluster.controller().partition(new TopicPartition(topic, partition));
    }
}
