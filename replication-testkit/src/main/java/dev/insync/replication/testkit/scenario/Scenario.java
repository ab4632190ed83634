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

package dev.insync.replication.testkit.scenario;

import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * One of the seed's experiments (contract §10), runnable on the simulated cluster.
 */
public sealed interface Scenario permits IsrHwScenario, MinIsrScenario, TruncationScenario {

    /** The name the CLI knows it by: {@code isr-hw}, {@code min-isr} or {@code truncation}. */
    String name();

    /** The contract rule it reproduces: {@code SCN-1}, {@code SCN-2} or {@code SCN-3}. */
    String ruleId();

    /** {@code replica.lag.time.max.ms} used when the settings give none. */
    long defaultLagMs();

    /**
     * Runs the experiment.
     *
     * @param settings  lag, seed and data directory
     * @param printer   receives each trace line as it is produced (e.g. {@code System.out::println})
     * @return the trace, the numbers and the failed expectations
     */
    ScenarioResult run(ScenarioSettings settings, Consumer<String> printer);

    /** Runs the experiment without printing as it goes. */
    default ScenarioResult run(ScenarioSettings settings) {
        return run(settings, line -> { });
    }

    /** SCN-1, SCN-2, SCN-3 in that order. */
    static List<Scenario> all() {
        return List.of(new IsrHwScenario(), new MinIsrScenario(), new TruncationScenario());
    }

    /** The scenario with this name. */
    static Optional<Scenario> named(String name) {
        return all().stream().filter(s -> s.name().equals(name)).findFirst();
    }
}
