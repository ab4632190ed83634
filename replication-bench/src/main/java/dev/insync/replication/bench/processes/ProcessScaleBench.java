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

package dev.insync.replication.bench.processes;

import dev.insync.replication.bench.harness.BenchOptions;
import dev.insync.replication.bench.harness.Measurements;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The scale measurement across processes: a target's cluster (three brokers, each its own JVM) with
 * one topic of {@code --scale-partitions} partitions, replication factor 3, so every broker holds
 * that many replicas; then, with nothing written, the CPU each broker process uses and the live heap
 * each replica adds. The in-JVM counterpart is {@code ScaleBench}; this one sees what a deployment
 * sees: real sockets, one heap and one set of threads per broker.
 *
 * <ul>
 *   <li>{@code create_s}: from the CreateTopics call until every partition has a leader and a full ISR.</li>
 *   <li>{@code idle_cpu_percent_of_core_per_broker}: the busiest broker's CPU over the idle window
 *       (user plus system, from the OS), after a settle that waits until two consecutive
 *       windows of {@link #SETTLE_WINDOW_MS} (or the idle window, if shorter) cost about the same
 *       (the JIT compiler and the start-up catch-up done);
 *       {@code empty_idle_cpu_percent_of_core_per_broker} the same before the topic exists
 *       (heartbeats, metadata polls, the JVM itself).</li>
 *   <li>{@code heap_per_replica_kib}: live heap after a full collection ({@code jcmd <pid>
 *       GC.class_histogram}, which collects first and counts only reachable objects), with the topic
 *       minus before it, over the replicas the broker holds; the mean over the brokers.</li>
 * </ul>
 */
public final class ProcessScaleBench {

    /** The section's name in {@code --sections}. */
    public static final String SECTION = "process-scale";

    static final String TOPIC = "bench-scale";
    static final int REPLICATION_FACTOR = 3;
    static final int MIN_INSYNC_REPLICAS = 2;
    static final long SETTLE_WINDOW_MS = 5_000;
    static final long SETTLE_MAX_MS = 180_000;
    /** Two settle windows within this ratio of each other count as settled. */
    static final double SETTLED_RATIO = 1.25;
    /** A window below this many cores (all brokers together) counts as settled at once. */
    static final double SETTLED_CORES = 0.02;
    /** The JIT compiler threads may use at most this many cores per process in a settled window. */
    static final double COMPILER_QUIET_CORES_PER_PROCESS = 0.01;
    static final Duration JCMD_TIMEOUT = Duration.ofSeconds(120);
    private static final Pattern HISTOGRAM_TOTAL = Pattern.compile("(?m)^Total\\s+\\d+\\s+(\\d+)\\s*$");

    private final BenchOptions options;
    private final ProcessBenchSettings settings;
    private final Measurements out;
    private final Consumer<String> progress;
    private final List<ProcessBenchTargetFactory> targets;

    public ProcessScaleBench(BenchOptions options, ProcessBenchSettings settings, Measurements out,
                             Consumer<String> progress, List<ProcessBenchTargetFactory> targets) {
        this.options = options;
        this.settings = settings;
        this.out = out;
        this.progress = progress;
        this.targets = List.copyOf(targets);
    }

    /** Measures every target once, each on a fresh cluster under {@code work}. */
    public void run(Path work) {
        int partitions = options.scalePartitions();
        for (ProcessBenchTargetFactory factory : targets) {
            String name = factory.name();
            Consumer<String> step = s -> progress.accept(name + " process scale (" + partitions + " partitions): " + s);
            String prefix = "process." + name + ".scale.";
            try {
                Path dir = Files.createDirectories(work.resolve("process-scale").resolve(name));
                step.accept("starting");
                try (ProcessBenchTarget target = factory.start(dir, settings, step)) {
                    measure(target, partitions, prefix, step);
                }
            } catch (Exception e) {
                out.note(SECTION + "." + name, name + " failed: " + e);
                e.printStackTrace();
            }
        }
    }

    private void measure(ProcessBenchTarget target, int partitions, String prefix, Consumer<String> step)
            throws Exception {
        Map<Integer, Long> pids = target.brokerPids();
        // The same reading without the topic first: what an idle broker costs whatever it holds.
        step.accept("idle CPU without the topic");
        settle(pids, settleWindowMs());
        out.add(prefix + "empty_idle_cpu_percent_of_core_per_broker", busiest(cores(pids, options.idleMs())) * 100);
        step.accept("live heap without the topic");
        Map<Integer, Long> heapBefore = liveHeapBytes(pids);
        step.accept("creating the topic");
        long t0 = System.nanoTime();
        // Creation is bounded by its own work: a generous second per 100 partitions, at least two minutes
        // (30,000 took 75 to 173 s on a loaded two-core machine: one per 250 timed it out).
        target.createTopic(TOPIC, partitions, REPLICATION_FACTOR, MIN_INSYNC_REPLICAS,
                Duration.ofSeconds(Math.max(120, partitions / 100)));
        out.add(prefix + "create_s", (System.nanoTime() - t0) / 1e9);
        out.add(prefix + "partitions_per_broker", partitions * REPLICATION_FACTOR / (double) pids.size());
        step.accept("settling");
        out.add(prefix + "idle_settle_s", settle(pids, settleWindowMs()) / 1e3);
        step.accept("idle CPU over " + options.idleMs() / 1000 + " s");
        Map<Integer, Double> cores = cores(pids, options.idleMs());
        out.add(prefix + "idle_cpu_percent_of_core_per_broker", busiest(cores) * 100);
        out.add(prefix + "idle_cpu_percent_of_core_all_brokers",
                cores.values().stream().mapToDouble(Double::doubleValue).sum() * 100);
        out.note(prefix + "idle_cpu_by_broker", cores.toString());
        step.accept("live heap with the topic");
        Map<Integer, Long> heapAfter = liveHeapBytes(pids);
        List<Double> perReplica = new ArrayList<>();
        for (int broker : pids.keySet()) {
            double replicasHere = partitions * REPLICATION_FACTOR / (double) pids.size();
            perReplica.add((heapAfter.get(broker) - heapBefore.get(broker)) / 1024.0 / replicasHere);
        }
        out.add(prefix + "heap_per_replica_kib", perReplica.stream().mapToDouble(Double::doubleValue).average()
                .orElse(Double.NaN));
        out.note(prefix + "heap_per_replica_kib_by_broker", perReplica.toString());
    }

    /**
     * A settle window no longer than the idle window: a short idle reading (a test's) asks for no more
     * precision than its own, and waiting 5 s windows for it would cost more than the reading.
     */
    private long settleWindowMs() {
        return Math.min(SETTLE_WINDOW_MS, options.idleMs());
    }

    private static double busiest(Map<Integer, Double> cores) {
        return cores.values().stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    /**
     * Waits until two consecutive windows of {@code windowMs} are {@link #settled} and the JIT compiler
     * threads were quiet in the second ({@link #COMPILER_QUIET_CORES_PER_PROCESS}, where Linux's
     * {@code /proc} tells), at most {@link #SETTLE_MAX_MS}; the ms waited.
     */
    static long settle(Map<Integer, Long> pids, long windowMs) throws InterruptedException {
        long start = System.nanoTime();
        double previous = Double.NaN;
        // Under load the compiler works off the compilations the topic's creation queued at a steady pace
        // for a while, so two windows can cost the same and still not be idle.
        ServerJit jit = new ServerJit();
        while ((System.nanoTime() - start) / 1_000_000 < SETTLE_MAX_MS) {
            double compiler0 = jit.compilerCpuSeconds(pids.values());
            double now = cores(pids, windowMs).values().stream().mapToDouble(Double::doubleValue).sum();
            double compilerCores = (jit.compilerCpuSeconds(pids.values()) - compiler0) / (windowMs / 1000.0);
            // NaN (no /proc): the ratio rule alone.
            boolean compilerQuiet = Double.isNaN(compilerCores) || compilerCores <= COMPILER_QUIET_CORES_PER_PROCESS * pids.size();
            if (settled(previous, now) && compilerQuiet) {
                break;
            }
            previous = now;
        }
        return (System.nanoTime() - start) / 1_000_000;
    }

    /**
     * Whether a window costing {@code now} cores after one costing {@code previous} (NaN: none yet)
     * counts as settled: below {@link #SETTLED_CORES}, or within {@link #SETTLED_RATIO} of the previous
     * window in either direction. Only a rise used to be bounded, so a cost still falling fast (the JIT
     * compiler working off the compilations the topic's creation queued, which at 30,000 partitions
     * cost 20 % of a core in the first 15 s after it and 4 % in the next) counted as settled after two
     * windows, and the idle reading took that tail for the broker's idle cost.
     */
    static boolean settled(double previous, double now) {
        if (now < SETTLED_CORES) {
            return true;
        }
        return !Double.isNaN(previous) && now <= previous * SETTLED_RATIO && previous <= now * SETTLED_RATIO;
    }

    /** Cores each process used on average over {@code ms} of wall time (user plus system, as the OS counts). */
    static Map<Integer, Double> cores(Map<Integer, Long> pids, long ms) throws InterruptedException {
        Map<Integer, Long> cpu0 = cpuNanos(pids);
        long t0 = System.nanoTime();
        Thread.sleep(ms);
        Map<Integer, Long> cpu1 = cpuNanos(pids);
        double wallNs = System.nanoTime() - t0;
        Map<Integer, Double> out = new LinkedHashMap<>();
        cpu1.forEach((id, ns) -> out.put(id, (ns - cpu0.get(id)) / wallNs));
        return out;
    }

    private static Map<Integer, Long> cpuNanos(Map<Integer, Long> pids) {
        Map<Integer, Long> out = new LinkedHashMap<>();
        pids.forEach((id, pid) -> out.put(id, ProcessHandle.of(pid)
                .flatMap(h -> h.info().totalCpuDuration())
                .orElseThrow(() -> new IllegalStateException("Broker " + id + " (pid " + pid + ") is gone or its CPU"
                        + " time is not readable"))
                .toNanos()));
        return out;
    }

    /** Live heap bytes of each process, after the full collection {@code GC.class_histogram} makes. */
    static Map<Integer, Long> liveHeapBytes(Map<Integer, Long> pids) throws IOException, InterruptedException {
        Map<Integer, Long> out = new LinkedHashMap<>();
        for (Map.Entry<Integer, Long> e : pids.entrySet()) {
            out.put(e.getKey(), liveHeapBytes(e.getValue()));
        }
        return out;
    }

    static long liveHeapBytes(long pid) throws IOException, InterruptedException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        // Into a file, so that a jcmd that hangs is bounded by the wait below, not by a blocking read.
        Path output = Files.createTempFile("insync-histogram-" + pid + "-", ".txt");
        try {
            Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "GC.class_histogram")
                    .redirectErrorStream(true).redirectOutput(output.toFile()).start();
            try {
                if (!p.waitFor(JCMD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IOException("jcmd " + pid + " GC.class_histogram did not finish within " + JCMD_TIMEOUT);
                }
            } finally {
                p.destroyForcibly();
            }
            return histogramTotalBytes(Files.readString(output, StandardCharsets.UTF_8), pid);
        } finally {
            Files.deleteIfExists(output);
        }
    }

    /** The bytes of the {@code Total} line of a class histogram. */
    static long histogramTotalBytes(String histogram, long pid) throws IOException {
        Matcher m = HISTOGRAM_TOTAL.matcher(histogram);
        if (!m.find()) {
            String tail = histogram.length() > 300 ? histogram.substring(histogram.length() - 300) : histogram;
            throw new IOException("No Total line in the class histogram of pid " + pid + ": ..." + tail);
        }
        return Long.parseLong(m.group(1));
    }
}
