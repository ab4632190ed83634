package dev.insync.replication.core.purgatory;

import dev.insync.replication.core.time.Time;

/** A clock that moves only when a test moves it. */
final class ManualTime implements Time {

    private volatile long nowMs;

    ManualTime(long startMs) {
        this.nowMs = startMs;
    }

    @Override
    public long milliseconds() {
        return nowMs;
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
