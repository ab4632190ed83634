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
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.insync.replication.core.ActionSequences;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Random parks, condition changes, checks, forced completions and clock advances against a model:
 * every operation ends exactly once, and an expired one ends within one tick after its deadline.
 */
class PurgatoryModelPropertyTest {

    private static final int KEYS = 4;
    private static final long START_MS = 50_000L;

    sealed interface Action permits Park, Check, Force, Advance {
    }

    /** Park an operation with this delay under the keys in {@code keyMask}; maybe satisfied at once. */
    record Park(long delayMs, int keyMask, boolean satisfiedAtOnce) implements Action {
    }

    /** Make the condition of operation {@code pick} (modulo count) true, then check {@code key}. */
    record Check(int pick, int key) implements Action {
    }

    /** forceComplete operation {@code pick} (modulo count), as a leadership change would. */
    record Force(int pick) implements Action {
    }

    record Advance(long ms) implements Action {
    }

    /** What the model knows about one operation. */
    private static final class Expected {
        final TestOperation op;
        final long deadlineMs;
        final int keyMask;
        boolean satisfied;
        boolean completed;

        Expected(TestOperation op, long deadlineMs, int keyMask) {
            this.op = op;
            this.deadlineMs = deadlineMs;
            this.keyMask = keyMask;
        }
    }

    static Gen<List<Action>> actions() {
        Gen<Long> delays = Generate.frequency(List.of(
            Pair.of(6, longs().between(0, 60)),
            Pair.of(3, longs().between(61, 2_000)),
            Pair.of(1, longs().between(2_001, 200_000))));
        Gen<Action> park = delays.zip(integers().between(1, 15), arbitrary().pick(true, false, false, false),
            Park::new);
        Gen<Action> check = integers().between(0, 1_000).zip(integers().between(0, KEYS - 1), Check::new);
        Gen<Action> force = integers().between(0, 1_000).map(Force::new);
        Gen<Action> advance = longs().between(0, 40).map(Advance::new);
        Gen<Action> any = Generate.frequency(List.of(
            Pair.of(4, park), Pair.of(3, check), Pair.of(1, force), Pair.of(4, advance)));
        return ActionSequences.of(any, 1, 120);
    }

    @Test
    @DisplayName("PRO-4 every operation ends exactly once; expired ones within a tick of their deadline")
    void matchesModel() {
        qt().withExamples(200)
            .forAll(actions(), integers().between(1, 4), integers().between(2, 6))
            .checkAssert(PurgatoryModelPropertyTest::run);
    }

    private static void run(List<Action> actions, int tickMs, int wheelSize) {
        ManualScheduler scheduler = new ManualScheduler(START_MS);
        DelayedOperationPurgatory<TestOperation> purgatory = new DelayedOperationPurgatory<>("Model",
            new TimingWheelTimer("ExpirationReaper-Model", scheduler, Runnable::run, tickMs, wheelSize), 8);
        List<Expected> model = new ArrayList<>();

        for (Action action : actions) {
            if (action instanceof Park park) {
                    TestOperation op = new TestOperation(model.size(), park.delayMs(), scheduler.time());
                    Expected expected = new Expected(op, scheduler.nowMs() + park.delayMs(), park.keyMask());
                    model.add(expected);
                    if (park.satisfiedAtOnce()) {
                        op.satisfy();
                        expected.satisfied = true;
                    }
                    boolean completedNow = purgatory.tryCompleteElseWatch(op, keysOf(park.keyMask()));
                    assertThat(completedNow).isEqualTo(park.satisfiedAtOnce());
                    expected.completed = completedNow || op.isCompleted();
            } else if (action instanceof Check check) {
                    if (!model.isEmpty()) {
                        Expected target = model.get(check.pick() % model.size());
                        target.op.satisfy();
                        target.satisfied = true;
                    }
                    int predicted = 0;
                    for (Expected e : model) {
                        if (!e.completed && e.satisfied && (e.keyMask & (1 << check.key())) != 0) {
                            predicted++;
                            e.completed = true;
                        }
                    }
                    assertThat(purgatory.checkAndComplete("key-" + check.key())).isEqualTo(predicted);
            } else if (action instanceof Force force) {
                    if (!model.isEmpty()) {
                        Expected target = model.get(force.pick() % model.size());
                        assertThat(target.op.forceComplete()).isEqualTo(!target.completed);
                        target.completed = true;
                    }
            } else if (action instanceof Advance advance) {
                    scheduler.advance(advance.ms());
                    for (Expected e : model) {
                        if (!e.completed && e.op.expirations.get() == 1) {
                            e.completed = true;
                        }
                    }
            }
            checkInvariants(model, scheduler.nowMs(), tickMs, purgatory);
        }
        scheduler.advance(300_000);
        for (Expected e : model) {
            e.completed |= e.op.expirations.get() == 1;
        }
        checkInvariants(model, scheduler.nowMs(), tickMs, purgatory);
        assertThat(model).allSatisfy(e -> assertThat(e.op.completions.get()).isEqualTo(1));
        assertThat(purgatory.numDelayed()).isZero();
    }

    private static void checkInvariants(List<Expected> model, long nowMs, int tickMs,
                                        DelayedOperationPurgatory<TestOperation> purgatory) {
        int pending = 0;
        for (Expected e : model) {
            TestOperation op = e.op;
            assertThat(op.completions.get()).as("op %d completions", op.id).isEqualTo(e.completed ? 1 : 0);
            assertThat(op.isCompleted()).isEqualTo(e.completed);
            if (op.expirations.get() == 1) {
                assertThat(op.completedAtMs).as("op %d expired at", op.id)
                    .isBetween(e.deadlineMs, e.deadlineMs + tickMs - 1);
            }
            assertThat(op.expirations.get()).isBetween(0, 1);
            if (!e.completed) {
                pending++;
                assertThat(nowMs).as("op %d still pending past its deadline", op.id)
                    .isLessThan(e.deadlineMs + tickMs - 1);
            }
        }
        assertThat(purgatory.numDelayed()).isEqualTo(pending);
    }

    private static List<String> keysOf(int mask) {
        List<String> keys = new ArrayList<>();
        for (int k = 0; k < KEYS; k++) {
            if ((mask & (1 << k)) != 0) {
                keys.add("key-" + k);
            }
        }
        return keys;
    }
}
