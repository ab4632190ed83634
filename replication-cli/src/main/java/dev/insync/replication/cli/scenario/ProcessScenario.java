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

import dev.insync.replication.testkit.scenario.Scenario;
import dev.insync.replication.testkit.scenario.ScenarioResult;
import dev.insync.replication.testkit.scenario.ScenarioSettings;

import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * One of the seed's experiments (contract §10) on real processes: the counterpart of the simulated
 * {@code dev.insync.replication.testkit.scenario.Scenario} of the same name, with the same steps and
 * expectations where processes allow, wall-clock ranges where the simulation checks exact virtual times,
 * and the same {@link ScenarioResult} shape (plus {@code processes: true} and the measured times).
 */
public sealed interface ProcessScenario permits ProcessIsrHwScenario, ProcessMinIsrScenario, ProcessTruncationScenario {

    /** The simulated experiment this one runs on processes: its name, rule and default lag are this one's. */
    Scenario simulated();

    /** The name the CLI knows it by: {@code isr-hw}, {@code min-isr} or {@code truncation}. */
    default String name() {
        return simulated().name();
    }

    /** The contract rule it reproduces: {@code SCN-1}, {@code SCN-2} or {@code SCN-3}. */
    default String ruleId() {
        return simulated().ruleId();
    }

    /** {@code replica.lag.time.max.ms} used when the settings give none. */
    default long defaultLagMs() {
        return simulated().defaultLagMs();
    }

    /**
     * Runs the experiment on a new process cluster, reaped before this returns.
     *
     * @param settings the lag and the directory to keep the processes' files in (the seed is not used:
     *                 real processes have no seeded source)
     * @param printer  receives each trace line as it is produced
     */
    ScenarioResult run(ScenarioSettings settings, Consumer<String> printer);

    /** SCN-1, SCN-2, SCN-3 in that order. */
    static List<ProcessScenario> all() {
        return List.of(new ProcessIsrHwScenario(), new ProcessMinIsrScenario(), new ProcessTruncationScenario());
    }

    /** The scenario with this name. */
    static Optional<ProcessScenario> named(String name) {
        return all().stream().filter(s -> s.name().equals(name)).findFirst();
    }
}
