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

package dev.insync.replication.core.purgatory;

import dev.insync.replication.core.time.Time;

/** A clock that moves only when a test moves it. */
final class ManualTime implements Time {

    private volatile long nowMs;
    /** How far the wall clock was stepped from the monotonic one ({@link #jumpWallClock}). */
    private volatile long wallOffsetMs;

    ManualTime(long startMs) {
        this.nowMs = startMs;
    }

    @Override
    public long milliseconds() {
        return nowMs + wallOffsetMs;
    }

    /** The monotonic time in ms, which only {@link #set} moves. */
    long monotonicMs() {
        return nowMs;
    }

    /** Steps the wall clock (milliseconds()) by {@code deltaMs}, as NTP does; nanoseconds() is unaffected. */
    void jumpWallClock(long deltaMs) {
        wallOffsetMs += deltaMs;
    }

    @Override
    public long nanoseconds() {
        return nowMs * 1_000_000L;
    }

    void set(long timeMs) {
        if (timeMs < nowMs) {
            throw new IllegalArgumentException("manual time cannot go back from " + nowMs + " to " + timeMs);
        }
        nowMs = timeMs;
    }
}
