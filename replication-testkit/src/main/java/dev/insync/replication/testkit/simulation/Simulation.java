/*
 * Copyright 2026 The Insync developers
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package dev.insync.replication.testkit.simulation;

import dev.insync.replication.testkit.internal.Directories;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.testkit.cluster.BrokerStatus;
import dev.insync.replication.testkit.cluster.InMemoryCluster;
import dev.insync.replication.testkit.cluster.Mutation;
import dev.insync.replication.testkit.cluster.ProduceOutcome;
import dev.insync.replication.testkit.cluster.TestConsumer;
import dev.insync.replication.testkit.cluster.TestProducer;
import dev.insync.replication.testkit.controller.ClusterController;
import dev.insync.replication.testkit.history.HistoryEvent;
import dev.insync.replication.testkit.history.InvariantChecker;
import dev.insync.replication.testkit.history.Verdict;
import dev.insync.replication.testkit.history.Violation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * The randomized simulation of contract §11: one seed, one {@link InMemoryCluster} of N brokers with a
 * topic of 1 to 3 partitions replicated on all of them, a random workload interleaved with random
 * faults, then a heal-and-quiesce phase, and the {@link InvariantChecker} over the recorded history
 * (which holds everything the checker needs: see {@code docs/testkit-simulation.md}).
 *
 * <h2>Seeds</h2>
 * Every random choice comes from the seed through independent streams ({@link SeedStreams}): the
 * per-seed settings ({@link SeedProfile}: partitions, segment size, retention, value sizes, min
 * ISR, unclean election, poll timeout), the workload, the fault schedule, and the event loop (link
 * delays, losses, torn writes). The same seed gives the same history event for event (INV-6).
 *
 * <h2>Workload</h2>
 * Producers {@code p1..pN} each keep at most one call outstanding and send unique values
 * ({@code p1-17}, padded up to a few KB in some seeds) with acks=1 or acks=all to a random
 * partition; consumers {@code c1..cN} poll a random partition from their positions. Odd-numbered
 * clients keep the leader they last used until it fails (as Kafka's clients cache metadata), so
 * they also reach deposed leaders. Now and then min.insync.replicas changes, to 2 or N, and rarely
 * to 1 (INV-1/INV-2 only cover records that min ISR ≥ 2 protected from then on).
 *
 * <h2>Faults</h2>
 * See {@link FaultScheduler} and the {@link FaultAction}s: pause/resume, kill, power loss and
 * controlled shutdown (two brokers may be down at once; taking one down obeys
 * {@link FaultContext}'s guard unless the seed enables unclean election), bit flips in crashed
 * brokers' unflushed data, network cuts (two-way, one-way, isolation, broker–controller), slow
 * links, message loss, wall-clock steps, controller failover (the controller dies and a new
 * incarnation rebuilds from the metadata log; or it pauses), and, in seeds with two log directories
 * per broker, failed disks (one directory offline until the broker restarts on a replaced disk).
 *
 * <h2>Heal and quiesce</h2>
 * Writes stop, every fault is undone, paused brokers resume, a controlled shutdown finishes, down
 * brokers restart; a {@code quiesce} line records the moment. Within {@link #QUIESCE_BOUND_MS}
 * every partition must become whole again (every replica in the ISR, HW = LEO everywhere) and an
 * acks=all probe write must succeed (the liveness invariant); then each broker's final logs are
 * recorded.
 */
public final class Simulation {

    /** The simulated topic. */
    public static final String TOPIC = "sim";
    /** Virtual time after the faults heal within which every partition must be whole again. */
    public static final long QUIESCE_BOUND_MS = 120_000;
    /** Slack on the client side beyond the produce timeout (the client's own deadline). */
    public static final long COMPLETION_SLACK_MS = TestProducer.CLIENT_DEADLINE_SLACK_MS;
    /** The brokers' request.timeout.ms: how long a fetcher or the AlterPartition manager waits for a lost answer. */
    static final long BROKER_REQUEST_TIMEOUT_MS = 5_000;
    /**
     * segment.index.bytes: 4 KiB holds the index entries of a 1 MiB segment at Kafka's
     * index.interval.bytes (256 of them), where Kafka's 10 MiB default made every one of the many
     * small segments map a 10 MiB file (mmap and munmap serialize the simulation's threads); a full
     * index rolls the segment, as in Kafka.
     */
    static final int SEGMENT_INDEX_BYTES = 4096;
    /** How often brokers apply retention (log.retention.check.interval.ms). */
    static final long RETENTION_CHECK_INTERVAL_MS = 1_000;

    private static final long TICK_MIN_MS = 50;
    private static final long TICK_MAX_MS = 250;
    private static final double SEND_PROBABILITY = 0.3;
    private static final double POLL_PROBABILITY = 0.3;
    private static final double MIN_ISR_CHANGE_PROBABILITY = 0.007;
    private static final double MIN_ISR_ONE_PROBABILITY = 0.1;
    private static final double ACK_ALIGNED_TICK_PROBABILITY = 0.3;
    private static final long MIN_ISR_PROPAGATION_BOUND_MS = 5_000;
    private static final long SAMPLE_INTERVAL_QUIESCE_MS = 200;
    private static final long PROBE_BACKOFF_MS = 500;
    private static final String FILLER = "abcdefghijklmnopqrstuvwxyz0123456789";

    private final long seed;
    private final SimulationSettings settings;
    private final SeedProfile profile;
    private final SplittableRandom workload;
    private final Path dataDir;
    private final InMemoryCluster cluster;
    private final List<Integer> replicas = new ArrayList<>();
    private final List<TestProducer> producers = new ArrayList<>();
    private final List<TestConsumer> consumers = new ArrayList<>();
    private final Map<String, CompletableFuture<?>> inFlight = new TreeMap<>();
    private final Map<String, Integer> sequence = new HashMap<>();
    private final List<Violation> runFailures = new ArrayList<>();
    private Recorder recorder;
    private FaultContext faultContext;
    private FaultScheduler faults;
    private TestProducer probe;
    private int minIsr;
    /** The min ISR the history says is in force (the last config line). */
    private int recordedMinIsr;
    /** {@link #minIsr} was raised and is not yet applied by every running broker: not in force for the history yet. */
    private boolean raisePending;

    private Simulation(long seed, SimulationSettings settings) {
        this.seed = seed;
        this.settings = settings;
        this.profile = SeedProfile.draw(seed, settings);
        this.workload = SeedStreams.stream(seed, SeedStreams.Component.WORKLOAD);
        InMemoryCluster.Builder builder = InMemoryCluster.builder().brokers(settings.brokers())
                .seed(SeedStreams.seedOf(seed, SeedStreams.Component.EVENT_LOOP))
                .config("replica.lag.time.max.ms", 4_000)
                .config("broker.session.timeout.ms", 6_000)
                .config("broker.heartbeat.interval.ms", 1_000)
                .config("request.timeout.ms", BROKER_REQUEST_TIMEOUT_MS)
                .config("min.insync.replicas", profile.initialMinIsr())
                .config("unclean.leader.election.enable", profile.unclean())
                .config("segment.bytes", profile.segmentBytes())
                .config("segment.index.bytes", SEGMENT_INDEX_BYTES)
                .config("replica.fetch.max.bytes", profile.fetchMaxBytes())
                .config("retention.bytes", profile.retentionBytes())
                .config("retention.ms", profile.retentionMs())
                .retentionCheckIntervalMs(RETENTION_CHECK_INTERVAL_MS)
                .logDirsPerBroker(profile.logDirs());
        for (Mutation m : settings.mutations()) {
            builder.mutation(m);
        }
        this.dataDir = scratchDirectory();
        this.cluster = builder.dataDir(dataDir).build();
        this.minIsr = profile.initialMinIsr();
    }

    /** The settings seed {@code seed} runs with under {@code settings}. */
    public static SeedProfile profile(long seed, SimulationSettings settings) {
        return SeedProfile.draw(seed, settings);
    }

    /** Runs one seed and checks every invariant. Never throws for a library failure: it becomes a violation. */
    public static SimulationResult run(long seed, SimulationSettings settings) {
        Simulation simulation = new Simulation(seed, settings);
        try {
            return simulation.execute();
        } finally {
            simulation.cluster.close();
            Directories.deleteRecursively(simulation.dataDir);
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

    private SimulationResult execute() {
        cluster.brokerIds().forEach(replicas::add);
        List<List<Integer>> assignment = new ArrayList<>();
        for (int p = 0; p < profile.partitions(); p++) {
            List<Integer> rotated = new ArrayList<>();
            for (int i = 0; i < replicas.size(); i++) {
                rotated.add(replicas.get((p + i) % replicas.size()));
            }
            assignment.add(rotated);
        }
        cluster.createTopic(TOPIC, assignment);
        recorder = Recorder.ofPartitions(cluster, TOPIC, profile.partitions());
        recorder.settings(seed, settingsJson());
        record(minIsr);
        for (int i = 1; i <= settings.producers(); i++) {
            producers.add(cluster.producer("p" + i).cacheLeaders(i % 2 == 1));
        }
        for (int i = 1; i <= settings.consumers(); i++) {
            // Even-numbered consumers read one batch per poll, so they lag and read what a leader
            // that is paused or deposed meanwhile still has to give.
            consumers.add(cluster.consumer("c" + i).cacheLeaders(i % 2 == 1)
                    .maxBytes(i % 2 == 0 ? 1 : TestConsumer.MAX_BYTES));
        }
        probe = cluster.producer(InvariantChecker.PROBE_CLIENT);
        faultContext = new FaultContext(cluster, recorder, SeedStreams.stream(seed, SeedStreams.Component.FAULTS),
                replicas, profile.partitions(), TOPIC, profile.unclean(), () -> minIsr);
        faults = new FaultScheduler(faultContext, settings.faults(), QUIESCE_BOUND_MS, profile.logDirs());
        recorder.sample();
        long start = cluster.nowMs();
        try {
            long end = start + settings.durationMs();
            while (cluster.nowMs() < end) {
                long tick = Math.min(workload.nextLong(TICK_MIN_MS, TICK_MAX_MS + 1), end - cluster.nowMs());
                if (workload.nextDouble() < ACK_ALIGNED_TICK_PROBABILITY) {
                    // End this tick right after the next acknowledgement, so that a fault can hit
                    // the moment between an ack and the replication behind it.
                    long ackedBefore = recorder.acked();
                    cluster.runUntil(() -> recorder.acked() > ackedBefore, tick);
                } else {
                    cluster.runFor(tick);
                }
                recorder.sample();
                workload();
                faults.tick();
                recorder.sample();
                recordPendingRaise();
                if (workload.nextDouble() < MIN_ISR_CHANGE_PROBABILITY) {
                    changeMinIsr();
                }
            }
            healAndQuiesce();
        } catch (RuntimeException e) {
            // A task of the library threw, or the loop ran away: a failure the seed replays.
            runFailures.add(new Violation("CRASH", cluster.nowMs(), e.toString()));
            return result(start, new Verdict(List.of(), List.of()));
        }
        return result(start, new InvariantChecker().check(recorder.history()));
    }

    private Map<String, Object> settingsJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("brokers", settings.brokers());
        m.putAll(profile.toJson());
        m.put("durationMs", settings.durationMs());
        m.put("produceTimeoutMs", settings.produceTimeoutMs());
        m.put("faults", settings.faults().stream().sorted().map(FaultKind::cliName).toList());
        m.put("mutations", settings.mutations().stream().sorted().map(Enum::name).toList());
        return m;
    }

    private SimulationResult result(long start, Verdict verdict) {
        List<Violation> all = new ArrayList<>(runFailures);
        if (faultContext != null) {
            all.addAll(faultContext.runFailures);
        }
        all.addAll(verdict.violations());
        return new SimulationResult(seed, profile, recorder.history(), all, verdict.excused(), recorder.acked(),
                recorder.ackedAll(), lostAcks1(), cluster.nowMs() - start, cluster.loop().eventsExecuted(),
                cluster.loop().traceHash(), cluster.loop().recentTrace(), recorder.faultCounts());
    }

    // ------------------------------------------------------------------------------ workload

    private void workload() {
        for (TestProducer p : producers) {
            if (!busy(p.name()) && workload.nextDouble() < SEND_PROBABILITY) {
                int acks = workload.nextBoolean() ? -1 : 1;
                int partition = workload.nextInt(profile.partitions());
                int n = sequence.merge(p.name(), 1, Integer::sum);
                inFlight.put(p.name(), recorder.produce(p, partition, acks, value(p.name() + "-" + n),
                        settings.produceTimeoutMs()));
            }
        }
        for (TestConsumer c : consumers) {
            if (!busy(c.name()) && workload.nextDouble() < POLL_PROBABILITY) {
                int partition = workload.nextInt(profile.partitions());
                inFlight.put(c.name(), recorder.poll(c, partition, profile.pollTimeoutMs()));
            }
        }
    }

    /** {@code id}, padded in large-value seeds to a drawn length with a deterministic filler. */
    private String value(String id) {
        if (profile.maxValueBytes() <= id.length() + 1) {
            return id;
        }
        int length = workload.nextInt(id.length() + 1, profile.maxValueBytes() + 1);
        StringBuilder sb = new StringBuilder(length).append(id).append(':');
        int shift = id.hashCode() & 0xff;
        while (sb.length() < length) {
            sb.append(FILLER.charAt((sb.length() + shift) % FILLER.length()));
        }
        return sb.toString();
    }

    private boolean busy(String client) {
        CompletableFuture<?> f = inFlight.get(client);
        return f != null && !f.isDone();
    }

    private void changeMinIsr() {
        int drawn = workload.nextDouble() < MIN_ISR_ONE_PROBABILITY ? 1 : (workload.nextBoolean() ? 2 : replicas.size());
        // With min ISR 1 an ISR may shrink to the broker whose disk is about to fail, with no ELR
        // behind it: the partition would have no eligible replica left (see DiskFaults).
        int next = drawn == 1 && !faultContext.diskFailed.isEmpty() ? 2 : drawn;
        if (cluster.controller().status() != ClusterController.Status.RUNNING) {
            // An operator's change needs a live controller; this one waits for the next chance.
            return;
        }
        if (next == minIsr) {
            return;
        }
        minIsr = next;
        if (next < recordedMinIsr) {
            // Lowering what the history says: in force from the moment it is asked for (conservative).
            raisePending = false;
            record(next);
            cluster.setMinInsyncReplicas(TOPIC, next);
        } else {
            // Raising: brokers learn it through metadata; the history says it is in force only once
            // every running broker applies it, so an independent checker never holds a write that
            // the old, lower min ISR let through to the new one. Not everywhere within the bound (a
            // lost metadata fetch, a controller failover): recorded at the first tick it is.
            cluster.setMinInsyncReplicas(TOPIC, next);
            raisePending = true;
            cluster.runUntil(() -> appliedEverywhere(next), MIN_ISR_PROPAGATION_BOUND_MS);
            recordPendingRaise();
        }
    }

    private void record(int inForce) {
        recordedMinIsr = inForce;
        recorder.config(inForce, replicas, profile.unclean());
    }

    /** A raise that was not applied everywhere in time is recorded as soon as it is. */
    private void recordPendingRaise() {
        if (raisePending && appliedEverywhere(minIsr)) {
            raisePending = false;
            record(minIsr);
        }
    }

    /**
     * Whether every broker that is not down has applied {@code minInsyncReplicas}: a paused one, or
     * one cut from the controller, acts on the old value when it runs (a down one loads the new
     * value before it serves).
     */
    private boolean appliedEverywhere(int minInsyncReplicas) {
        for (int b : replicas) {
            if (cluster.broker(b).status() != BrokerStatus.DOWN) {
                for (int p = 0; p < profile.partitions(); p++) {
                    Optional<Partition> state = cluster.admin().partitionState(b, TOPIC, p);
                    if (state.isPresent() && state.get().minInsyncReplicas() != minInsyncReplicas) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    // ----------------------------------------------------------------------- heal and quiesce

    private void healAndQuiesce() {
        faults.healAll();
        recorder.sample();
        recorder.quiesce(QUIESCE_BOUND_MS);
        long deadline = cluster.nowMs() + QUIESCE_BOUND_MS;
        // Writes have stopped: let every outstanding call end (each has a client-side deadline).
        cluster.runUntil(() -> recorder.outstandingProduces() == 0,
                settings.produceTimeoutMs() + COMPLETION_SLACK_MS + 1);
        recorder.sample();
        if (awaitWhole(deadline)) {
            probe(deadline);
            awaitWhole(deadline);
        }
        recorder.finals();
    }

    /** Runs (sampling) until every partition is whole or the deadline passes. */
    private boolean awaitWhole(long deadline) {
        while (!whole() && cluster.nowMs() < deadline) {
            cluster.runFor(Math.min(SAMPLE_INTERVAL_QUIESCE_MS, deadline - cluster.nowMs()));
            recorder.sample();
            recordPendingRaise();
        }
        return whole();
    }

    /**
     * The liveness probe: an acks=all write per partition must succeed before the deadline; a failed
     * attempt (the aftermath of a fault can still shrink an ISR for a moment) is retried after a backoff.
     */
    private void probe(long deadline) {
        for (int p = 0; p < profile.partitions(); p++) {
            for (int attempt = 1; cluster.nowMs() < deadline && !dead(p); attempt++) {
                CompletableFuture<ProduceOutcome> f = recorder.produce(probe, p, -1, "probe-" + p + "-" + attempt,
                        settings.produceTimeoutMs());
                cluster.runUntil(f::isDone, settings.produceTimeoutMs() + COMPLETION_SLACK_MS + 1);
                recorder.sample();
                if (f.isDone() && f.join().isSuccess()) {
                    break;
                }
                cluster.runFor(Math.max(0, Math.min(PROBE_BACKOFF_MS, deadline - cluster.nowMs())));
                recorder.sample();
            }
        }
    }

    /**
     * Whether partition {@code p} can never have a leader again: none now, nobody in its ISR or ELR,
     * and unclean election off (the state the checker excuses from LIVENESS). Such a partition is
     * neither waited for nor probed, so that the others still are.
     */
    private boolean dead(int p) {
        Optional<PartitionRegistration> reg = cluster.controller().partition(new TopicPartition(TOPIC, p));
        return !profile.unclean() && reg.isPresent() && reg.get().leader() == PartitionRegistration.NO_LEADER
                && reg.get().isr().isEmpty() && reg.get().elr().isEmpty();
    }

    /**
     * Every partition but the dead ones ({@link #dead}): a leader acting as such, every replica in the
     * controller's ISR, HW = LEO, all equal.
     */
    private boolean whole() {
        if (recorder.outstandingProduces() != 0) {
            return false;
        }
        for (int p = 0; p < profile.partitions(); p++) {
            if (dead(p)) {
                continue;
            }
            Optional<PartitionRegistration> reg = cluster.controller().partition(new TopicPartition(TOPIC, p));
            if (reg.isEmpty() || reg.get().leader() == PartitionRegistration.NO_LEADER
                    || !new HashSet<>(reg.get().isr()).containsAll(replicas)) {
                return false;
            }
            long leo = -1;
            for (int b : replicas) {
                if (cluster.broker(b).status() != BrokerStatus.RUNNING) {
                    return false;
                }
                Optional<Partition> state = cluster.admin().partitionState(b, TOPIC, p);
                if (state.isEmpty() || (b == reg.get().leader() && !state.get().isLeader())) {
                    return false;
                }
                long bLeo = state.get().logEndOffset();
                if (state.get().highWatermark() != bLeo || (leo >= 0 && bLeo != leo)) {
                    return false;
                }
                leo = bLeo;
            }
        }
        return true;
    }

    /** acks=1 acknowledged records absent from every final log that could hold them (allowed, counted). */
    private long lostAcks1() {
        Map<Long, HistoryEvent.ProduceInvoke> acks1 = new HashMap<>();
        Map<Long, Long> okOffsets = new HashMap<>();
        Map<Integer, Set<String>> kept = new HashMap<>();
        Map<Integer, Long> lowestStart = new HashMap<>();
        for (HistoryEvent e : recorder.history().events()) {
            if (e instanceof HistoryEvent.ProduceInvoke inv && "1".equals(inv.acks())) {
                acks1.put(inv.id(), inv);
            } else if (e instanceof HistoryEvent.ProduceOk ok) {
                okOffsets.put(ok.id(), ok.offset());
            } else if (e instanceof HistoryEvent.Final f) {
                Set<String> values = kept.computeIfAbsent(f.partition(), k -> new HashSet<>());
                f.log().forEach(entry -> values.add(entry.value()));
                lowestStart.merge(f.partition(), f.logStart(), Math::min);
            }
        }
        long lost = 0;
        for (Map.Entry<Long, HistoryEvent.ProduceInvoke> e : acks1.entrySet()) {
            Long offset = okOffsets.get(e.getKey());
            int partition = e.getValue().partition();
            if (offset != null && offset >= lowestStart.getOrDefault(partition, 0L)
                    && !kept.getOrDefault(partition, Set.of()).contains(e.getValue().value())) {
                lost++;
            }
        }
        return lost;
    }
}
