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
import org.junit.jupiter.api.Timeout;
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

/**
 * {@code insync scenario all --processes --json}: the seed's three experiments on a controller and three
 * {@code insync broker} JVMs each, judged by their JSON verdicts, with SCN-1's shrink measured on the wall
 * clock. About 80 s on two loaded cores (three cluster starts, SCN-1's 12 s idle pause and its 5-7.5 s shrink).
 */
@Timeout(420)
class ScenarioProcessesTest {

    @TempDir
    Path dir;

    private record Run(int exitCode, String out, String err) {
        List<String> lines() {
            return out.lines().toList();
        }

        @SuppressWarnings("unchecked")
        List<Map<String, Object>> json() {
            return lines().stream().filter(l -> l.startsWith("{")).map(l -> (Map<String, Object>) Json.read(l)).toList();
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
    @DisplayName("SCN-1, SCN-2, SCN-3 on processes: scenario all --processes --json passes all three; SCN-1's shrink"
            + " lands 4.5-8.5 s after the SIGSTOP (lag 5000 ms), acks=all waits for it; SCN-2 refuses acks=all with"
            + " NOT_ENOUGH_REPLICAS; SCN-3 loses lost-* and truncates broker 1 to 10")
    void allThreeOnProcesses() {
        Run run = run("all", "--processes", "--json", "--data-dir", dir.resolve("kept").toString());
        assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
        List<Map<String, Object>> json = run.json();
        // The wall-clock figures of this run, for the build log (docs/scenarios.md quotes such runs).
        json.forEach(j -> System.out.println("scenario " + j.get("scenario") + " on processes: durationMs=" + j.get("durationMs")
                + (j.containsKey("shrinkMsAfterPause") ? ", shrinkMsAfterPause=" + j.get("shrinkMsAfterPause")
                        + ", msFromPauseToAcksAllDone=" + j.get("msFromPauseToAcksAllDone")
                        + ", isrBackMsAfterResume=" + j.get("isrBackMsAfterResume") : "")));
        assertThat(json).extracting(j -> j.get("scenario")).containsExactly("isr-hw", "min-isr", "truncation");
        assertThat(json).allSatisfy(j -> {
            assertThat(j.get("passed")).as("%s", j.get("failures")).isEqualTo(true);
            assertThat(j.get("processes")).isEqualTo(true);
        });
        assertThat(run.lines()).contains("##### SCN-1 isr-hw on processes (replica.lag.time.max.ms 5000)",
                "--- isr-hw on processes: as in the seed", "--- min-isr on processes: as in the seed",
                "--- truncation on processes: as in the seed");

        Map<String, Object> isrHw = json.get(0);
        assertThat(isrHw.get("lagMs")).isEqualTo(5000L);
        assertThat(isrHw.get("acks1Offsets")).isEqualTo(List.of(12L, 13L, 14L, 15L, 16L));
        assertThat(isrHw.get("hwAfterAcks1")).isEqualTo(12L);
        assertThat(isrHw.get("acksAllOffset")).isEqualTo(17L);
        assertThat(isrHw.get("hwAfterAcksAll")).isEqualTo(18L);
        assertThat(isrHw.get("isrAfterShrink")).isEqualTo(List.of(1L, 2L));
        assertThat(isrHw.get("partitionEpochs")).isEqualTo(List.of(0L, 1L, 2L));
        // SCN-1 on the wall clock: Kafka 4.4 shrank 5.2-7.3 s after the pause; the window allows broker 3's last
        // fetch parked up to replica.fetch.wait.max.ms (500) before the SIGSTOP and a second of scheduling delay.
        long earliestShrinkMs = (Long) ((List<?>) isrHw.get("shrinkWindowMs")).get(0);
        assertThat(earliestShrinkMs).isEqualTo(4_500L);
        assertThat((Long) isrHw.get("shrinkMsAfterPause")).isBetween(earliestShrinkMs, 8_500L);
        // The acks=all answer cannot come before the shrink could (lag minus the parked fetch). It is not compared with
        // shrinkMsAfterPause: that is when the harness's log tail saw the line, which can be after the client's answer.
        assertThat((Long) isrHw.get("msFromPauseToAcksAllDone")).isGreaterThanOrEqualTo(earliestShrinkMs)
                .isLessThanOrEqualTo(10_000L);
        assertThat((Long) isrHw.get("isrBackMsAfterResume")).isBetween(0L, 5_000L);
        assertThat(isrHw.get("hwCheckpoints")).isEqualTo(Map.of("1", "rep 0 18", "2", "rep 0 18", "3", "rep 0 18"));

        Map<String, Object> minIsr = json.get(1);
        assertThat(minIsr.get("elr")).isEqualTo(List.of(3L));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> results = (List<Map<String, Object>>) minIsr.get("results");
        assertThat(results).extracting(r -> r.get("error"))
                .containsExactly("NONE", "NONE", "NOT_ENOUGH_REPLICAS", "NONE", "NONE", "NONE");
        assertThat(results).extracting(r -> r.get("offset")).containsExactly(0L, 1L, -1L, 2L, 3L, 4L);

        Map<String, Object> truncation = json.get(2);
        assertThat(truncation.get("lostOffsets")).isEqualTo(List.of(10L, 11L, 12L, 13L, 14L));
        assertThat(truncation.get("newLeader")).isEqualTo(2L);
        assertThat(truncation.get("newLeaderEpoch")).isEqualTo(1L);
        assertThat(truncation.get("truncatedTo")).isEqualTo(10L);
        assertThat(truncation.get("consumed")).isEqualTo(List.of("ok-1", "ok-2", "ok-3", "ok-4", "ok-5", "ok-6", "ok-7",
                "ok-8", "ok-9", "ok-10", "new-1", "new-2", "new-3"));

        // --data-dir kept each scenario's processes' files: broker 1's truncated log of div-0 and its epoch cache.
        assertThat(dir.resolve("kept/truncation/cluster/node-1/data/div-0/leader-epoch-checkpoint"))
                .hasContent("0\n2\n0 0\n1 10\n");
        assertThat(dir.resolve("kept/isr-hw/cluster/logs/broker-1.log")).content().contains("Shrinking ISR from 1,2,3 to 1,2");
    }

    @Test
    @DisplayName("scenario --processes usage errors exit 2 before any process starts: unknown name, lag below 2 ms,"
            + " non-empty data dir")
    void usageErrorsOnProcesses() throws IOException {
        Run unknown = run("nope", "--processes");
        assertThat(unknown.exitCode()).isEqualTo(2);
        assertThat(unknown.err()).contains("Unknown scenario 'nope'");
        Run badLag = run("isr-hw", "--processes", "--lag-ms", "1");
        assertThat(badLag.exitCode()).isEqualTo(2);
        assertThat(badLag.err()).contains("--lag-ms must be at least 2");
        Files.writeString(dir.resolve("something"), "x");
        Run used = run("min-isr", "--processes", "--data-dir", dir.toString());
        assertThat(used.exitCode()).isEqualTo(2);
        assertThat(used.err()).contains("is not empty");
        assertThat(dir.resolve("cluster")).doesNotExist();
    }
}
