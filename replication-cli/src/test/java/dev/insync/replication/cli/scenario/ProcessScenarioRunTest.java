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

package dev.insync.replication.cli.scenario;

import dev.insync.replication.testkit.scenario.ScenarioResult;
import dev.insync.replication.testkit.scenario.ScenarioSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

class ProcessScenarioRunTest {

    @Test
    void aClusterThatDoesNotStartGivesAFailedVerdictNotACrash(@TempDir Path dir) {
        List<String> printed = new ArrayList<>();
        AtomicBoolean stepsRan = new AtomicBoolean();

        // A main class that does not exist: every node's JVM exits at once, so the cluster never gets ready.
        ScenarioResult result = ProcessScenarioRun.execute("isr-shrink", ScenarioSettings.defaults().withDataDir(dir),
                10_000L, b -> b.mainClass("dev.insync.NoSuchMain").readyTimeout(Duration.ofSeconds(20)),
                printed::add, run -> stepsRan.set(true));

        assertThat(stepsRan).isFalse();
        assertThat(result.passed()).isFalse();
        assertThat(result.failures()).singleElement().asString()
                .startsWith("aborted: the process cluster did not start").contains(dir.toString());
        assertThat(result.data()).containsEntry("lagMs", 10_000L).containsEntry("processes", true);
        // The trace ends with the same verdict lines as a run that started: printed as recorded.
        assertThat(result.lines()).isEqualTo(printed);
        assertThat(printed.get(printed.size() - 2)).isEqualTo("--- isr-shrink on processes: 1 expectation(s) failed:");
    }
}
