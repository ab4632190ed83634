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

package dev.insync.replication.testkit.sim;

import dev.insync.replication.core.time.Time;

/**
 * Virtual time of a simulation: it only moves when the {@link EventLoop} advances it to the next
 * event (or a test asks it to). Wall-clock milliseconds start at a fixed, realistic instant (so
 * "0 means never" sentinels such as a replica's {@code lastCaughtUpTimeMs} stay far in the past);
 * the monotonic nanosecond clock starts at 0 and moves with it.
 */
public final class SimulatedTime implements Time {

    /** Default wall-clock start: 2023-11-14T22:13:20Z, fixed so that runs are reproducible. */
    public static final long DEFAULT_START_WALL_CLOCK_MS = 1_700_000_000_000L;

    private final long startWallClockMs;
    private long elapsedMs;

    /** Starts at {@link #DEFAULT_START_WALL_CLOCK_MS}. */
    public SimulatedTime() {
        this(DEFAULT_START_WALL_CLOCK_MS);
    }

    /** Starts at the given wall-clock instant. */
    public SimulatedTime(long startWallClockMs) {
        if (startWallClockMs < 0) {
            throw new IllegalArgumentException("Negative start wall clock " + startWallClockMs + " ms");
        }
        this.startWallClockMs = startWallClockMs;
    }

    @Override
    public long milliseconds() {
        return startWallClockMs + elapsedMs;
    }

    @Override
    public long nanoseconds() {
        return elapsedMs * 1_000_000L;
    }

    /** Milliseconds of virtual time since the start. */
    public long elapsedMs() {
        return elapsedMs;
    }

    /** The wall-clock instant of elapsed time 0. */
    public long startWallClockMs() {
        return startWallClockMs;
    }

    /**
     * Moves time forward to {@code newElapsedMs}; time never goes back.
     *
     * @throws IllegalArgumentException if {@code newElapsedMs} is before the current time
     */
    public void advanceTo(long newElapsedMs) {
        if (newElapsedMs < elapsedMs) {
            throw new IllegalArgumentException("Virtual time cannot go back from " + elapsedMs + " ms to " + newElapsedMs + " ms");
        }
        elapsedMs = newElapsedMs;
    }
}
