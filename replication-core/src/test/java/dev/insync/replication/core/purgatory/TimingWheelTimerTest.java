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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class TimingWheelTimerTest {

    private static final long START_MS = 1_700_000_000_123L;
    private static final Executor DIRECT = Runnable::run;

    private final ManualScheduler scheduler = new ManualScheduler(START_MS);
    private final List<String> fired = new ArrayList<>();

    /** Records the time it ran at; counts runs. */
    private final class RecordingTask extends TimerTask {
        final String name;
        long firedAtMs = -1;
        int runs;

        RecordingTask(String name, long delayMs) {
            super(delayMs);
            this.name = name;
        }

        @Override
        public void run() {
            runs++;
            firedAtMs = scheduler.nowMs();
            fired.add(name);
        }
    }

    private TimingWheelTimer timer() {
        return new TimingWheelTimer("test", scheduler, DIRECT);
    }

    @Test
    @DisplayName("PRO-4 a task fires exactly at its deadline, never a millisecond before")
    void firesExactlyAtDeadline() {
        TimingWheelTimer timer = timer();
        List<RecordingTask> tasks = new ArrayList<>();
        for (long delay = 1; delay <= 45; delay++) {
            RecordingTask task = new RecordingTask("t" + delay, delay);
            tasks.add(task);
            timer.add(task);
        }
        for (long step = 1; step <= 45; step++) {
            scheduler.advance(1);
            for (RecordingTask task : tasks) {
                boolean due = task.delayMs() <= step;
                assertThat(task.runs).as("%s at +%d ms", task.name, step).isEqualTo(due ? 1 : 0);
                if (due) {
                    assertThat(task.firedAtMs).isEqualTo(START_MS + task.delayMs());
                }
            }
        }
        assertThat(timer.size()).isZero();
    }

    @Test
    @DisplayName("PRO-4 delays from 1 ms to a day cross overflow wheels and still fire on time")
    void overflowWheels() {
        TimingWheelTimer timer = timer();
        long[] delays = {1, 19, 20, 21, 399, 400, 401, 7_999, 8_000, 8_001, 160_000, 3_600_000, 5 * 3_600_000L,
            86_400_000L};
        List<RecordingTask> tasks = new ArrayList<>();
        for (long delay : delays) {
            RecordingTask task = new RecordingTask("d" + delay, delay);
            tasks.add(task);
            timer.add(task);
        }
        assertThat(timer.size()).isEqualTo(delays.length);
        for (RecordingTask task : tasks) {
            long deadline = START_MS + task.delayMs();
            scheduler.advanceTo(deadline - 1);
            assertThat(task.runs).as("%s one ms early", task.name).isZero();
            scheduler.advanceTo(deadline);
            assertThat(task.runs).as(task.name).isEqualTo(1);
            assertThat(task.firedAtMs).as(task.name).isEqualTo(deadline);
        }
        assertThat(timer.size()).isZero();
        assertThat(scheduler.pending()).isZero();
    }

    @Test
    @DisplayName("PRO-4 with a coarser tick a task fires at most one tick late, never early")
    void coarseTick() {
        long tickMs = 7;
        TimingWheelTimer timer = new TimingWheelTimer("coarse", scheduler, DIRECT, tickMs, 4);
        Random random = new Random(42);
        List<RecordingTask> tasks = new ArrayList<>();
        List<Long> deadlines = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            scheduler.advance(random.nextInt(3));
            RecordingTask task = new RecordingTask("c" + i, random.nextInt(2_000));
            deadlines.add(scheduler.nowMs() + task.delayMs());
            tasks.add(task);
            timer.add(task);
        }
        scheduler.advance(3_000);
        for (int i = 0; i < tasks.size(); i++) {
            RecordingTask task = tasks.get(i);
            long deadline = deadlines.get(i);
            assertThat(task.runs).as(task.name).isEqualTo(1);
            assertThat(task.firedAtMs).as(task.name).isBetween(deadline, deadline + tickMs - 1);
        }
    }

    @Test
    @DisplayName("PRO-4 a cancelled task never runs and leaves the timer at once")
    void cancellation() {
        TimingWheelTimer timer = timer();
        RecordingTask near = new RecordingTask("near", 5);
        RecordingTask far = new RecordingTask("far", 50_000);
        RecordingTask kept = new RecordingTask("kept", 5);
        timer.add(near);
        timer.add(far);
        timer.add(kept);
        near.cancel();
        far.cancel();
        far.cancel();
        assertThat(timer.size()).isEqualTo(1);
        scheduler.advance(100_000);
        assertThat(fired).containsExactly("kept");
        assertThat(near.runs).isZero();
        assertThat(far.runs).isZero();
    }

    @Test
    @DisplayName("PRO-4 re-adding a task replaces its earlier entry: it runs once, at the new deadline")
    void reAdding() {
        TimingWheelTimer timer = timer();
        RecordingTask task = new RecordingTask("again", 10);
        timer.add(task);
        scheduler.advance(4);
        timer.add(task);
        assertThat(timer.size()).isEqualTo(1);
        scheduler.advance(9);
        assertThat(task.runs).isZero();
        scheduler.advance(1);
        assertThat(task.runs).isEqualTo(1);
        assertThat(task.firedAtMs).isEqualTo(START_MS + 14);
        // A task that ran may be added once more.
        timer.add(task);
        scheduler.advance(10);
        assertThat(task.runs).isEqualTo(2);
    }

    @Test
    @DisplayName("PRO-4 many tasks in one bucket all fire together, in insertion order, with one wake-up")
    void manyTasksOneBucket() {
        TimingWheelTimer timer = timer();
        int count = 10_000;
        for (int i = 0; i < count; i++) {
            timer.add(new RecordingTask(Integer.toString(i), 15));
        }
        assertThat(timer.wakeupsScheduled()).isEqualTo(1);
        scheduler.advance(14);
        assertThat(fired).isEmpty();
        scheduler.advance(1);
        assertThat(fired).hasSize(count);
        for (int i = 0; i < count; i++) {
            assertThat(fired.get(i)).isEqualTo(Integer.toString(i));
        }
    }

    @Test
    @DisplayName("PRO-4 a zero delay runs on the executor at once, without a wake-up")
    void zeroDelay() {
        TimingWheelTimer timer = timer();
        RecordingTask task = new RecordingTask("now", 0);
        timer.add(task);
        assertThat(task.runs).isEqualTo(1);
        assertThat(task.firedAtMs).isEqualTo(START_MS);
        assertThat(scheduler.scheduledCount()).isZero();
    }

    @Test
    @DisplayName("PRO-4 the same adds, cancels and advances give the same firing order")
    void deterministicOrder() {
        assertThat(randomHistory(7)).isEqualTo(randomHistory(7));
        assertThat(randomHistory(7)).hasSizeGreaterThan(100);
    }

    private static List<String> randomHistory(long seed) {
        ManualScheduler scheduler = new ManualScheduler(START_MS);
        TimingWheelTimer timer = new TimingWheelTimer("det", scheduler, DIRECT, 1, 3);
        List<String> history = new ArrayList<>();
        Random random = new Random(seed);
        List<TimerTask> tasks = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            int id = i;
            TimerTask task = new TimerTask(random.nextInt(200)) {
                @Override
                public void run() {
                    history.add(id + "@" + scheduler.nowMs());
                }
            };
            tasks.add(task);
            timer.add(task);
            if (random.nextInt(10) == 0) {
                tasks.get(random.nextInt(tasks.size())).cancel();
            }
            scheduler.advance(random.nextInt(3));
        }
        scheduler.advance(1_000);
        return history;
    }

    @Test
    @DisplayName("PRO-4 timer never polls: one wake-up per distinct bucket expiration, none when idle")
    void neverPolls() {
        TimingWheelTimer timer = timer();
        // 2,000 tasks over 40 distinct deadlines: the finest wheel needs 20 buckets, the rest wait in
        // one or two overflow buckets and cascade.
        for (int i = 0; i < 2_000; i++) {
            timer.add(new RecordingTask("p" + i, 1 + (i % 40)));
        }
        long wakeupsAfterAdds = timer.wakeupsScheduled();
        assertThat(wakeupsAfterAdds).isEqualTo(1);
        scheduler.runDue();
        assertThat(scheduler.ranCount()).as("nothing runs while no time passes").isZero();
        scheduler.advance(40);
        assertThat(fired).hasSize(2_000);
        // 40 distinct deadlines, plus at most 2 overflow buckets that merely cascade.
        assertThat(timer.wakeupsScheduled()).isLessThanOrEqualTo(42);
        assertThat(scheduler.ranCount()).isLessThanOrEqualTo(42);
        long ranBefore = scheduler.ranCount();
        long scheduledBefore = scheduler.scheduledCount();
        scheduler.advance(3_600_000);
        assertThat(scheduler.ranCount()).as("an idle timer runs nothing").isEqualTo(ranBefore);
        assertThat(scheduler.scheduledCount()).isEqualTo(scheduledBefore);
        assertThat(scheduler.pending()).isZero();
    }

    @Test
    @DisplayName("PRO-4 a sooner task moves the single pending wake-up earlier")
    void wakeupMovesEarlier() {
        TimingWheelTimer timer = timer();
        timer.add(new RecordingTask("late", 10));
        assertThat(scheduler.nextDueMs()).isEqualTo(START_MS + 10);
        timer.add(new RecordingTask("early", 3));
        assertThat(scheduler.pending()).isEqualTo(1);
        assertThat(scheduler.nextDueMs()).isEqualTo(START_MS + 3);
        timer.add(new RecordingTask("later", 12));
        assertThat(scheduler.pending()).isEqualTo(1);
        scheduler.advance(12);
        assertThat(fired).containsExactly("early", "late", "later");
    }

    @Test
    @DisplayName("A closed timer stops waking up and rejects new tasks")
    void close() {
        TimingWheelTimer timer = timer();
        RecordingTask task = new RecordingTask("pending", 5);
        timer.add(task);
        timer.close();
        timer.close();
        scheduler.advance(10);
        assertThat(task.runs).isZero();
        assertThat(scheduler.pending()).isZero();
        assertThatThrownBy(() -> timer.add(new RecordingTask("rejected", 1)))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("test");
    }

    @Test
    @DisplayName("Bad timer settings are rejected with the timer's name")
    void badSettings() {
        assertThatThrownBy(() -> new TimingWheelTimer("bad", scheduler, DIRECT, 0, 20))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bad");
        assertThatThrownBy(() -> new TimingWheelTimer("bad", scheduler, DIRECT, 1, 1))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bad");
        assertThatThrownBy(() -> new RecordingTask("negative", -1))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
    }

    @Test
    @DisplayName("A huge delay is capped, not overflowed")
    void hugeDelay() {
        TimingWheelTimer timer = timer();
        RecordingTask task = new RecordingTask("forever", Long.MAX_VALUE);
        timer.add(task);
        scheduler.advance(365L * 86_400_000L);
        assertThat(task.runs).isZero();
        assertThat(timer.size()).isEqualTo(1);
        task.cancel();
        assertThat(timer.size()).isZero();
    }

    @Test
    @DisplayName("PRO-5 a wall clock stepped back or forward neither holds a task past its deadline nor fires it early")
    void wallClockJumpsDoNotMoveDeadlines() {
        TimingWheelTimer timer = timer();
        RecordingTask early = new RecordingTask("early", 500);
        RecordingTask late = new RecordingTask("late", 30_000);
        timer.add(early);
        timer.add(late);
        scheduler.jumpWallClock(-60_000);
        scheduler.advance(499);
        assertThat(early.runs).isZero();
        scheduler.advance(1);
        assertThat(early.runs).as("due 500 ms after it was added, whatever the wall clock says").isEqualTo(1);
        scheduler.jumpWallClock(+120_000);
        scheduler.advance(10_000);
        assertThat(late.runs).as("a forward step does not expire it early").isZero();
        scheduler.advance(19_500);
        assertThat(late.runs).isEqualTo(1);
        assertThat(late.firedAtMs - early.firedAtMs).isEqualTo(29_500);
    }
}
