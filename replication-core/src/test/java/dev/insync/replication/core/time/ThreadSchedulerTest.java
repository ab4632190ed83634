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

package dev.insync.replication.core.time;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ThreadSchedulerTest {

    private final ThreadScheduler scheduler = new ThreadScheduler(Time.SYSTEM, "test-sched", 1, 2_000);

    @AfterEach
    void close() {
        scheduler.close();
    }

    @Test
    void serialExecutorRunsOnAThreadWithExactlyItsNameInOrder() throws Exception {
        SerialThreadExecutor ex = scheduler.newSerialExecutor("ReplicaFetcherThread-0-1");
        List<Integer> order = new CopyOnWriteArrayList<>();
        CompletableFuture<String> threadName = new CompletableFuture<>();
        CountDownLatch done = new CountDownLatch(100);
        for (int i = 0; i < 100; i++) {
            int n = i;
            ex.execute(() -> {
                order.add(n);
                threadName.complete(Thread.currentThread().getName());
                done.countDown();
            });
        }
        assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(threadName.get(5, TimeUnit.SECONDS)).isEqualTo("ReplicaFetcherThread-0-1");
        assertThat(order).isSorted().hasSize(100);
    }

    @Test
    void aThrowingTaskDoesNotStopLaterTasks() throws Exception {
        SerialThreadExecutor ex = scheduler.newSerialExecutor("thrower");
        CountDownLatch after = new CountDownLatch(1);
        ex.execute(() -> {
            throw new IllegalStateException("boom (expected by the test)");
        });
        ex.execute(after::countDown);
        assertThat(after.await(5, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void scheduledTaskRunsOnTheGivenExecutorAfterItsDelay() throws Exception {
        SerialThreadExecutor ex = scheduler.newSerialExecutor("target");
        CompletableFuture<Long> ranAfterMs = new CompletableFuture<>();
        long start = System.nanoTime();
        scheduler.schedule(ex, () -> {
            if (Thread.currentThread().getName().equals("target")) {
                ranAfterMs.complete(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            } else {
                ranAfterMs.completeExceptionally(new AssertionError(Thread.currentThread().getName()));
            }
        }, 50);
        assertThat(ranAfterMs.get(5, TimeUnit.SECONDS)).isGreaterThanOrEqualTo(45);
    }

    @Test
    void cancelledTaskNeverRuns() throws Exception {
        SerialThreadExecutor ex = scheduler.newSerialExecutor("cancel");
        AtomicBoolean ran = new AtomicBoolean();
        Scheduler.Cancellable c = scheduler.schedule(ex, () -> ran.set(true), 30);
        c.cancel();
        c.cancel(); // idempotent
        CountDownLatch later = new CountDownLatch(1);
        scheduler.schedule(ex, later::countDown, 120);
        assertThat(later.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(ran).isFalse();
    }

    @Test
    void periodicTaskRepeatsUntilCancelled() throws Exception {
        SerialThreadExecutor ex = scheduler.newSerialExecutor("periodic");
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch three = new CountDownLatch(3);
        Scheduler.Cancellable c = scheduler.schedulePeriodically(ex, () -> {
            runs.incrementAndGet();
            three.countDown();
        }, 0, 5);
        assertThat(three.await(5, TimeUnit.SECONDS)).isTrue();
        c.cancel();
        // Drain: a run already handed to the executor may still execute; after this barrier, none may.
        CountDownLatch barrier = new CountDownLatch(1);
        ex.execute(barrier::countDown);
        assertThat(barrier.await(5, TimeUnit.SECONDS)).isTrue();
        int afterCancel = runs.get();
        CountDownLatch later = new CountDownLatch(1);
        scheduler.schedule(ex, later::countDown, 50);
        assertThat(later.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(runs.get()).isEqualTo(afterCancel).isGreaterThanOrEqualTo(3);
    }

    @Test
    @DisplayName("close waits a bounded time and never interrupts a task: one still running is left to finish (it may be in log I/O)")
    void closeNeverInterruptsARunningTask() throws Exception {
        ThreadScheduler s = new ThreadScheduler(Time.SYSTEM, "closing", 1, 200);
        SerialThreadExecutor idle = s.newSerialExecutor("idle-exec");
        SerialThreadExecutor busy = s.newSerialExecutor("busy-exec");
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        CountDownLatch finished = new CountDownLatch(1);
        busy.execute(() -> {
            started.countDown();
            // Stands for a long append: it must run to its end, whatever close() does meanwhile.
            while (release.getCount() > 0) {
                if (Thread.currentThread().isInterrupted()) {
                    interrupted.set(true);
                }
                Thread.onSpinWait();
            }
            interrupted.compareAndSet(false, Thread.currentThread().isInterrupted());
            finished.countDown();
        });
        idle.execute(() -> { });
        assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
        long t0 = System.nanoTime();
        s.close();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).as("bounded").isLessThan(2_000);
        assertThat(idle.isTerminated()).isTrue();
        assertThat(busy.isTerminated()).as("left running, not stopped by force").isFalse();
        assertThat(s.liveExecutors()).isEmpty();

        release.countDown();
        assertThat(finished.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(interrupted).as("the task was never interrupted").isFalse();
        assertThat(busy.awaitTermination(5_000)).isTrue();
        assertThatThrownBy(() -> s.newSerialExecutor("late")).isInstanceOf(RejectedExecutionException.class);
        assertThatThrownBy(() -> idle.execute(() -> { })).isInstanceOf(RejectedExecutionException.class)
                .hasMessageContaining("idle-exec");
    }

    @Test
    void rejectsBadArguments() {
        SerialThreadExecutor ex = scheduler.newSerialExecutor("args");
        assertThatThrownBy(() -> scheduler.schedule(ex, () -> { }, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> scheduler.schedulePeriodically(ex, () -> { }, 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
