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
import dev.insync.replication.bench.processes.ProcessScaleBench;
import dev.insync.replication.bench.processes.ProcessBenchSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * The bench's command line ({@code java -jar replication-bench/target/benchmarks.jar}, run by
 * {@link BenchMain#main}): measures replicated throughput and latency (3 brokers on real threads in
 * this JVM over the in-memory transport), the baselines underneath them, scale and simulation
 * speed, with a progress line on stderr; writes {@code results.txt}, {@code results.json} and
 * {@code latency}/{@code throughput} charts (PNG, SVG) into {@code --out} and prints the text
 * report. See {@code docs/performance.md}. Peers (Apache Ratis) run only from the {@code -Ppeers}
 * build of {@code replication-bench}.
 */
@Command(name = "bench",
        mixinStandardHelpOptions = true,
        description = {
            "Measures Insync's replicated throughput and latency, baselines, scale and simulation speed.",
            "Writes results.txt, results.json, latency.{png,svg} and throughput.{png,svg} to --out."})
public final class BenchCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--out", defaultValue = "bench-results", description = "Output directory (default: ${DEFAULT-VALUE}).")
    private Path out;

    @Option(names = "--repeats", defaultValue = "3", description = "Repeats of each measurement; medians are reported (default: ${DEFAULT-VALUE}).")
    private int repeats;

    @Option(names = "--seconds", defaultValue = "5", description = "Measured seconds per throughput scenario (default: ${DEFAULT-VALUE}).")
    private int seconds;

    @Option(names = "--warmup-seconds", defaultValue = "2", description = "Warm-up seconds per throughput scenario (default: ${DEFAULT-VALUE}).")
    private int warmupSeconds;

    @Option(names = "--latency-sends", defaultValue = "20000", description = "Recorded acks=all sends, one in flight (default: ${DEFAULT-VALUE}).")
    private int latencySends;

    @Option(names = "--scale-partitions", defaultValue = "3000", description = "Partitions of the scale measurement, 0 to skip (default: ${DEFAULT-VALUE}).")
    private int scalePartitions;

    @Option(names = "--idle-seconds", defaultValue = "30", description = "Idle window of the scale CPU reading (default: ${DEFAULT-VALUE}).")
    private int idleSeconds;

    @Option(names = "--sections", split = ",",
            description = "Sections to run (default: all): throughput, latency, baselines, fsync, peers, scale, simulation,"
                    + " controller, processes, process-scale.")
    private List<String> sections;

    @Option(names = "--targets", split = ",",
            description = "Targets of the processes section, measured in this order each repeat (default: every one on"
                    + " the class path: insync, and kafka with the -Ppeers build).")
    private List<String> targets;

    @Option(names = "--server-classpath", paramLabel = "TARGET=FILE",
            description = "A file holding the class path of a target's server processes (kafka's default:"
                    + " replication-bench/kafka-server/target/kafka-server.classpath; insync's default: the bench's own).")
    private Map<String, Path> serverClassPaths;

    @Option(names = "--process-scenarios", split = ",",
            description = "Scenarios of each processes repeat (default: all): throughput, latency, failover.")
    private List<String> processScenarios;

    @Option(names = "--failover-timeout-seconds", defaultValue = "60",
            description = "Bound for the first acknowledged write after a leader's kill -9 (default: ${DEFAULT-VALUE}).")
    private int failoverTimeoutSeconds;

    @Option(names = "--jit-quiet-timeout-seconds", defaultValue = "60",
            description = "How much longer than --warmup-seconds a throughput warm-up may go on until the measured"
                    + " system's JIT compilers use < 1 %% of its CPU; 0 for fixed warm-ups (default: ${DEFAULT-VALUE}).")
    private int jitQuietTimeoutSeconds;

    @Option(names = "--quick", description = "One repeat of 1 s windows, fixed warm-ups, 2,000 latency sends, 300 scale partitions, 5 s idle: a smoke run.")
    private boolean quick;

    @Override
    public Integer call() throws Exception {
        // The brokers' INFO lines would bury the report, and the simulation section's injected faults log
        // WARNs by design: simplelogger.properties has errors only, on stderr (-Dorg.slf4j.simpleLogger.* overrides).
        Set<String> chosen = sections == null ? BenchOptions.ALL_SECTIONS : new LinkedHashSet<>(sections);
        for (String s : chosen) {
            if (!BenchOptions.ALL_SECTIONS.contains(s)) {
                throw new ParameterException(spec.commandLine(), "Unknown section '" + s + "'; known: "
                        + BenchOptions.ALL_SECTIONS);
            }
        }
        ProcessBenchSettings processSettings = processSettings(chosen);
        if (repeats < 1 || seconds < 1 || latencySends < 1 || scalePartitions < 0 || idleSeconds < 1) {
            throw new ParameterException(spec.commandLine(), "--repeats, --seconds, --latency-sends and --idle-seconds"
                    + " must be positive and --scale-partitions not negative");
        }
        BenchOptions options = quick
                ? new BenchOptions(out, 1, 500, 1_000, 2_000, 1_000, 16 * 1024, 100, 300, 5_000, chosen, 0)
                : new BenchOptions(out, repeats, warmupSeconds * 1_000L, seconds * 1_000L, latencySends, 1_000,
                        16 * 1024, 100, scalePartitions, idleSeconds * 1_000L, chosen, jitQuietTimeoutSeconds * 1_000L);
        String report = BenchMain.run(options, processSettings, ProgressLine.toStderr());
        spec.commandLine().getOut().print(report);
        spec.commandLine().getOut().flush();
        return 0;
    }

    /** The processes section's settings; targets must be on the class path, so a typo fails before anything runs. */
    private ProcessBenchSettings processSettings(Set<String> chosen) {
        List<String> wanted = targets == null ? List.of() : targets;
        if (!wanted.isEmpty() && !chosen.contains(ProcessBench.SECTION) && !chosen.contains(ProcessScaleBench.SECTION)) {
            throw new ParameterException(spec.commandLine(), "--targets applies to the processes and process-scale"
                    + " sections, neither of which is among --sections " + chosen);
        }
        List<String> available = ProcessBench.availableNames();
        for (String t : wanted) {
            if (!available.contains(t)) {
                throw new ParameterException(spec.commandLine(), "Unknown target '" + t + "'; on the class path: "
                        + available + " (kafka needs the -Ppeers build of replication-bench)");
            }
        }
        if (failoverTimeoutSeconds < 1) {
            throw new ParameterException(spec.commandLine(), "--failover-timeout-seconds must be positive");
        }
        if (jitQuietTimeoutSeconds < 0) {
            throw new ParameterException(spec.commandLine(), "--jit-quiet-timeout-seconds must be >= 0");
        }
        List<String> scenarios = processScenarios == null ? ProcessBenchSettings.SCENARIOS : processScenarios;
        for (String s : scenarios) {
            if (!ProcessBenchSettings.SCENARIOS.contains(s)) {
                throw new ParameterException(spec.commandLine(), "Unknown process scenario '" + s + "'; known: "
                        + ProcessBenchSettings.SCENARIOS);
            }
        }
        if (processScenarios != null && !chosen.contains(ProcessBench.SECTION)) {
            throw new ParameterException(spec.commandLine(), "--process-scenarios applies to the processes section,"
                    + " which is not among --sections " + chosen);
        }
        ProcessBenchSettings defaults = ProcessBenchSettings.defaults();
        return new ProcessBenchSettings(wanted, serverClassPaths == null ? Map.of() : serverClassPaths,
                defaults.startTimeout(), Duration.ofSeconds(failoverTimeoutSeconds))
                .withScenarios(Set.copyOf(scenarios));
    }
}
