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

package dev.insync.replication.netty.client;

/**
 * NET-2: how long to wait before reconnecting, Kafka's way: {@code reconnect.backoff.ms} doubled per
 * consecutive failure, capped at {@code reconnect.backoff.max.ms}, then spread by a random factor in
 * [0.8, 1.2] so that many clients do not reconnect in step (the cap applies before the spread, as in
 * Kafka's {@code ExponentialBackoff}).
 */
public final class ReconnectBackoff {

    /** The random spread around the exponential term. */
    public static final double JITTER = 0.2;

    private final long baseMs;
    private final long maxMs;

    public ReconnectBackoff(long baseMs, long maxMs) {
        if (baseMs < 0 || maxMs < baseMs) {
            throw new IllegalArgumentException("Bad reconnect backoff " + baseMs + ".." + maxMs + " ms");
        }
        this.baseMs = baseMs;
        this.maxMs = maxMs;
    }

    /**
     * The wait after {@code failures} consecutive failures (0 for the first).
     *
     * @param random01 a uniform random number in [0, 1)
     */
    public long backoffMs(int failures, double random01) {
        double term = baseMs;
        for (int i = 0; i < failures && term < maxMs; i++) {
            term *= 2;
        }
        term = Math.min(term, maxMs);
        double factor = 1.0 - JITTER + 2 * JITTER * random01;
        return Math.round(term * factor);
    }

    /** The wait before jitter: the smaller of base * 2^failures and the cap. */
    public long termMs(int failures) {
        return backoffMs(failures, 0.5);
    }
}
