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

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.random.RandomGenerator;
import java.util.stream.Collectors;

/**
 * The deterministic simulator: one event queue ordered by (virtual time, sequence number), one
 * seeded random source, no threads and no sleeps. Virtual time jumps to the next event. Every
 * event is tagged with a {@link NodeId} and the incarnation that submitted it, which gives the
 * process faults of the seed's experiments (contract §10):
 * <ul>
 *   <li>{@link #pause}: events of the node are held (not run) when their time comes; time moves on
 *       for the others, and messages to it queue;</li>
 *   <li>{@link #resume}: held events run next, in their original order, late;</li>
 *   <li>{@link #kill}: every pending and held event of the node is dropped, and anything submitted
 *       later through a view or executor of the dead incarnation is dropped too.</li>
 * </ul>
 * The same seed and the same inputs give the same execution, event for event (INV-6):
 * {@link #traceHash()} folds every executed event (time, sequence, node, label) into a hash that
 * two runs can compare, and {@link #recentTrace()} shows the last events for diagnosis.
 *
 * <p>Everything is bounded (TigerBeetle style): events per run call, events at one virtual instant
 * (a livelock never lets time move) and pending events; exceeding a bound throws
 * {@link SimulationRunawayException}. A task that throws stops the run with a
 * {@link SimulationTaskException} unless {@link Builder#failOnTaskException(boolean)} is false.
 *
 * <p>Not thread-safe: the loop and everything on it run on the caller's thread. Tests may call
 * into components between run calls.
 */
public final class EventLoop implements NodeRuntime {

    /** Default bound on events executed by one run call. */
    public static final long DEFAULT_MAX_EVENTS_PER_RUN = 20_000_000L;
    /** Default bound on consecutive events at one virtual instant. */
    public static final long DEFAULT_MAX_EVENTS_AT_ONE_INSTANT = 200_000L;
    /** Default bound on pending (queued plus held) events. */
    public static final int DEFAULT_MAX_PENDING_EVENTS = 2_000_000;
    /** How many recent events {@link #recentTrace()} keeps. */
    public static final int RECENT_TRACE_SIZE = 64;

    private static final Logger log = LoggerFactory.getLogger(EventLoop.class);
    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    private final long seed;
    private final SplittableRandom random;
    private final SimulatedTime time;
    private final long maxEventsPerRun;
    private final long maxEventsAtOneInstant;
    private final int maxPendingEvents;
    private final boolean failOnTaskException;

    private final PriorityQueue<Event> queue = new PriorityQueue<>(
            Comparator.comparingLong((Event e) -> e.timeMs).thenComparingLong(e -> e.seq));
    private final Map<NodeId, Slot> nodes = new TreeMap<>();
    private final Map<NodeId, NodeScheduler> views = new HashMap<>();
    private final ArrayDeque<String> recentTrace = new ArrayDeque<>(RECENT_TRACE_SIZE);
    private final List<SimulationTaskException> taskFailures = new ArrayList<>();

    private long nextSeq;
    private long traceHash = FNV_OFFSET;
    private long eventsExecuted;
    private long eventsDropped;
    private long heldCount;
    private long instantMs = -1;
    private long eventsAtInstant;
    private boolean running;
    private NodeId currentNode;
    private TraceListener traceListener;

    private EventLoop(Builder builder) {
        this.seed = builder.seed;
        this.random = new SplittableRandom(builder.seed);
        this.time = new SimulatedTime(builder.startWallClockMs);
        this.maxEventsPerRun = builder.maxEventsPerRun;
        this.maxEventsAtOneInstant = builder.maxEventsAtOneInstant;
        this.maxPendingEvents = builder.maxPendingEvents;
        this.failOnTaskException = builder.failOnTaskException;
    }

    /** A loop with default bounds and seed {@code seed}. */
    public static EventLoop withSeed(long seed) {
        return builder().seed(seed).build();
    }

    /** Configures a loop. */
    public static Builder builder() {
        return new Builder();
    }

    // ---------------------------------------------------------------- NodeRuntime

    @Override
    public SimulatedTime time() {
        return time;
    }

    /** The single seeded random source; draw from it only inside tasks or between runs. */
    @Override
    public RandomGenerator random() {
        return random;
    }

    /** The seed this loop was built with. */
    public long seed() {
        return seed;
    }

    /** Milliseconds of virtual time since the start (the unit of event times). */
    public long nowMs() {
        return time.elapsedMs();
    }

    @Override
    public NodeScheduler forNode(NodeId node) {
        Slot slot = slot(node);
        NodeScheduler view = views.get(node);
        if (view == null || view.incarnation() != slot.incarnation) {
            view = new NodeScheduler(this, node, slot.incarnation);
            views.put(node, view);
        }
        return view;
    }

    @Override
    public long incarnation(NodeId node) {
        return slot(node).incarnation;
    }

    @Override
    public NodeState state(NodeId node) {
        return slot(node).state;
    }

    /** Nodes known to the loop, in {@link NodeId} order. */
    public List<NodeId> nodes() {
        return List.copyOf(nodes.keySet());
    }

    /**
     * Jumps {@code node}'s wall clock ({@code Time.milliseconds()} of its schedulers) by
     * {@code deltaMs}, forward or back, as NTP stepping a machine's clock does. Its monotonic clock
     * ({@code Time.nanoseconds()}), its timers and everybody else's clocks are unaffected.
     *
     * @throws IllegalArgumentException if the wall clock would go below 0
     */
    public void jumpClock(NodeId node, long deltaMs) {
        Slot slot = slot(node);
        long offset = Math.addExact(slot.clockOffsetMs, deltaMs);
        if (time.milliseconds() + offset < 0) {
            throw new IllegalArgumentException("Clock jump of " + deltaMs + " ms would put " + node
                    + "'s wall clock before the epoch");
        }
        slot.clockOffsetMs = offset;
        log.debug("t={} ms: {}'s wall clock jumped by {} ms (offset now {} ms)", nowMs(), node, deltaMs, offset);
    }

    /** How far {@code node}'s wall clock is from the loop's ({@link #jumpClock}); 0 unless jumped. */
    public long clockOffsetMs(NodeId node) {
        return slot(node).clockOffsetMs;
    }

    /** {@code node}'s clock: its wall clock with its offset, the shared monotonic clock. */
    Time clockOf(NodeId node) {
        Slot slot = slot(node);
        if (slot.clock == null) {
            slot.clock = new NodeClock(time, slot);
        }
        return slot.clock;
    }

    @Override
    public void pause(NodeId node) {
        Slot slot = slot(node);
        if (slot.state != NodeState.RUNNING) {
            throw new IllegalStateException("Cannot pause " + node + ": it is " + slot.state);
        }
        slot.state = NodeState.PAUSED;
        log.debug("t={} ms: paused {}", nowMs(), node);
    }

    @Override
    public void resume(NodeId node) {
        Slot slot = slot(node);
        if (slot.state != NodeState.PAUSED) {
            throw new IllegalStateException("Cannot resume " + node + ": it is " + slot.state);
        }
        slot.state = NodeState.RUNNING;
        // Held events keep their original (time, seq) keys, which are all at or before now, so
        // they run before anything else and in the order they would have run: late, in order.
        heldCount -= slot.held.size();
        queue.addAll(slot.held);
        slot.held.clear();
        log.debug("t={} ms: resumed {}", nowMs(), node);
    }

    @Override
    public void kill(NodeId node) {
        Slot slot = slot(node);
        if (slot.state == NodeState.DOWN) {
            throw new IllegalStateException("Cannot kill " + node + ": it is already DOWN");
        }
        slot.incarnation++;
        slot.state = NodeState.DOWN;
        heldCount -= slot.held.size();
        eventsDropped += slot.held.size();
        slot.held.clear();
        // Queued events of the old incarnation are dropped lazily when they come up (stale).
        log.debug("t={} ms: killed {}", nowMs(), node);
    }

    @Override
    public void start(NodeId node) {
        Slot slot = slot(node);
        if (slot.state != NodeState.DOWN) {
            throw new IllegalStateException("Cannot start " + node + ": it is " + slot.state + ", not DOWN");
        }
        slot.incarnation++;
        slot.state = NodeState.RUNNING;
        log.debug("t={} ms: started {} incarnation {}", nowMs(), node, slot.incarnation);
    }

    // ---------------------------------------------------------------- running

    /**
     * Runs the next event, if any. Returns false when nothing is pending (held events of paused
     * nodes do not count).
     */
    public boolean step() {
        guardReentry();
        running = true;
        try {
            return stepOnce();
        } finally {
            running = false;
        }
    }

    /**
     * Runs events until {@code condition} holds (checked before every event), virtual time would
     * pass {@code timeoutMs} from now, or nothing is pending. On timeout, time is advanced to the
     * deadline.
     *
     * @return whether the condition holds
     */
    public boolean runUntil(BooleanSupplier condition, long timeoutMs) {
        requireNonNegative(timeoutMs, "timeout");
        long deadline = Math.addExact(nowMs(), timeoutMs);
        return run(condition, deadline, true);
    }

    /**
     * Runs events until {@code condition} holds, with no virtual-time limit; only the event bounds
     * stop a condition that never becomes true while periodic tasks keep the queue busy.
     *
     * @return whether the condition holds (false if the queue ran empty first)
     */
    public boolean runUntil(BooleanSupplier condition) {
        return run(condition, Long.MAX_VALUE, false);
    }

    /** Runs every event up to {@code ms} from now, then sets the time to exactly that. */
    public void runFor(long ms) {
        requireNonNegative(ms, "duration");
        runUntilTime(Math.addExact(nowMs(), ms));
    }

    /** Runs every event up to elapsed time {@code elapsedMs}, then sets the time to it. */
    public void runUntilTime(long elapsedMs) {
        if (elapsedMs < nowMs()) {
            throw new IllegalArgumentException("Cannot run until " + elapsedMs + " ms: it is already " + nowMs() + " ms");
        }
        run(() -> false, elapsedMs, true);
    }

    /**
     * Runs until nothing is pending. With periodic tasks the queue is never empty, so this ends in
     * a {@link SimulationRunawayException}; use it only for finite work.
     */
    public void runUntilIdle() {
        run(() -> false, Long.MAX_VALUE, false);
    }

    private boolean run(BooleanSupplier condition, long deadlineMs, boolean advanceToDeadline) {
        guardReentry();
        running = true;
        try {
            long executedAtStart = eventsExecuted + eventsDropped;
            while (!condition.getAsBoolean()) {
                Event next = peekLive();
                if (next == null || next.timeMs > deadlineMs) {
                    if (advanceToDeadline && deadlineMs != Long.MAX_VALUE && deadlineMs > nowMs()) {
                        time.advanceTo(deadlineMs);
                    }
                    return condition.getAsBoolean();
                }
                if (eventsExecuted + eventsDropped - executedAtStart >= maxEventsPerRun) {
                    throw runaway("more than " + maxEventsPerRun + " events in one run");
                }
                stepOnce();
            }
            return true;
        } finally {
            running = false;
        }
    }

    private Event peekLive() {
        Event head = queue.peek();
        while (head != null && head.cancelled) {
            queue.poll();
            head = queue.peek();
        }
        return head;
    }

    private boolean stepOnce() {
        Event event = peekLive();
        if (event == null) {
            return false;
        }
        queue.poll();
        if (event.timeMs > nowMs()) {
            time.advanceTo(event.timeMs);
        }
        Slot slot = slot(event.node);
        if (event.incarnation != slot.incarnation || slot.state == NodeState.DOWN) {
            eventsDropped++;
            return true;
        }
        if (slot.state == NodeState.PAUSED) {
            slot.held.add(event);
            heldCount++;
            return true;
        }
        countInstant();
        execute(event);
        return true;
    }

    private void countInstant() {
        if (nowMs() != instantMs) {
            instantMs = nowMs();
            eventsAtInstant = 0;
        }
        if (++eventsAtInstant > maxEventsAtOneInstant) {
            throw runaway("more than " + maxEventsAtOneInstant + " events at one virtual instant (livelock?)");
        }
    }

    private void execute(Event event) {
        eventsExecuted++;
        traceHash = mix(mix(mix(mix(traceHash, event.timeMs), event.seq), event.node.toString().hashCode()),
                event.label.hashCode());
        if (recentTrace.size() == RECENT_TRACE_SIZE) {
            recentTrace.removeFirst();
        }
        recentTrace.addLast(event.timeMs + " " + event.node + " " + event.label);
        if (traceListener != null) {
            traceListener.onEvent(event.timeMs, event.seq, event.node, event.label);
        }
        currentNode = event.node;
        try {
            event.task.run();
        } catch (RuntimeException | AssertionError e) {
            SimulationTaskException failure = new SimulationTaskException(event.node, event.label, event.timeMs, e);
            if (failOnTaskException) {
                throw failure;
            }
            log.warn("{}", failure.getMessage(), e);
            taskFailures.add(failure);
        } finally {
            currentNode = null;
        }
    }

    private static long mix(long hash, long value) {
        long h = hash;
        for (int i = 0; i < 8; i++) {
            h ^= (value >>> (8 * i)) & 0xff;
            h *= FNV_PRIME;
        }
        return h;
    }

    private void guardReentry() {
        if (running) {
            throw new IllegalStateException("The event loop is already running (a task called run/step at "
                    + nowMs() + " ms on " + currentNode + ")");
        }
    }

    private SimulationRunawayException runaway(String what) {
        Map<String, Long> labels = recentTrace.stream()
                .map(line -> line.substring(line.indexOf(' ') + 1))
                .collect(Collectors.groupingBy(l -> l, TreeMap::new, Collectors.counting()));
        String top = labels.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(5)
                .map(e -> e.getKey() + " x" + e.getValue())
                .collect(Collectors.joining(", "));
        return new SimulationRunawayException("Simulation runaway (seed " + seed + "): " + what + " at virtual time "
                + nowMs() + " ms; pending " + pendingEvents() + "; most frequent recent events: " + top);
    }

    private static void requireNonNegative(long ms, String what) {
        if (ms < 0) {
            throw new IllegalArgumentException("Negative " + what + " " + ms + " ms");
        }
    }

    // ---------------------------------------------------------------- submission (package-private)

    /**
     * Enqueues {@code task} for the given node incarnation at elapsed time {@code atMs}. A stale
     * incarnation or a DOWN node gets a cancelled no-op handle: the dead process does nothing.
     */
    Event enqueue(NodeId node, long incarnation, String label, long atMs, Runnable task) {
        Slot slot = slot(node);
        Event event = new Event(Math.max(atMs, nowMs()), nextSeq++, node, incarnation, label, task);
        if (incarnation != slot.incarnation || slot.state == NodeState.DOWN) {
            eventsDropped++;
            event.cancelled = true;
            return event;
        }
        if (pendingEvents() >= maxPendingEvents) {
            throw runaway("more than " + maxPendingEvents + " pending events");
        }
        queue.add(event);
        return event;
    }

    private Slot slot(NodeId node) {
        return nodes.computeIfAbsent(node, n -> new Slot());
    }

    // ---------------------------------------------------------------- observation

    /** Hash over every executed event so far; equal for two runs with the same seed and inputs (INV-6). */
    public long traceHash() {
        return traceHash;
    }

    /** The last {@link #RECENT_TRACE_SIZE} executed events as {@code "<ms> <node> <label>"}. */
    public List<String> recentTrace() {
        return List.copyOf(recentTrace);
    }

    /**
     * Sees every executed event before it runs (null to stop): record full traces to find where two
     * runs of one seed diverge (INV-6).
     */
    public void setTraceListener(TraceListener listener) {
        this.traceListener = listener;
    }

    /** Receives executed events in order. */
    @FunctionalInterface
    public interface TraceListener {
        /** One event: its virtual time, sequence number, node and label (the executor's name). */
        void onEvent(long timeMs, long seq, NodeId node, String label);
    }

    /** Events executed so far. */
    public long eventsExecuted() {
        return eventsExecuted;
    }

    /** Events dropped because their node was killed. */
    public long eventsDropped() {
        return eventsDropped;
    }

    /** Events queued (including cancelled ones not yet discarded) plus events held by paused nodes. */
    public long pendingEvents() {
        return queue.size() + heldCount;
    }

    /** Events held for {@code node} while it is paused. */
    public int heldEvents(NodeId node) {
        return slot(node).held.size();
    }

    /** The node whose task is running now, or null between events. */
    public NodeId currentNode() {
        return currentNode;
    }

    /** Task failures recorded when {@link Builder#failOnTaskException(boolean)} is false. */
    public List<SimulationTaskException> taskFailures() {
        return List.copyOf(taskFailures);
    }

    /** One queued task. Also its own cancellation handle. */
    static final class Event implements Scheduler.Cancellable {
        final long timeMs;
        final long seq;
        final NodeId node;
        final long incarnation;
        final String label;
        final Runnable task;
        boolean cancelled;

        Event(long timeMs, long seq, NodeId node, long incarnation, String label, Runnable task) {
            this.timeMs = timeMs;
            this.seq = seq;
            this.node = node;
            this.incarnation = incarnation;
            this.label = label;
            this.task = task;
        }

        @Override
        public void cancel() {
            cancelled = true;
        }
    }

    private static final class Slot {
        long incarnation;
        NodeState state = NodeState.RUNNING;
        final ArrayDeque<Event> held = new ArrayDeque<>();
        /** How far this node's wall clock is from the loop's; survives restarts (it is the machine's clock). */
        long clockOffsetMs;
        NodeClock clock;
    }

    /**
     * A node's clock: the loop's virtual time, with the node's wall clock shifted by its offset and
     * the monotonic clock shared (a wall-clock jump never moves {@link #nanoseconds()}).
     */
    private static final class NodeClock implements Time {
        private final SimulatedTime base;
        private final Slot slot;

        NodeClock(SimulatedTime base, Slot slot) {
            this.base = base;
            this.slot = slot;
        }

        @Override
        public long milliseconds() {
            return base.milliseconds() + slot.clockOffsetMs;
        }

        @Override
        public long nanoseconds() {
            return base.nanoseconds();
        }
    }

    /** Configuration of an {@link EventLoop}. */
    public static final class Builder {
        private long seed;
        private long startWallClockMs = SimulatedTime.DEFAULT_START_WALL_CLOCK_MS;
        private long maxEventsPerRun = DEFAULT_MAX_EVENTS_PER_RUN;
        private long maxEventsAtOneInstant = DEFAULT_MAX_EVENTS_AT_ONE_INSTANT;
        private int maxPendingEvents = DEFAULT_MAX_PENDING_EVENTS;
        private boolean failOnTaskException = true;

        private Builder() {
        }

        /** The seed of the single random source. */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** Wall-clock milliseconds at elapsed time 0. */
        public Builder startWallClockMs(long startWallClockMs) {
            this.startWallClockMs = startWallClockMs;
            return this;
        }

        /** Bound on events executed by one run call. */
        public Builder maxEventsPerRun(long max) {
            this.maxEventsPerRun = requirePositive(max, "maxEventsPerRun");
            return this;
        }

        /** Bound on consecutive events at one virtual instant. */
        public Builder maxEventsAtOneInstant(long max) {
            this.maxEventsAtOneInstant = requirePositive(max, "maxEventsAtOneInstant");
            return this;
        }

        /** Bound on pending events. */
        public Builder maxPendingEvents(int max) {
            this.maxPendingEvents = (int) requirePositive(max, "maxPendingEvents");
            return this;
        }

        /** Whether a throwing task stops the run (default) or is only logged and recorded. */
        public Builder failOnTaskException(boolean fail) {
            this.failOnTaskException = fail;
            return this;
        }

        /** Builds the loop. */
        public EventLoop build() {
            return new EventLoop(this);
        }

        private static long requirePositive(long value, String name) {
            if (value <= 0) {
                throw new IllegalArgumentException(name + " must be positive, got " + value);
            }
            return value;
        }
    }
}
