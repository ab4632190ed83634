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
