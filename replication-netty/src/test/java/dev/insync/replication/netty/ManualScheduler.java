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

package dev.insync.replication.netty;

import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.core.time.Time;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.Executor;

/**
 * Manual time for network tests: timers (idle checks, request timeouts) fire only when the test
 * calls {@link #advance}, each handed to the executor it was scheduled on (an event loop). Unlike
 * core's single-threaded test scheduler this one is thread-safe, since event loops schedule timers
 * while the test thread advances time; {@link #awaitScheduled} lets a test wait (bounded) until a
 * timer it depends on exists.
 */
public final class ManualScheduler implements Scheduler {

    private final PriorityQueue<Event> queue = new PriorityQueue<>();
    private long nowMs;
    private long sequence;
    private long armed;

    private final class Event implements Comparable<Event> {
        final long atMs;
        final long seq;
        final Runnable fire;
        volatile boolean cancelled;

        Event(long atMs, Runnable fire) {
            this.atMs = atMs;
            this.seq = sequence++;
            this.fire = fire;
        }

        @Override
        public int compareTo(Event o) {
            int c = Long.compare(atMs, o.atMs);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    private final Time time = new Time() {
        @Override
        public long milliseconds() {
            synchronized (ManualScheduler.this) {
                return nowMs;
            }
        }

        @Override
        public long nanoseconds() {
            return milliseconds() * 1_000_000L;
        }
    };

    public ManualScheduler(long startMs) {
        this.nowMs = startMs;
    }

    @Override
    public synchronized Cancellable schedule(Executor executor, Runnable task, long delayMs) {
        Event e = new Event(nowMs + Math.max(0, delayMs), () -> executor.execute(task));
        armed++;
        queue.add(e);
        notifyAll();
        return () -> e.cancelled = true;
    }

    @Override
    public synchronized Cancellable schedulePeriodically(Executor executor, Runnable task, long initialDelayMs,
                                                        long periodMs) {
        boolean[] cancelled = {false};
        Runnable[] tick = new Runnable[1];
        tick[0] = () -> {
            if (!cancelled[0]) {
                executor.execute(task);
                synchronized (this) {
                    queue.add(new Event(nowMs + periodMs, tick[0]));
                }
            }
        };
        queue.add(new Event(nowMs + Math.max(0, initialDelayMs), tick[0]));
        notifyAll();
        return () -> cancelled[0] = true;
    }

    @Override
    public Executor newSerialExecutor(String name) {
        return task -> schedule(Runnable::run, task, 0);
    }

    @Override
    public Time time() {
        return time;
    }

    /** One-off timers armed since start, fired, cancelled or pending. */
    public synchronized long armedCount() {
        return armed;
    }

    /** Timers not cancelled and not yet fired. */
    public synchronized int scheduledCount() {
        return (int) queue.stream().filter(e -> !e.cancelled).count();
    }

    /** Waits until at least {@code count} timers are pending; fails after {@code timeoutMs} of real time. */
    public synchronized void awaitScheduled(int count, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (scheduledCount() < count) {
            long leftMs = (deadline - System.nanoTime()) / 1_000_000L;
            if (leftMs <= 0) {
                throw new AssertionError("Only " + scheduledCount() + " timers after " + timeoutMs + " ms, wanted "
                        + count);
            }
            wait(leftMs);
        }
    }

    /** Timers (serial executors' tasks included) due now: not cancelled, at or before the current time. */
    public synchronized int dueCount() {
        return (int) queue.stream().filter(e -> !e.cancelled && e.atMs <= nowMs).count();
    }

    /** Waits until at least {@code count} timers are due now; fails after {@code timeoutMs} of real time. */
    public synchronized void awaitDue(int count, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (dueCount() < count) {
            long leftMs = (deadline - System.nanoTime()) / 1_000_000L;
            if (leftMs <= 0) {
                throw new AssertionError("Only " + dueCount() + " timers due after " + timeoutMs + " ms, wanted " + count);
            }
            wait(leftMs);
        }
    }

    /**
     * Fires only the earliest timer due now (without moving time), so a test can step a serial
     * executor one task at a time.
     *
     * @return whether there was one
     */
    public boolean runOneDue() {
        Runnable fire = null;
        synchronized (this) {
            while (fire == null && queue.peek() != null && queue.peek().atMs <= nowMs) {
                Event e = queue.poll();
                if (!e.cancelled) {
                    fire = e.fire;
                }
            }
        }
        if (fire == null) {
            return false;
        }
        fire.run();
        return true;
    }

    /** Moves time forward by {@code ms}, firing every timer on the way at its own time. */
    public void advance(long ms) {
        long target;
        synchronized (this) {
            target = nowMs + ms;
        }
        while (true) {
            List<Runnable> due = new ArrayList<>();
            synchronized (this) {
                Event head = queue.peek();
                if (head == null || head.atMs > target) {
                    nowMs = target;
                    return;
                }
                nowMs = Math.max(nowMs, head.atMs);
                while (queue.peek() != null && queue.peek().atMs <= nowMs) {
                    Event e = queue.poll();
                    if (!e.cancelled) {
                        due.add(e.fire);
                    }
                }
            }
            due.forEach(Runnable::run);
        }
    }
}
