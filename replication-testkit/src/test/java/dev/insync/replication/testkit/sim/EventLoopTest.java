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
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EventLoopTest {

    private static final NodeId B1 = NodeId.broker(1);
    private static final NodeId B2 = NodeId.broker(2);

    private final EventLoop loop = EventLoop.withSeed(7);
    private final List<String> ran = new ArrayList<>();

    @Test
    @DisplayName("events run ordered by virtual time, then by submission order at equal times")
    void ordersByTimeThenSequence() {
        Scheduler s1 = loop.forNode(B1);
        Scheduler s2 = loop.forNode(B2);
        Executor e1 = s1.newSerialExecutor("a");
        Executor e2 = s2.newSerialExecutor("b");
        s1.schedule(e1, () -> ran.add("t30"), 30);
        s2.schedule(e2, () -> ran.add("t10-first"), 10);
        s1.schedule(e1, () -> ran.add("t10-second"), 10);
        e2.execute(() -> ran.add("now"));

        loop.runUntilIdle();

        assertThat(ran).containsExactly("now", "t10-first", "t10-second", "t30");
        assertThat(loop.nowMs()).isEqualTo(30);
    }

    @Test
    @DisplayName("virtual time jumps to the next event and runFor lands exactly on its end")
    void timeJumps() {
        Scheduler s = loop.forNode(B1);
        List<Long> seen = new ArrayList<>();
        s.schedule(s.newSerialExecutor("x"), () -> seen.add(loop.nowMs()), 5_000);

        loop.runFor(4_999);
        assertThat(seen).isEmpty();
        assertThat(loop.nowMs()).isEqualTo(4_999);
        loop.runFor(10_000);
        assertThat(seen).containsExactly(5_000L);
        assertThat(loop.nowMs()).isEqualTo(14_999);
        assertThat(loop.time().milliseconds()).isEqualTo(SimulatedTime.DEFAULT_START_WALL_CLOCK_MS + 14_999);
        assertThat(loop.time().nanoseconds()).isEqualTo(14_999L * 1_000_000L);
    }

    @Test
    @DisplayName("a clock jump moves only that node's wall clock: its monotonic clock, its timers and other nodes stay")
    void clockJumpIsPerNodeAndWallOnly() {
        Scheduler s1 = loop.forNode(B1);
        Scheduler s2 = loop.forNode(B2);
        List<Long> fired = new ArrayList<>();
        s1.schedule(s1.newSerialExecutor("x"), () -> fired.add(loop.nowMs()), 1_000);
        loop.runFor(100);
        long wall = s2.time().milliseconds();

        loop.jumpClock(B1, -60_000);

        assertThat(s1.time().milliseconds()).isEqualTo(wall - 60_000);
        assertThat(s1.time().nanoseconds()).isEqualTo(s2.time().nanoseconds()).isEqualTo(100L * 1_000_000L);
        assertThat(s2.time().milliseconds()).isEqualTo(wall);
        assertThat(loop.clockOffsetMs(B1)).isEqualTo(-60_000);
        loop.runFor(900);
        assertThat(fired).as("a timer is on the monotonic clock").containsExactly(1_000L);
        // The machine's clock survives a restart of the process.
        loop.kill(B1);
        loop.start(B1);
        assertThat(loop.forNode(B1).time().milliseconds()).isEqualTo(loop.time().milliseconds() - 60_000);
        loop.jumpClock(B1, 60_000);
        assertThat(loop.forNode(B1).time().milliseconds()).isEqualTo(loop.time().milliseconds());
        assertThatThrownBy(() -> loop.jumpClock(B2, -loop.time().milliseconds() - 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("broker-2");
    }

    @Test
    @DisplayName("periodic tasks run on their grid and stop when cancelled")
    void periodic() {
        Scheduler s = loop.forNode(B1);
        List<Long> seen = new ArrayList<>();
        Scheduler.Cancellable handle = s.schedulePeriodically(s.newSerialExecutor("tick"), () -> seen.add(loop.nowMs()), 100, 250);
        loop.runFor(900);
        assertThat(seen).containsExactly(100L, 350L, 600L, 850L);
        handle.cancel();
        loop.runFor(1_000);
        assertThat(seen).hasSize(4);
    }

    @Test
    @DisplayName("pause holds a node's tasks and timers while others run; resume releases them in order, late")
    void pauseAndResume() {
        Scheduler s1 = loop.forNode(B1);
        Scheduler s2 = loop.forNode(B2);
        Executor e1 = s1.newSerialExecutor("fetcher");
        Executor e2 = s2.newSerialExecutor("other");
        s1.schedule(e1, () -> ran.add("b1@" + loop.nowMs() + "-a"), 10);
        s1.schedule(e1, () -> ran.add("b1@" + loop.nowMs() + "-b"), 20);
        s2.schedule(e2, () -> ran.add("b2@" + loop.nowMs()), 15);
        loop.pause(B1);
        e1.execute(() -> ran.add("b1@" + loop.nowMs() + "-c"));

        loop.runFor(1_000);
        assertThat(ran).containsExactly("b2@15");
        assertThat(loop.heldEvents(B1)).isEqualTo(3);

        s2.schedule(e2, () -> ran.add("b2@" + loop.nowMs()), 0);
        loop.resume(B1);
        loop.runFor(0);
        // Held tasks run before anything new, in their original order (c was submitted at t=0).
        assertThat(ran).containsExactly("b2@15", "b1@1000-c", "b1@1000-a", "b1@1000-b", "b2@1000");
    }

    @Test
    @DisplayName("a periodic task of a paused node runs once on resume, not in a burst")
    void periodicWhilePaused() {
        Scheduler s = loop.forNode(B1);
        List<Long> seen = new ArrayList<>();
        s.schedulePeriodically(s.newSerialExecutor("isr-expiration"), () -> seen.add(loop.nowMs()), 2_500, 2_500);
        loop.pause(B1);
        loop.runFor(12_000);
        assertThat(seen).isEmpty();
        loop.resume(B1);
        loop.runFor(3_000);
        assertThat(seen).containsExactly(12_000L, 12_500L, 15_000L);
    }

    @Test
    @DisplayName("kill drops pending tasks and timers, and stale-incarnation callbacks never run")
    void killDropsAndFencesStaleIncarnation() {
        Scheduler old = loop.forNode(B1);
        Executor oldExecutor = old.newSerialExecutor("fetcher");
        old.schedule(oldExecutor, () -> ran.add("old-timer"), 10);
        old.schedulePeriodically(oldExecutor, () -> ran.add("old-periodic"), 5, 5);
        oldExecutor.execute(() -> ran.add("old-task"));

        loop.kill(B1);
        assertThat(loop.state(B1)).isEqualTo(NodeRuntime.NodeState.DOWN);
        oldExecutor.execute(() -> ran.add("while-down"));
        loop.runFor(100);
        assertThat(ran).isEmpty();

        loop.start(B1);
        Scheduler fresh = loop.forNode(B1);
        assertThat(fresh).isNotSameAs(old);
        assertThat(((NodeScheduler) old).isCurrent()).isFalse();
        // A closure of the dead incarnation submits again after the restart: dropped.
        oldExecutor.execute(() -> ran.add("stale-closure"));
        old.schedule(oldExecutor, () -> ran.add("stale-timer"), 1);
        fresh.newSerialExecutor("fetcher").execute(() -> ran.add("new-task"));
        loop.runFor(100);
        assertThat(ran).containsExactly("new-task");
        assertThat(loop.incarnation(B1)).isEqualTo(2);
    }

    @Test
    @DisplayName("kill of a paused node drops its held tasks")
    void killPaused() {
        Scheduler s = loop.forNode(B1);
        s.newSerialExecutor("x").execute(() -> ran.add("held"));
        loop.pause(B1);
        loop.runFor(10);
        assertThat(loop.heldEvents(B1)).isEqualTo(1);
        loop.kill(B1);
        loop.start(B1);
        loop.runFor(10);
        assertThat(ran).isEmpty();
        assertThat(loop.pendingEvents()).isZero();
    }

    @Test
    @DisplayName("a task resubmitting itself at the same instant is reported as a runaway with its label")
    void runawayAtOneInstant() {
        EventLoop bounded = EventLoop.builder().seed(1).maxEventsAtOneInstant(1_000).build();
        Executor spin = bounded.forNode(B1).newSerialExecutor("spinner");
        Runnable[] self = new Runnable[1];
        self[0] = () -> spin.execute(self[0]);
        spin.execute(self[0]);

        assertThatThrownBy(() -> bounded.runFor(10))
                .isInstanceOf(SimulationRunawayException.class)
                .hasMessageContaining("one virtual instant")
                .hasMessageContaining("broker-1 spinner");
    }

    @Test
    @DisplayName("a run is bounded in events even when time moves")
    void runawayInEvents() {
        EventLoop bounded = EventLoop.builder().seed(1).maxEventsPerRun(500).build();
        Scheduler s = bounded.forNode(B1);
        s.schedulePeriodically(s.newSerialExecutor("tick"), () -> { }, 1, 1);
        assertThatThrownBy(() -> bounded.runUntil(() -> false))
                .isInstanceOf(SimulationRunawayException.class)
                .hasMessageContaining("more than 500 events");
    }

    @Test
    @DisplayName("runUntil stops as soon as the condition holds and reports a timeout otherwise")
    void runUntil() {
        Scheduler s = loop.forNode(B1);
        AtomicInteger ticks = new AtomicInteger();
        s.schedulePeriodically(s.newSerialExecutor("tick"), ticks::incrementAndGet, 10, 10);
        assertThat(loop.runUntil(() -> ticks.get() == 3, 1_000)).isTrue();
        assertThat(loop.nowMs()).isEqualTo(30);
        assertThat(loop.runUntil(() -> ticks.get() == 1_000, 100)).isFalse();
        assertThat(loop.nowMs()).isEqualTo(130);
    }

    @Test
    @DisplayName("a throwing task stops the run with its node, label and time")
    void taskFailure() {
        loop.forNode(B2).newSerialExecutor("purgatory").execute(() -> {
            throw new IllegalStateException("boom");
        });
        assertThatThrownBy(loop::runUntilIdle)
                .isInstanceOf(SimulationTaskException.class)
                .hasMessageContaining("purgatory").hasMessageContaining("broker-2").hasMessageContaining("boom");
    }

    @Test
    @DisplayName("a task may not run the loop re-entrantly")
    void reentry() {
        loop.forNode(B1).newSerialExecutor("x").execute(() -> loop.runFor(1));
        assertThatThrownBy(loop::runUntilIdle).hasRootCauseInstanceOf(IllegalStateException.class)
                .hasRootCauseMessage("The event loop is already running (a task called run/step at 0 ms on broker-1)");
    }

    @Test
    @DisplayName("INV-6 the same seed gives the same execution event for event; another seed differs")
    void sameSeedSameTrace() {
        long a = randomizedRun(42);
        long b = randomizedRun(42);
        long c = randomizedRun(43);
        assertThat(a).isEqualTo(b);
        assertThat(c).isNotEqualTo(a);
    }

    @Test
    @DisplayName("INV-6 a trace listener sees every executed event in order, with node and executor name")
    void traceListener() {
        List<String> trace = new ArrayList<>();
        loop.setTraceListener((timeMs, seq, node, label) -> trace.add(timeMs + " " + node + " " + label));
        Scheduler s = loop.forNode(B2);
        s.schedule(s.newSerialExecutor("ReplicaFetcherThread-0-1"), () -> { }, 5);
        loop.forNode(B1).newSerialExecutor("request-handler").execute(() -> { });
        loop.runUntilIdle();
        assertThat(trace).containsExactly("0 broker-1 request-handler", "5 broker-2 ReplicaFetcherThread-0-1");
        assertThat(loop.recentTrace()).isEqualTo(trace);
    }

    /** Three nodes that schedule each other with random delays drawn from the loop's source. */
    private static long randomizedRun(long seed) {
        EventLoop run = EventLoop.withSeed(seed);
        List<Executor> executors = new ArrayList<>();
        List<Scheduler> schedulers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Scheduler s = run.forNode(NodeId.broker(i));
            schedulers.add(s);
            executors.add(s.newSerialExecutor("worker-" + i));
        }
        AtomicInteger budget = new AtomicInteger(2_000);
        Runnable[] hop = new Runnable[1];
        hop[0] = () -> {
            if (budget.decrementAndGet() > 0) {
                int target = run.random().nextInt(3);
                schedulers.get(target).schedule(executors.get(target), hop[0], run.random().nextLong(0, 20));
            }
        };
        for (Executor e : executors) {
            e.execute(hop[0]);
        }
        run.forNode(NodeId.broker(1));
        run.runFor(500);
        run.pause(NodeId.broker(1));
        run.runFor(500);
        run.resume(NodeId.broker(1));
        run.runUntilIdle();
        assertThat(run.eventsExecuted()).isGreaterThan(2_000);
        return run.traceHash();
    }
}
