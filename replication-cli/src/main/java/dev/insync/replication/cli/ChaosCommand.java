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

import dev.insync.replication.testkit.internal.Directories;
import dev.insync.replication.cli.chaos.ChaosReport;
import dev.insync.replication.cli.chaos.ChaosRun;
import dev.insync.replication.cli.chaos.ChaosSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code insync chaos}: real processes under real faults (CHS-1). Starts a process cluster of
 * {@code insync broker} JVMs on 127.0.0.1 from this JVM's class path, writes with acks=all
 * producers and reads with a consumer while a seeded nemesis kills, pauses and partitions brokers
 * and kills or pauses controllers; heals, reads every partition to its end, and checks that no
 * acknowledged write was lost or duplicated and that the recorded history keeps the invariants
 * ({@code InvariantChecker}). Exit code 0 when clean, 1 on any violation or a cluster that did not
 * come back within the heal bound, 2 for a usage error.
 */
@Command(name = "chaos",
        mixinStandardHelpOptions = true,
        description = {
            "Runs brokers and controllers as separate processes under kill -9, SIGSTOP, partitions and controller loss,",
            "with acks=all producers and a consumer; prints acknowledged, lost (must be 0), duplicated and the longest",
            "unavailability; exit code 1 on any violation."})
public final class ChaosCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--seconds", paramLabel = "N", defaultValue = "60",
            description = "Seconds of faulty workload (default ${DEFAULT-VALUE}).")
    private long seconds;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "1", description = "The nemesis's seed (default ${DEFAULT-VALUE}).")
    private long seed;

    @Option(names = "--faults", paramLabel = "KINDS", defaultValue = "kill,pause,partition,controller",
            description = "Comma-separated fault kinds from kill,pause,partition,controller, or none (default every kind).")
    private String faults;

    @Option(names = "--brokers", paramLabel = "N", defaultValue = "3", description = "Broker processes (default ${DEFAULT-VALUE}).")
    private int brokers;

    @Option(names = "--controllers", paramLabel = "N", defaultValue = "1",
            description = "Controller processes, 1 or 3 (default ${DEFAULT-VALUE}).")
    private int controllers;

    @Option(names = "--partitions", paramLabel = "N", defaultValue = "3",
            description = "Partitions of the topic, RF 3, min ISR 2 (default ${DEFAULT-VALUE}).")
    private int partitions;

    @Option(names = "--history", paramLabel = "DIR", description = "Writes the run's history to DIR/chaos-<seed>.jsonl.")
    private Path historyDir;

    @Option(names = "--dir", paramLabel = "DIR",
            description = "Where the processes' data and logs go (default: a new temporary directory, deleted when clean).")
    private Path workDir;

    @Option(names = "--json", description = "Prints the report as one JSON object.")
    private boolean json;

    @Override
    public Integer call() throws Exception {
        // The clients' connection warnings (every kill resets connections) must not break --json's one object.
        CliLogging.toStderr("info");
        ChaosSettings settings;
        try {
            settings = new ChaosSettings(seconds, seed, ChaosSettings.parseFaults(faults), brokers, controllers,
                    partitions, Optional.ofNullable(historyDir), Optional.empty());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        boolean temporary = workDir == null;
        Path dir = temporary ? Files.createTempDirectory("insync-chaos-") : workDir;
        ChaosReport report;
        try {
            report = ChaosRun.run(settings, dir, err);
        } catch (IllegalStateException e) {
            err.println("insync chaos: " + e.getMessage() + " (process logs in " + dir.resolve("cluster/logs") + ")");
            err.flush();
            return InsyncCli.EXIT_FAILURE;
        }
        if (json) {
            out.println(report.json());
        } else {
            report.lines().forEach(out::println);
        }
        out.flush();
        if (!report.clean()) {
            err.println("insync chaos: process logs in " + dir.resolve("cluster/logs"));
            err.flush();
            return InsyncCli.EXIT_FAILURE;
        }
        if (temporary) {
            try {
                Directories.deleteRecursively(dir);
            } catch (UncheckedIOException e) {
                // a temporary directory left behind is harmless
            }
        }
        return 0;
    }

}
