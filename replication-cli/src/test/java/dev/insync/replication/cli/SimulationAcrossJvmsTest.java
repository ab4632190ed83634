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

import dev.insync.replication.testkit.process.JvmProcess;
import dev.insync.replication.testkit.process.JvmSpec;
import dev.insync.replication.testkit.process.ProcessGroup;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * INV-6 across JVMs: a seed replayed in another JVM gives the same event-loop trace. The in-JVM
 * determinism test cannot see an iteration order that differs between JVMs (Set.copyOf and
 * Map.copyOf randomize theirs per JVM); seeds 15 and 40 (of 12 in 1-300) diverged between runs that way (a power
 * loss drew its torn writes in the order of LogDirectory#logs).
 */
@Timeout(240)
class SimulationAcrossJvmsTest {

    private static final Pattern TRACE = Pattern.compile("\"seed\":(\\d+),.*\"traceHash\":\"([0-9a-f]+)\"");

    @TempDir
    Path dir;

    @Test
    @DisplayName("INV-6 the same seeds give the same trace in two JVMs")
    void sameTraceInAnotherJvm() throws Exception {
        List<String> first = traces("first");
        List<String> second = traces("second");
        assertThat(first).hasSize(3);
        assertThat(second).isEqualTo(first);
    }

    private List<String> traces(String name) throws Exception {
        try (ProcessGroup group = ProcessGroup.open(dir.resolve("logs"))) {
            JvmProcess p = group.start(JvmSpec.of(name, System.getProperty("java.class.path"), InsyncCli.class.getName())
                    .withJvmOptions("-Xmx512m")
                    .withArguments("simulate", "--seeds", "38-40", "--json"));
            OptionalInt exit = p.awaitExit(Duration.ofSeconds(100));
            assertThat(exit).as("simulate in JVM " + name + " ended").isPresent();
            List<String> out = new ArrayList<>();
            for (String line : Files.readAllLines(p.logFile())) {
                Matcher m = TRACE.matcher(line);
                if (m.find()) {
                    out.add(m.group(1) + ":" + m.group(2));
                }
            }
            return out;
        }
    }
}
