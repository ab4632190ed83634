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

import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * The {@link Scheduler} one node incarnation sees in the simulation. Its serial executors enqueue
 * on the shared {@link EventLoop} at the current virtual time, its timers at a future virtual time,
 * and everything is tagged with the node, so that a paused broker's fetchers, purgatory timers
 * and periodic tasks all stop with it. Obtain one with {@link EventLoop#forNode(NodeId)}; after the
 * node is killed, this view and its executors are dead and silently drop whatever they are given.
 */
public final class NodeScheduler implements Scheduler {

    private final EventLoop loop;
    private final NodeId node;
    private final long incarnation;
    /** The node's clock, looked up once: components read the time on every step. */
    private final Time clock;

    NodeScheduler(EventLoop loop, NodeId node, long incarnation) {
        this.loop = loop;
        this.node = node;
        this.incarnation = incarnation;
        this.clock = loop.clockOf(node);
    }

    /** The node this view belongs to. */
    public NodeId node() {
        return node;
    }

    /** The incarnation this view belongs to. */
    public long incarnation() {
        return incarnation;
    }

    /** Whether the incarnation of this view is the node's current one (it has not been killed since). */
    public boolean isCurrent() {
        return loop.incarnation(node) == incarnation && loop.state(node) != NodeRuntime.NodeState.DOWN;
    }

    @Override
    public Cancellable schedule(Executor executor, Runnable task, long delayMs) {
        Objects.requireNonNull(task, "task");
        if (delayMs < 0) {
            throw new IllegalArgumentException("Negative delay " + delayMs + " ms for a task of " + node);
        }
        long at = Math.addExact(loop.nowMs(), delayMs);
        if (executor instanceof SimExecutor sim) {
            // Our own executor: the timer event is the task itself, tagged with the executor's node.
            return loop.enqueue(sim.node(), sim.incarnation(), sim.name(), at, task);
        }
        return loop.enqueue(node, incarnation, "timer", at, () -> executor.execute(task));
    }

    @Override
    public Cancellable schedulePeriodically(Executor executor, Runnable task, long initialDelayMs, long periodMs) {
        Objects.requireNonNull(task, "task");
        if (initialDelayMs < 0 || periodMs <= 0) {
            throw new IllegalArgumentException("Invalid periodic schedule for a task of " + node + ": initial delay "
                    + initialDelayMs + " ms, period " + periodMs + " ms");
        }
        Periodic periodic = new Periodic(executor, task, periodMs);
        periodic.scheduleAt(Math.addExact(loop.nowMs(), initialDelayMs));
        return periodic;
    }

    @Override
    public Executor newSerialExecutor(String name) {
        Objects.requireNonNull(name, "name");
        return new SimExecutor(loop, node, incarnation, name);
    }

    /** The node's clock: its own wall clock (see {@link EventLoop#jumpClock}), the loop's monotonic clock. */
    @Override
    public Time time() {
        return clock;
    }

    @Override
    public String toString() {
        return "NodeScheduler(" + node + ", incarnation " + incarnation + ")";
    }

    /**
     * A periodic task. Runs on the virtual-time grid {@code first + k * period}; runs missed while
     * the node was paused are not replayed in a burst: after a late run the next one is the next
     * grid point after now.
     */
    private final class Periodic implements Cancellable {
        private final Executor executor;
        private final Runnable task;
        private final long periodMs;
        private Cancellable current;
        private long scheduledAtMs;
        private boolean cancelled;

        Periodic(Executor executor, Runnable task, long periodMs) {
            this.executor = executor;
            this.task = task;
            this.periodMs = periodMs;
        }

        void scheduleAt(long atMs) {
            scheduledAtMs = atMs;
            Runnable tick = () -> {
                if (cancelled) {
                    return;
                }
                task.run();
                if (!cancelled) {
                    long next = scheduledAtMs + periodMs;
                    long now = loop.nowMs();
                    if (next <= now) {
                        next += ((now - next) / periodMs + 1) * periodMs;
                    }
                    scheduleAt(next);
                }
            };
            if (executor instanceof SimExecutor sim) {
                current = loop.enqueue(sim.node(), sim.incarnation(), sim.name(), atMs, tick);
            } else {
                current = loop.enqueue(node, incarnation, "timer", atMs, () -> executor.execute(tick));
            }
        }

        @Override
        public void cancel() {
            cancelled = true;
            if (current != null) {
                current.cancel();
            }
        }
    }

    /** A serial executor of one node incarnation: each task is an event at the current virtual time. */
    static final class SimExecutor implements Executor {
        private final EventLoop loop;
        private final NodeId node;
        private final long incarnation;
        private final String name;

        SimExecutor(EventLoop loop, NodeId node, long incarnation, String name) {
            this.loop = loop;
            this.node = node;
            this.incarnation = incarnation;
            this.name = name;
        }

        NodeId node() {
            return node;
        }

        long incarnation() {
            return incarnation;
        }

        String name() {
            return name;
        }

        @Override
        public void execute(Runnable command) {
            Objects.requireNonNull(command, "command");
            loop.enqueue(node, incarnation, name, loop.nowMs(), command);
        }

        @Override
        public String toString() {
            return name + "@" + node + "#" + incarnation;
        }
    }
}
