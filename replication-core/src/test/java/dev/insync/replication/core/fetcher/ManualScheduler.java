package dev.insync.replication.core.fetcher;

import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.core.time.Time;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.Executor;

/**
 * A deterministic single-threaded {@link Scheduler} on manual time for tests: every executor task
 * and timer is an event in one queue ordered by (time, sequence); nothing runs until the test
 * calls {@link #runReady()} or {@link #advance(long)}.
 */
public final class ManualScheduler implements Scheduler {

    private final ManualTime time;
    private final PriorityQueue<Event> queue = new PriorityQueue<>();
    private final List<String> executorNames = new ArrayList<>();
    private long sequence;
    private long timersScheduled;

    private static final class Event implements Comparable<Event> {
        final long atMs;
        final long seq;
        final Runnable task;
        boolean cancelled;

        Event(long atMs, long seq, Runnable task) {
            this.atMs = atMs;
            this.seq = seq;
            this.task = task;
        }

        @Override
        public int compareTo(Event o) {
            int c = Long.compare(atMs, o.atMs);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    /** Manual clock. */
    public static final class ManualTime implements Time {
        private long nowMs;

        ManualTime(long startMs) {
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
    }

    public ManualScheduler() {
        this(1_000_000L);
    }

    public ManualScheduler(long startMs) {
        this.time = new ManualTime(startMs);
    }

    private Event enqueue(long atMs, Runnable task) {
        Event e = new Event(atMs, sequence++, task);
        queue.add(e);
        return e;
    }

    /** How many one-shot timers {@link #schedule} was asked for. */
    public long timersScheduled() {
        return timersScheduled;
    }

    @Override
    public Cancellable schedule(Executor executor, Runnable task, long delayMs) {
        timersScheduled++;
        Event e = enqueue(time.nowMs + Math.max(0, delayMs), () -> executor.execute(task));
        return () -> e.cancelled = true;
    }

    @Override
    public Cancellable schedulePeriodically(Executor executor, Runnable task, long initialDelayMs, long periodMs) {
        final boolean[] cancelled = {false};
        Runnable[] tick = new Runnable[1];
        tick[0] = () -> {
            if (!cancelled[0]) {
                executor.execute(task);
                enqueue(time.nowMs + periodMs, tick[0]);
            }
        };
        enqueue(time.nowMs + Math.max(0, initialDelayMs), tick[0]);
        return () -> cancelled[0] = true;
    }

    @Override
    public Executor newSerialExecutor(String name) {
        executorNames.add(name);
        return task -> enqueue(time.nowMs, task);
    }

    @Override
    public Time time() {
        return time;
    }

    /** Names of every serial executor handed out, in order. */
    public List<String> executorNames() {
        return List.copyOf(executorNames);
    }

    public long nowMs() {
        return time.nowMs;
    }

    /** Runs every event due now, including those they enqueue for now; returns how many ran. */
    public int runReady() {
        int ran = 0;
        while (!queue.isEmpty() && queue.peek().atMs <= time.nowMs) {
            Event e = queue.poll();
            if (!e.cancelled) {
                e.task.run();
                ran++;
            }
            if (ran > 100_000) {
                throw new IllegalStateException("Runaway event loop at " + time.nowMs);
            }
        }
        return ran;
    }

    /** Moves time forward by {@code ms}, running every event on the way at its own time. */
    public void advance(long ms) {
        long target = time.nowMs + ms;
        runReady();
        while (!queue.isEmpty() && queue.peek().atMs <= target) {
            time.nowMs = Math.max(time.nowMs, queue.peek().atMs);
            runReady();
        }
        time.nowMs = target;
        runReady();
    }
}
