package dev.insync.replication.core.purgatory;

import dev.insync.replication.core.time.Time;
import java.util.concurrent.atomic.AtomicInteger;

/** A delayed operation whose condition a test flips, recording how and when it ended. */
final class TestOperation extends DelayedOperation {

    final int id;
    private final Time time;
    private volatile boolean satisfied;
    final AtomicInteger completions = new AtomicInteger();
    final AtomicInteger expirations = new AtomicInteger();
    final AtomicInteger tryCompleteCalls = new AtomicInteger();
    volatile long completedAtMs = -1;
    /** True if onExpiration had run when onComplete ran (expiry calls it first). */
    volatile boolean expiredBeforeComplete;

    /** {@link DelayedOperation#watchPosition} under every key; the default when not given. */
    private final long position;

    TestOperation(int id, long delayMs, Time time) {
        this(id, delayMs, time, Long.MIN_VALUE);
    }

    TestOperation(int id, long delayMs, Time time, long position) {
        super(delayMs);
        this.id = id;
        this.time = time;
        this.position = position;
    }

    @Override
    public long watchPosition(Object key) {
        return position;
    }

    void satisfy() {
        satisfied = true;
    }

    @Override
    public boolean tryComplete() {
        tryCompleteCalls.incrementAndGet();
        return satisfied && forceComplete();
    }

    @Override
    public void onExpiration() {
        expirations.incrementAndGet();
    }

    @Override
    public void onComplete() {
        expiredBeforeComplete = expirations.get() > 0;
        completedAtMs = time.milliseconds();
        completions.incrementAndGet();
    }

    @Override
    public String toString() {
        return "TestOperation(" + id + ")";
    }
}
