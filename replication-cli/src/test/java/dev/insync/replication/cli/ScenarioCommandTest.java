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
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ScenarioCommandTest {

    private record Run(int exitCode, String out, String err) {
        List<String> lines() {
            return out.lines().toList();
        }

        @SuppressWarnings("unchecked")
        List<Map<String, Object>> json() {
            return lines().stream().filter(l -> l.startsWith("{"))
                    .map(l -> (Map<String, Object>) Json.read(l)).toList();
        }
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new ScenarioCommand());
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    @DisplayName("SCN-2 scenario min-isr --json: the trace, then one JSON line, exit 0")
    void minIsrJson() {
        Run run = run("min-isr", "--json");
        assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
        assertThat(run.lines()).contains("acks=all -> NotEnoughReplicasException: Messages are rejected since there"
                + " are fewer in-sync replicas than required.", "--- min-isr: as in the seed");
        assertThat(run.lines().get(run.lines().size() - 1)).startsWith("{\"scenario\":\"min-isr\"");
        assertThat(run.json()).singleElement().satisfies(j -> {
            assertThat(j.get("passed")).isEqualTo(true);
            assertThat(j).containsKeys("results", "isrAfterShutdown", "elr", "leaderLog");
        });
    }

    @Test
    @DisplayName("SCN-1 SCN-2 SCN-3 scenario all with --lag-ms, --seed and --data-dir: three JSON lines, dirs per scenario")
    void allWithOptions(@TempDir Path dir) {
        Run run = run("all", "--lag-ms", "2000", "--seed", "5", "--data-dir", dir.toString(), "--json");
        assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
        assertThat(run.json()).extracting(j -> j.get("scenario")).containsExactly("isr-hw", "min-isr", "truncation");
        assertThat(run.json()).allSatisfy(j -> {
            assertThat(j.get("passed")).isEqualTo(true);
            assertThat(j.get("lagMs")).isEqualTo(2000L);
            assertThat(j.get("seed")).isEqualTo(5L);
        });
        assertThat(run.json().get(0)).containsKeys("acksAllWaitMs", "hwCheckpoints");
        assertThat(run.json().get(2)).containsKeys("epochCheckpoints", "truncatedTo", "brokerLogs", "consumed");
        assertThat(dir.resolve("isr-hw").resolve("broker-3").resolve("rep-0")).isDirectory();
        assertThat(dir.resolve("truncation").resolve("broker-1").resolve("div-0")).isDirectory();
        assertThat(run.lines()).contains("##### SCN-3 truncation (seed 5, replica.lag.time.max.ms 2000)");
    }

    @Test
    @DisplayName("SCN-1 with a 2 ms lag cannot hold the ISR: exit 1, failures listed in the trace and the JSON")
    void failedExpectationsExitOne() {
        Run run = run("isr-hw", "--lag-ms", "2", "--json");
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.lines()).anyMatch(l -> l.matches("--- isr-hw: \\d+ expectation\\(s\\) failed:"));
        assertThat(run.json()).singleElement().satisfies(j -> {
            assertThat(j.get("passed")).isEqualTo(false);
            assertThat((List<?>) j.get("failures")).anyMatch(f -> f.toString().startsWith("HW after the acks=1 records"));
        });
    }

    @Test
    @DisplayName("scenario usage errors exit 2: unknown name, lag below 2 ms, non-empty data dir")
    void usageErrors(@TempDir Path dir) throws IOException {
        Run unknown = run("nope");
        assertThat(unknown.exitCode()).isEqualTo(2);
        assertThat(unknown.err()).contains("Unknown scenario 'nope'");
        Run badLag = run("isr-hw", "--lag-ms", "1");
        assertThat(badLag.exitCode()).isEqualTo(2);
        assertThat(badLag.err()).contains("--lag-ms must be at least 2");
        Files.writeString(dir.resolve("something"), "x");
        Run used = run("min-isr", "--data-dir", dir.toString());
        assertThat(used.exitCode()).isEqualTo(2);
        assertThat(used.err()).contains("is not empty");
    }
}
