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

package dev.insync.replication.cli;

import dev.insync.replication.testkit.history.Json;
import dev.insync.replication.testkit.simulation.FaultKind;
import dev.insync.replication.testkit.simulation.Simulation;
import dev.insync.replication.testkit.simulation.SimulationResult;
import dev.insync.replication.testkit.simulation.SimulationSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code insync simulate --seeds A-B}: the randomized simulation of contract §11, one seeded run per
 * seed (see {@link Simulation} for the workload and the fault model), each checked against every
 * invariant. Prints one line per seed ({@code seed, events, acked, violations}) and a summary
 * ({@code seeds, violations, acked, lost-acks1, simulated-seconds, wall-seconds}, then the
 * violations by invariant, the excused liveness failures, the seeds with unclean elections and the
 * fault mix actually injected, by history kind); with {@code --json} each of those is one JSON
 * object per line. {@code --history DIR} writes each seed's history as {@code DIR/<seed>.jsonl}.
 * A violation's replay report (the first violation, the last history events, the event loop's last
 * events) goes to stderr.
 *
 * <p>Exit code 0 when every seed is clean, 1 on any violation (or a history that cannot be
 * written), 2 for a usage error: a seed range that does not parse or ends before it starts, a
 * duration or timeout out of range, an unknown or empty fault kind, a history directory that
 * cannot be created or written.
 */
@Command(name = "simulate",
        mixinStandardHelpOptions = true,
        description = {
            "Runs the randomized simulation (contract §11, docs/contract.md) for a range of seeds and checks every invariant.",
            "Exit code 1 if any seed breaks an invariant (replay report on stderr)."})
public final class SimulateCommand implements Callable<Integer> {

    /** Longest --duration-s (SimulationSettings' bound, in seconds). */
    static final long MAX_DURATION_S = SimulationSettings.MAX_DURATION_MS / 1000;
    /** Longest --produce-timeout-ms: a day. */
    static final long MAX_PRODUCE_TIMEOUT_MS = 86_400_000L;
    /** Most threads --parallel may ask for. */
    static final int MAX_PARALLEL = 256;

    @Spec
    private CommandSpec spec;

    @Option(names = "--seeds", required = true, paramLabel = "A-B",
            description = "Seeds to run: a range A-B (inclusive) or a single seed.")
    private String seeds;

    @Option(names = "--duration-s", paramLabel = "N", defaultValue = "60",
            description = "Simulated seconds of faulty workload per seed, before heal-and-quiesce, 1.."
                    + MAX_DURATION_S + " (default ${DEFAULT-VALUE}).")
    private long durationSeconds;

    /** Every {@link FaultKind}, as the command line names them (the default of {@code --faults}). */
    static final String ALL_FAULTS = "pause,kill,power,partition,shutdown,delay,loss,clock,bitflip,disk,controller";

    @Option(names = "--faults", paramLabel = "KINDS", defaultValue = ALL_FAULTS,
            description = "Comma-separated fault kinds from " + ALL_FAULTS + "; 'none' for no faults (default every kind).")
    private String faults;

    @Option(names = "--produce-timeout-ms", paramLabel = "MS", defaultValue = "5000",
            description = "Timeout of every produce call, 1.." + MAX_PRODUCE_TIMEOUT_MS + " (default ${DEFAULT-VALUE}).")
    private long produceTimeoutMs;

    @Option(names = "--unclean-share", paramLabel = "P", defaultValue = "" + SimulationSettings.DEFAULT_UNCLEAN_SHARE,
            description = "Share of seeds, in [0, 1], that enable unclean leader election (default ${DEFAULT-VALUE}).")
    private double uncleanShare;

    @Option(names = "--history", paramLabel = "DIR", description = "Write each seed's history to DIR/<seed>.jsonl.")
    private Path historyDir;

    @Option(names = "--json", description = "One JSON object per seed and one for the summary.")
    private boolean json;

    @Option(names = "--parallel", paramLabel = "N", defaultValue = "1",
            description = "Seeds run at once on N threads; output stays in seed order (default ${DEFAULT-VALUE}).")
    private int parallel;

    @Override
    public Integer call() {
        // Brokers log every truncation and leader change at INFO: thousands of lines per seed.
        CliLogging.toStderr("warn");
        long[] range = parseSeeds();
        SimulationSettings settings = settings();
        if (parallel < 1 || parallel > MAX_PARALLEL) {
            throw new ParameterException(spec.commandLine(), "--parallel must be in 1.." + MAX_PARALLEL + ", got " + parallel);
        }
        if (historyDir != null) {
            requireWritableDirectory(historyDir);
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        long startNanos = System.nanoTime();
        Summary summary = new Summary();
        ExecutorService pool = Executors.newFixedThreadPool(parallel, r -> {
            Thread t = new Thread(r, "simulate");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<SimulationResult>> window = new ArrayList<>();
            // Counted, not compared: a range ending at Long.MAX_VALUE must not wrap around.
            long next = range[0];
            boolean submittedLast = false;
            while (!submittedLast || !window.isEmpty()) {
                while (!submittedLast && window.size() < parallel * 2) {
                    long seed = next;
                    submittedLast = seed == range[1];
                    if (!submittedLast) {
                        next++;
                    }
                    window.add(pool.submit(() -> Simulation.run(seed, settings)));
                }
                SimulationResult result = await(window.remove(0));
                if (!report(result, summary, out, err)) {
                    return InsyncCli.EXIT_FAILURE;
                }
            }
        } finally {
            pool.shutdownNow();
        }
        double wallSeconds = (System.nanoTime() - startNanos) / 1e9;
        printSummary(summary, wallSeconds, out);
        out.flush();
        err.flush();
        return summary.violations > 0 ? InsyncCli.EXIT_FAILURE : 0;
    }

    /** A usage error unless {@code dir} exists (or can be created) and a file can be written in it. */
    private void requireWritableDirectory(Path dir) {
        try {
            Files.createDirectories(dir);
            Path probe = Files.createTempFile(dir, ".insync-write-check-", ".tmp");
            Files.delete(probe);
        } catch (IOException | SecurityException | UnsupportedOperationException e) {
            throw new ParameterException(spec.commandLine(), "--history " + dir + ": cannot write there (" + e + ")");
        }
    }

    private static SimulationResult await(Future<SimulationResult> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for a simulation", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("A simulation failed outside the library: " + e.getCause(), e.getCause());
        }
    }

    /** Prints one seed's line; false if its history could not be written (reported on stderr). */
    private boolean report(SimulationResult r, Summary summary, PrintWriter out, PrintWriter err) {
        summary.add(r);
        if (historyDir != null) {
            Path file = historyDir.resolve(r.seed() + ".jsonl");
            try {
                r.history().writeTo(file);
            } catch (UncheckedIOException e) {
                err.println("Cannot write the history of seed " + r.seed() + " to " + file + ": " + e.getCause());
                err.flush();
                return false;
            }
        }
        if (json) {
            out.println(Json.write(r.summaryJson()));
        } else {
            out.printf("seed=%d events=%d acked=%d violations=%d%n", r.seed(), r.historyEvents(), r.acked(),
                    r.violations().size());
        }
        out.flush();
        if (!r.clean()) {
            err.print(r.failureReport());
            err.flush();
        }
        return true;
    }

    private void printSummary(Summary s, double wallSeconds, PrintWriter out) {
        double simulatedSeconds = s.simulatedMs / 1000.0;
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("seeds", s.seeds);
            m.put("violations", s.violations);
            m.put("acked", s.acked);
            m.put("lostAcks1", s.lostAcks1);
            m.put("simulatedSeconds", Math.round(simulatedSeconds));
            m.put("wallSeconds", String.format("%.1f", wallSeconds));
            m.put("violationsByInvariant", s.byInvariant);
            m.put("excused", s.excused);
            m.put("uncleanSeeds", s.uncleanSeeds);
            m.put("seedsWithUncleanElection", s.uncleanElections);
            m.put("faults", s.faults);
            out.println(Json.write(m));
        } else {
            out.printf("seeds=%d violations=%d acked=%d lost-acks1=%d simulated-seconds=%d wall-seconds=%.1f "
                            + "(%.0f simulated s per wall s)%n", s.seeds, s.violations, s.acked, s.lostAcks1,
                    Math.round(simulatedSeconds), wallSeconds, simulatedSeconds / Math.max(wallSeconds, 1e-9));
            out.printf("violations-by-invariant=%s excused=%d unclean-seeds=%d seeds-with-unclean-election=%d%n",
                    s.byInvariant, s.excused, s.uncleanSeeds, s.uncleanElections);
            out.printf("faults=%s%n", s.faults);
        }
    }

    private long[] parseSeeds() {
        String text = seeds.trim();
        int dash = text.indexOf('-', 1);
        try {
            long from = Long.parseLong(dash < 0 ? text : text.substring(0, dash).trim());
            long to = dash < 0 ? from : Long.parseLong(text.substring(dash + 1).trim());
            if (to < from) {
                throw new ParameterException(spec.commandLine(), "--seeds " + seeds + ": the range ends before it starts");
            }
            return new long[] {from, to};
        } catch (NumberFormatException e) {
            throw new ParameterException(spec.commandLine(), "--seeds " + seeds + ": expected A-B or a single seed, each in "
                    + Long.MIN_VALUE + ".." + Long.MAX_VALUE);
        }
    }

    private SimulationSettings settings() {
        Set<FaultKind> kinds;
        try {
            kinds = FaultKind.parse(faults);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--faults: " + e.getMessage());
        }
        if (durationSeconds < 1 || durationSeconds > MAX_DURATION_S) {
            throw new ParameterException(spec.commandLine(), "--duration-s must be in 1.." + MAX_DURATION_S + ", got "
                    + durationSeconds);
        }
        if (produceTimeoutMs < 1 || produceTimeoutMs > MAX_PRODUCE_TIMEOUT_MS) {
            throw new ParameterException(spec.commandLine(), "--produce-timeout-ms must be in 1.." + MAX_PRODUCE_TIMEOUT_MS
                    + ", got " + produceTimeoutMs);
        }
        if (!(uncleanShare >= 0 && uncleanShare <= 1)) {
            throw new ParameterException(spec.commandLine(), "--unclean-share must be in [0, 1], got " + uncleanShare);
        }
        return SimulationSettings.DEFAULT.withDurationMs(durationSeconds * 1000).withFaults(kinds)
                .withProduceTimeoutMs(produceTimeoutMs).withUncleanShare(uncleanShare);
    }

    /** Totals over every seed. */
    private static final class Summary {
        long seeds;
        long violations;
        long acked;
        long lostAcks1;
        long simulatedMs;
        long excused;
        long uncleanSeeds;
        long uncleanElections;
        final Map<String, Long> byInvariant = new TreeMap<>();
        final Map<String, Long> faults = new TreeMap<>();

        void add(SimulationResult r) {
            seeds++;
            violations += r.violations().size();
            acked += r.acked();
            lostAcks1 += r.lostAcks1();
            simulatedMs += r.simulatedMs();
            excused += r.excused().size();
            if (r.profile().unclean()) {
                uncleanSeeds++;
            }
            if (r.hadUncleanElection()) {
                uncleanElections++;
            }
            r.violations().forEach(v -> byInvariant.merge(v.invariant(), 1L, Long::sum));
            r.faultCounts().forEach((k, v) -> faults.merge(k, v, Long::sum));
        }
    }
}
