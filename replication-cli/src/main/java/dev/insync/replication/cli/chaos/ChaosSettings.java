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

package dev.insync.replication.cli.chaos;

import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;

/**
 * What one {@code insync chaos} run does.
 *
 * @param seconds          how long the nemesis injects faults (the workload runs as long)
 * @param seed             the nemesis's seed
 * @param faults           the fault families it may choose from (none: a run without faults)
 * @param brokers          broker processes (at least {@link ChaosRun#REPLICATION_FACTOR})
 * @param controllers      controller processes, 1 or 3
 * @param partitions       partitions of the topic
 * @param historyDirectory where to write {@code chaos-<seed>.jsonl}, if anywhere
 * @param pidDirectory     where the process group keeps its PID files (default: the shared one)
 */
public record ChaosSettings(long seconds, long seed, Set<ChaosNemesis.Kind> faults, int brokers, int controllers,
                            int partitions, Optional<Path> historyDirectory, Optional<Path> pidDirectory) {

    /** Longest run: an hour of faults. */
    public static final long MAX_SECONDS = 3_600;

    /** Validates; immutable copy. */
    public ChaosSettings {
        if (seconds < 1 || seconds > MAX_SECONDS) {
            throw new IllegalArgumentException("--seconds must be 1.." + MAX_SECONDS + ", not " + seconds);
        }
        if (brokers < ChaosRun.REPLICATION_FACTOR) {
            throw new IllegalArgumentException("--brokers must be at least " + ChaosRun.REPLICATION_FACTOR
                    + " (the topic's replication factor), not " + brokers);
        }
        if (controllers != 1 && controllers != 3) {
            throw new IllegalArgumentException("--controllers must be 1 or 3, not " + controllers);
        }
        if (partitions < 1 || partitions > 64) {
            throw new IllegalArgumentException("--partitions must be 1..64, not " + partitions);
        }
        faults = Set.copyOf(faults);
    }

    /** The kinds from a {@code --faults} list ({@code kill,pause,partition,controller}, or {@code none}). */
    public static Set<ChaosNemesis.Kind> parseFaults(String list) {
        if (list.trim().equals("none")) {
            return Set.of();
        }
        Set<ChaosNemesis.Kind> kinds = ChaosNemesis.Kind.parse(list);
        if (kinds.isEmpty()) {
            throw new IllegalArgumentException("--faults names no fault kind: use kill, pause, partition, controller or none");
        }
        return kinds;
    }
}
