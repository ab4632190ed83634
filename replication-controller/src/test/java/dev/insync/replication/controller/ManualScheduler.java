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

package dev.insync.replication.controller;

import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.core.time.Time;

import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;
import java.util.PriorityQueue;
import java.util.concurrent.Executor;

/**
 * Test double: a deterministic {@link Scheduler} on a manual clock (as core's test one; test code is
 * not shared across modules). Serial executors queue their tasks; {@link #runReady()} runs them in
 * submission order on the calling thread; {@link #advance(long)} moves time, firing due timers in
 * (time, sequence) order. Single-threaded.
 */
public final class ManualScheduler implements Scheduler, Time {

    private record Timer(long dueMs, long seq, Executor executor, Runnable task, long periodMs, boolean[] cancelled) {
    }

    private final PriorityQueue<Timer> timers =
            new PriorityQueue<>(Comparator.comparingLong(Timer::dueMs).thenComparingLong(Timer::seq));
    private final Deque<Runnable> ready = new ArrayDeque<>();
    private long nowMs;
    private long seq;

    public ManualScheduler(long startMs) {
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

    @Override
    public Cancellable schedule(Executor executor, Runnable task, long delayMs) {
        return add(executor, task, delayMs, 0);
    }

    @Override
    public Cancellable schedulePeriodically(Executor executor, Runnable task, long initialDelayMs, long periodMs) {
        return add(executor, task, initialDelayMs, periodMs);
    }

    private Cancellable add(Executor executor, Runnable task, long delayMs, long periodMs) {
        boolean[] cancelled = new boolean[1];
        timers.add(new Timer(nowMs + Math.max(0, delayMs), seq++, executor, task, periodMs, cancelled));
        return () -> cancelled[0] = true;
    }

    @Override
    public Executor newSerialExecutor(String name) {
        return ready::add;
    }

    @Override
    public Time time() {
        return this;
    }

    /** Runs every queued task (and those they queue); returns how many ran. */
    public int runReady() {
        int n = 0;
        while (!ready.isEmpty()) {
            ready.poll().run();
            n++;
        }
        return n;
    }

    /** Moves the clock forward by {@code ms}, firing due timers in order and running what they queue. */
    public void advance(long ms) {
        long target = nowMs + ms;
        runReady();
        while (!timers.isEmpty() && timers.peek().dueMs() <= target) {
            Timer t = timers.poll();
            if (t.cancelled()[0]) {
                continue;
            }
            nowMs = Math.max(nowMs, t.dueMs());
            if (t.periodMs() > 0) {
                timers.add(new Timer(t.dueMs() + t.periodMs(), seq++, t.executor(), t.task(), t.periodMs(), t.cancelled()));
            }
            boolean[] c = t.cancelled();
            t.executor().execute(() -> {
                if (!c[0]) {
                    t.task().run();
                }
            });
            runReady();
        }
        nowMs = target;
    }
}
