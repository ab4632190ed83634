package dev.insync.replication.testkit.simulation;

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.testkit.cluster.BrokerStatus;
import dev.insync.replication.testkit.cluster.InMemoryCluster;
import dev.insync.replication.testkit.cluster.Mutation;
import dev.insync.replication.testkit.cluster.ProduceOutcome;
import dev.insync.replication.testkit.cluster.TestConsumer;
import dev.insync.replication.testkit.cluster.TestProducer;
import dev.insync.replication.testkit.history.HistoryEvent;
import dev.insync.replication.testkit.history.InvariantChecker;
import dev.insync.replication.testkit.history.Violation;
import dev.insync.replication.testkit.network.LinkConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

/**
 * The randomized simulation of SPEC §11: one seed, one {@link InMemoryCluster} of N brokers with one
 * partition replicated on all of them, a random workload interleaved with random faults, then a
 * heal-and-quiesce phase, and the {@link InvariantChecker} over the recorded history and state samples.
 *
 * <h2>Workload</h2>
 * Producers {@code p1..pN} each keep at most one call outstanding and send unique values
 * ({@code p1-17}) with acks=1 or acks=all; consumers {@code c1..cN} poll from their positions. Now and
 * then min.insync.replicas changes, to 2 or N, and rarely to 1 (a {@code config} event records each
 * change; INV-1/INV-2 only cover records that min ISR ≥ 2 protected from then on).
 *
 * <h2>Fault model</h2>
 * The faults stay inside what Kafka promises to survive with {@code unclean.leader.election.enable=false}:
 * <ul>
 *   <li><b>pause/resume</b> (SIGSTOP/SIGCONT) of a running broker, at most two brokers not running
 *       (paused or down) at a time;</li>
 *   <li><b>kill</b> (kill -9, files and the OS page cache survive), <b>power</b> loss (unflushed
 *       bytes are lost, the last write may be torn) and controlled <b>shutdown</b>: at most one broker
 *       crashed, shutting down or down at a time, restarted before another goes down;</li>
 *   <li>a power loss only while the controller's ISR holds every replica: every committed record
 *       then survives in the page cache of the other ISR members, whereas two power losses that take
 *       away the only flushed-or-cached copies is a loss Kafka does not promise to survive (flushing
 *       is left to replication, {@code flush.messages} = Long.MAX_VALUE);</li>
 *   <li>a crash only while another ISR member is running and in touch with the controller, and no
 *       pause or isolation while a broker is down: an unclean restart drops a broker from the ISR
 *       and the ELR (LDR-5), so crashing the last eligible replica (or letting the controller fence
 *       the other one meanwhile) leaves the partition offline until an unclean election, and Kafka
 *       promises no availability there;</li>
 *   <li>network cuts between brokers, one-way or two-way, a broker isolated from everyone (the
 *       controller and clients included), and heals;</li>
 *   <li>slow links: every link's delay drawn from {@code [1, D]} ms for a while (not in the history,
 *       which has no event kind for it).</li>
 * </ul>
 * Then the heal-and-quiesce phase: writes stop, the network heals, paused brokers resume, a pending
 * controlled shutdown finishes, down brokers restart, outstanding produce calls complete, and the run
 * waits (bounded) until every replica is in the ISR with the same LEO and HW; then each broker's
 * final log is recorded. State samples of every live broker are taken at every workload tick (50 to
 * 250 ms of virtual time) and after every fault.
 *
 * <p>Everything random comes from the seed: the cluster's event loop uses it, and the workload and
 * fault schedule draw from a second generator derived from it, so the same seed gives the same
 * history event for event (INV-6).
 */
public final class Simulation {

    /** The simulated topic. */
    public static final String TOPIC = "sim";
    /** Virtual time the heal-and-quiesce phase may take before non-convergence counts as a violation. */
    public static final long QUIESCE_BOUND_MS = 120_000;
    /** Slack on the client side beyond the produce timeout (the client's own deadline). */
    public static final long COMPLETION_SLACK_MS = TestProducer.CLIENT_DEADLINE_SLACK_MS;

    private static final long TICK_MIN_MS = 50;
    private static final long TICK_MAX_MS = 250;
    private static final double SEND_PROBABILITY = 0.3;
    private static final double POLL_PROBABILITY = 0.2;
    private static final double FAULT_PROBABILITY = 0.08;
    private static final double MIN_ISR_CHANGE_PROBABILITY = 0.007;
    private static final double MIN_ISR_ONE_PROBABILITY = 0.1;
    private static final long MAX_LINK_DELAY_MS = 60;
    private static final double ACK_ALIGNED_TICK_PROBABILITY = 0.3;
    private static final long MIN_ISR_PROPAGATION_BOUND_MS = 5_000;
    private static final double TARGET_LEADER_PROBABILITY = 0.5;
    private static final long SAMPLE_INTERVAL_QUIESCE_MS = 200;

    private final long seed;
    private final SimulationSettings settings;
    private final SplittableRandom random;
    private final Path dataDir;
    private final InMemoryCluster cluster;
    private final Recorder recorder;
    private final List<Integer> replicas = new ArrayList<>();
    private final List<TestProducer> producers = new ArrayList<>();
    private final List<TestConsumer> consumers = new ArrayList<>();
    private final Map<String, CompletableFuture<?>> inFlight = new TreeMap<>();
    private final Map<String, Integer> sequence = new HashMap<>();
    private final List<Violation> extraViolations = new ArrayList<>();
    private final java.util.Set<Integer> isolated = new java.util.TreeSet<>();
    private int minIsr;
    private boolean networkCut;
    private boolean slowLinks;
    private int shuttingDown = -1;
    private CompletableFuture<Void> shutdownFuture;

    private Simulation(long seed, SimulationSettings settings) {
        this.seed = seed;
        this.settings = settings;
        // A generator of its own for the workload, derived from the seed, so that the schedule does
        // not shift whenever the library draws one more random number internally.
        this.random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L);
        InMemoryCluster.Builder builder = InMemoryCluster.builder().brokers(settings.brokers()).seed(seed)
                .config("replica.lag.time.max.ms", 4_000)
                .config("broker.session.timeout.ms", 6_000)
                .config("broker.heartbeat.interval.ms", 1_000)
                .config("min.insync.replicas", settings.initialMinIsr())
                .config("unclean.leader.election.enable", false);
        for (Mutation m : settings.mutations()) {
            builder.mutation(m);
        }
        this.dataDir = scratchDirectory();
        this.cluster = builder.dataDir(dataDir).build();
        this.recorder = new Recorder(cluster, TOPIC, 0);
        this.minIsr = settings.initialMinIsr();
    }

    /** Runs one seed and checks every invariant. Never throws for a library failure: it becomes a violation. */
    public static SimulationResult run(long seed, SimulationSettings settings) {
        Simulation simulation = new Simulation(seed, settings);
        try {
            return simulation.execute();
        } finally {
            simulation.cluster.close();
            deleteRecursively(simulation.dataDir);
        }
    }

    /**
     * A fresh directory for the brokers' logs: on the RAM-backed {@code /dev/shm} when there is one
     * (the simulation creates, renames and deletes many small files; a disk-backed file system makes
     * that the main cost), else the default temporary directory.
     */
    private static Path scratchDirectory() {
        try {
            Path shm = Path.of("/dev/shm");
            if (Files.isDirectory(shm) && Files.isWritable(shm)) {
                return Files.createTempDirectory(shm, "insync-sim-");
            }
            return Files.createTempDirectory("insync-sim-");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create a directory for the simulated brokers", e);
        }
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot delete the simulation directory " + dir, e);
        }
    }

    private SimulationResult execute() {
        for (int id : cluster.brokerIds()) {
            replicas.add(id);
        }
        cluster.createTopic(TOPIC, replicas.toArray(Integer[]::new));
        recorder.config(minIsr, replicas, false);
        for (int i = 1; i <= settings.producers(); i++) {
            producers.add(cluster.producer("p" + i));
        }
        for (int i = 1; i <= settings.consumers(); i++) {
            consumers.add(cluster.consumer("c" + i));
        }
        long start = cluster.nowMs();
        try {
            long end = start + settings.durationMs();
            while (cluster.nowMs() < end) {
                long tick = Math.min(random.nextLong(TICK_MIN_MS, TICK_MAX_MS + 1), end - cluster.nowMs());
                if (random.nextDouble() < ACK_ALIGNED_TICK_PROBABILITY) {
                    // End this tick right after the next acknowledgement, so that a fault can hit
                    // the moment between an ack and the replication behind it.
                    long ackedBefore = recorder.acked();
                    cluster.runUntil(() -> recorder.acked() > ackedBefore, tick);
                } else {
                    cluster.runFor(tick);
                }
                recorder.sample();
                workload();
                if (random.nextDouble() < FAULT_PROBABILITY) {
                    fault();
                }
                if (random.nextDouble() < MIN_ISR_CHANGE_PROBABILITY) {
                    changeMinIsr();
                }
            }
            healAndQuiesce();
        } catch (RuntimeException e) {
            // A task of the library threw, or the loop ran away: a failure the seed replays.
            extraViolations.add(new Violation("CRASH", cluster.nowMs(), e.toString()));
            return result(start, List.of());
        }
        InvariantChecker checker = new InvariantChecker(settings.produceTimeoutMs(), COMPLETION_SLACK_MS);
        List<Violation> found = new ArrayList<>(extraViolations);
        found.addAll(checker.check(recorder.history(), recorder.samples()));
        return result(start, found);
    }

    private SimulationResult result(long start, List<Violation> violations) {
        List<Violation> all = violations.isEmpty() ? extraViolations : violations;
        return new SimulationResult(seed, recorder.history(), recorder.samples(), all, recorder.acked(),
                recorder.ackedAll(), lostAcks1(), cluster.nowMs() - start, cluster.loop().eventsExecuted(),
                cluster.loop().traceHash(), cluster.loop().recentTrace());
    }

    // ------------------------------------------------------------------------------ workload

    private void workload() {
        for (TestProducer p : producers) {
            if (!busy(p.name()) && random.nextDouble() < SEND_PROBABILITY) {
                int acks = random.nextBoolean() ? -1 : 1;
                int n = sequence.merge(p.name(), 1, Integer::sum);
                inFlight.put(p.name(), recorder.produce(p, acks, p.name() + "-" + n, settings.produceTimeoutMs()));
            }
        }
        for (TestConsumer c : consumers) {
            if (!busy(c.name()) && random.nextDouble() < POLL_PROBABILITY) {
                inFlight.put(c.name(), recorder.poll(c));
            }
        }
    }

    private boolean busy(String client) {
        CompletableFuture<?> f = inFlight.get(client);
        return f != null && !f.isDone();
    }

    private void changeMinIsr() {
        int next = random.nextDouble() < MIN_ISR_ONE_PROBABILITY ? 1 : (random.nextBoolean() ? 2 : replicas.size());
        if (next < minIsr) {
            // Lowering: in force for the history from the moment it is asked for (conservative).
            minIsr = next;
            recorder.config(minIsr, replicas, false);
            cluster.setMinInsyncReplicas(TOPIC, next);
        } else if (next > minIsr) {
            // Raising: brokers learn it through metadata; the history says it is in force only once
            // every running broker applies it, so an independent checker never holds a write that
            // the old, lower min ISR let through to the new one.
            minIsr = next;
            cluster.setMinInsyncReplicas(TOPIC, next);
            cluster.runUntil(() -> appliedEverywhere(next), MIN_ISR_PROPAGATION_BOUND_MS);
            recorder.config(minIsr, replicas, false);
        }
    }

    private boolean appliedEverywhere(int minInsyncReplicas) {
        for (int b : replicas) {
            if (cluster.broker(b).status() == BrokerStatus.RUNNING) {
                Optional<Partition> p = cluster.admin().partitionState(b, TOPIC, 0);
                if (p.isPresent() && p.get().minInsyncReplicas() != minInsyncReplicas) {
                    return false;
                }
            }
        }
        return true;
    }

    // -------------------------------------------------------------------------------- faults

    private void fault() {
        List<FaultKind> kinds = new ArrayList<>(settings.faults());
        if (kinds.isEmpty()) {
            return;
        }
        kinds.sort(null);
        FaultKind kind = kinds.get(random.nextInt(kinds.size()));
        switch (kind) {
            case PAUSE -> pauseOrResume();
            case KILL, POWER, SHUTDOWN -> crashOrRestart(kind);
            case PARTITION -> cutOrHeal();
            case DELAY -> slowOrFast();
        }
        recorder.sample();
    }

    private List<Integer> brokersIn(BrokerStatus status) {
        List<Integer> out = new ArrayList<>();
        for (int b : replicas) {
            if (cluster.broker(b).status() == status && b != shuttingDown) {
                out.add(b);
            }
        }
        return out;
    }

    private int notRunning() {
        return brokersIn(BrokerStatus.PAUSED).size() + brokersIn(BrokerStatus.DOWN).size() + (shuttingDown >= 0 ? 1 : 0);
    }

    private void pauseOrResume() {
        List<Integer> paused = brokersIn(BrokerStatus.PAUSED);
        if (!paused.isEmpty() && (random.nextBoolean() || notRunning() >= 2)) {
            int b = pick(paused);
            cluster.resume(b);
            recorder.fault("resume", List.of(b));
            return;
        }
        List<Integer> running = brokersIn(BrokerStatus.RUNNING);
        if (notRunning() < 2 && !running.isEmpty() && !crashInProgress()) {
            int b = pick(running);
            cluster.pause(b);
            recorder.fault("pause", List.of(b));
        }
    }

    private void crashOrRestart(FaultKind kind) {
        pollShutdown();
        if (shuttingDown >= 0) {
            return;
        }
        List<Integer> down = brokersIn(BrokerStatus.DOWN);
        if (!down.isEmpty()) {
            int b = pick(down);
            cluster.restart(b);
            recorder.fault("restart", List.of(b));
            return;
        }
        if (notRunning() >= 2) {
            return;
        }
        switch (kind) {
            case KILL -> {
                List<Integer> alive = crashable(true);
                if (alive.isEmpty()) {
                    return;
                }
                int b = pick(alive);
                cluster.kill(b);
                recorder.fault("kill", List.of(b));
            }
            case POWER -> {
                List<Integer> alive = crashable(true);
                if (!isrFull() || alive.isEmpty()) {
                    return;
                }
                int b = pick(alive);
                cluster.powerLoss(b);
                recorder.fault("power", List.of(b));
            }
            case SHUTDOWN -> {
                List<Integer> running = crashable(false);
                if (running.isEmpty()) {
                    return;
                }
                int b = pick(running);
                shuttingDown = b;
                shutdownFuture = cluster.controlledShutdown(b);
                recorder.fault("shutdown", List.of(b));
            }
            default -> throw new IllegalArgumentException("Not a crash fault: " + kind);
        }
    }

    /**
     * Brokers that may go down now: running (or also paused), with another ISR member at the
     * controller that stays eligible. An unclean restart removes a broker from the ISR and the ELR
     * (LDR-5), so crashing the last eligible replica leaves the partition without a leader until an
     * unclean election, which this model excludes: Kafka promises no availability there.
     */
    private List<Integer> crashable(boolean pausedToo) {
        List<Integer> candidates = new ArrayList<>(brokersIn(BrokerStatus.RUNNING));
        if (pausedToo) {
            candidates.addAll(brokersIn(BrokerStatus.PAUSED));
        }
        candidates.sort(null);
        List<Integer> isr = cluster.controller().partition(new TopicPartition(TOPIC, 0))
                .map(PartitionRegistration::isr).orElse(List.of());
        // Another ISR member must stay eligible while this one is down: running, not shutting
        // down, and in touch with the controller (a fenced one would be dropped from the ISR).
        candidates.removeIf(b -> isr.stream().noneMatch(member -> member != b && member != shuttingDown
                && cluster.broker(member).status() == BrokerStatus.RUNNING && !isolated.contains(member)));
        int leader = cluster.controller().partition(new TopicPartition(TOPIC, 0))
                .map(PartitionRegistration::leader).orElse(PartitionRegistration.NO_LEADER);
        if (candidates.contains(leader) && random.nextDouble() < TARGET_LEADER_PROBABILITY) {
            // The leader is the interesting victim: it holds what nobody else has yet.
            return List.of(leader);
        }
        return candidates;
    }

    /** Whether a broker is down or shutting down: then no other broker is paused or isolated. */
    private boolean crashInProgress() {
        pollShutdown();
        return shuttingDown >= 0 || !brokersIn(BrokerStatus.DOWN).isEmpty();
    }

    /** Notices a controlled shutdown that has finished. */
    private void pollShutdown() {
        if (shuttingDown >= 0 && shutdownFuture.isDone()) {
            shuttingDown = -1;
            shutdownFuture = null;
        }
    }

    private boolean isrFull() {
        Optional<PartitionRegistration> p = cluster.controller().partition(new TopicPartition(TOPIC, 0));
        return p.isPresent() && new HashSet<>(p.get().isr()).containsAll(replicas);
    }

    private void cutOrHeal() {
        if (networkCut && random.nextDouble() < 0.4) {
            cluster.heal();
            networkCut = false;
            isolated.clear();
            recorder.fault("heal", List.of());
            return;
        }
        int a = pick(replicas);
        int b = replicas.get((replicas.indexOf(a) + 1 + random.nextInt(replicas.size() - 1)) % replicas.size());
        switch (random.nextInt(3)) {
            case 0 -> {
                cluster.partition(a, b);
                recorder.fault("partition", List.of(a, b));
            }
            case 1 -> {
                cluster.partitionOneWay(a, b);
                recorder.fault("partition", List.of(a, b));
            }
            default -> {
                if (crashInProgress()) {
                    // Isolation also cuts the controller off: it would fence the broker the
                    // partition relies on while another is down (see crashable()).
                    cluster.partition(a, b);
                    recorder.fault("partition", List.of(a, b));
                } else {
                    cluster.isolate(a);
                    isolated.add(a);
                    recorder.fault("partition", List.of(a));
                }
            }
        }
        networkCut = true;
    }

    private void slowOrFast() {
        if (slowLinks) {
            cluster.setLinks(LinkConfig.DEFAULT);
            slowLinks = false;
        } else {
            cluster.setLinks(LinkConfig.uniform(1, 2 + random.nextLong(MAX_LINK_DELAY_MS)));
            slowLinks = true;
        }
    }

    private int pick(List<Integer> from) {
        return from.get(random.nextInt(from.size()));
    }

    // ----------------------------------------------------------------------- heal and quiesce

    private void healAndQuiesce() {
        if (networkCut) {
            cluster.heal();
            networkCut = false;
            isolated.clear();
            recorder.fault("heal", List.of());
        }
        if (slowLinks) {
            cluster.setLinks(LinkConfig.DEFAULT);
            slowLinks = false;
        }
        for (int b : brokersIn(BrokerStatus.PAUSED)) {
            cluster.resume(b);
            recorder.fault("resume", List.of(b));
        }
        if (shuttingDown >= 0) {
            CompletableFuture<Void> f = shutdownFuture;
            if (!cluster.runUntil(f::isDone, QUIESCE_BOUND_MS)) {
                extraViolations.add(new Violation("LDR-4", cluster.nowMs(), "controlled shutdown of broker "
                        + shuttingDown + " did not finish within " + QUIESCE_BOUND_MS + " ms after healing"));
                cluster.kill(shuttingDown);
                recorder.fault("kill", List.of(shuttingDown));
            }
            pollShutdown();
            shuttingDown = -1;
        }
        for (int b : brokersIn(BrokerStatus.DOWN)) {
            cluster.restart(b);
            recorder.fault("restart", List.of(b));
        }
        recorder.sample();
        // Writes have stopped: let every outstanding call end (each has a client-side deadline).
        cluster.runUntil(() -> recorder.outstandingProduces() == 0,
                settings.produceTimeoutMs() + COMPLETION_SLACK_MS + 1);
        long deadline = cluster.nowMs() + QUIESCE_BOUND_MS;
        while (!converged() && cluster.nowMs() < deadline) {
            cluster.runFor(SAMPLE_INTERVAL_QUIESCE_MS);
            recorder.sample();
        }
        if (!converged()) {
            extraViolations.add(new Violation("INV-3", cluster.nowMs(), "replicas did not converge within "
                    + QUIESCE_BOUND_MS + " ms after healing: " + cluster.describe(TOPIC)));
        }
        recorder.finals();
    }

    private boolean converged() {
        Optional<PartitionRegistration> reg = cluster.controller().partition(new TopicPartition(TOPIC, 0));
        if (reg.isEmpty() || reg.get().leader() == PartitionRegistration.NO_LEADER || !isrFull()) {
            return false;
        }
        long leo = -1;
        long hw = -1;
        for (int b : replicas) {
            if (cluster.broker(b).status() != BrokerStatus.RUNNING) {
                return false;
            }
            Optional<Partition> p = cluster.admin().partitionState(b, TOPIC, 0);
            if (p.isEmpty() || (b == reg.get().leader() && !p.get().isLeader())) {
                return false;
            }
            long bLeo = p.get().logEndOffset();
            long bHw = p.get().highWatermark();
            if (bHw != bLeo || (leo >= 0 && (bLeo != leo || bHw != hw))) {
                return false;
            }
            leo = bLeo;
            hw = bHw;
        }
        return recorder.outstandingProduces() == 0;
    }

    /** acks=1 acknowledged records absent from every final log. */
    private long lostAcks1() {
        Map<Long, String> acks1Values = new HashMap<>();
        Map<Long, Long> okIds = new HashMap<>();
        HashSet<String> kept = new HashSet<>();
        for (HistoryEvent e : recorder.history().events()) {
            if (e instanceof HistoryEvent.ProduceInvoke inv && "1".equals(inv.acks())) {
                acks1Values.put(inv.id(), inv.value());
            } else if (e instanceof HistoryEvent.ProduceOk ok) {
                okIds.put(ok.id(), ok.offset());
            } else if (e instanceof HistoryEvent.Final f) {
                f.log().forEach(entry -> kept.add(entry.value()));
            }
        }
        long lost = 0;
        for (Map.Entry<Long, String> e : acks1Values.entrySet()) {
            if (okIds.containsKey(e.getKey()) && !kept.contains(e.getValue())) {
                lost++;
            }
        }
        return lost;
    }

}
