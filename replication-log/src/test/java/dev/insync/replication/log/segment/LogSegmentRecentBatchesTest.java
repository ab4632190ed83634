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

package dev.insync.replication.log.segment;

import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.RecordBatchBuilder;
import dev.insync.replication.log.record.Records;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.quicktheories.core.Gen;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

/**
 * LOG-3 at the log's end: a segment remembers where its last appended batches are
 * ({@link RecentBatches}), so a read starting at one of them (a follower's next fetch) locates it and
 * walks the batches after it without reading the file. Reads must return exactly what a read that
 * walks the file returns, also after truncations (LOG-6) and while appends go on.
 *
 * <p>QuickTheories, from plain JUnit 5; {@code -DQT_SEED=n} and {@code -DQT_EXAMPLES=n} change the
 * seed and the number of examples (fixed by default, so a CI run is repeatable).
 */
class LogSegmentRecentBatchesTest {

    private static final long DEFAULT_SEED = 0x5EC_E17L;
    private static final int DEFAULT_EXAMPLES = 60;

    @TempDir
    Path dir;

    /** Where one batch is: offsets [base, last] at [position, position + size). */
    record Placed(long base, long last, int position, int size) {
    }

    private static Placed append(LogSegment segment, long base, int records, int valueBytes, Random random)
            throws IOException {
        RecordBatchBuilder builder = new RecordBatchBuilder(base);
        for (int r = 0; r < records; r++) {
            byte[] value = new byte[valueBytes];
            random.nextBytes(value);
            builder.append(1_000L + base + r, null, value);
        }
        MemoryRecords batch = builder.build();
        Placed placed = new Placed(base, base + records - 1, segment.size(), batch.sizeInBytes());
        segment.append(batch.buffer());
        return placed;
    }

    /** What locate must find for {@code offset}: the first batch whose last offset is at least it. */
    private static Placed expectedBatch(List<Placed> layout, long offset) {
        return layout.stream().filter(p -> p.last() >= offset).findFirst().orElse(null);
    }

    /** The bytes a read of whole batches from {@code first} returns, bounded as LOG-3 bounds it. */
    private static ByteBuffer expectedRead(byte[] file, List<Placed> layout, Placed first, int maxBytes, long maxOffset) {
        long limit = (long) first.position() + Math.max(maxBytes, first.size());
        int end = first.position() + first.size();
        for (Placed p : layout) {
            if (p.position() >= end && p.position() + p.size() <= limit && p.last() < maxOffset && p.position() == end) {
                end += p.size();
            }
        }
        return ByteBuffer.wrap(file, first.position(), end - first.position());
    }

    private static void assertReadsMatchLayout(LogSegment segment, List<Placed> layout, int maxBytes) throws IOException {
        byte[] file = Files.readAllBytes(segment.logFile());
        long end = layout.isEmpty() ? 0 : layout.get(layout.size() - 1).last() + 1;
        for (long offset = 0; offset <= end; offset++) {
            Placed want = expectedBatch(layout, offset);
            LogSegment.BatchPosition found = segment.translateOffset(offset, segment.size());
            if (want == null) {
                assertThat(found).as("offset %d past the end", offset).isNull();
                assertThat(segment.readFileRecords(offset, maxBytes, Long.MAX_VALUE, true)).isNull();
                continue;
            }
            assertThat(found).as("offset %d", offset)
                    .isEqualTo(new LogSegment.BatchPosition(want.position(), want.size(), want.base(), want.last()));
            ByteBuffer expected = expectedRead(file, layout, want, maxBytes, Long.MAX_VALUE);
            assertThat(segment.read(offset, maxBytes, Long.MAX_VALUE, true)).as("read at %d", offset).isEqualTo(expected);
            Records sliced = segment.readFileRecords(offset, maxBytes, Long.MAX_VALUE, true);
            assertThat(((FileRecords) sliced).toMemoryRecords().buffer()).as("slice at %d", offset).isEqualTo(expected);
            long maxOffset = want.last() + 3;
            assertThat(((FileRecords) segment.readFileRecords(offset, Integer.MAX_VALUE, maxOffset, true))
                    .toMemoryRecords().buffer()).as("slice at %d below %d", offset, maxOffset)
                    .isEqualTo(expectedRead(file, layout, want, Integer.MAX_VALUE, maxOffset));
        }
    }

    @Test
    @DisplayName("LOG-3 a read starting at one of the last appended batches locates it and walks the batches after it"
            + " without reading the file; an older start reads it")
    void log3ReadAtTheEndLocatesWithoutReadingTheFile() throws IOException {
        // Below the read map's minimum: without the remembered batches every lookup reads the file.
        LogSegment segment = LogSegment.create(dir, 0, 4096, 1 << 20);
        Random random = new Random(7);
        List<Placed> layout = new ArrayList<>();
        long next = 0;
        for (int i = 0; i < 40; i++) {
            Placed p = append(segment, next, 1 + random.nextInt(5), 80, random);
            layout.add(p);
            next = p.last() + 1;
        }
        Placed recent = layout.get(layout.size() - RecentBatches.CAPACITY);
        long reads = segment.fileReads();
        for (long offset = recent.base(); offset < next; offset++) {
            assertThat(segment.translateOffset(offset, segment.size()).baseOffset()).isEqualTo(expectedBatch(layout, offset).base());
        }
        FileRecords tail = (FileRecords) segment.readFileRecords(recent.base() + 1, Integer.MAX_VALUE, Long.MAX_VALUE, false);
        assertThat(tail.position()).isEqualTo(recent.position());
        assertThat(tail.sizeInBytes()).isEqualTo(segment.size() - recent.position());
        assertThat(segment.fileReads()).as("file reads to locate and walk the last batches").isEqualTo(reads);

        ByteBuffer copied = segment.read(recent.base(), Integer.MAX_VALUE, Long.MAX_VALUE, false);
        assertThat(copied.remaining()).isEqualTo(segment.size() - recent.position());
        assertThat(segment.fileReads()).as("a copying read reads its bytes, once").isEqualTo(reads + 1);

        Placed old = layout.get(layout.size() - RecentBatches.CAPACITY - 1);
        assertThat(segment.translateOffset(old.base(), segment.size()).position()).isEqualTo(old.position());
        assertThat(segment.fileReads()).as("an older batch is located in the file").isGreaterThan(reads + 1);
        assertReadsMatchLayout(segment, layout, 300);
        segment.close();
    }

    @Test
    @DisplayName("LOG-6 after a truncation the remembered batches are forgotten: batches appended in their place are"
            + " found at their own positions, and nothing past the new end")
    void log6TruncationForgetsTheRememberedBatches() throws IOException {
        LogSegment segment = LogSegment.create(dir, 0, 4096, 1 << 20);
        Random random = new Random(11);
        List<Placed> layout = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            layout.add(append(segment, 3L * i, 3, 40, random));
        }
        segment.truncateTo(15);
        layout.subList(5, layout.size()).clear();
        assertThat(segment.translateOffset(20, segment.size())).isNull();
        // Different sizes at the same offsets: a stale position would point into the middle of a batch.
        long next = 15;
        for (int i = 0; i < 4; i++) {
            Placed p = append(segment, next, 1 + i, 120, random);
            layout.add(p);
            next = p.last() + 1;
        }
        assertReadsMatchLayout(segment, layout, 200);
        segment.close();
    }

    @Test
    @DisplayName("LOG-3 only back-to-back batches are remembered together, and the oldest one only answers for its own"
            + " offsets: nothing says where the batch before it ends")
    void log3RememberedBatchesAreBackToBack() {
        RecentBatches recent = new RecentBatches();
        recent.record(0, 100, 0, 4);
        recent.record(100, 50, 5, 6);
        assertThat(recent.find(5, 150)).isEqualTo(new LogSegment.BatchPosition(100, 50, 5, 6));
        assertThat(recent.walkEnd(0, 150, Long.MAX_VALUE)).as("walked to the bound").isEqualTo(-151);
        assertThat(recent.walkEnd(0, 149, Long.MAX_VALUE)).as("stopped by the limit").isEqualTo(100);
        assertThat(recent.walkEnd(100, 1_000, 6)).as("stopped by maxOffset").isEqualTo(100);
        assertThat(recent.find(5, 149)).as("past the reader's end").isNull();
        // Not after the newest batch: the two before are forgotten.
        recent.record(300, 10, 9, 9);
        assertThat(recent.find(5, 1_000)).isNull();
        assertThat(recent.find(8, 1_000)).as("the oldest remembered batch does not hold 8").isNull();
        assertThat(recent.find(9, 1_000)).isEqualTo(new LogSegment.BatchPosition(300, 10, 9, 9));
        for (int i = 0; i < RecentBatches.CAPACITY; i++) {
            recent.record(310 + 10 * i, 10, 10 + i, 10 + i);
        }
        assertThat(recent.find(9, 1_000)).as("pushed out").isNull();
        assertThat(recent.find(10, 1_000)).isEqualTo(new LogSegment.BatchPosition(310, 10, 10, 10));
        recent.clear();
        assertThat(recent.find(10, 1_000)).isNull();
        assertThat(recent.walkEnd(310, 1_000, Long.MAX_VALUE)).isEqualTo(-311);
    }

    /** One step of a segment's life: append a batch of {@code records} (after a gap of {@code gap} offsets), or truncate. */
    record Step(boolean truncate, int records, int valueBytes, int gap, int truncatePercent) {
    }

    @Test
    @DisplayName("LOG-3 LOG-6 any sequence of appends (with offset gaps) and truncations: every lookup and every read"
            + " equals the file's layout")
    void log3AnySequenceOfAppendsAndTruncationsReadsTheLayout() {
        Gen<Step> step = integers().between(0, 9).zip(integers().between(1, 6), integers().between(1, 300),
                integers().between(0, 3), integers().between(0, 100),
                (kind, records, value, gap, cut) -> new Step(kind == 0, records, value, gap == 3 ? 2 : 0, cut));
        int[] trial = {0};
        qt().withFixedSeed(Long.getLong("QT_SEED", DEFAULT_SEED)).withExamples(Integer.getInteger("QT_EXAMPLES", DEFAULT_EXAMPLES))
                .forAll(lists().of(step).ofSizeBetween(1, 60), integers().between(50, 2_000))
                .checkAssert((steps, maxBytes) -> {
                    try {
                        Path d = Files.createDirectory(dir.resolve("t" + trial[0]++));
                        LogSegment segment = LogSegment.create(d, 0, 512, 1 << 16);
                        Random random = new Random(steps.size());
                        List<Placed> layout = new ArrayList<>();
                        long next = 0;
                        for (Step s : steps) {
                            if (s.truncate() && !layout.isEmpty()) {
                                long to = layout.get(layout.size() * s.truncatePercent() / 101).base();
                                segment.truncateTo(to);
                                layout.removeIf(p -> p.last() >= to);
                                next = to;
                            } else {
                                Placed p = append(segment, next + s.gap(), s.records(), s.valueBytes(), random);
                                layout.add(p);
                                next = p.last() + 1;
                            }
                        }
                        assertReadsMatchLayout(segment, layout, maxBytes);
                        segment.close();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
    }

    @Test
    @DisplayName("LOG-3 reads at the end while batches are appended see whole batches only: each read returns the"
            + " batches on disk from the one holding its offset")
    void log3ReadsRacingAppendsReturnWholeBatches() throws Exception {
        LogSegment segment = LogSegment.create(dir, 0, 4096, 1 << 22);
        Random random = new Random(3);
        int batches = 3_000;
        List<Placed> layout = new ArrayList<>();
        AtomicBoolean done = new AtomicBoolean();
        // The reader only looks at offsets already appended (published by the appender below).
        AtomicLong published = new AtomicLong(-1);
        CompletableFuture<Long> reader = CompletableFuture.supplyAsync(() -> {
            long checked = 0;
            Random r = new Random(5);
            try {
                while (!done.get()) {
                    long high = published.get();
                    if (high < 0) {
                        continue;
                    }
                    long offset = Math.max(0, high - r.nextInt(20));
                    int end = segment.size();
                    LogSegment.BatchPosition found = segment.translateOffset(offset, end);
                    assertThat(found).as("offset %d", offset).isNotNull();
                    assertThat(found.baseOffset()).isLessThanOrEqualTo(offset);
                    assertThat(found.lastOffset()).isGreaterThanOrEqualTo(offset);
                    assertThat(found.position() + found.sizeInBytes()).isLessThanOrEqualTo(end);
                    FileRecords slice = (FileRecords) segment.readFileRecords(offset, 4_000, Long.MAX_VALUE, true);
                    MemoryRecords bytes = slice.toMemoryRecords();
                    assertThat(slice.position()).isEqualTo(found.position());
                    bytes.batches().forEach(b -> assertThat(b.isValid()).isTrue());
                    checked++;
                }
                return checked;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        long next = 0;
        for (int i = 0; i < batches; i++) {
            Placed p = append(segment, next, 1 + random.nextInt(4), 30, random);
            layout.add(p);
            next = p.last() + 1;
            published.set(p.last());
        }
        done.set(true);
        assertThat(reader.get(60, TimeUnit.SECONDS)).as("reads checked").isPositive();
        assertReadsMatchLayout(segment, layout, 1_000);
        segment.close();
    }
}
