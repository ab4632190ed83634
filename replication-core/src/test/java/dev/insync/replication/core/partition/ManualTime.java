package dev.insync.replication.core.partition;

import dev.insync.replication.core.time.Time;

import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when told to. */
final class ManualTime implements Time {

    private final AtomicLong nowMs;

    ManualTime(long startMs) {
        this.nowMs = new AtomicLong(startMs);
    }

    @Override
    public long milliseconds() {
        return nowMs.get();
    }

    @Override
    public long nanoseconds() {
        return nowMs.get() * 1_000_000L;
    }

    long advance(long ms) {
        return nowMs.addAndGet(ms);
    }
}
