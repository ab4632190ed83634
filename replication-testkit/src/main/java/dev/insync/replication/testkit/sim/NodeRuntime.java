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

import java.util.random.RandomGenerator;

/**
 * Runs the processes (nodes) of an in-process cluster: hands each node a {@link Scheduler} view
 * whose executors and timers are tagged with it, and can pause (SIGSTOP), resume (SIGCONT), kill
 * (kill -9) and start them. The network and the reference controller are written against this
 * interface, so they run unchanged on the deterministic {@link EventLoop} or on real threads.
 *
 * <p>Incarnations: every {@link #start} of a node begins a new incarnation. A view obtained from
 * {@link #forNode} belongs to the incarnation current at that moment; once that incarnation is
 * killed, nothing submitted through the view (or through executors it created) ever runs, so stale
 * callbacks of a dead process cannot act.
 */
public interface NodeRuntime {

    /** Lifecycle of a node. */
    enum NodeState {
        /** Running: its tasks run. */
        RUNNING,
        /** Stopped like SIGSTOP: its tasks and timers are held until it is resumed. */
        PAUSED,
        /** Killed and not started again: its tasks are dropped. */
        DOWN
    }

    /** The clock all nodes share. */
    Time time();

    /**
     * The shared random source. In the simulation it is the single seeded source (INV-6); callers
     * draw from it only inside tasks, so the order of draws is deterministic.
     */
    RandomGenerator random();

    /**
     * A scheduler view for the current incarnation of {@code node}. A node never seen before is
     * created in state {@link NodeState#RUNNING}.
     */
    Scheduler forNode(NodeId node);

    /** Current incarnation of {@code node} (0 for its first). */
    long incarnation(NodeId node);

    /** Current state of {@code node}. */
    NodeState state(NodeId node);

    /** SIGSTOP: holds every task and timer of {@code node}. Time keeps moving for the others. */
    void pause(NodeId node);

    /** SIGCONT: releases the held tasks in their original order, late. */
    void resume(NodeId node);

    /** kill -9: drops every pending task and timer of the current incarnation; the node is DOWN. */
    void kill(NodeId node);

    /** Starts a new incarnation of a DOWN node (a restart after {@link #kill}). */
    void start(NodeId node);
}
