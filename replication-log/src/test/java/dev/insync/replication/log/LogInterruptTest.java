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

package dev.insync.replication.log;

import dev.insync.replication.log.record.RecordBatch;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;

import static dev.insync.replication.log.LogFixtures.batch;
import static dev.insync.replication.log.LogFixtures.readOffsets;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 9 item 8, the log's side: an interrupted caller must never take a log offline. Java closes
 * a FileChannel when a thread in I/O on it is interrupted ({@code ClosedByInterruptException});
 * the log reopens the channel, retries, and leaves the caller's interrupt flag set. A real I/O
 * error still takes the directory offline ({@link StorageFaultsTest}).
 */
class LogInterruptTest {

    private static final TopicPartition TP = new TopicPartition("interrupt", 0);
    /** Small segments (rolls, index resizes) and a flush every few records (forces, directory fsyncs). */
    private static final LogConfig CONFIG = LogConfig.defaults().withSegmentBytes(700).withSegmentIndexBytes(1024)
            .withIndexIntervalBytes(100).withFlushMessages(7);
    private static final long JOIN_TIMEOUT_MS = 60_000;

    @TempDir
    Path root;

    @Test
    @DisplayName("An append, read, flush or epoch-checkpoint write by an interrupted thread succeeds, keeps the flag set, and the log stays online")
    void interruptedCallerKeepsTheLogOnline() {
        try (LogDirectory dir = LogDirectory.open(root.resolve("a"), CONFIG, () -> 0L, FileSync.durable())) {
            Log log = dir.getOrCreateLog(TP, CONFIG);
            for (int i = 0; i < 60; i++) {
                // Every third call on a thread already interrupted: its first channel call closes the channel.
                boolean interrupt = i % 3 == 0;
                if (interrupt) {
                    Thread.currentThread().interrupt();
                }
                log.appendAsLeader(batch("i" + i, 2), i / 10); // a new epoch every 10: a checkpoint write
                assertThat(Thread.interrupted()).as("the flag survives append %d", i).isEqualTo(interrupt);
                if (interrupt) {
                    Thread.currentThread().interrupt();
                }
                RecordBatch first = log.read(2L * i, 1, log.logEndOffset()).records().batches().get(0);
                assertThat(first.baseOffset()).isEqualTo(2L * i);
                assertThat(Thread.interrupted()).as("the flag survives read %d", i).isEqualTo(interrupt);
            }
            Thread.currentThread().interrupt();
            log.flush();
            dir.checkpointRecoveryPointsAndLogStartOffsets();
            assertThat(Thread.interrupted()).isTrue();
            assertThat(log.isOffline()).isFalse();
            assertThat(dir.isOffline()).isFalse();
            assertThat(readOffsets(log, 0)).isEqualTo(LongStream.range(0, 120).boxed().toList());
            dir.closeCleanly(1);
        }
        try (LogDirectory dir = LogDirectory.open(root.resolve("a"), CONFIG, () -> 0L, FileSync.durable())) {
            Log log = dir.log(TP).orElseThrow();
            assertThat(dir.previousCleanShutdownBrokerEpoch()).hasValue(1);
            assertThat(log.recoveryFindings()).isEmpty();
            assertThat(log.logEndOffset()).isEqualTo(120);
        }
    }

    @Test
    @DisplayName("A thread interrupted again and again while it appends and another reads, in loops: no storage error, contiguous, reopens clean")
    void interruptsDuringAppendAndReadLoops() throws Exception {
        int appends = 400;
        List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch started = new CountDownLatch(2);
        try (LogDirectory dir = LogDirectory.open(root.resolve("b"), CONFIG, () -> 0L, FileSync.withoutFsync())) {
            Log log = dir.getOrCreateLog(TP, CONFIG);
            AtomicReference<Long> interruptedCalls = new AtomicReference<>(0L);
            Thread appender = new Thread(() -> {
                started.countDown();
                // On a loaded machine all appends could end before the first interrupt: start once one has landed,
                // so the first append runs with the flag set (bounded wait: the assertions below then fail clearly).
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(JOIN_TIMEOUT_MS);
                while (!Thread.currentThread().isInterrupted() && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                for (int i = 0; i < appends; i++) {
                    try {
                        log.appendAsLeader(batch("l" + i, 1), i / 50);
                        if (Thread.interrupted()) {
                            interruptedCalls.updateAndGet(n -> n + 1);
                        }
                    } catch (Throwable e) {
                        errors.add(e);
                        return;
                    }
                }
            }, "interrupted-appender");
            Thread reader = new Thread(() -> {
                started.countDown();
                while (!stop.get()) {
                    try {
                        long leo = log.logEndOffset();
                        if (leo > 0) {
                            log.read(leo / 2, 1000, leo);
                        }
                        Thread.interrupted();
                    } catch (Throwable e) {
                        errors.add(e);
                        return;
                    }
                }
            }, "interrupted-reader");
            appender.start();
            reader.start();
            assertThat(started.await(JOIN_TIMEOUT_MS, TimeUnit.MILLISECONDS)).isTrue();
            // Interrupt both for as long as the appender runs (bounded by its appends, and by the join below).
            long interrupts = 0;
            while (appender.isAlive() && interrupts < 1_000_000) {
                appender.interrupt();
                reader.interrupt();
                interrupts++;
                Thread.onSpinWait();
            }
            appender.join(JOIN_TIMEOUT_MS);
            stop.set(true);
            reader.join(JOIN_TIMEOUT_MS);
            assertThat(appender.isAlive()).isFalse();
            assertThat(reader.isAlive()).isFalse();
            assertThat(errors).as("no call failed").isEmpty();
            assertThat(interruptedCalls.get()).as("interrupts landed during appends").isPositive();
            assertThat(log.isOffline()).isFalse();
            assertThat(dir.isOffline()).isFalse();
            assertThat(readOffsets(log, 0)).isEqualTo(LongStream.range(0, appends).boxed().toList());
            dir.closeCleanly(2);
        }
        try (LogDirectory dir = LogDirectory.open(root.resolve("b"), CONFIG, () -> 0L, FileSync.withoutFsync())) {
            Log log = dir.log(TP).orElseThrow();
            assertThat(log.recoveryFindings()).isEmpty();
            assertThat(readOffsets(log, 0)).isEqualTo(LongStream.range(0, appends).boxed().toList());
        }
    }
}
