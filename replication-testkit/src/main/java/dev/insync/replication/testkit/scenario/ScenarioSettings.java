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

import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * How to run a {@link Scenario}.
 *
 * @param lagMs    {@code replica.lag.time.max.ms} override; empty for the scenario's default (SCN-1 5000,
 *                 SCN-2 Kafka's 30000, SCN-3 10000)
 * @param seed     seed of the simulation's random source (link delays)
 * @param dataDir  where to keep the brokers' log directories (as {@code DIR/broker-<id>}); empty for a
 *                 temporary directory deleted afterwards
 */
public record ScenarioSettings(OptionalLong lagMs, long seed, Optional<Path> dataDir) {

    /** The seed used when none is given. */
    public static final long DEFAULT_SEED = 42L;

    /** Checks the lag. */
    public ScenarioSettings {
        if (lagMs.isPresent() && lagMs.getAsLong() < 2) {
            throw new IllegalArgumentException("replica.lag.time.max.ms must be at least 2 ms, got " + lagMs.getAsLong());
        }
    }

    /** Every default: the scenario's own lag, seed 42, a temporary directory. */
    public static ScenarioSettings defaults() {
        return new ScenarioSettings(OptionalLong.empty(), DEFAULT_SEED, Optional.empty());
    }

    /** The same settings with this lag. */
    public ScenarioSettings withLagMs(long lag) {
        return new ScenarioSettings(OptionalLong.of(lag), seed, dataDir);
    }

    /** The same settings with this seed. */
    public ScenarioSettings withSeed(long newSeed) {
        return new ScenarioSettings(lagMs, newSeed, dataDir);
    }

    /** The same settings keeping the log directories under {@code dir}. */
    public ScenarioSettings withDataDir(Path dir) {
        return new ScenarioSettings(lagMs, seed, Optional.of(dir));
    }

    /** The lag to use, or {@code defaultLagMs} when none was given. */
    public long lagMsOr(long defaultLagMs) {
        return lagMs.orElse(defaultLagMs);
    }
}
