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

import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.core.time.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.random.RandomGenerator;

/**
 * The real-time {@link NodeRuntime} for {@code .realTime()} clusters: every serial executor is its
 * own named daemon thread ({@code broker-2/ReplicaFetcherThread-0-1}), timers run on one shared
 * {@link ScheduledExecutorService} and hand their task to the target executor, and time is the
 * system clock. Pausing a node closes a gate in front of its executors: each of its threads stops
 * before its next task (a task already running finishes), and resumes in order when the gate
 * opens. Killing a node drops its queued tasks, stops its threads and its periodic timers; stale
 * executors and views of the dead incarnation silently drop what they are given.
 *
 * <p>No thread is ever interrupted, by {@link #kill} or {@link #close}: a task may be in the middle
 * of log I/O, and an interrupt there makes Java close the log's {@code FileChannel}
 * ({@code ClosedByInterruptException}), which the broker takes for a disk failure. Both stop a
 * node's threads by closing its gate (a task already running finishes, queued ones are dropped)
 * and wait for them at most {@link #CLOSE_TIMEOUT_MS}; a thread still busy after that is logged and
 * left to finish (it is a daemon). So once {@code kill} returns nothing of the dead incarnation
 * runs any more, and its files may be closed.
 *
 * <p>Periodic tasks never pile up while a node is paused: a tick is skipped while the previous
 * one is still waiting. Executor queues are bounded ({@link #MAX_QUEUED_TASKS}); a full queue drops
 * the task with an error log. Close the runtime to stop every thread.
 */
public final class RealTimeNodeRuntime implements NodeRuntime, AutoCloseable {

    /** Bound on tasks queued per executor. */
    public static final int MAX_QUEUED_TASKS = 100_000;
    /** How long {@link #kill} and {@link #close()} wait, in all, for a node's threads to finish. */
    public static final long CLOSE_TIMEOUT_MS = 5_000;

    private static final Logger log = LoggerFactory.getLogger(RealTimeNodeRuntime.class);

    private final Object lock = new Object();
    private final Time time;
    private final RandomGenerator random;
    private final ScheduledThreadPoolExecutor timer;
    // Read without the lock on every task and message (slot, state, incarnation are volatile);
    // changed only under it.
    private final Map<NodeId, Slot> nodes = new ConcurrentHashMap<>();
    /** Every executor's thread name, for the log line of one that does not stop. */
    private final Map<ThreadPoolExecutor, String> threadNames = new ConcurrentHashMap<>();
    /** The executor whose thread this is (so a node killing itself does not wait for its own thread). */
    private static final ThreadLocal<ThreadPoolExecutor> CURRENT_POOL = new ThreadLocal<>();
    private volatile boolean closed;

    /** A runtime on the system clock whose random source is seeded with {@code seed}. */
    public RealTimeNodeRuntime(long seed) {
        this(Time.SYSTEM, seed);
    }

    /** A runtime on {@code time} (normally {@link Time#SYSTEM}). */
    public RealTimeNodeRuntime(Time time, long seed) {
        this.time = Objects.requireNonNull(time, "time");
        this.random = new LockedRandom(new SplittableRandom(seed));
        this.timer = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "insync-timer");
            thread.setDaemon(true);
            return thread;
        });
        timer.setRemoveOnCancelPolicy(true);
    }

    @Override
    public Time time() {
        return time;
    }

    /** Thread-safe, seeded; the order of draws depends on thread timing, so runs are not reproducible. */
    @Override
    public RandomGenerator random() {
        return random;
    }

    @Override
    public Scheduler forNode(NodeId node) {
        synchronized (lock) {
            return new View(node, slot(node).incarnation);
        }
    }

    @Override
    public long incarnation(NodeId node) {
        return slot(node).incarnation;
    }

    @Override
    public NodeState state(NodeId node) {
        return slot(node).state;
    }

    @Override
    public void pause(NodeId node) {
        synchronized (lock) {
            Slot slot = slot(node);
            if (slot.state != NodeState.RUNNING) {
                throw new IllegalStateException("Cannot pause " + node + ": it is " + slot.state);
            }
            slot.state = NodeState.PAUSED;
        }
    }

    @Override
    public void resume(NodeId node) {
        synchronized (lock) {
            Slot slot = slot(node);
            if (slot.state != NodeState.PAUSED) {
                throw new IllegalStateException("Cannot resume " + node + ": it is " + slot.state);
            }
            slot.state = NodeState.RUNNING;
            lock.notifyAll();
        }
    }

    @Override
    public void kill(NodeId node) {
        List<ThreadPoolExecutor> executors;
        synchronized (lock) {
            Slot slot = slot(node);
            if (slot.state == NodeState.DOWN) {
                throw new IllegalStateException("Cannot kill " + node + ": it is already DOWN");
            }
            slot.incarnation++;
            slot.state = NodeState.DOWN;
            slot.periodic.forEach(f -> f.cancel(false));
            slot.periodic.clear();
            executors = List.copyOf(slot.executors);
            slot.executors.clear();
            lock.notifyAll();
        }
        stopWithoutInterrupting(node + " (killed)", executors);
    }

    @Override
    public void start(NodeId node) {
        synchronized (lock) {
            Slot slot = slot(node);
            if (slot.state != NodeState.DOWN) {
                throw new IllegalStateException("Cannot start " + node + ": it is " + slot.state + ", not DOWN");
            }
            slot.incarnation++;
            slot.state = NodeState.RUNNING;
        }
    }

    /** Stops every thread without interrupting any (waiting up to {@link #CLOSE_TIMEOUT_MS} in all). */
    @Override
    public void close() {
        List<ThreadPoolExecutor> executors = new ArrayList<>();
        synchronized (lock) {
            closed = true;
            nodes.values().forEach(slot -> executors.addAll(slot.executors));
            lock.notifyAll();
        }
        // The timer thread only hands tasks over: interrupting it is harmless.
        timer.shutdownNow();
        stopWithoutInterrupting("the runtime", executors);
        try {
            timer.awaitTermination(CLOSE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Drops what is queued on {@code executors} (their gate is closed already, so queued tasks would
     * only return), lets a running task finish and waits for the threads, at most
     * {@link #CLOSE_TIMEOUT_MS} in all, never interrupting one. The calling thread's own executor
     * (a node killing itself from one of its tasks) is not waited for.
     */
    private void stopWithoutInterrupting(String what, List<ThreadPoolExecutor> executors) {
        ThreadPoolExecutor own = CURRENT_POOL.get();
        for (ThreadPoolExecutor pool : executors) {
            pool.shutdown();
            pool.getQueue().clear();
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_TIMEOUT_MS);
        List<String> stillRunning = new ArrayList<>();
        try {
            for (ThreadPoolExecutor pool : executors) {
                if (pool == own) {
                    continue;
                }
                long leftNanos = Math.max(0L, deadline - System.nanoTime());
                if (!pool.awaitTermination(leftNanos, TimeUnit.NANOSECONDS)) {
                    stillRunning.add(threadNames.getOrDefault(pool, "?"));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        executors.forEach(threadNames::remove);
        if (!stillRunning.isEmpty()) {
            log.warn("Stopping {}: threads {} did not finish within {} ms; left to finish (not interrupted)", what,
                    stillRunning, CLOSE_TIMEOUT_MS);
        }
    }

    private Slot slot(NodeId node) {
        return nodes.computeIfAbsent(node, n -> new Slot());
    }

    private boolean isLive(NodeId node, long incarnation) {
        Slot slot = slot(node);
        return !closed && slot.incarnation == incarnation && slot.state != NodeState.DOWN;
    }

    /** Runs {@code task} unless the incarnation died; waits at the gate while the node is paused. */
    private void runGated(NodeId node, Slot slot, long incarnation, String name, Runnable task) {
        // Checked without the lock first: a pause or kill racing this check is the same race as one
        // landing just after a locked check, so the lock buys nothing on the common path.
        if (!isRunning(slot, incarnation) && !awaitRunning(node, incarnation)) {
            return;
        }
        try {
            task.run();
        } catch (RuntimeException e) {
            log.error("Task of {} on {} failed", node, name, e);
        }
    }

    private boolean isRunning(Slot slot, long incarnation) {
        return !closed && slot.incarnation == incarnation && slot.state == NodeState.RUNNING;
    }

    /** Blocks while the node is paused; whether it runs again (false: the incarnation died). */
    private boolean awaitRunning(NodeId node, long incarnation) {
        synchronized (lock) {
            while (true) {
                if (!isLive(node, incarnation)) {
                    return false;
                }
                if (slot(node).state == NodeState.RUNNING) {
                    return true;
                }
                try {
                    lock.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
    }

    private final class View implements Scheduler {
        private final NodeId node;
        private final long incarnation;

        View(NodeId node, long incarnation) {
            this.node = node;
            this.incarnation = incarnation;
        }

        @Override
        public Cancellable schedule(Executor executor, Runnable task, long delayMs) {
            Objects.requireNonNull(task, "task");
            if (delayMs < 0) {
                throw new IllegalArgumentException("Negative delay " + delayMs + " ms for a task of " + node);
            }
            try {
                ScheduledFuture<?> future = timer.schedule(() -> {
                    if (isLiveNow()) {
                        executor.execute(task);
                    }
                }, delayMs, TimeUnit.MILLISECONDS);
                return () -> future.cancel(false);
            } catch (RejectedExecutionException e) {
                return () -> { };
            }
        }

        @Override
        public Cancellable schedulePeriodically(Executor executor, Runnable task, long initialDelayMs, long periodMs) {
            Objects.requireNonNull(task, "task");
            if (initialDelayMs < 0 || periodMs <= 0) {
                throw new IllegalArgumentException("Invalid periodic schedule for a task of " + node + ": initial delay "
                        + initialDelayMs + " ms, period " + periodMs + " ms");
            }
            AtomicBoolean waiting = new AtomicBoolean();
            ScheduledFuture<?> future;
            synchronized (lock) {
                if (!isLive(node, incarnation)) {
                    return () -> { };
                }
                try {
                    future = timer.scheduleAtFixedRate(() -> {
                        // A paused node gets one pending tick, not a backlog.
                        if (isLiveNow() && waiting.compareAndSet(false, true)) {
                            executor.execute(() -> {
                                waiting.set(false);
                                task.run();
                            });
                        }
                    }, initialDelayMs, periodMs, TimeUnit.MILLISECONDS);
                } catch (RejectedExecutionException e) {
                    return () -> { };
                }
                slot(node).periodic.add(future);
            }
            return () -> future.cancel(false);
        }

        @Override
        public Executor newSerialExecutor(String name) {
            Objects.requireNonNull(name, "name");
            synchronized (lock) {
                if (!isLive(node, incarnation)) {
                    return command -> { };
                }
                String threadName = node + "/" + name;
                ThreadPoolExecutor[] self = new ThreadPoolExecutor[1];
                ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
                        new ArrayBlockingQueue<>(MAX_QUEUED_TASKS), runnable -> {
                            Thread thread = new Thread(() -> {
                                CURRENT_POOL.set(self[0]);
                                runnable.run();
                            }, threadName);
                            thread.setDaemon(true);
                            return thread;
                        });
                self[0] = pool;
                threadNames.put(pool, threadName);
                Slot slot = slot(node); // slots are never removed: the task gate reads it without a lookup
                slot.executors.add(pool);
                return command -> {
                    Objects.requireNonNull(command, "command");
                    try {
                        pool.execute(() -> runGated(node, slot, incarnation, threadName, command));
                    } catch (RejectedExecutionException e) {
                        if (!pool.isShutdown()) {
                            log.error("Executor {} is full ({} tasks): task dropped", threadName, MAX_QUEUED_TASKS);
                        }
                    }
                };
            }
        }

        @Override
        public Time time() {
            return time;
        }

        private boolean isLiveNow() {
            return isLive(node, incarnation);
        }
    }

    private static final class Slot {
        volatile long incarnation;
        volatile NodeState state = NodeState.RUNNING;
        final List<ThreadPoolExecutor> executors = new ArrayList<>();
        final List<ScheduledFuture<?>> periodic = new ArrayList<>();
    }

    /** A seeded source safe to share between threads. */
    private static final class LockedRandom implements RandomGenerator {
        private final SplittableRandom delegate;

        LockedRandom(SplittableRandom delegate) {
            this.delegate = delegate;
        }

        @Override
        public synchronized long nextLong() {
            return delegate.nextLong();
        }
    }
}
