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

import dev.insync.replication.testkit.history.History;
import dev.insync.replication.testkit.history.HistoryEvent;
import dev.insync.replication.testkit.simulation.FaultKind;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SimulateCommandTest {

    private record Run(int exitCode, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new SimulateCommand());
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int code = cli.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    @DisplayName("INV-6 simulate prints one line per seed and a summary, and writes each history as <seed>.jsonl")
    void runsSeedsAndWritesHistories(@TempDir Path dir) throws IOException {
        Run run = run("--seeds", "4-5", "--duration-s", "10", "--history", dir.toString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        List<String> lines = run.out().lines().toList();
        assertThat(lines).hasSize(5);
        assertThat(lines.get(0)).matches("seed=4 events=\\d+ acked=\\d+ violations=0");
        assertThat(lines.get(1)).matches("seed=5 events=\\d+ acked=\\d+ violations=0");
        assertThat(lines.get(2)).matches("seeds=2 violations=0 acked=\\d+ lost-acks1=\\d+ simulated-seconds=\\d+ wall-seconds=.*");
        assertThat(lines.get(3)).matches("violations-by-invariant=\\{} excused=0 unclean-seeds=\\d seeds-with-unclean-election=\\d");
        assertThat(lines.get(4)).matches("faults=\\{.*}");
        History history = History.parse(Files.readString(dir.resolve("4.jsonl")));
        assertThat(history.events().get(0)).isInstanceOf(HistoryEvent.Settings.class);
        assertThat(history.events().get(1)).isInstanceOf(HistoryEvent.Config.class);
        int partitions = ((HistoryEvent.Config) history.events().get(1)).partitions();
        assertThat(history.events()).filteredOn(HistoryEvent.Final.class::isInstance).hasSize(3 * partitions);

        // The same seed again gives the same file, byte for byte.
        Path again = dir.resolve("again");
        assertThat(run("--seeds", "4", "--duration-s", "10", "--history", again.toString()).exitCode()).isZero();
        assertThat(Files.readString(again.resolve("4.jsonl"))).isEqualTo(Files.readString(dir.resolve("4.jsonl")));
    }

    @Test
    @DisplayName("simulate --json prints one JSON object per seed and one summary object")
    void jsonOutput() {
        Run run = run("--seeds", "2", "--duration-s", "5", "--faults", "none", "--json");

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out().lines().toList()).satisfiesExactly(
                l -> assertThat(l).startsWith("{\"seed\":2,").contains("\"violations\":[]"),
                l -> assertThat(l).startsWith("{\"seeds\":1,\"violations\":0,"));
    }

    @Test
    @DisplayName("simulate refuses a bad seed range or fault kind with a usage error")
    void usageErrors() {
        assertThat(run("--seeds", "9-3").exitCode()).isEqualTo(2);
        assertThat(run("--seeds", "x").exitCode()).isEqualTo(2);
        assertThat(run("--seeds", "1", "--faults", "meteor").exitCode()).isEqualTo(2);
    }

    @Test
    @DisplayName("simulate --seeds ending at Long.MAX_VALUE runs exactly those seeds and stops (no wrap-around)")
    void seedsNearLongMax() {
        Run run = run("--seeds", "9223372036854775806-9223372036854775807", "--duration-s", "1", "--faults", "none");

        assertThat(run.exitCode()).as(run.err()).isZero();
        List<String> lines = run.out().lines().toList();
        assertThat(lines).hasSize(5);
        assertThat(lines.get(0)).startsWith("seed=9223372036854775806 ");
        assertThat(lines.get(1)).startsWith("seed=9223372036854775807 ");
        assertThat(lines.get(2)).startsWith("seeds=2 ");
        Run beyond = run("--seeds", "9223372036854775807-9223372036854775808");
        assertThat(beyond.exitCode()).isEqualTo(2);
        assertThat(beyond.err()).contains("--seeds");
    }

    @Test
    @DisplayName("simulate refuses a duration, timeout, share or parallelism out of range with a usage error, before running anything")
    void outOfRangeNumbers() {
        for (String[] args : List.of(
                new String[] {"--seeds", "1", "--duration-s", "9223372036854775807"},
                new String[] {"--seeds", "1", "--duration-s", "0"},
                new String[] {"--seeds", "1", "--produce-timeout-ms", "9223372036854775807"},
                new String[] {"--seeds", "1", "--unclean-share", "1.5"},
                new String[] {"--seeds", "1", "--parallel", "0"})) {
            Run run = run(args);
            assertThat(run.exitCode()).as(String.join(" ", args) + ": " + run.err()).isEqualTo(2);
            assertThat(run.out()).isEmpty();
            assertThat(run.err()).doesNotContain("\tat ");
        }
    }

    @Test
    @DisplayName("simulate --faults ,,, (or any empty kind) is a usage error, not silently no faults; the new kinds parse")
    void emptyFaultKinds(@TempDir Path dir) {
        for (String faults : List.of(",,,", "pause,,kill", "", " ")) {
            Run run = run("--seeds", "1", "--faults", faults);
            assertThat(run.exitCode()).as("'" + faults + "'").isEqualTo(2);
            assertThat(run.err()).contains("--faults");
        }
        Run run = run("--seeds", "1", "--duration-s", "3", "--faults", "loss,clock,bitflip,kill", "--history", dir.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
    }

    @Test
    @DisplayName("simulate's default --faults is every fault kind the simulator has, disk included")
    void defaultFaultsAreEveryKind() {
        assertThat(FaultKind.parse(SimulateCommand.ALL_FAULTS)).isEqualTo(FaultKind.all()).contains(FaultKind.DISK);
    }

    @Test
    @DisplayName("simulate --history that cannot be written is a usage error without a stack trace")
    void unwritableHistory(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("plain-file"), "x");
        Run run = run("--seeds", "1", "--duration-s", "1", "--history", file.resolve("sub").toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--history").contains("cannot write").doesNotContain("\tat ");
        assertThat(run.out()).isEmpty();
    }

    @Test
    @DisplayName("simulate's summary names the fault mix actually injected and, with --json, counts it per kind")
    void faultMixInSummary() {
        Run run = run("--seeds", "1-2", "--duration-s", "15", "--json");

        assertThat(run.exitCode()).as(run.err()).isZero();
        String summary = run.out().lines().reduce((a, b) -> b).orElseThrow();
        assertThat(summary).contains("\"faults\":{").contains("\"violationsByInvariant\":{}").contains("\"excused\":0");
        assertThat(run.out().lines().findFirst().orElseThrow()).contains("\"settings\":{\"partitions\":");
    }
}
