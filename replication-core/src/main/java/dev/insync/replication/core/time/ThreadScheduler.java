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

package dev.insync.replication.core.time;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The production {@link Scheduler}: one small {@link ScheduledExecutorService} keeps time and hands
 * due tasks to the executor they belong to; {@link #newSerialExecutor(String)} gives each active
 * component its own named daemon thread. {@link #close()} stops the timer and every serial executor
 * it created, each within the close timeout.
 *
 * <p>Timer threads are named {@code <namePrefix>-timer-<n>}. A periodic task whose previous run has
 * not started yet on its executor is skipped for that period rather than queued twice, so a slow
 * executor never accumulates a backlog of the same periodic task.
 */
public final class ThreadScheduler implements Scheduler, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ThreadScheduler.class);

    /** Default bound on how long {@link #close()} waits for each executor. */
    public static final long DEFAULT_CLOSE_TIMEOUT_MS = 5_000L;

    private final Time time;
    private final ScheduledThreadPoolExecutor timer;
    private final long closeTimeoutMs;
    private final List<SerialThreadExecutor> executors = new CopyOnWriteArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();

    /** A scheduler on the system clock with one timer thread named {@code insync-scheduler-timer-0}. */
    public ThreadScheduler() {
        this(Time.SYSTEM, "insync-scheduler", 1, DEFAULT_CLOSE_TIMEOUT_MS);
    }

    /**
     * @param time           the clock handed to components ({@link #time()})
     * @param namePrefix     prefix of the timer threads' names
     * @param timerThreads   number of timer threads, at least 1 (they only hand tasks over, so 1 is usually enough)
     * @param closeTimeoutMs how long {@link #close()} waits for each executor (it never interrupts one)
     */
    public ThreadScheduler(Time time, String namePrefix, int timerThreads, long closeTimeoutMs) {
        this.time = Objects.requireNonNull(time, "time");
        if (timerThreads < 1) {
            throw new IllegalArgumentException("Scheduler " + namePrefix + " needs at least 1 timer thread, got " + timerThreads);
        }
        if (closeTimeoutMs < 0) {
            throw new IllegalArgumentException("Negative close timeout " + closeTimeoutMs + " for scheduler " + namePrefix);
        }
        this.closeTimeoutMs = closeTimeoutMs;
        AtomicInteger n = new AtomicInteger();
        this.timer = new ScheduledThreadPoolExecutor(timerThreads, r -> {
            Thread t = new Thread(r, namePrefix + "-timer-" + n.getAndIncrement());
            t.setDaemon(true);
            return t;
        });
        // Cancelled tasks leave the queue at once instead of lingering until their delay ends.
        timer.setRemoveOnCancelPolicy(true);
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        timer.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
    }

    @Override
    public Cancellable schedule(Executor executor, Runnable task, long delayMs) {
        requireArgs(executor, task, delayMs, "delay");
        Handle handle = new Handle(executor, task, false);
        handle.future = timer.schedule(handle::fire, delayMs, TimeUnit.MILLISECONDS);
        return handle;
    }

    @Override
    public Cancellable schedulePeriodically(Executor executor, Runnable task, long initialDelayMs, long periodMs) {
        requireArgs(executor, task, initialDelayMs, "initial delay");
        if (periodMs <= 0) {
            throw new IllegalArgumentException("Period must be positive, got " + periodMs + " ms for " + task);
        }
        Handle handle = new Handle(executor, task, true);
        handle.future = timer.scheduleAtFixedRate(handle::fire, initialDelayMs, periodMs, TimeUnit.MILLISECONDS);
        return handle;
    }

    private void requireArgs(Executor executor, Runnable task, long delayMs, String what) {
        Objects.requireNonNull(executor, "executor");
        Objects.requireNonNull(task, "task");
        if (delayMs < 0) {
            throw new IllegalArgumentException("Negative " + what + " " + delayMs + " ms for " + task);
        }
        if (closed.get()) {
            throw new RejectedExecutionException("Scheduler is closed; cannot schedule " + task);
        }
    }

    /** {@inheritDoc} Returns a {@link SerialThreadExecutor} the caller may close early; {@link #close()} closes the rest. */
    @Override
    public SerialThreadExecutor newSerialExecutor(String name) {
        Objects.requireNonNull(name, "name");
        if (closed.get()) {
            throw new RejectedExecutionException("Scheduler is closed; cannot create executor " + name);
        }
        SerialThreadExecutor[] self = new SerialThreadExecutor[1];
        self[0] = new SerialThreadExecutor(name, closeTimeoutMs, () -> executors.remove(self[0]));
        executors.add(self[0]);
        return self[0];
    }

    @Override
    public Time time() {
        return time;
    }

    /** Serial executors created here and not yet closed. */
    public List<SerialThreadExecutor> liveExecutors() {
        return List.copyOf(executors);
    }

    /**
     * Stops the timer, then every serial executor, each within the close timeout. The timer threads
     * only hand tasks over and are interrupted; an executor's thread never is (see
     * {@link SerialThreadExecutor#close()}). Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        timer.shutdownNow();
        for (SerialThreadExecutor e : List.copyOf(executors)) {
            e.close();
        }
        try {
            if (!timer.awaitTermination(closeTimeoutMs, TimeUnit.MILLISECONDS)) {
                log.warn("Scheduler timer did not stop within {} ms", closeTimeoutMs);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One scheduled task: fires on the timer, runs on its executor, unless cancelled first. */
    private static final class Handle implements Cancellable {
        private final Executor executor;
        private final Runnable task;
        private final boolean periodic;
        private final AtomicBoolean cancelled = new AtomicBoolean();
        /** A periodic run handed to the executor but not started yet. */
        private final AtomicBoolean pending = new AtomicBoolean();
        private volatile ScheduledFuture<?> future;

        Handle(Executor executor, Runnable task, boolean periodic) {
            this.executor = executor;
            this.task = task;
            this.periodic = periodic;
        }

        void fire() {
            if (cancelled.get() || (periodic && !pending.compareAndSet(false, true))) {
                return;
            }
            try {
                executor.execute(this::run);
            } catch (RejectedExecutionException e) {
                // The component's executor closed before its timer: the task belongs to a stopped component.
                pending.set(false);
                log.debug("Dropping scheduled task {}: its executor is closed", task);
            }
        }

        private void run() {
            pending.set(false);
            // Re-checked here: cancel() may come after the hand-off but before the executor got to it.
            if (!cancelled.get()) {
                task.run();
            }
        }

        @Override
        public void cancel() {
            cancelled.set(true);
            ScheduledFuture<?> f = future;
            if (f != null) {
                f.cancel(false);
            }
        }
    }
}
