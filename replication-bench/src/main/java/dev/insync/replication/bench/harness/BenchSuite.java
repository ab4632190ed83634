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

package dev.insync.replication.bench.harness;

import dev.insync.replication.bench.processes.ProcessBench;
import dev.insync.replication.bench.processes.ProcessBenchSettings;
import dev.insync.replication.bench.processes.ProcessBenchTargetFactory;
import dev.insync.replication.bench.processes.ProcessScaleBench;
import dev.insync.replication.log.record.MemoryRecords;
import org.HdrHistogram.Histogram;

import java.nio.ByteBuffer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.function.Consumer;

/**
 * Runs the end-to-end measurements (docs/performance.md) and collects them into {@link Measurements}: the
 * replicated throughput and latency of Insync, the baselines underneath them, optional peers, the
 * systems that run as separate processes ({@link ProcessBench}), the scale and the simulation speed. Every section runs {@link BenchOptions#repeats()} times,
 * interleaved (repeat 1 of everything, then repeat 2, ...), so that ratios are taken within one
 * run on a shared machine and slow phases of the machine hit every section alike.
 */
public final class BenchSuite {

    /** Metric prefix of Insync without fsync. */
    public static final String NO_FSYNC = "nofsync";
    /** Metric prefix of Insync with {@code flush.messages=1}. */
    public static final String FSYNC = "fsync";
    /** Bound of the wait for a quiet machine after a process section. */
    static final long MACHINE_QUIET_TIMEOUT_MS = 60_000;
    /** Sends between two looks at the JIT compiler while a latency scenario warms up. */
    static final int LATENCY_WARMUP_CHUNK = 200;

    private final BenchOptions options;
    private final ProcessBenchSettings processSettings;
    private final Consumer<String> progress;
    private final Measurements out = new Measurements();

    /** @param progress receives one short line per step (the CLI shows it as a progress line) */
    public BenchSuite(BenchOptions options, Consumer<String> progress) {
        this(options, ProcessBenchSettings.defaults(), progress);
    }

    /** @param processSettings what the {@code processes} section runs (targets, their server class paths) */
    public BenchSuite(BenchOptions options, ProcessBenchSettings processSettings, Consumer<String> progress) {
        this.options = options;
        this.processSettings = processSettings;
        this.progress = progress;
    }

    /** Runs every selected section {@code repeats} times and returns what was measured. */
    public Measurements run() throws Exception {
        Files.createDirectories(options.outDir());
        Path work = Files.createTempDirectory("insync-bench-");
        List<PeerBenchmark> peers = options.runs("peers") ? loadPeers() : List.of();
        if (options.runs("peers") && peers.isEmpty()) {
            out.note("peers", "No peer on the classpath: build the bench with -Ppeers to measure Apache Ratis.");
        }
        ProcessBench processes = options.runs(ProcessBench.SECTION)
                ? new ProcessBench(options, processSettings, out, progress) : null;
        for (int r = 1; r <= options.repeats(); r++) {
            String round = "[" + r + "/" + options.repeats() + "] ";
            if (r > 1 && processes != null) {
                // The previous repeat's server processes are gone, but the machine may still be busy after them.
                progress.accept(round + "waiting for the machine to be quiet after the process section");
                out.add("bench.machine_quiet_wait_s", new MachineQuiet().await(MACHINE_QUIET_TIMEOUT_MS) / 1e3);
            }
            if (options.runs("baselines")) {
                baselines(round, work);
            }
            if (options.runs("throughput") || options.runs("latency")) {
                insync(round, false);
            }
            if (options.runs("fsync")) {
                insync(round, true);
            }
            for (PeerBenchmark peer : peers) {
                for (boolean fsync : options.runs("fsync") ? new boolean[] {false, true} : new boolean[] {false}) {
                    progress.accept(round + peer.name() + (fsync ? " fsync" : " no fsync"));
                    try {
                        peer.measure(options, fsync, work, out, s -> progress.accept(round + s));
                    } catch (Exception e) {
                        out.note("peer." + peer.name(), peer.name() + " failed: " + e);
                        e.printStackTrace();
                    }
                }
            }
            if (processes != null) {
                processes.repeat(r, round, work);
            }
        }
        if (options.runs("scale") && options.scalePartitions() > 0) {
            progress.accept("scale: " + options.scalePartitions() + " partitions");
            new ScaleBench(options, out, progress).run();
        }
        if (options.runs(ProcessScaleBench.SECTION) && options.scalePartitions() > 0) {
            List<ProcessBenchTargetFactory> targets = processes != null ? processes.targets()
                    : new ProcessBench(options, processSettings, out, progress).targets();
            new ProcessScaleBench(options, processSettings, out, progress, targets).run(work);
        }
        if (options.runs("simulation")) {
            progress.accept("simulation speed");
            SimulationSpeed.measure(out, progress);
        }
        if (options.runs("controller")) {
            progress.accept("controller operations and metadata propagation");
            new ControllerBench(options, out, progress).run(work.resolve("controller"));
        }
        removeIfEmpty(work);
        return out;
    }

    /**
     * Sections that start servers leave their logs (and the controller section its Raft logs) under
     * {@code work}, for a look after the run; a run that left nothing leaves no empty directory.
     */
    private void removeIfEmpty(Path work) {
        try {
            Files.deleteIfExists(work);
        } catch (java.nio.file.DirectoryNotEmptyException e) {
            progress.accept("files the sections left (servers' logs) are in " + work);
        } catch (java.io.IOException e) {
            progress.accept("could not remove " + work + ": " + e);
        }
    }

    /** Peers on the classpath; one whose own dependencies are missing is noted and skipped. */
    private List<PeerBenchmark> loadPeers() {
        List<PeerBenchmark> peers = new java.util.ArrayList<>();
        java.util.Iterator<PeerBenchmark> it = ServiceLoader.load(PeerBenchmark.class).iterator();
        while (true) {
            try {
                if (!it.hasNext()) {
                    break;
                }
                peers.add(it.next());
            } catch (java.util.ServiceConfigurationError | LinkageError e) {
                out.note("peers", "A peer could not be loaded (build with -Ppeers for its dependencies): " + e);
                break;
            }
        }
        return peers;
    }

    private void baselines(String round, Path work) throws Exception {
        progress.accept(round + "baseline: hand-off round trips");
        Histogram handOff = Baselines.handOffRoundTrips(5_000, 20_000);
        out.add("baseline.handoff_rtt.p50_us", handOff.getValueAtPercentile(50) / 1e3);
        out.add("baseline.handoff_rtt.p99_us", handOff.getValueAtPercentile(99) / 1e3);
        out.histogram("hand-off round trip (2 hand-offs)", handOff);

        progress.accept(round + "baseline: raw FileChannel.write");
        MemoryRecords batch = BatchingProducer.encodeBatch(options.valueBytes(), options.batchBytes(), Integer.MAX_VALUE);
        ByteBuffer chunk = batch.buffer();
        int recordsPerBatch = batch.batches().get(0).recordCount();
        double bytesPerSec = Baselines.fileWriteBytesPerSecond(work, chunk, Math.max(1_000, options.measureMs() / 2), false);
        out.add("baseline.file_write.mb_per_s", bytesPerSec / 1e6);
        out.add("baseline.file_write.records_per_s", bytesPerSec / chunk.remaining() * recordsPerBatch);
        if (options.runs("fsync")) {
            ByteBuffer one = BatchingProducer.encodeBatch(options.valueBytes(), options.batchBytes(), 1).buffer();
            double forced = Baselines.fileWriteBytesPerSecond(work, one, 1_000, true);
            out.add("baseline.file_write_force_each_record.records_per_s", forced / one.remaining());
        }
    }

    private void insync(String round, boolean fsync) throws Exception {
        String mode = fsync ? FSYNC : NO_FSYNC;
        if (options.runs("throughput") || fsync) {
            for (int partitions : fsync ? new int[] {1} : new int[] {1, 12}) {
                for (int acks : fsync ? new int[] {-1} : new int[] {-1, 1}) {
                    String name = mode + ".acks_" + (acks == -1 ? "all" : "1") + ".p" + partitions + ".batched";
                    scenario(round, name, partitions, fsync, acks, Integer.MAX_VALUE);
                }
            }
            scenario(round, mode + ".acks_all.p1.single", 1, fsync, -1, 1);
        }
        if (options.runs("latency") || fsync) {
            try (BenchCluster cluster = BenchCluster.start(1, fsync, Map.of())) {
                for (int acks : fsync ? new int[] {-1} : new int[] {-1, 1}) {
                    String name = mode + ".acks_" + (acks == -1 ? "all" : "1") + ".latency";
                    progress.accept(round + "insync " + name);
                    BatchingProducer producer = cluster.producer(options.valueBytes(), options.batchBytes(), 1, acks, 1);
                    Histogram h = new Histogram(3_600_000_000_000L, 3);
                    // With an fsync per message each send costs milliseconds: a tenth of the sends keeps the run short.
                    int sends = fsync ? Math.max(1_000, options.latencySends() / 10) : options.latencySends();
                    // A fresh cluster: warm until this JVM's compiler is quiet, or the first repeats measure the JIT.
                    JitWarmup warmup = JitWarmup.thisJvm(0, options.jitQuietTimeoutMs());
                    do {
                        producer.runRequests(LATENCY_WARMUP_CHUNK);
                    } while (!warmup.settled());
                    producer.measureLatency(h, Math.max(200, sends / 10), sends);
                    if (producer.failures() > 0) {
                        out.note("insync." + name, producer.failures() + " sends failed, last " + producer.lastError());
                    }
                    recordLatency("insync." + name, h);
                    out.histogram("insync " + (acks == -1 ? "acks=all" : "acks=1") + (fsync ? " fsync" : ""), h);
                }
            }
        }
    }

    /**
     * One throughput scenario on a cluster of its own, so that no scenario inherits another's
     * backlog (after acks=1 the followers may still be catching up) or log size; its brokers' logs
     * are bounded by {@link LogRetentionBound#BENCH}, or a long window fills the disk.
     */
    private void scenario(String round, String name, int partitions, boolean fsync, int acks, int maxRecordsPerRequest)
            throws InterruptedException {
        progress.accept(round + "insync " + name);
        try (BenchCluster cluster = BenchCluster.start(partitions, fsync, Map.of(), Optional.of(LogRetentionBound.BENCH))) {
            throughput(cluster.producer(options.valueBytes(), options.batchBytes(), maxRecordsPerRequest, acks,
                    options.window()), "insync." + name);
        }
    }

    /** Adds p50/p99/p99.9/max (microseconds) of {@code h} (nanoseconds) under {@code prefix}. */
    public static void recordLatency(Measurements out, String prefix, Histogram h) {
        out.add(prefix + ".p50_us", h.getValueAtPercentile(50) / 1e3);
        out.add(prefix + ".p99_us", h.getValueAtPercentile(99) / 1e3);
        out.add(prefix + ".p999_us", h.getValueAtPercentile(99.9) / 1e3);
        out.add(prefix + ".max_us", h.getMaxValue() / 1e3);
    }

    private void recordLatency(String prefix, Histogram h) {
        recordLatency(out, prefix, h);
    }

    private void throughput(BatchingProducer producer, String prefix) throws InterruptedException {
        Rate rate = measureRate(producer, options.warmupMs(), options.jitQuietTimeoutMs(), options.measureMs());
        out.add(prefix + ".records_per_s", rate.recordsPerSecond());
        out.add(prefix + ".mb_per_s", rate.bytesPerSecond() / 1e6);
        if (producer.failures() > 0) {
            out.note(prefix, producer.failures() + " requests failed, last " + producer.lastError());
        }
    }

    /** Records and bytes acknowledged per second over a measured window. */
    public record Rate(double recordsPerSecond, double bytesPerSecond) {
    }

    /**
     * Runs {@code producer} for a warm-up of at least {@code warmupMs} and on until this JVM's JIT
     * compiler is quiet (at most {@code jitQuietTimeoutMs} longer), then measures acknowledged
     * records over {@code measureMs}.
     */
    public static Rate measureRate(BatchingProducer producer, long warmupMs, long jitQuietTimeoutMs, long measureMs)
            throws InterruptedException {
        producer.start();
        JitWarmup.thisJvm(warmupMs, jitQuietTimeoutMs).await();
        long records0 = producer.ackedRecords();
        long bytes0 = producer.ackedBytes();
        long t0 = System.nanoTime();
        Thread.sleep(measureMs);
        long records1 = producer.ackedRecords();
        long bytes1 = producer.ackedBytes();
        long t1 = System.nanoTime();
        producer.stop();
        double seconds = (t1 - t0) / 1e9;
        return new Rate((records1 - records0) / seconds, (bytes1 - bytes0) / seconds);
    }
}
