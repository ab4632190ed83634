package dev.insync.replication.core.time;

import java.util.concurrent.Executor;

/**
 * Runs work later or periodically, and hands out serial executors for active components. Every
 * task of one serial executor runs one at a time, in submission order. Production backs this with
 * threads; the simulator with one seeded event loop in virtual time.
 */
public interface Scheduler {

    /** A handle to cancel a scheduled task. */
    interface Cancellable {
        /** Cancels the task if it has not started; idempotent. */
        void cancel();
    }

    /** Runs {@code task} on {@code executor} once, after {@code delayMs}. */
    Cancellable schedule(Executor executor, Runnable task, long delayMs);

    /** Runs {@code task} on {@code executor} every {@code periodMs}, first after {@code initialDelayMs}. */
    Cancellable schedulePeriodically(Executor executor, Runnable task, long initialDelayMs, long periodMs);

    /**
     * A serial executor named {@code name} (in production its own thread with that name, e.g.
     * {@code ReplicaFetcherThread-0-1}).
     */
    Executor newSerialExecutor(String name);

    /** The clock this scheduler runs on. */
    Time time();
}
