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

package dev.insync.replication.core.metrics;

import dev.insync.replication.core.time.Time;

import java.util.concurrent.TimeUnit;

/**
 * A count of events with exponentially weighted moving averages of its rate over 1, 5 and 15
 * minutes, like the meters Kafka exposes. The averages advance in 5-second ticks, caught up lazily
 * from the injected clock on every mark or read, so no timer thread is needed. Thread-safe.
 */
final class RateMeter {

    private static final long TICK_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final double TICK_SECONDS = 5.0;

    private final Time time;
    private final long startNanos;
    private long lastTickNanos;
    private long count;
    private long uncounted;
    private final double[] rates = new double[3];
    private final double[] alphas = {alpha(1), alpha(5), alpha(15)};
    private boolean initialized;

    RateMeter(Time time) {
        this.time = time;
        this.startNanos = time.nanoseconds();
        this.lastTickNanos = startNanos;
    }

    private static double alpha(int minutes) {
        return 1 - Math.exp(-TICK_SECONDS / (60.0 * minutes));
    }

    synchronized void mark() {
        tickIfNeeded();
        count++;
        uncounted++;
    }

    synchronized long count() {
        return count;
    }

    /** Events per second since creation. */
    synchronized double meanRate() {
        long elapsed = time.nanoseconds() - startNanos;
        return elapsed <= 0 ? 0.0 : count * 1e9 / elapsed;
    }

    /** Events per second, EWMA over {@code 1}, {@code 5} or {@code 15} minutes. */
    synchronized double rate(int minutes) {
        tickIfNeeded();
        int i = switch (minutes) {
            case 1 -> 0;
            case 5 -> 1;
            case 15 -> 2;
            default -> throw new IllegalArgumentException("No " + minutes + "-minute rate; use 1, 5 or 15");
        };
        return rates[i];
    }

    private void tickIfNeeded() {
        long now = time.nanoseconds();
        long ticks = (now - lastTickNanos) / TICK_NANOS;
        // Bound the catch-up work: after an hour idle every average has decayed to about zero anyway.
        long bounded = Math.min(ticks, 720);
        for (long t = 0; t < bounded; t++) {
            double instant = uncounted / TICK_SECONDS;
            uncounted = 0;
            for (int i = 0; i < rates.length; i++) {
                rates[i] = initialized ? rates[i] + alphas[i] * (instant - rates[i]) : instant;
            }
            initialized = true;
        }
        if (ticks > bounded) {
            java.util.Arrays.fill(rates, 0.0);
        }
        lastTickNanos += ticks * TICK_NANOS;
    }
}
