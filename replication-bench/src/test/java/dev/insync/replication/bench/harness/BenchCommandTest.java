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

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

/** The bench's own command line: usage errors are caught before anything is measured. */
class BenchCommandTest {

    private final StringWriter err = new StringWriter();
    private final StringWriter out = new StringWriter();

    private int run(String... args) {
        CommandLine cli = new CommandLine(new BenchCommand());
        cli.setErr(new PrintWriter(err));
        cli.setOut(new PrintWriter(out));
        return cli.execute(args);
    }

    @Test
    void unknownSectionIsAUsageErrorNamingTheKnownOnes() {
        assertThat(run("--sections", "throughput,nope")).isEqualTo(2);
        assertThat(err.toString()).contains("Unknown section 'nope'").contains("latency");
    }

    @Test
    void nonPositiveRepeatsIsAUsageError() {
        assertThat(run("--repeats", "0")).isEqualTo(2);
        assertThat(err.toString()).contains("--repeats");
    }

    @Test
    void anUnknownProcessTargetIsAUsageErrorBeforeAnythingStarts() {
        assertThat(run("--sections", "processes", "--targets", "nope")).isEqualTo(2);
        assertThat(err.toString()).contains("Unknown target 'nope'").contains("-Ppeers");
    }

    @Test
    void targetsWithoutTheProcessesSectionIsAUsageError() {
        assertThat(run("--sections", "latency", "--targets", "kafka")).isEqualTo(2);
        assertThat(err.toString()).contains("--targets applies to the processes and process-scale sections");
    }

    @Test
    void anUnknownProcessScenarioOrOneWithoutTheProcessesSectionIsAUsageError() {
        assertThat(run("--sections", "processes", "--process-scenarios", "failover,soak")).isEqualTo(2);
        assertThat(err.toString()).contains("Unknown process scenario 'soak'").contains("throughput, latency, failover");
        assertThat(run("--sections", "latency", "--process-scenarios", "failover")).isEqualTo(2);
        assertThat(err.toString()).contains("--process-scenarios applies to the processes section");
    }

    @Test
    void helpListsTheOptions() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString()).contains("Usage: bench").contains("--quick").contains("--sections")
                .contains("--targets").contains("--server-classpath").contains("--process-scenarios");
    }
}
