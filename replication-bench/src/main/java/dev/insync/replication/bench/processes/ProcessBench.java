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
import dev.insync.replication.bench.harness.BenchSuite;
import dev.insync.replication.bench.harness.LogRetentionBound;
import dev.insync.replication.bench.harness.Measurements;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.function.Consumer;

/**
 * The {@code processes} section: each repeat starts a fresh cluster of every target in turn
 * (A, B, A, B, ... across repeats, so a slow phase of a shared machine hits each alike), warms it
 * up with unmeasured acks=all load, runs the {@link ProcessWorkload} on it and stops it. Its brokers run
 * with {@link LogRetentionBound#BENCH}, since each scenario's topic stays. Topics have RF {@value #REPLICATION_FACTOR} and
 * {@code min.insync.replicas} {@value #MIN_INSYNC_REPLICAS}. Metrics are named
 * {@code process.<target>.<scenario>...}; when Insync and a peer ran in the same repeat, that
 * repeat's ratios are added as {@code process.ratio.insync_over_<peer>...}.
 */
public final class ProcessBench {

    /** The section's name in {@code --sections}. */
    public static final String SECTION = "processes";
    /** The target whose ratios against every other target are reported. */
    public static final String INSYNC = "insync";
    public static final int REPLICATION_FACTOR = 3;
    public static final int MIN_INSYNC_REPLICAS = 2;
    /** Partition counts of the throughput scenarios. */
    static final int[] PARTITIONS = {1, 12};
    /** Linger of the throughput client: small, so that batches fill from the closed loop rather than from waiting. */
    static final int THROUGHPUT_LINGER_MS = 1;
    /** A fresh cluster first runs acks=all load for this many scenario warm-ups, unmeasured. */
    static final int CLUSTER_WARMUP_FACTOR = 2;
    static final Duration TOPIC_TIMEOUT = Duration.ofSeconds(60);
    /** After an acks=1 scenario the followers may lag: the next scenario waits this long for full ISRs. */
    static final Duration CATCH_UP_TIMEOUT = Duration.ofSeconds(60);
    /** Metrics (after {@code process.<target>.}) whose per-repeat ratios are reported. */
    static final List<String> RATIO_METRICS = List.of("acks_all.p1.records_per_s", "acks_all.p12.records_per_s",
            "acks_all.latency.p50_us", "acks_all.latency.p99_us", "failover.kill_to_first_ack_ms");

    private final BenchOptions options;
    private final ProcessBenchSettings settings;
    private final Measurements out;
    private final Consumer<String> progress;
    private final List<ProcessBenchTargetFactory> targets;

    /** The targets {@code settings} names (or all) among those on the class path; missing ones are noted. */
    public ProcessBench(BenchOptions options, ProcessBenchSettings settings, Measurements out, Consumer<String> progress) {
        this(options, settings, out, progress, available());
    }

    /** With the target factories given instead of found on the class path (tests, a target with other settings). */
    public ProcessBench(BenchOptions options, ProcessBenchSettings settings, Measurements out, Consumer<String> progress,
                 List<ProcessBenchTargetFactory> available) {
        this.options = options;
        this.settings = settings;
        this.out = out;
        this.progress = progress;
        this.targets = chosen(available);
    }

    /** Every target factory on the class path; one whose own dependencies are missing is left out. */
    public static List<ProcessBenchTargetFactory> available() {
        List<ProcessBenchTargetFactory> found = new ArrayList<>();
        Iterator<ProcessBenchTargetFactory> it = ServiceLoader.load(ProcessBenchTargetFactory.class).iterator();
        while (true) {
            try {
                if (!it.hasNext()) {
                    return found;
                }
                found.add(it.next());
            } catch (ServiceConfigurationError | LinkageError e) {
                // a target compiled without its libraries (e.g. Kafka outside -Ppeers): not available
            }
        }
    }

    /** The targets this bench measures, in order. */
    public List<ProcessBenchTargetFactory> targets() {
        return List.copyOf(targets);
    }

    /** The names of {@link #available()}. */
    public static List<String> availableNames() {
        return available().stream().map(ProcessBenchTargetFactory::name).toList();
    }

    private List<ProcessBenchTargetFactory> chosen(List<ProcessBenchTargetFactory> all) {
        if (settings.targets().isEmpty()) {
            if (all.isEmpty()) {
                out.note(SECTION, "No process target on the class path (META-INF/services lists insync, and kafka with"
                        + " the -Ppeers build; docs/performance.md).");
            }
            return all;
        }
        List<ProcessBenchTargetFactory> picked = new ArrayList<>();
        for (String name : settings.targets()) {
            all.stream().filter(f -> f.name().equals(name)).findFirst().ifPresentOrElse(picked::add,
                    () -> out.note(SECTION + "." + name, "Target " + name + " is not on the class path (available: "
                            + all.stream().map(ProcessBenchTargetFactory::name).toList() + ")"));
        }
        return picked;
    }

    /** Runs repeat {@code repeat} of every chosen target, in order, each on a fresh cluster under {@code work}. */
    public void repeat(int repeat, String round, Path work) {
        Map<String, Map<String, Double>> thisRepeat = new LinkedHashMap<>();
        for (ProcessBenchTargetFactory factory : targets) {
            String name = factory.name();
            Map<String, Double> values = new LinkedHashMap<>();
            thisRepeat.put(name, values);
            Consumer<String> step = s -> progress.accept(round + name + " processes: " + s);
            step.accept("starting");
            long t0 = System.nanoTime();
            try {
                Path dir = Files.createDirectories(work.resolve("processes").resolve(name + "-r" + repeat));
                try (ProcessBenchTarget target = factory.start(dir, settings.withRetentionBound(LogRetentionBound.BENCH),
                        step)) {
                    add(name, values, "cluster_start_s", (System.nanoTime() - t0) / 1e9);
                    out.note(SECTION + "." + name, target.description());
                    measure(target, name, values, step);
                }
            } catch (Exception e) {
                out.note(SECTION + "." + name + ".r" + repeat, name + " failed in repeat " + repeat + ": " + e);
                e.printStackTrace();
            }
        }
        Map<String, Double> insync = thisRepeat.get(INSYNC);
        if (insync != null) {
            thisRepeat.forEach((peer, values) -> {
                if (peer.equals(INSYNC)) {
                    return;
                }
                for (String metric : RATIO_METRICS) {
                    if (insync.containsKey(metric) && values.containsKey(metric) && values.get(metric) != 0) {
                        out.add("process.ratio.insync_over_" + peer + "." + metric, insync.get(metric) / values.get(metric));
                    }
                }
            });
        }
    }

    private void measure(ProcessBenchTarget target, String name, Map<String, Double> values, Consumer<String> step)
            throws Exception {
        ProcessWorkload workload = new ProcessWorkload(target, options.valueBytes(), options.batchBytes(),
                options.jitQuietTimeoutMs(), step);
        // Freshly started JVMs: without this the first scenario would also measure the servers' JIT warm-up.
        step.accept("warm-up, unmeasured");
        String previousTopic = "bench-warmup";
        target.createTopic(previousTopic, PARTITIONS[PARTITIONS.length - 1], REPLICATION_FACTOR, MIN_INSYNC_REPLICAS,
                TOPIC_TIMEOUT);
        workload.throughput(previousTopic, PARTITIONS[PARTITIONS.length - 1], new BenchClientSettings(-1,
                options.batchBytes(), THROUGHPUT_LINGER_MS, options.window()), CLUSTER_WARMUP_FACTOR * options.warmupMs(), 0);
        if (settings.measures("throughput")) {
            previousTopic = throughput(target, name, workload, step, values, previousTopic);
        }
        awaitCaughtUp(target, name, previousTopic);
        if (settings.measures("latency")) {
            latency(target, name, workload, step, values);
        }
        if (settings.measures("failover")) {
            step.accept("failover: kill -9 of a leader");
            String failoverTopic = "bench-failover";
            target.createTopic(failoverTopic, 1, REPLICATION_FACTOR, MIN_INSYNC_REPLICAS, TOPIC_TIMEOUT);
            ProcessWorkload.Failover f = workload.failover(failoverTopic, settings.failoverTimeout());
            add(name, values, "failover.kill_to_first_ack_ms", f.killToFirstAckMs());
        }
    }

    /** The throughput scenarios, each on its own topic; the last one's topic. */
    private String throughput(ProcessBenchTarget target, String name, ProcessWorkload workload, Consumer<String> step,
                              Map<String, Double> values, String previousTopic) throws Exception {
        for (int partitions : PARTITIONS) {
            for (int acks : new int[] {-1, 1}) {
                BenchClientSettings client = new BenchClientSettings(acks, options.batchBytes(), THROUGHPUT_LINGER_MS,
                        options.window());
                String scenario = "acks_" + client.acksName() + ".p" + partitions;
                String topic = "bench-" + scenario.replace('_', '-').replace('.', '-');
                awaitCaughtUp(target, name, previousTopic);
                step.accept(scenario + ": topic");
                target.createTopic(topic, partitions, REPLICATION_FACTOR, MIN_INSYNC_REPLICAS, TOPIC_TIMEOUT);
                step.accept(scenario + ": throughput");
                ProcessWorkload.Throughput t = workload.throughput(topic, partitions, client, options.warmupMs(),
                        options.measureMs());
                add(name, values, scenario + ".records_per_s", t.recordsPerSecond());
                add(name, values, scenario + ".mb_per_s", t.bytesPerSecond() / 1e6);
                add(name, values, scenario + ".server_cpu_s_per_million_records", t.serverCpuSecondsPerMillionRecords());
                out.add("process." + name + "." + scenario + ".warmup_s", t.warmupSeconds());
                out.add("process." + name + "." + scenario + ".server_jit_percent_of_cpu", t.serverJitShare() * 100);
                if (t.failedRecords() > 0) {
                    out.note("process." + name + "." + scenario, t.failedRecords() + " records failed, last "
                            + t.lastError());
                }
                previousTopic = topic;
            }
        }
        return previousTopic;
    }

    private void latency(ProcessBenchTarget target, String name, ProcessWorkload workload, Consumer<String> step,
                         Map<String, Double> values) throws Exception {
        step.accept("acks_all latency, one record in flight");
        String latencyTopic = "bench-latency";
        target.createTopic(latencyTopic, 1, REPLICATION_FACTOR, MIN_INSYNC_REPLICAS, TOPIC_TIMEOUT);
        ProcessWorkload.Latency latency = workload.latency(latencyTopic, Math.max(200, options.latencySends() / 10),
                options.latencySends());
        String prefix = "process." + name + ".acks_all.latency";
        BenchSuite.recordLatency(out, prefix, latency.histogram());
        values.put("acks_all.latency.p50_us", latency.histogram().getValueAtPercentile(50) / 1e3);
        values.put("acks_all.latency.p99_us", latency.histogram().getValueAtPercentile(99) / 1e3);
        out.histogram(name + " processes acks=all", latency.histogram());
        if (latency.failedRecords() > 0) {
            out.note(prefix, latency.failedRecords() + " records failed, last " + latency.lastError());
        }
    }

    private void awaitCaughtUp(ProcessBenchTarget target, String name, String topic) throws Exception {
        if (topic != null && !target.awaitFullIsr(topic, CATCH_UP_TIMEOUT)) {
            out.note("process." + name + "." + topic, "ISR of " + topic + " not full " + CATCH_UP_TIMEOUT.toSeconds()
                    + " s after its scenario; the next scenario ran alongside the catch-up");
        }
    }

    private void add(String target, Map<String, Double> values, String metric, double value) {
        out.add("process." + target + "." + metric, value);
        values.put(metric, value);
    }
}
