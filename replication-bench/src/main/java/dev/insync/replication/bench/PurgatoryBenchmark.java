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

package dev.insync.replication.bench;

import dev.insync.replication.core.purgatory.DelayedOperation;
import dev.insync.replication.core.purgatory.DelayedOperationPurgatory;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.core.time.Time;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The purgatory with a steady {@code pending} (default 1,000,000) parked operations, each under its
 * own key. Every invocation ends one operation and parks a fresh one, so the population stays
 * constant; each score is therefore "one way of ending an operation + one park":
 * <ul>
 *   <li>{@code parkThenForceComplete}: park plus forceComplete (timer cancel, O(1) unlink), the
 *   baseline cost of an add;</li>
 *   <li>{@code completeByKeyThenPark}: checkAndComplete on the key (PRO-4 wake-up) plus park;</li>
 *   <li>{@code expireThenPark}: one millisecond of virtual time that expires exactly one operation
 *   through the timing wheel (including its share of overflow cascades) plus park.</li>
 * </ul>
 * Time is virtual (a single-threaded scheduler inside this class), so the numbers measure the data
 * structures, not a clock or thread hand-offs.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g"})
@Warmup(iterations = 1, time = 1)
@Measurement(iterations = 3, time = 2)
public class PurgatoryBenchmark {

    @Param("1000000")
    public int pending;

    private VirtualScheduler scheduler;
    private DelayedOperationPurgatory<BenchOperation> purgatory;
    private Integer[] keys;
    private BenchOperation[] ring;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        scheduler = new VirtualScheduler();
        purgatory = DelayedOperationPurgatory.create("Bench", scheduler, scheduler.executor());
        keys = new Integer[pending];
        ring = new BenchOperation[pending];
        for (int i = 0; i < pending; i++) {
            keys[i] = i;
            // Delays 1..pending ms: in expireThenPark exactly one operation falls due per millisecond.
            park(i, i + 1L);
        }
        next = 0;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (purgatory.numDelayed() != pending) {
            throw new IllegalStateException("Bench purgatory drifted: " + purgatory.numDelayed() + " pending, expected "
                + pending);
        }
        purgatory.shutdown();
    }

    private void park(int slot, long delayMs) {
        BenchOperation op = new BenchOperation(delayMs);
        ring[slot] = op;
        purgatory.tryCompleteElseWatch(op, List.of(keys[slot]));
    }

    private int nextSlot() {
        int slot = next;
        next = slot + 1 == pending ? 0 : slot + 1;
        return slot;
    }

    @Benchmark
    public boolean parkThenForceComplete() {
        int slot = nextSlot();
        boolean ended = ring[slot].forceComplete();
        park(slot, pending);
        return ended;
    }

    @Benchmark
    public int completeByKeyThenPark() {
        int slot = nextSlot();
        ring[slot].satisfied = true;
        int completed = purgatory.checkAndComplete(keys[slot]);
        park(slot, pending);
        return completed;
    }

    @Benchmark
    public int expireThenPark() {
        int slot = nextSlot();
        BenchOperation due = ring[slot];
        scheduler.advance(1);
        if (!due.isCompleted()) {
            throw new IllegalStateException("operation in slot " + slot + " did not expire at " + scheduler.nowMs);
        }
        park(slot, pending);
        return slot;
    }

    /** An operation whose condition the benchmark flips. */
    static final class BenchOperation extends DelayedOperation {
        boolean satisfied;

        BenchOperation(long delayMs) {
            super(delayMs);
        }

        @Override
        public boolean tryComplete() {
            return satisfied && forceComplete();
        }

        @Override
        public void onExpiration() {
            // Nothing to record: the benchmark checks isCompleted().
        }

        @Override
        public void onComplete() {
            // The answer would be sent here.
        }
    }

    /** A single-threaded virtual-time scheduler: events run when {@link #advance} passes them. */
    static final class VirtualScheduler implements Scheduler, Time {
        private final PriorityQueue<Event> queue =
            new PriorityQueue<>(Comparator.comparingLong((Event e) -> e.dueMs).thenComparingLong(e -> e.seq));
        private long nowMs;
        private long seq;

        private static final class Event implements Cancellable {
            final long dueMs;
            final long seq;
            final Runnable task;
            boolean cancelled;

            Event(long dueMs, long seq, Runnable task) {
                this.dueMs = dueMs;
                this.seq = seq;
                this.task = task;
            }

            @Override
            public void cancel() {
                cancelled = true;
            }
        }

        Executor executor() {
            return Runnable::run;
        }

        void advance(long deltaMs) {
            long target = nowMs + deltaMs;
            Event event;
            while ((event = queue.peek()) != null && event.dueMs <= target) {
                queue.poll();
                if (!event.cancelled) {
                    nowMs = Math.max(nowMs, event.dueMs);
                    event.task.run();
                }
            }
            nowMs = target;
        }

        @Override
        public Cancellable schedule(Executor executor, Runnable task, long delayMs) {
            Event event = new Event(nowMs + Math.max(0, delayMs), seq++, () -> executor.execute(task));
            queue.add(event);
            return event;
        }

        @Override
        public Cancellable schedulePeriodically(Executor executor, Runnable task, long initialDelayMs, long periodMs) {
            throw new UnsupportedOperationException("the purgatory benchmark schedules no periodic work");
        }

        @Override
        public Executor newSerialExecutor(String name) {
            return executor();
        }

        @Override
        public Time time() {
            return this;
        }

        @Override
        public long milliseconds() {
            return nowMs;
        }

        @Override
        public long nanoseconds() {
            return nowMs * 1_000_000L;
        }
    }
}
