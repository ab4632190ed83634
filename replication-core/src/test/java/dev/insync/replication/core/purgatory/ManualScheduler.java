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

package dev.insync.replication.core.purgatory;

import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.core.time.Time;
import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.concurrent.Executor;

/**
 * A deterministic {@link Scheduler} for tests: tasks wait in a queue ordered by (due time, sequence)
 * and run only when the test advances the {@link ManualTime}, each at its own due time, on the
 * calling thread. Serial executors run tasks inline. Counts what was scheduled and run, so tests
 * can prove that nothing polls.
 */
final class ManualScheduler implements Scheduler {

    private final ManualTime time;
    private final PriorityQueue<Event> queue =
        new PriorityQueue<>(Comparator.comparingLong(Event::dueMs).thenComparingLong(Event::seq));
    private long seq;
    private long scheduledCount;
    private long ranCount;

    ManualScheduler(long startMs) {
        this.time = new ManualTime(startMs);
    }

    private static final class Event implements Cancellable {
        private long dueMs;
        private long seq;
        private final Executor executor;
        private final Runnable task;
        private final long periodMs;
        private volatile boolean cancelled;

        Event(long dueMs, long seq, Executor executor, Runnable task, long periodMs) {
            this.dueMs = dueMs;
            this.seq = seq;
            this.executor = executor;
            this.task = task;
            this.periodMs = periodMs;
        }

        long dueMs() {
            return dueMs;
        }

        long seq() {
            return seq;
        }

        @Override
        public void cancel() {
            cancelled = true;
        }
    }

    @Override
    public synchronized Cancellable schedule(Executor executor, Runnable task, long delayMs) {
        scheduledCount++;
        return enqueue(executor, task, Math.max(0, delayMs), 0);
    }

    @Override
    public synchronized Cancellable schedulePeriodically(Executor executor, Runnable task, long initialDelayMs,
                                                         long periodMs) {
        scheduledCount++;
        return enqueue(executor, task, Math.max(0, initialDelayMs), periodMs);
    }

    private Event enqueue(Executor executor, Runnable task, long delayMs, long periodMs) {
        Event event = new Event(time.monotonicMs() + delayMs, seq++, executor, task, periodMs);
        queue.add(event);
        return event;
    }

    @Override
    public Executor newSerialExecutor(String name) {
        return Runnable::run;
    }

    @Override
    public Time time() {
        return time;
    }

    long nowMs() {
        return time.monotonicMs();
    }

    /** Steps the wall clock only (see {@link ManualTime#jumpWallClock}); due times stay on the monotonic clock. */
    void jumpWallClock(long deltaMs) {
        time.jumpWallClock(deltaMs);
    }

    /** Advances time by {@code deltaMs}, running each due event at its own due time. */
    void advance(long deltaMs) {
        advanceTo(time.monotonicMs() + deltaMs);
    }

    /** Runs every event due up to {@code targetMs}, in order, then leaves the clock there. */
    void advanceTo(long targetMs) {
        while (true) {
            Event next;
            synchronized (this) {
                next = queue.peek();
                if (next == null || next.dueMs > targetMs) {
                    break;
                }
                queue.poll();
            }
            if (next.cancelled) {
                continue;
            }
            time.set(Math.max(time.monotonicMs(), next.dueMs));
            synchronized (this) {
                ranCount++;
                if (next.periodMs > 0) {
                    next.dueMs += next.periodMs;
                    next.seq = seq++;
                    queue.add(next);
                }
            }
            next.executor.execute(next.task);
        }
        time.set(Math.max(time.monotonicMs(), targetMs));
    }

    /** Runs events due now without moving the clock. */
    void runDue() {
        advanceTo(time.monotonicMs());
    }

    /** Uncancelled events still waiting. */
    synchronized long pending() {
        return queue.stream().filter(e -> !e.cancelled).count();
    }

    /** Due time of the earliest uncancelled event, or Long.MAX_VALUE. */
    synchronized long nextDueMs() {
        return queue.stream().filter(e -> !e.cancelled).mapToLong(Event::dueMs).min().orElse(Long.MAX_VALUE);
    }

    synchronized long scheduledCount() {
        return scheduledCount;
    }

    synchronized long ranCount() {
        return ranCount;
    }
}
