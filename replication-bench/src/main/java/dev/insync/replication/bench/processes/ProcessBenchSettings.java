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

package dev.insync.replication.bench.processes;

import dev.insync.replication.bench.harness.LogRetentionBound;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What the process bench runs beyond the bench's common options.
 *
 * @param targets          targets to measure, in this order each repeat; empty for every one on the class path
 * @param serverClassPaths per target, a file holding its server processes' class path (for {@code kafka}: the
 *                         output of the dependency plugin's {@code build-classpath}); a target may have a default
 * @param startTimeout     bound for a cluster to start and serve clients
 * @param failoverTimeout  bound for the first acknowledged write after a leader is killed
 * @param retention        the size retention of the brokers, empty for each target's own defaults
 * @param scenarios        which of {@link #SCENARIOS} each repeat measures after the unmeasured warm-up
 */
public record ProcessBenchSettings(List<String> targets, Map<String, Path> serverClassPaths, Duration startTimeout,
                                   Duration failoverTimeout, Optional<LogRetentionBound> retention, Set<String> scenarios) {

    /**
     * The scenarios of a repeat, in the order they run: the throughput windows, the one-in-flight latency, the kill -9
     * failover. Failover alone, with many repeats, is how two figures that both wait out a 9 s session timeout (whose
     * phase against the victim's last heartbeat is random) are told apart.
     */
    public static final List<String> SCENARIOS = List.of("throughput", "latency", "failover");

    public ProcessBenchSettings {
        targets = List.copyOf(targets);
        serverClassPaths = Map.copyOf(serverClassPaths);
        Objects.requireNonNull(retention, "retention");
        scenarios = Set.copyOf(scenarios);
        if (scenarios.isEmpty() || !SCENARIOS.containsAll(scenarios)) {
            throw new IllegalArgumentException("scenarios " + scenarios + " must be some of " + SCENARIOS);
        }
    }

    /** Every scenario, brokers with each target's own retention defaults. */
    public ProcessBenchSettings(List<String> targets, Map<String, Path> serverClassPaths, Duration startTimeout,
                                Duration failoverTimeout) {
        this(targets, serverClassPaths, startTimeout, failoverTimeout, Optional.empty(), Set.copyOf(SCENARIOS));
    }

    /** The same settings with brokers bounded by {@code bound}. */
    public ProcessBenchSettings withRetentionBound(LogRetentionBound bound) {
        return new ProcessBenchSettings(targets, serverClassPaths, startTimeout, failoverTimeout, Optional.of(bound),
                scenarios);
    }

    /** The same settings measuring only {@code chosen} (some of {@link #SCENARIOS}). */
    public ProcessBenchSettings withScenarios(Set<String> chosen) {
        return new ProcessBenchSettings(targets, serverClassPaths, startTimeout, failoverTimeout, retention, chosen);
    }

    /** Whether each repeat measures {@code scenario}. */
    public boolean measures(String scenario) {
        return scenarios.contains(scenario);
    }

    /** Every target found, default class paths, 3 minutes to start, 60 s to fail over. */
    public static ProcessBenchSettings defaults() {
        return new ProcessBenchSettings(List.of(), Map.of(), Duration.ofMinutes(3), Duration.ofSeconds(60));
    }

    /** The class path file given for {@code target}, if any. */
    public Optional<Path> serverClassPath(String target) {
        return Optional.ofNullable(serverClassPaths.get(target));
    }
}
