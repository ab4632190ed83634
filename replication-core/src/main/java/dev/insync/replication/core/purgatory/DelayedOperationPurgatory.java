package dev.insync.replication.core.purgatory;

import dev.insync.replication.core.time.Scheduler;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Parks {@link DelayedOperation}s under watch keys (for example a partition) until someone checks
 * a key with {@link #checkAndComplete(Object)} or the timer expires them (PRO-4: the purgatory
 * never polls; callers wake it when the condition may have changed).
 *
 * <p>Watch lists live in {@value #SHARD_COUNT} shards, each with its own lock, and keep insertion
 * order, so a single-threaded run completes operations in a repeatable order. A completed operation
 * may still sit in the watch lists of its other keys; once such entries could outnumber the live
 * ones the next {@link #tryCompleteElseWatch} purges them, so memory stays bounded by a constant
 * factor of the live entries (plus {@code purgeIntervalEntries}) at O(1) amortised cost.
 *
 * @param <T> the operation type
 */
public final class DelayedOperationPurgatory<T extends DelayedOperation> {

    /** Number of watch-list shards. */
    public static final int SHARD_COUNT = 512;
    private static final int SHARD_BITS = Integer.numberOfTrailingZeros(SHARD_COUNT);
    /** Watch entries tolerated before the first purge of completed operations. */
    public static final int DEFAULT_PURGE_INTERVAL_ENTRIES = 1000;

    private static final Logger log = LoggerFactory.getLogger(DelayedOperationPurgatory.class);

    private final String name;
    private final Timer timer;
    private final int purgeIntervalEntries;
    private final List<Shard> shards;
    /** Exact number of (key, operation) entries in all watch lists, completed or not. */
    private final AtomicLong watchEntries = new AtomicLong();
    private final AtomicLong purgeThresholdEntries;
    private final AtomicBoolean purging = new AtomicBoolean();
    private volatile boolean shutdown;

    /**
     * A purgatory with its own {@link TimingWheelTimer} named {@code ExpirationReaper-<name>} that
     * wakes through {@code scheduler} and expires operations on {@code executor}.
     */
    public static <T extends DelayedOperation> DelayedOperationPurgatory<T> create(
        String name, Scheduler scheduler, Executor executor) {
        return new DelayedOperationPurgatory<>(name,
            new TimingWheelTimer("ExpirationReaper-" + name, scheduler, executor), DEFAULT_PURGE_INTERVAL_ENTRIES);
    }

    /**
     * @param name                 names the purgatory in logs and errors (e.g. {@code Produce})
     * @param timer                expires operations; owned by the purgatory and closed on shutdown
     * @param purgeIntervalEntries completed watch entries tolerated before a purge, at least 1
     */
    public DelayedOperationPurgatory(String name, Timer timer, int purgeIntervalEntries) {
        this.name = Objects.requireNonNull(name, "name");
        this.timer = Objects.requireNonNull(timer, "timer of purgatory " + name);
        if (purgeIntervalEntries < 1) {
            throw new IllegalArgumentException(
                "purgatory " + name + ": purgeIntervalEntries must be >= 1, got " + purgeIntervalEntries);
        }
        this.purgeIntervalEntries = purgeIntervalEntries;
        this.purgeThresholdEntries = new AtomicLong(purgeIntervalEntries);
        List<Shard> list = new ArrayList<>(SHARD_COUNT);
        for (int i = 0; i < SHARD_COUNT; i++) {
            list.add(new Shard());
        }
        this.shards = List.copyOf(list);
    }

    /**
     * Tries to complete {@code operation}; if it cannot yet, watches it under every key and starts
     * its timer. The try and the watch happen under the operation's lock, so a concurrent
     * {@link #checkAndComplete} either sees the watch or runs after it: no wake-up is lost.
     *
     * @return true if this call completed the operation
     * @throws IllegalArgumentException if {@code watchKeys} is empty
     * @throws IllegalStateException    after {@link #shutdown()}
     */
    public boolean tryCompleteElseWatch(T operation, Collection<?> watchKeys) {
        Objects.requireNonNull(operation, "operation");
        if (watchKeys.isEmpty()) {
            throw new IllegalArgumentException("purgatory " + name + ": " + operation + " needs at least one watch key");
        }
        if (shutdown) {
            throw new IllegalStateException("purgatory " + name + " is shut down; cannot park " + operation);
        }
        boolean completedNow = operation.safeTryCompleteOrElse(() -> {
            for (Object key : watchKeys) {
                watch(Objects.requireNonNull(key, "watch key"), operation);
            }
        });
        if (completedNow) {
            return true;
        }
        // A checker that made the condition true before the watch existed found no watcher and
        // returned: try once more now that every key is watched (Kafka does the same).
        if (operation.safeTryComplete()) {
            maybePurge();
            return true;
        }
        if (!operation.isCompleted()) {
            timer.add(operation.expiryTask());
            // Completed between the watch and the timer add: forceComplete cancelled nothing then.
            if (operation.isCompleted()) {
                operation.expiryTask().cancel();
            }
        }
        maybePurge();
        return false;
    }

    /**
     * Tries to complete every operation watched under {@code key}, in watch order, and drops
     * completed ones from that key's list.
     *
     * @return how many operations this call completed
     */
    public int checkAndComplete(Object key) {
        Watchers watchers = watchersOf(key);
        if (watchers == null) {
            return 0;
        }
        int completed = watchers.tryCompleteWatched();
        if (completed > 0) {
            log.debug("Purgatory {}: completed {} operations for key {}", name, completed, key);
        }
        return completed;
    }

    /**
     * Tries to complete the operations watched under {@code key} whose {@link DelayedOperation#watchPosition}
     * for it is at most {@code reached}, in position order, and drops completed ones from that key's
     * list. For an event that can only complete operations up to a position, such as a partition's
     * HW rising to {@code reached}: the ones waiting further on are not touched, so the cost is the
     * number of operations reached (plus any of them still waiting on something else), not the
     * number parked. Every other event must use {@link #checkAndComplete}.
     *
     * @return how many operations this call completed
     */
    public int checkAndCompleteUpTo(Object key, long reached) {
        Watchers watchers = watchersOf(key);
        if (watchers == null) {
            return 0;
        }
        int completed = watchers.tryCompleteUpTo(reached);
        if (completed > 0) {
            log.debug("Purgatory {}: completed {} operations for key {} up to {}", name, completed, key, reached);
        }
        return completed;
    }

    private Watchers watchersOf(Object key) {
        Shard shard = shardFor(key);
        shard.lock.lock();
        try {
            return shard.watchersByKey.get(key);
        } finally {
            shard.lock.unlock();
        }
    }

    /**
     * Stops watching every operation under {@code key} and cancels their timers, without completing
     * them: the caller must end each returned operation (e.g. set an error and
     * {@link DelayedOperation#forceComplete()}), so none hangs (PRO-5).
     *
     * @return the operations that were watched under the key and not yet complete, in watch order
     */
    public List<T> cancelForKey(Object key) {
        Shard shard = shardFor(key);
        Watchers watchers;
        shard.lock.lock();
        try {
            watchers = shard.watchersByKey.remove(key);
        } finally {
            shard.lock.unlock();
        }
        if (watchers == null) {
            return List.of();
        }
        List<T> cancelled = new ArrayList<>();
        for (T operation : watchers.drain()) {
            if (!operation.isCompleted()) {
                operation.expiryTask().cancel();
                cancelled.add(operation);
            }
        }
        return cancelled;
    }

    /** Operations waiting for their timer (neither completed nor cancelled). */
    public int numDelayed() {
        return timer.size();
    }

    /** Watch entries across all keys, including completed operations not yet purged. */
    public int watched() {
        return (int) Math.min(Integer.MAX_VALUE, watchEntries.get());
    }

    /** Stops the timer; operations still parked no longer expire. Idempotent. */
    public void shutdown() {
        shutdown = true;
        timer.close();
    }

    @Override
    public String toString() {
        return "DelayedOperationPurgatory(" + name + ", delayed=" + numDelayed() + ", watched=" + watched() + ")";
    }

    private Shard shardFor(Object key) {
        // Pick the shard from the top bits of a multiplicative mix: taking the low bits instead would
        // leave all keys of a shard sharing their low bits, which collide inside the shard's map.
        int mixed = key.hashCode() * 0x9E3779B9;
        return shards.get(mixed >>> (Integer.SIZE - SHARD_BITS));
    }

    private void watch(Object key, T operation) {
        Shard shard = shardFor(key);
        shard.lock.lock();
        try {
            Watchers watchers = shard.watchersByKey.get(key);
            if (watchers == null) {
                watchers = new Watchers(key, shard);
                shard.watchersByKey.put(key, watchers);
            }
            watchers.add(operation);
            watchEntries.incrementAndGet();
        } finally {
            shard.lock.unlock();
        }
    }

    /**
     * Purges completed entries once they may outnumber the rest: the next threshold is twice the
     * survivors, so each purge's O(entries) scan is paid for by as many earlier watches.
     */
    private void maybePurge() {
        if (watchEntries.get() <= purgeThresholdEntries.get() || !purging.compareAndSet(false, true)) {
            return;
        }
        try {
            long purged = 0;
            for (Shard shard : shards) {
                purged += shard.purgeCompleted();
            }
            long survivors = watchEntries.get();
            purgeThresholdEntries.set(Math.max(purgeIntervalEntries, 2 * survivors));
            log.debug("Purgatory {}: purged {} completed watch entries, {} remain", name, purged, survivors);
        } finally {
            purging.set(false);
        }
    }

    /** One lock and the watch lists of the keys that hash to it. */
    private final class Shard {
        final ReentrantLock lock = new ReentrantLock();
        final Map<Object, Watchers> watchersByKey = new LinkedHashMap<>();

        long purgeCompleted() {
            long purged = 0;
            lock.lock();
            try {
                Iterator<Watchers> it = watchersByKey.values().iterator();
                while (it.hasNext()) {
                    Watchers watchers = it.next();
                    purged += watchers.removeCompleted();
                    if (watchers.isEmpty()) {
                        it.remove();
                    }
                }
            } finally {
                lock.unlock();
            }
            return purged;
        }

        void removeIfEmpty(Object key, Watchers watchers) {
            lock.lock();
            try {
                if (watchersByKey.get(key) == watchers && watchers.isEmpty()) {
                    watchersByKey.remove(key);
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * The operations watched under one key, sorted by their {@link DelayedOperation#watchPosition}
     * for it and, among equal positions, in watch order (operations that leave the position at its
     * default simply keep watch order), in arrays of their own (no list object: most keys watch one
     * or two operations, and a million parked operations make every object per entry count).
     * Guarded by its own monitor.
     */
    private final class Watchers {
        private final Object key;
        private final Shard shard;
        private DelayedOperation[] operations = new DelayedOperation[2];
        private long[] positions = new long[2];
        private int size;

        Watchers(Object key, Shard shard) {
            this.key = key;
            this.shard = shard;
        }

        /** Inserts in position order; operations come in (nearly) position order, so this is O(1) amortised. */
        synchronized void add(T operation) {
            if (size == operations.length) {
                operations = Arrays.copyOf(operations, size * 2);
                positions = Arrays.copyOf(positions, size * 2);
            }
            long position = operation.watchPosition(key);
            int at = size;
            while (at > 0 && positions[at - 1] > position) {
                at--;
            }
            if (at < size) {
                System.arraycopy(operations, at, operations, at + 1, size - at);
                System.arraycopy(positions, at, positions, at + 1, size - at);
            }
            operations[at] = operation;
            positions[at] = position;
            size++;
        }

        synchronized boolean isEmpty() {
            return size == 0;
        }

        /** Removes completed operations, keeping the order of the rest; returns how many entries went. */
        synchronized int removeCompleted() {
            return removeCompletedUpTo(Long.MAX_VALUE);
        }

        /**
         * Removes the completed operations among those at positions up to {@code reached} (the rest
         * go with a later check or purge), keeping the order; returns how many entries went.
         */
        private int removeCompletedUpTo(long reached) {
            int kept = 0;
            int i = 0;
            for (; i < size && positions[i] <= reached; i++) {
                DelayedOperation operation = operations[i];
                if (!operation.isCompleted()) {
                    operations[kept] = operation;
                    positions[kept] = positions[i];
                    kept++;
                }
            }
            int removed = i - kept;
            if (removed == 0) {
                return 0;
            }
            System.arraycopy(operations, i, operations, kept, size - i);
            System.arraycopy(positions, i, positions, kept, size - i);
            Arrays.fill(operations, size - removed, size, null);
            size -= removed;
            watchEntries.addAndGet(-removed);
            return removed;
        }

        /** Removes every entry and returns the operations. */
        @SuppressWarnings("unchecked")
        synchronized List<T> drain() {
            List<T> all = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                all.add((T) operations[i]);
            }
            Arrays.fill(operations, 0, size, null);
            size = 0;
            watchEntries.addAndGet(-all.size());
            return all;
        }

        /** Tries every watched operation (see {@link #tryCompleteUpTo}). */
        int tryCompleteWatched() {
            return tryCompleteUpTo(Long.MAX_VALUE);
        }

        /**
         * Tries each watched operation at a position up to {@code reached}, outside this monitor
         * (tryComplete runs user code that may watch or check other keys), then drops the completed
         * ones among them.
         */
        int tryCompleteUpTo(long reached) {
            // A copy to iterate outside the monitor; none for the common single watcher.
            DelayedOperation single = null;
            DelayedOperation[] snapshot = null;
            int n;
            synchronized (this) {
                n = 0;
                while (n < size && positions[n] <= reached) {
                    n++;
                }
                if (n == 1) {
                    single = operations[0];
                } else if (n > 1) {
                    snapshot = Arrays.copyOf(operations, n);
                }
            }
            int completed = 0;
            boolean anyDone = false;
            for (int i = 0; i < n; i++) {
                DelayedOperation operation = n == 1 ? single : snapshot[i];
                if (operation.isCompleted()) {
                    anyDone = true;
                } else if (operation.safeTryComplete()) {
                    completed++;
                    anyDone = true;
                }
            }
            if (anyDone) {
                boolean empty;
                synchronized (this) {
                    removeCompletedUpTo(reached);
                    empty = size == 0;
                }
                if (empty) {
                    shard.removeIfEmpty(key, this);
                }
            }
            return completed;
        }
    }
}
