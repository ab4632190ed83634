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

package dev.insync.replication.testkit.network;

/**
 * Behaviour of one directed link: each message takes a delay drawn uniformly from
 * {@code [minDelayMs, maxDelayMs]} (from the simulation's seeded random source) and is silently
 * dropped with probability {@code dropProbability}. Messages on one link never overtake each
 * other, whatever their delays (TCP ordering).
 *
 * @param minDelayMs       smallest delay, at least 0
 * @param maxDelayMs       largest delay, at least {@code minDelayMs}
 * @param dropProbability  in [0, 1]
 */
public record LinkConfig(long minDelayMs, long maxDelayMs, double dropProbability) {

    /** The default: 1 ms, no loss. */
    public static final LinkConfig DEFAULT = new LinkConfig(1, 1, 0.0);

    /** Validates the ranges. */
    public LinkConfig {
        if (minDelayMs < 0 || maxDelayMs < minDelayMs) {
            throw new IllegalArgumentException("Invalid link delay range [" + minDelayMs + ", " + maxDelayMs + "] ms");
        }
        if (!(dropProbability >= 0.0 && dropProbability <= 1.0)) {
            throw new IllegalArgumentException("Drop probability " + dropProbability + " is not in [0, 1]");
        }
    }

    /** A fixed delay and no loss. */
    public static LinkConfig fixed(long delayMs) {
        return new LinkConfig(delayMs, delayMs, 0.0);
    }

    /** A uniform random delay and no loss. */
    public static LinkConfig uniform(long minDelayMs, long maxDelayMs) {
        return new LinkConfig(minDelayMs, maxDelayMs, 0.0);
    }

    /** The same delays with the given loss probability. */
    public LinkConfig withDropProbability(double probability) {
        return new LinkConfig(minDelayMs, maxDelayMs, probability);
    }
}
