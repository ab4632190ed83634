package dev.insync.replication.core.purgatory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class DelayedOperationPurgatoryTest {

    private static final long START_MS = 1_000_000L;
    private static final Executor DIRECT = Runnable::run;

    private final ManualScheduler scheduler = new ManualScheduler(START_MS);
    private final DelayedOperationPurgatory<TestOperation> purgatory =
        DelayedOperationPurgatory.create("Produce", scheduler, DIRECT);

    private TestOperation op(int id, long delayMs) {
        return new TestOperation(id, delayMs, scheduler.time());
    }

    @Test
    @DisplayName("PRO-4 checkAndComplete completes the satisfied operations watched under the key")
    void completesByKey() {
        TestOperation a = op(1, 30_000);
        TestOperation b = op(2, 30_000);
        TestOperation other = op(3, 30_000);
        assertThat(purgatory.tryCompleteElseWatch(a, List.of("tp-0"))).isFalse();
        assertThat(purgatory.tryCompleteElseWatch(b, List.of("tp-0"))).isFalse();
        assertThat(purgatory.tryCompleteElseWatch(other, List.of("tp-1"))).isFalse();
        assertThat(purgatory.numDelayed()).isEqualTo(3);
        assertThat(purgatory.watched()).isEqualTo(3);

        assertThat(purgatory.checkAndComplete("tp-0")).as("nothing satisfied yet").isZero();
        a.satisfy();
        other.satisfy();
        assertThat(purgatory.checkAndComplete("tp-0")).isEqualTo(1);
        assertThat(a.completions.get()).isEqualTo(1);
        assertThat(a.expirations.get()).isZero();
        assertThat(other.completions.get()).as("another key is not checked").isZero();
        assertThat(purgatory.numDelayed()).isEqualTo(2);
        assertThat(purgatory.watched()).isEqualTo(2);

        b.satisfy();
        assertThat(purgatory.checkAndComplete("tp-0")).isEqualTo(1);
        assertThat(purgatory.checkAndComplete("tp-0")).isZero();
        assertThat(purgatory.checkAndComplete("no-such-key")).isZero();
        assertThat(purgatory.numDelayed()).isEqualTo(1);
    }

    @Test
    @DisplayName("PRO-4 checkAndCompleteUpTo tries, in position order, only the operations up to the position"
            + " reached, whatever order they were watched in; the rest wait untouched")
    void completesUpToPosition() {
        TestOperation at5 = new TestOperation(1, 30_000, scheduler.time(), 5);
        TestOperation at3 = new TestOperation(2, 30_000, scheduler.time(), 3);
        TestOperation at7 = new TestOperation(3, 30_000, scheduler.time(), 7);
        TestOperation anyStep = op(4, 30_000); // the default position: every check tries it
        TestOperation fullChecksOnly = new TestOperation(5, 30_000, scheduler.time(), Long.MAX_VALUE);
        List<TestOperation> all = List.of(at5, at3, at7, anyStep, fullChecksOnly);
        for (TestOperation o : all) {
            assertThat(purgatory.tryCompleteElseWatch(o, List.of("tp-0"))).isFalse();
        }
        all.forEach(TestOperation::satisfy);
        int[] triesBefore = all.stream().mapToInt(o -> o.tryCompleteCalls.get()).toArray();

        assertThat(purgatory.checkAndCompleteUpTo("tp-0", 4)).isEqualTo(2);
        assertThat(anyStep.completions.get()).isEqualTo(1);
        assertThat(at3.completions.get()).isEqualTo(1);
        assertThat(at5.tryCompleteCalls.get()).as("beyond the position reached: not tried").isEqualTo(triesBefore[0]);
        assertThat(at7.tryCompleteCalls.get()).isEqualTo(triesBefore[2]);
        assertThat(fullChecksOnly.tryCompleteCalls.get()).isEqualTo(triesBefore[4]);
        assertThat(purgatory.watched()).isEqualTo(3);

        assertThat(purgatory.checkAndCompleteUpTo("tp-0", 7)).isEqualTo(2);
        assertThat(at5.completions.get()).isEqualTo(1);
        assertThat(at7.completions.get()).isEqualTo(1);
        assertThat(fullChecksOnly.completions.get()).as("only a full check tries it").isZero();
        assertThat(purgatory.checkAndComplete("tp-0")).isEqualTo(1);
        assertThat(fullChecksOnly.completions.get()).isEqualTo(1);
        assertThat(purgatory.watched()).isZero();
        assertThat(purgatory.numDelayed()).isZero();
    }

    @Test
    @DisplayName("PRO-4 an operation reached but not yet satisfied stays first in line and is tried on every later"
            + " step, without holding back the ones after it")
    void reachedButUnsatisfiedStaysWatched() {
        TestOperation stuck = new TestOperation(1, 30_000, scheduler.time(), 1);
        TestOperation next = new TestOperation(2, 30_000, scheduler.time(), 2);
        purgatory.tryCompleteElseWatch(stuck, List.of("tp-0"));
        purgatory.tryCompleteElseWatch(next, List.of("tp-0"));
        next.satisfy();
        assertThat(purgatory.checkAndCompleteUpTo("tp-0", 2)).isEqualTo(1);
        assertThat(next.completions.get()).isEqualTo(1);
        assertThat(stuck.completions.get()).isZero();
        assertThat(purgatory.watched()).isEqualTo(1);
        stuck.satisfy();
        assertThat(purgatory.checkAndCompleteUpTo("tp-0", 2)).isEqualTo(1);
        assertThat(stuck.completions.get()).isEqualTo(1);
        assertThat(purgatory.watched()).isZero();
    }

    @Test
    @DisplayName("PRO-4 an operation already satisfied completes at once and is neither watched nor timed")
    void completesImmediately() {
        TestOperation a = op(1, 30_000);
        a.satisfy();
        assertThat(purgatory.tryCompleteElseWatch(a, List.of("tp-0"))).isTrue();
        assertThat(a.completions.get()).isEqualTo(1);
        assertThat(purgatory.watched()).isZero();
        assertThat(purgatory.numDelayed()).isZero();
        assertThat(scheduler.scheduledCount()).isZero();
    }

    @Test
    @DisplayName("PRO-4 an operation watched under several keys completes once")
    void multipleKeysCompleteOnce() {
        TestOperation a = op(1, 30_000);
        purgatory.tryCompleteElseWatch(a, List.of("tp-0", "tp-1", "tp-2"));
        assertThat(purgatory.watched()).isEqualTo(3);
        a.satisfy();
        assertThat(purgatory.checkAndComplete("tp-1")).isEqualTo(1);
        assertThat(purgatory.checkAndComplete("tp-0")).isZero();
        assertThat(purgatory.checkAndComplete("tp-2")).isZero();
        assertThat(a.completions.get()).isEqualTo(1);
        // Two tries when parking (before and after watching), one by the first check; none after.
        assertThat(a.tryCompleteCalls.get()).as("completed ops are not tried again").isEqualTo(3);
        assertThat(purgatory.watched()).isZero();
        scheduler.advance(60_000);
        assertThat(a.expirations.get()).isZero();
        assertThat(a.completions.get()).isEqualTo(1);
    }

    @Test
    @DisplayName("PRO-4 expiry calls onExpiration exactly once, then onComplete, at the deadline")
    void expiry() {
        TestOperation a = op(1, 1_500);
        purgatory.tryCompleteElseWatch(a, List.of("tp-0", "tp-1"));
        scheduler.advance(1_499);
        assertThat(a.completions.get()).isZero();
        scheduler.advance(1);
        assertThat(a.expirations.get()).isEqualTo(1);
        assertThat(a.completions.get()).isEqualTo(1);
        assertThat(a.expiredBeforeComplete).isTrue();
        assertThat(a.completedAtMs).isEqualTo(START_MS + 1_500);
        assertThat(purgatory.numDelayed()).isZero();
        a.satisfy();
        assertThat(purgatory.checkAndComplete("tp-0")).isZero();
        assertThat(a.forceComplete()).isFalse();
        scheduler.advance(10_000);
        assertThat(a.expirations.get()).isEqualTo(1);
        assertThat(a.completions.get()).isEqualTo(1);
    }

    @Test
    @DisplayName("PRO-4 forceComplete wins exactly once and cancels the timer")
    void forceComplete() {
        TestOperation a = op(1, 100);
        purgatory.tryCompleteElseWatch(a, List.of("tp-0"));
        assertThat(a.forceComplete()).isTrue();
        assertThat(a.forceComplete()).isFalse();
        assertThat(a.isCompleted()).isTrue();
        assertThat(purgatory.numDelayed()).isZero();
        scheduler.advance(200);
        assertThat(a.expirations.get()).isZero();
        assertThat(a.completions.get()).isEqualTo(1);
    }

    @Test
    @DisplayName("PRO-4 cancelForKey hands back the uncompleted operations with their timers stopped")
    void cancelForKey() {
        TestOperation a = op(1, 100);
        TestOperation b = op(2, 100);
        TestOperation done = op(3, 100);
        purgatory.tryCompleteElseWatch(a, List.of("tp-0"));
        purgatory.tryCompleteElseWatch(b, List.of("tp-0", "tp-1"));
        purgatory.tryCompleteElseWatch(done, List.of("tp-0"));
        done.forceComplete();
        List<TestOperation> cancelled = purgatory.cancelForKey("tp-0");
        assertThat(cancelled).containsExactly(a, b);
        assertThat(purgatory.numDelayed()).isZero();
        assertThat(purgatory.watched()).as("b is still watched under tp-1").isEqualTo(1);
        scheduler.advance(1_000);
        assertThat(a.completions.get()).isZero();
        assertThat(a.expirations.get()).isZero();
        assertThat(purgatory.cancelForKey("tp-0")).isEmpty();
        // The caller ends them (PRO-5): exactly once.
        assertThat(a.forceComplete()).isTrue();
        assertThat(a.completions.get()).isEqualTo(1);
    }

    @Test
    @DisplayName("PRO-4 purging completed watchers keeps memory bounded")
    void purgeKeepsMemoryBounded() {
        int purgeInterval = 100;
        DelayedOperationPurgatory<TestOperation> small = new DelayedOperationPurgatory<>("Fetch",
            new TimingWheelTimer("ExpirationReaper-Fetch", scheduler, DIRECT), purgeInterval);
        int maxWatched = 0;
        for (int i = 0; i < 20_000; i++) {
            TestOperation op = op(i, 60_000);
            // Watched under its own key and one shared key that is never checked: completing via the
            // own key leaves a completed entry under the shared key until a purge.
            small.tryCompleteElseWatch(op, List.of("own-" + i, "shared"));
            op.satisfy();
            assertThat(small.checkAndComplete("own-" + i)).isEqualTo(1);
            maxWatched = Math.max(maxWatched, small.watched());
        }
        assertThat(small.numDelayed()).isZero();
        assertThat(maxWatched).isLessThanOrEqualTo(purgeInterval + 2);
    }

    @Test
    @DisplayName("PRO-4 purge keeps live operations and their order")
    void purgeKeepsLiveOperations() {
        DelayedOperationPurgatory<TestOperation> small = new DelayedOperationPurgatory<>("Fetch",
            new TimingWheelTimer("ExpirationReaper-Fetch", scheduler, DIRECT), 10);
        List<TestOperation> live = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            TestOperation op = op(i, 60_000);
            small.tryCompleteElseWatch(op, List.of("k"));
            if (i % 2 == 0) {
                op.forceComplete();
            } else {
                live.add(op);
            }
        }
        assertThat(small.watched()).isLessThan(200);
        assertThat(small.numDelayed()).isEqualTo(100);
        List<Integer> order = new ArrayList<>();
        for (TestOperation op : live) {
            op.satisfy();
        }
        // The watch order of the survivors is kept through purges.
        for (TestOperation op : small.cancelForKey("k")) {
            order.add(op.id);
        }
        assertThat(order).isEqualTo(live.stream().map(op -> op.id).toList());
    }

    @Test
    @DisplayName("PRO-4 purgatory never polls: wake-ups bounded by distinct deadlines, nothing runs without time")
    void neverPolls() {
        int count = 5_000;
        List<TestOperation> ops = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            TestOperation op = op(i, 100 + (i % 10));
            ops.add(op);
            purgatory.tryCompleteElseWatch(op, List.of("tp-" + (i % 7)));
        }
        assertThat(scheduler.scheduledCount()).isEqualTo(1);
        scheduler.runDue();
        assertThat(scheduler.ranCount()).as("no time passed, nothing ran").isZero();
        // Each was tried twice when parked (before and after watching) and never since.
        ops.forEach(op -> assertThat(op.tryCompleteCalls.get()).isEqualTo(2));

        scheduler.advance(200);
        assertThat(ops).allSatisfy(op -> {
            assertThat(op.expirations.get()).isEqualTo(1);
            assertThat(op.completedAtMs).isEqualTo(START_MS + op.delayMs());
        });
        // 10 distinct deadlines, plus the overflow buckets they cascade through (at most 2 levels).
        assertThat(scheduler.ranCount()).isLessThanOrEqualTo(10 + 2);
        assertThat(scheduler.scheduledCount()).isLessThanOrEqualTo(10 + 2);
        // Expiry never asks the operations again: only the single try at park time.
        // Each was tried twice when parked (before and after watching) and never since.
        ops.forEach(op -> assertThat(op.tryCompleteCalls.get()).isEqualTo(2));

        long ran = scheduler.ranCount();
        scheduler.advance(86_400_000L);
        assertThat(scheduler.ranCount()).as("an empty purgatory runs nothing").isEqualTo(ran);
    }

    @Test
    @DisplayName("A shut-down purgatory rejects new operations and expires nothing more")
    void shutdown() {
        TestOperation a = op(1, 100);
        purgatory.tryCompleteElseWatch(a, List.of("tp-0"));
        purgatory.shutdown();
        purgatory.shutdown();
        scheduler.advance(1_000);
        assertThat(a.completions.get()).isZero();
        assertThatThrownBy(() -> purgatory.tryCompleteElseWatch(op(2, 100), List.of("tp-0")))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("Produce");
    }

    @Test
    @DisplayName("An operation needs at least one watch key")
    void needsAKey() {
        assertThatThrownBy(() -> purgatory.tryCompleteElseWatch(op(1, 100), List.of()))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Produce");
        assertThat(purgatory.numDelayed()).isZero();
    }
}
