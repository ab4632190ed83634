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

import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.core.time.Time;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Real threads: completion racing expiry and checkers racing each other. */
@Timeout(60)
class DelayedOperationPurgatoryConcurrencyTest {

    private static final Executor DIRECT = Runnable::run;

    @Test
    @DisplayName("PRO-4 a check racing the timer completes each operation exactly once")
    void completionRacesExpiry() throws Exception {
        ManualScheduler scheduler = new ManualScheduler(0);
        DelayedOperationPurgatory<TestOperation> purgatory = DelayedOperationPurgatory.create("Produce", scheduler,
            DIRECT);
        int rounds = 2_000;
        ExecutorService threads = Executors.newFixedThreadPool(3);
        try {
            for (int round = 0; round < rounds; round++) {
                TestOperation op = new TestOperation(round, 10_000, scheduler.time());
                purgatory.tryCompleteElseWatch(op, List.of("a", "b"));
                op.satisfy();
                CyclicBarrier start = new CyclicBarrier(3);
                List<Future<?>> racers = new ArrayList<>();
                racers.add(threads.submit(() -> {
                    start.await();
                    op.expiryTask().run(); // the timer firing
                    return null;
                }));
                racers.add(threads.submit(() -> {
                    start.await();
                    return purgatory.checkAndComplete("a");
                }));
                racers.add(threads.submit(() -> {
                    start.await();
                    return purgatory.checkAndComplete("b");
                }));
                for (Future<?> racer : racers) {
                    racer.get(10, TimeUnit.SECONDS);
                }
                assertThat(op.completions.get()).as("round %d", round).isEqualTo(1);
                assertThat(op.expirations.get()).isBetween(0, 1);
                if (op.expirations.get() == 1) {
                    assertThat(op.expiredBeforeComplete).isTrue();
                }
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(purgatory.numDelayed()).isZero();
    }

    @Test
    @DisplayName("PRO-4 parking racing a check never loses the wake-up")
    void parkRacesCheck() throws Exception {
        ManualScheduler scheduler = new ManualScheduler(0);
        DelayedOperationPurgatory<TestOperation> purgatory = DelayedOperationPurgatory.create("Fetch", scheduler,
            DIRECT);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 2_000; round++) {
                TestOperation op = new TestOperation(round, 10_000, scheduler.time());
                String key = "k" + (round % 13);
                CyclicBarrier start = new CyclicBarrier(2);
                Future<?> parker = threads.submit(() -> {
                    start.await();
                    purgatory.tryCompleteElseWatch(op, List.of(key));
                    return null;
                });
                Future<?> checker = threads.submit(() -> {
                    start.await();
                    op.satisfy(); // the condition becomes true, then the key is checked
                    purgatory.checkAndComplete(key);
                    return null;
                });
                parker.get(10, TimeUnit.SECONDS);
                checker.get(10, TimeUnit.SECONDS);
                // Either the park saw the condition or the check saw the watch.
                assertThat(op.completions.get()).as("round %d", round).isEqualTo(1);
                assertThat(op.expirations.get()).isZero();
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(purgatory.numDelayed()).isZero();
        assertThat(purgatory.watched()).isZero();
    }

    @Test
    @DisplayName("PRO-4 on a threaded scheduler every operation ends exactly once, by check or by expiry")
    void threadedScheduler() throws Exception {
        ScheduledExecutorService pool = Executors.newScheduledThreadPool(1, r -> new Thread(r, "test-scheduler"));
        ExecutorService reaper = Executors.newSingleThreadExecutor(r -> new Thread(r, "ExpirationReaper-test"));
        Scheduler scheduler = new ThreadPoolScheduler(pool);
        int count = 2_000;
        CountDownLatch allDone = new CountDownLatch(count);
        AtomicInteger expired = new AtomicInteger();
        DelayedOperationPurgatory<DelayedOperation> purgatory = DelayedOperationPurgatory.create("Produce", scheduler,
            reaper);
        List<TestLatchOperation> ops = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                TestLatchOperation op = new TestLatchOperation(1 + (i % 25), allDone, expired);
                ops.add(op);
                purgatory.tryCompleteElseWatch(op, List.of("tp-" + (i % 4)));
            }
            // Half are satisfied and woken from another thread while the timer expires the rest.
            Thread checker = new Thread(() -> {
                for (int i = 0; i < count; i += 2) {
                    ops.get(i).satisfied = true;
                }
                for (int k = 0; k < 4; k++) {
                    purgatory.checkAndComplete("tp-" + k);
                }
            }, "checker");
            checker.start();
            assertThat(allDone.await(30, TimeUnit.SECONDS)).isTrue();
            checker.join(10_000);
            assertThat(ops).allSatisfy(op -> assertThat(op.completions.get()).isEqualTo(1));
            assertThat(purgatory.numDelayed()).isZero();
            assertThat(expired.get()).isBetween(count / 2, count);
        } finally {
            purgatory.shutdown();
            pool.shutdownNow();
            reaper.shutdownNow();
        }
    }

    private static final class TestLatchOperation extends DelayedOperation {
        volatile boolean satisfied;
        final AtomicInteger completions = new AtomicInteger();
        private final CountDownLatch done;
        private final AtomicInteger expired;

        TestLatchOperation(long delayMs, CountDownLatch done, AtomicInteger expired) {
            super(delayMs);
            this.done = done;
            this.expired = expired;
        }

        @Override
        public boolean tryComplete() {
            return satisfied && forceComplete();
        }

        @Override
        public void onExpiration() {
            expired.incrementAndGet();
        }

        @Override
        public void onComplete() {
            if (completions.incrementAndGet() == 1) {
                done.countDown();
            }
        }
    }

    /** The production shape of the seam: a scheduled thread pool and the system clock. */
    private static final class ThreadPoolScheduler implements Scheduler {
        private final ScheduledExecutorService pool;

        ThreadPoolScheduler(ScheduledExecutorService pool) {
            this.pool = pool;
        }

        @Override
        public Cancellable schedule(Executor executor, Runnable task, long delayMs) {
            ScheduledFuture<?> future = pool.schedule(() -> executor.execute(task), delayMs, TimeUnit.MILLISECONDS);
            return () -> future.cancel(false);
        }

        @Override
        public Cancellable schedulePeriodically(Executor executor, Runnable task, long initialDelayMs, long periodMs) {
            ScheduledFuture<?> future = pool.scheduleAtFixedRate(() -> executor.execute(task), initialDelayMs,
                periodMs, TimeUnit.MILLISECONDS);
            return () -> future.cancel(false);
        }

        @Override
        public Executor newSerialExecutor(String name) {
            return Executors.newSingleThreadExecutor(r -> new Thread(r, name));
        }

        @Override
        public Time time() {
            return Time.SYSTEM;
        }
    }
}
