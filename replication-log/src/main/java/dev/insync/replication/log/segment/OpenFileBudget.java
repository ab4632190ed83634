package dev.insync.replication.log.segment;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A bound on how many segment files of one log directory are open at once. Each segment's
 * {@code .log} channel is opened when first used and counts against the bound while open; when an
 * open goes over it, channels not used since the last pass and not in use right now are closed
 * (the CLOCK approximation of least recently used: one pass clears a channel's "used" mark, the
 * next closes it if nothing set it again). A closed channel reopens on its next use.
 *
 * <p>Kafka keeps every segment open and asks its users to raise {@code ulimit -n}; a broker with
 * 30,000 replicas then holds 30,000 descriptors, and three such brokers in one JVM exceed a
 * 20,000-descriptor limit before their first write. With a bound, the descriptors held are those
 * of the partitions in use, at the cost of an {@code open} for a partition that comes back after
 * its channel was closed.
 *
 * <p>Thread-safe; one instance per log directory (never JVM-wide). {@link #unbounded()} gives a
 * standalone log or segment its own.
 */
public final class OpenFileBudget {

    /** A file kept open under the budget. */
    interface Holder {
        /** Whether it is open now (a stale queue entry is dropped). */
        boolean isHeld();

        /** Reads and clears the "used since the last pass" mark. */
        boolean takeUsedMark();

        /** Closes the file if nobody is using it; true if it did (it has called {@link #released()}). */
        boolean tryRelease();
    }

    private final int limit;
    private final AtomicInteger held = new AtomicInteger();
    private final AtomicInteger queued = new AtomicInteger();
    private final ConcurrentLinkedQueue<Holder> clock = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean sweeping = new AtomicBoolean();
    private final AtomicInteger closedByBudget = new AtomicInteger();

    /** At most {@code limit} files open at once (at least 1). */
    public OpenFileBudget(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("An open-file budget needs at least one file, got " + limit);
        }
        this.limit = limit;
    }

    /** No bound: files open on first use and stay open until their segment closes. */
    public static OpenFileBudget unbounded() {
        return new OpenFileBudget(Integer.MAX_VALUE);
    }

    /**
     * The default bound for one log directory: a quarter of the process's descriptor limit (the
     * rest is left to sockets, other log directories in the same JVM and the JVM itself), at least
     * 64; unbounded where the limit cannot be read.
     */
    public static OpenFileBudget forLogDirectory() {
        long maxFds = -1;
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
            maxFds = unix.getMaxFileDescriptorCount();
        }
        return maxFds <= 0 ? unbounded() : new OpenFileBudget((int) Math.max(64, Math.min(Integer.MAX_VALUE, maxFds / 4)));
    }

    /** The bound. */
    public int limit() {
        return limit;
    }

    /** Files open now. */
    public int held() {
        return held.get();
    }

    /** How many files the budget has closed so far (each reopens on its next use). */
    public int closedByBudget() {
        return closedByBudget.get();
    }

    /** {@code holder} has just opened its file: count it, and close idle ones if that went over the bound. */
    void acquired(Holder holder) {
        clock.add(holder);
        int entries = queued.incrementAndGet();
        int now = held.incrementAndGet();
        // Entries of files that were closed (their segment deleted, or closed here) go stale; a pass
        // also drops them once they could outnumber the open ones.
        if (now > limit || entries > 2 * now + 64) {
            sweep();
        }
    }

    /**
     * An operation on a held file ended: if opens went over the bound while files were in use (so
     * nothing could be closed then), close idle ones now.
     */
    void operationEnded() {
        if (held.get() > limit) {
            sweep();
        }
    }

    /** A held file was closed (by its owner or by {@link Holder#tryRelease()}). */
    void released() {
        held.decrementAndGet();
    }

    private void sweep() {
        if (!sweeping.compareAndSet(false, true)) {
            return;
        }
        try {
            // Two passes at most: the first may only clear "used" marks.
            int steps = 2 * queued.get();
            while (steps-- > 0 && (held.get() > limit || queued.get() > 2 * held.get() + 64)) {
                Holder h = clock.poll();
                if (h == null) {
                    break;
                }
                queued.decrementAndGet();
                if (!h.isHeld()) {
                    continue; // closed meanwhile: a stale entry
                }
                if (held.get() > limit && !h.takeUsedMark() && h.tryRelease()) {
                    closedByBudget.incrementAndGet();
                    continue;
                }
                clock.add(h);
                queued.incrementAndGet();
            }
        } finally {
            sweeping.set(false);
        }
    }

    @Override
    public String toString() {
        return "OpenFileBudget(" + held.get() + " of " + (limit == Integer.MAX_VALUE ? "unbounded" : limit) + " open)";
    }
}
