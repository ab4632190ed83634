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

import dev.insync.replication.cli.scenario.ProcessScenario;
import dev.insync.replication.testkit.scenario.Scenario;
import dev.insync.replication.testkit.scenario.ScenarioResult;
import dev.insync.replication.testkit.scenario.ScenarioSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code insync scenario isr-hw|min-isr|truncation|all}: runs the seed's experiments (contract §10 SCN-1,
 * SCN-2, SCN-3) on the simulated in-process cluster and prints what the seed prints; with
 * {@code --processes}, on real processes instead ({@link ProcessScenario}: one controller and three
 * {@code insync broker} JVMs per scenario, SIGSTOP, SIGTERM, {@code kill -9}, the wall clock).
 *
 * <p>Output: each scenario's trace (describe lines, HWs, the brokers' log lines rebuilt from their state,
 * checkpoint files, what a consumer reads) and a verdict line. With {@code --json}, after all traces, one
 * line of JSON per scenario (its numbers, {@code passed} and {@code failures}). Exit code 0 when every
 * scenario reproduced the seed, 1 when an expectation failed, 2 for a usage error.
 *
 * <p>The brokers' own slf4j lines are silenced (level {@code error}) unless {@code --verbose} is given,
 * since the trace already shows the lines the seed quotes; an explicit
 * {@code -Dorg.slf4j.simpleLogger.defaultLogLevel} wins.
 */
@Command(name = "scenario",
        mixinStandardHelpOptions = true,
        description = {
            "Runs the seed's experiments on a simulated 3-broker cluster, in virtual time, or with --processes on",
            "a controller and 3 broker processes (SIGSTOP, SIGTERM, kill -9) on the wall clock.",
            "  isr-hw      SCN-1: a paused follower, ISR shrink/expand, HW and acks=all",
            "  min-isr     SCN-2: min.insync.replicas=3 with a broker shut down",
            "  truncation  SCN-3: lost acks=1 records, truncation by leader epoch",
            "  all         the three in that order",
            "Prints each trace; with --json, then one JSON object per scenario, one per line.",
            "Exit code 0 if every scenario reproduced the seed, 1 if an expectation failed (listed in the"
                    + " trace and in the JSON 'failures')."})
public final class ScenarioCommand implements Callable<Integer> {

    /** The scenario name meaning all three. */
    public static final String ALL = "all";
    /** Exit code when a scenario's expectations failed (the CLI's code for a reported failure). */
    public static final int EXIT_FAILURE = InsyncCli.EXIT_FAILURE;
    private static final String LOG_LEVEL_PROPERTY = "org.slf4j.simpleLogger.defaultLogLevel";

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "<scenario>", description = "isr-hw, min-isr, truncation or all.")
    private String which;

    @Option(names = "--lag-ms", paramLabel = "N",
            description = "replica.lag.time.max.ms (default: 5000 for isr-hw, 30000 for min-isr, 10000 for truncation).")
    private Long lagMs;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "" + ScenarioSettings.DEFAULT_SEED,
            description = "Seed of the simulation (link delays; not used with --processes). Default: ${DEFAULT-VALUE}.")
    private long seed;

    @Option(names = "--data-dir", paramLabel = "DIR",
            description = "Keep the brokers' log directories as DIR/broker-<id> (DIR/<scenario>/broker-<id> with all);"
                    + " DIR must be new or empty. Default: a temporary directory, deleted.")
    private Path dataDir;

    @Option(names = "--processes",
            description = "Run on real processes: a controller and brokers 1, 2, 3 as separate JVMs on 127.0.0.1 (this JVM's"
                    + " class path), one cluster per scenario; --data-dir keeps their files and logs.")
    private boolean processes;

    @Option(names = "--json", description = "After the traces, print one JSON object per scenario, one per line.")
    private boolean json;

    @Option(names = "--verbose", description = "Also print the brokers' own INFO log lines (simulation only: with"
            + " --processes the trace quotes the lines it checks, the rest stay in the processes' log files).")
    private boolean verbose;

    @Override
    public Integer call() {
        if (lagMs != null && lagMs < 2) {
            throw new ParameterException(spec.commandLine(), "--lag-ms must be at least 2, got " + lagMs);
        }
        if (System.getProperty(LOG_LEVEL_PROPERTY) == null) {
            // Read by slf4j-simple when the first logger is created, which is after this point.
            System.setProperty(LOG_LEVEL_PROPERTY, verbose ? "info" : "error");
        }
        if (processes) {
            return callOnProcesses();
        }
        List<Scenario> scenarios = selected();
        PrintWriter out = spec.commandLine().getOut();
        List<ScenarioSettings> settings = settingsFor(scenarios.stream().map(Scenario::name).toList());
        List<ScenarioResult> results = new ArrayList<>();
        for (int i = 0; i < scenarios.size(); i++) {
            Scenario scenario = scenarios.get(i);
            out.println("##### " + scenario.ruleId() + " " + scenario.name() + " (seed " + seed
                    + ", replica.lag.time.max.ms " + settings.get(i).lagMsOr(scenario.defaultLagMs()) + ")");
            results.add(scenario.run(settings.get(i), line -> {
                out.println(line);
                out.flush();
            }));
        }
        return finish(out, results);
    }

    /** {@code --processes}: each selected scenario on a process cluster of its own, in order. */
    private int callOnProcesses() {
        List<ProcessScenario> scenarios = selectedOnProcesses();
        PrintWriter out = spec.commandLine().getOut();
        List<ScenarioSettings> settings = settingsFor(scenarios.stream().map(ProcessScenario::name).toList());
        List<ScenarioResult> results = new ArrayList<>();
        for (int i = 0; i < scenarios.size(); i++) {
            ProcessScenario scenario = scenarios.get(i);
            out.println("##### " + scenario.ruleId() + " " + scenario.name() + " on processes (replica.lag.time.max.ms "
                    + settings.get(i).lagMsOr(scenario.defaultLagMs()) + ")");
            out.flush();
            results.add(scenario.run(settings.get(i), line -> {
                out.println(line);
                out.flush();
            }));
        }
        return finish(out, results);
    }

    /** Each scenario's settings, in order; with several scenarios each keeps its data under DIR/<name>. */
    private List<ScenarioSettings> settingsFor(List<String> names) {
        List<ScenarioSettings> settings = new ArrayList<>();
        for (String name : names) {
            Optional<Path> dir = Optional.ofNullable(dataDir).map(d -> names.size() > 1 ? d.resolve(name) : d);
            dir.ifPresent(this::requireEmpty);
            settings.add(new ScenarioSettings(lagMs == null ? OptionalLong.empty() : OptionalLong.of(lagMs), seed, dir));
        }
        return settings;
    }

    /** The JSON lines (with {@code --json}) and the exit code. */
    private int finish(PrintWriter out, List<ScenarioResult> results) {
        if (json) {
            results.forEach(r -> out.println(r.toJson()));
        }
        out.flush();
        return results.stream().allMatch(ScenarioResult::passed) ? 0 : EXIT_FAILURE;
    }

    private List<ProcessScenario> selectedOnProcesses() {
        if (ALL.equals(which)) {
            return ProcessScenario.all();
        }
        return ProcessScenario.named(which).map(List::of).orElseThrow(() -> new ParameterException(spec.commandLine(),
                "Unknown scenario '" + which + "': give isr-hw, min-isr, truncation or all"));
    }

    /** A scenario starts from nothing: its data directory must be new or empty. */
    private void requireEmpty(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> entries = Files.list(dir)) {
            if (entries.findAny().isPresent()) {
                throw new ParameterException(spec.commandLine(), "--data-dir " + dir + " is not empty; give a new or empty directory");
            }
        } catch (IOException e) {
            throw new ParameterException(spec.commandLine(), "--data-dir " + dir + " cannot be listed: " + e.getMessage());
        }
    }

    private List<Scenario> selected() {
        if (ALL.equals(which)) {
            return Scenario.all();
        }
        return Scenario.named(which).map(List::of).orElseThrow(() -> new ParameterException(spec.commandLine(),
                "Unknown scenario '" + which + "': give isr-hw, min-isr, truncation or all"));
    }
}
