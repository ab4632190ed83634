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
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static dev.insync.replication.log.LogFixtures.TP;
import static dev.insync.replication.log.LogFixtures.batch;
import static org.assertj.core.api.Assertions.assertThat;

class LogConcurrencyTest {

    @TempDir
    Path tmp;

    @Test
    @DisplayName("LOG-3 reads concurrent with appends and rolls see only complete, valid, contiguous batches below the LEO they saw")
    void readsConcurrentWithAppendsSeeWholeBatches() throws Exception {
        LogConfig config = LogFixtures.smallConfig().withSegmentBytes(2_000).withIndexIntervalBytes(200);
        try (Log log = Log.open(tmp.resolve(TP.toString()), TP, config, 0, 0, () -> 0L)) {
            int appends = 600;
            AtomicBoolean done = new AtomicBoolean();
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            AtomicLong reads = new AtomicLong();
            CountDownLatch started = new CountDownLatch(2);
            Runnable reader = () -> {
                started.countDown();
                try {
                    while (!done.get()) {
                        long leo = log.logEndOffset();
                        if (leo == 0) {
                            continue;
                        }
                        long start = ThreadLocalRandom.current().nextLong(leo);
                        List<RecordBatch> batches = log.read(start, 700, leo).records().batches();
                        assertThat(batches).isNotEmpty();
                        assertThat(batches.get(0).baseOffset()).isLessThanOrEqualTo(start);
                        long expected = batches.get(0).baseOffset();
                        for (RecordBatch b : batches) {
                            assertThat(b.isValid()).isTrue();
                            assertThat(b.baseOffset()).isEqualTo(expected);
                            assertThat(b.lastOffset()).isLessThan(leo);
                            expected = b.nextOffset();
                        }
                        reads.incrementAndGet();
                    }
                } catch (Throwable t) {
                    failures.add(t);
                }
            };
            Thread r1 = new Thread(reader, "reader-1");
            Thread r2 = new Thread(reader, "reader-2");
            r1.start();
            r2.start();
            started.await();
            for (int i = 0; i < appends; i++) {
                log.appendAsLeader(batch("c" + i, 1 + i % 3), 0);
            }
            done.set(true);
            r1.join();
            r2.join();
            assertThat(failures).isEmpty();
            assertThat(reads.get()).isPositive();
            assertThat(log.segmentBaseOffsets().size()).isGreaterThan(10);
            assertThat(LogFixtures.readOffsets(log, 0)).hasSize((int) log.logEndOffset());
        }
    }

    @Test
    @DisplayName("LOG-3 LOG-10 reads and group-commit flushes concurrent with retention, truncation and close, on"
            + " segments large enough to be mapped: every read sees whole batches or a clear error, and no unmapped"
            + " file is touched (that would crash the JVM)")
    void readsConcurrentWithDeletionTruncationAndCloseNeverTouchAnUnmappedFile() throws Exception {
        // Segments above the 1 MiB a read map needs; an index entry every 4 KiB.
        LogConfig config = LogConfig.defaults().withSegmentBytes(1_200_000).withIndexIntervalBytes(4096);
        Log log = Log.open(tmp.resolve(TP.toString()), TP, config, 0, 0, () -> 0L);
        AtomicBoolean closing = new AtomicBoolean();
        AtomicBoolean closed = new AtomicBoolean();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        AtomicLong reads = new AtomicLong();
        AtomicLong flushes = new AtomicLong();
        CountDownLatch started = new CountDownLatch(3);
        Runnable reader = () -> {
            started.countDown();
            while (!closed.get()) {
                long leo = log.logEndOffset();
                long start = log.logStartOffset();
                if (leo <= start) {
                    continue;
                }
                long from = ThreadLocalRandom.current().nextLong(start, leo);
                try {
                    for (RecordBatch b : log.read(from, 64 * 1024, leo).records().batches()) {
                        assertThat(b.isValid()).isTrue();
                    }
                    reads.incrementAndGet();
                } catch (ApiException e) {
                    // Retention or truncation moved a bound meanwhile, or the log closed under the read.
                    if (e.error() != Errors.OFFSET_OUT_OF_RANGE && !(closing.get() && e.error() == Errors.KAFKA_STORAGE_ERROR)) {
                        failures.add(e);
                    }
                } catch (Throwable t) {
                    failures.add(t);
                }
            }
        };
        Runnable flusher = () -> {
            started.countDown();
            while (!closed.get()) {
                try {
                    log.flush(log.logEndOffset());
                    flushes.incrementAndGet();
                } catch (ApiException e) {
                    if (!(closing.get() && e.error() == Errors.KAFKA_STORAGE_ERROR)) {
                        failures.add(e);
                    }
                } catch (Throwable t) {
                    failures.add(t);
                }
            }
        };
        List<Thread> threads = List.of(new Thread(reader, "reader-1"), new Thread(reader, "reader-2"),
                new Thread(flusher, "flusher"));
        threads.forEach(Thread::start);
        started.await();
        int deletions = 0;
        for (int i = 1; i <= 400; i++) {
            log.appendAsLeader(LogFixtures.kilobyteRecords(16), 0);
            log.updateHighWatermark(log.logEndOffset());
            if (i % 50 == 0) {
                log.truncateTo(log.logEndOffset() - 40); // back across a batch boundary, maybe a segment's
            }
            if (i % 90 == 0 && log.segmentBaseOffsets().size() > 2) {
                log.deleteRecordsBefore(log.segmentBaseOffsets().get(1));
                deletions++;
            }
        }
        closing.set(true);
        log.close();
        closed.set(true);
        for (Thread t : threads) {
            t.join(10_000);
            assertThat(t.isAlive()).as("%s ended", t.getName()).isFalse();
        }
        assertThat(failures).isEmpty();
        assertThat(reads.get()).isPositive();
        assertThat(flushes.get()).isPositive();
        assertThat(deletions).isPositive();
    }
}
