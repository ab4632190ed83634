package dev.insync.replication.core.purgatory;

import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.core.time.Time;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Timer} over a hierarchical timing wheel, driven by an injected {@link Scheduler} instead
 * of a reaper thread (PRO-4: never polls). Whenever a bucket gets a new expiration it joins a due
 * queue; the timer keeps exactly one wake-up scheduled, at the earliest queued expiration, and
 * moves it earlier only when a new bucket expires sooner. A wake-up flushes every due bucket
 * (re-adding entries into finer wheels, collecting the due ones) and runs the due tasks on the
 * given executor. So the number of wake-ups is bounded by the number of distinct bucket
 * expirations, and nothing runs while no task is due.
 *
 * <p>Thread-safe: adds, cancels and wake-ups may come from any thread. Tasks that expire together
 * run in bucket order, then insertion order, which makes a single-threaded simulation repeatable.
 */
public final class TimingWheelTimer implements Timer {

    /** The finest tick: one millisecond, so tasks fire exactly at their deadline. */
    public static final long DEFAULT_TICK_MS = 1L;
    /** Buckets per wheel level (20 as in Kafka: levels of 20 ms, 400 ms, 8 s, 160 s, ...). */
    public static final int DEFAULT_WHEEL_SIZE = 20;
    /** Deadlines are capped here (about 146 million years) so wheel arithmetic cannot overflow. */
    static final long MAX_DEADLINE_MS = Long.MAX_VALUE / 4;

    private static final Logger log = LoggerFactory.getLogger(TimingWheelTimer.class);

    private final String name;
    private final Scheduler scheduler;
    private final Time time;
    private final Executor executor;
    private final ReentrantLock lock = new ReentrantLock();
    private final AtomicInteger taskCounter = new AtomicInteger();
    private final PriorityQueue<TimerTaskList> dueQueue = new PriorityQueue<>(
        Comparator.comparingLong(TimerTaskList::expirationMs).thenComparingLong(TimerTaskList::queueSeq));
    private final TimingWheel wheel;

    // Guarded by lock.
    private long bucketSeq;
    private long wakeupAtMs = Long.MAX_VALUE;
    private Scheduler.Cancellable wakeup;
    private long wakeupsScheduled;
    private boolean closed;

    /** A timer with {@link #DEFAULT_TICK_MS} and {@link #DEFAULT_WHEEL_SIZE}. */
    public TimingWheelTimer(String name, Scheduler scheduler, Executor executor) {
        this(name, scheduler, executor, DEFAULT_TICK_MS, DEFAULT_WHEEL_SIZE);
    }

    /**
     * @param name     names the timer in logs and errors (e.g. {@code ExpirationReaper-1-Produce})
     * @param scheduler schedules the wake-ups; its {@link Scheduler#time()} is the clock
     * @param executor runs wake-ups and expired tasks
     * @param tickMs   the finest tick; tasks fire at most {@code tickMs - 1} ms after their deadline
     * @param wheelSize buckets per level, at least 2
     */
    public TimingWheelTimer(String name, Scheduler scheduler, Executor executor, long tickMs, int wheelSize) {
        this.name = Objects.requireNonNull(name, "name");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler of timer " + name);
        this.executor = Objects.requireNonNull(executor, "executor of timer " + name);
        this.time = Objects.requireNonNull(scheduler.time(), "time of timer " + name);
        if (tickMs < 1) {
            throw new IllegalArgumentException("timer " + name + ": tickMs must be >= 1, got " + tickMs);
        }
        if (wheelSize < 2) {
            throw new IllegalArgumentException("timer " + name + ": wheelSize must be >= 2, got " + wheelSize);
        }
        this.wheel = new TimingWheel(tickMs, wheelSize, tickMs - 1, monotonicMs(), taskCounter,
            this::enqueueBucket);
    }

    @Override
    public void add(TimerTask task) {
        Objects.requireNonNull(task, "task");
        long nowMs = monotonicMs();
        long deadlineMs = nowMs > MAX_DEADLINE_MS - task.delayMs() ? MAX_DEADLINE_MS : nowMs + task.delayMs();
        TimerTaskEntry entry = new TimerTaskEntry(task, deadlineMs, lock);
        task.bind(entry);
        boolean placed;
        lock.lock();
        try {
            if (closed) {
                task.cancel();
                throw new IllegalStateException("timer " + name + " is closed");
            }
            catchUp(nowMs);
            placed = wheel.add(entry);
            if (placed) {
                maybeScheduleWakeup(nowMs);
            }
        } finally {
            lock.unlock();
        }
        if (!placed && !entry.cancelled()) {
            executor.execute(task);
        }
    }

    @Override
    public int size() {
        return taskCounter.get();
    }

    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            if (wakeup != null) {
                wakeup.cancel();
                wakeup = null;
            }
            wakeupAtMs = Long.MAX_VALUE;
        } finally {
            lock.unlock();
        }
    }

    /** How many wake-ups this timer has asked its scheduler for (bounded by bucket expirations). */
    public long wakeupsScheduled() {
        lock.lock();
        try {
            return wakeupsScheduled;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "TimingWheelTimer(" + name + ", size=" + size() + ")";
    }

    /**
     * Moves the wheel to {@code nowMs} when no bucket is due yet, so new tasks land in the finest
     * wheel. Safe only then: advancing past a pending bucket's expiration would let a new entry
     * share its slot.
     */
    private void catchUp(long nowMs) {
        TimerTaskList head = dueQueue.peek();
        if (head == null || head.expirationMs() > nowMs) {
            wheel.advanceClock(nowMs);
        }
    }

    /**
     * Deadlines are on the monotonic clock, as Kafka's {@code SystemTimer} keeps them
     * ({@code hiResClockMs}): a wall clock stepped back must not hold acks=all requests past their
     * timeout (PRO-5), nor one stepped forward expire them early.
     */
    private long monotonicMs() {
        return time.nanoseconds() / 1_000_000L;
    }

    private void enqueueBucket(TimerTaskList bucket) {
        bucket.queueSeq(bucketSeq++);
        dueQueue.add(bucket);
    }

    private void maybeScheduleWakeup(long nowMs) {
        TimerTaskList head = dueQueue.peek();
        if (head == null || closed || head.expirationMs() >= wakeupAtMs) {
            return;
        }
        if (wakeup != null) {
            wakeup.cancel();
        }
        long targetMs = head.expirationMs();
        wakeupAtMs = targetMs;
        wakeupsScheduled++;
        wakeup = scheduler.schedule(executor, () -> onWakeup(targetMs), Math.max(0L, targetMs - nowMs));
    }

    /** Flushes every due bucket, then runs the due tasks outside the lock. */
    private void onWakeup(long targetMs) {
        List<TimerTask> expired = new ArrayList<>();
        lock.lock();
        try {
            if (closed) {
                return;
            }
            if (wakeupAtMs == targetMs) {
                wakeupAtMs = Long.MAX_VALUE;
                wakeup = null;
            }
            long nowMs = monotonicMs();
            TimerTaskList bucket;
            while ((bucket = dueQueue.peek()) != null && bucket.expirationMs() <= nowMs) {
                dueQueue.poll();
                wheel.advanceClock(bucket.expirationMs());
                bucket.flush(entry -> {
                    if (!wheel.add(entry) && !entry.cancelled()) {
                        expired.add(entry.task);
                    }
                });
            }
            maybeScheduleWakeup(nowMs);
        } finally {
            lock.unlock();
        }
        for (TimerTask task : expired) {
            try {
                task.run();
            } catch (RuntimeException e) {
                log.error("Timer {}: expired task {} failed", name, task, e);
            }
        }
    }
}
