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

import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.RecordBatchBuilder;
import dev.insync.replication.log.segment.LogSegment;
import dev.insync.replication.log.segment.OffsetIndex;
import dev.insync.replication.log.segment.TimeIndex;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * LOG-7: random corruptions of the real {@code .index} and {@code .timeindex} files of a real log
 * (garbage, 0xFF or zero fills, bit flips, negative, shifted or out-of-file positions, shifted
 * offsets, swapped or duplicated entries, files cut to any length, extended with garbage,
 * emptied or deleted) never stop the log from opening, never cost a record, and never change a
 * read: after reopening, every read returns exactly the bytes the uncorrupted log returned, every
 * lookup finds the batch holding its offset, and the repaired indexes open clean the next time.
 *
 * <p>QuickTheories, from plain JUnit 5; {@code -DQT_SEED=n} and {@code -DQT_EXAMPLES=n} change the
 * seed and the number of examples (fixed by default, so a CI run is repeatable).
 */
class IndexCorruptionPropertyTest {

    private static final TopicPartition TP = new TopicPartition("corrupt", 0);
    /** Small segments and a dense index: a few dozen batches make several segments of many entries. */
    private static final LogConfig CONFIG = LogConfig.defaults().withSegmentBytes(1400).withSegmentIndexBytes(1024)
            .withIndexIntervalBytes(150);
    private static final long DEFAULT_SEED = 0x1D_C0_77_E5L;
    private static final int DEFAULT_EXAMPLES = 150;

    @TempDir
    static Path tmp;
    private static Path pristine;
    private static long leo;
    private static List<Long> segmentBases;
    private static List<byte[]> oneBatchReads;
    private static List<byte[]> maxReads;
    private static String epochs;
    private static int trial;

    /** What a corruption does to one index file. */
    enum Kind {
        FILL_FF, FILL_ZERO, GARBAGE_RANGE, BIT_FLIP, NEGATIVE_POSITION, POSITION_PAST_END, POSITION_SHIFT,
        OFFSET_SHIFT, TIMESTAMP_SHIFT, SWAP_ENTRIES, DUPLICATE_ENTRY, CUT_TO_LENGTH, EXTEND_GARBAGE, EMPTY, DELETE,
        /** Well-formed but wrong: an entry's position moved to the start of a neighbouring batch. */
        POSITION_TO_OTHER_BATCH,
        /** Well-formed but wrong: an entry's offset changed to the last offset of a neighbouring batch. */
        OFFSET_TO_OTHER_BATCH
    }

    /**
     * One corruption: {@code kind} applied to the offset or time index of segment number
     * {@code segment} (modulo the segment count), with {@code a}, {@code b} and {@code value} as its
     * raw parameters (entries, lengths and amounts are taken modulo what fits).
     */
    record Corruption(Kind kind, int segment, boolean timeIndex, int a, int b, long value) {
    }

    @BeforeAll
    static void writePristineLog() throws IOException {
        pristine = tmp.resolve("pristine").resolve(TP.toString());
        Random random = new Random(42);
        try (Log log = Log.open(pristine, TP, CONFIG, 0, 0, () -> 0L, FileSync.withoutFsync())) {
            long timestamp = 10_000;
            for (int i = 0; i < 90; i++) {
                RecordBatchBuilder builder = new RecordBatchBuilder(0);
                int records = 1 + random.nextInt(4);
                // Mostly rising timestamps with some going back, so the time index has gaps and plateaus.
                timestamp += random.nextInt(5) == 0 ? -random.nextInt(30) : random.nextInt(40);
                for (int r = 0; r < records; r++) {
                    byte[] value = new byte[5 + random.nextInt(40)];
                    random.nextBytes(value);
                    builder.append(timestamp + r, ("k" + i).getBytes(StandardCharsets.UTF_8), value);
                }
                log.appendAsLeader(builder.build(), i / 20);
            }
            log.flush();
            leo = log.logEndOffset();
            segmentBases = log.segmentBaseOffsets();
            oneBatchReads = new ArrayList<>();
            maxReads = new ArrayList<>();
            for (long o = 0; o < leo; o++) {
                oneBatchReads.add(bytes(log.read(o, 1, leo).records()));
                maxReads.add(bytes(log.read(o, Integer.MAX_VALUE, leo).records()));
            }
            epochs = log.leaderEpochCache().epochEntries().toString();
        }
        assertThat(segmentBases).as("several segments").hasSizeGreaterThan(4);
        for (long base : segmentBases) {
            assertThat(Files.size(LogSegment.indexFile(pristine, base))).as("index entries in segment %d", base)
                    .isGreaterThanOrEqualTo(3L * OffsetIndex.ENTRY_SIZE);
        }
    }

    @Test
    @DisplayName("LOG-7 any corruption of real index files is detected and repaired: reads and lookups equal the uncorrupted log's")
    void log7AnyIndexCorruptionIsRepairedAndReadsAreUnchanged() {
        Gen<Corruption> corruption = Generate.enumValues(Kind.class).zip(integers().between(0, 1000), booleans().all(),
                integers().between(0, 100_000), integers().between(0, 100_000),
                (kind, segment, timeIndex, a, b) -> new Corruption(kind, segment, timeIndex, a, b, 0))
                .zip(longs().all(), (c, value) -> new Corruption(c.kind(), c.segment(), c.timeIndex(), c.a(), c.b(), value));
        // Mostly the recovery point at the LEO (every segment below it: the trusted, checked path).
        Gen<Boolean> trustedOpen = integers().between(0, 4).map(i -> i > 0);
        qt().withFixedSeed(Long.getLong("QT_SEED", DEFAULT_SEED))
                .withExamples(Integer.getInteger("QT_EXAMPLES", DEFAULT_EXAMPLES))
                .withShrinkCycles(40)
                .forAll(lists().of(corruption).ofSizeBetween(1, 3), trustedOpen, integers().between(0, (int) leo))
                .checkAssert(IndexCorruptionPropertyTest::reopenAndCompare);
    }

    private static void reopenAndCompare(List<Corruption> corruptions, boolean trustedOpen, int lowRecoveryPoint) {
        Path dir = tmp.resolve("trial-" + trial++).resolve(TP.toString());
        try {
            copy(pristine, dir);
            for (Corruption c : corruptions) {
                apply(dir, c);
            }
            long recoveryPoint = trustedOpen ? leo : lowRecoveryPoint;
            try (Log log = Log.open(dir, TP, CONFIG, recoveryPoint, 0, () -> 0L, FileSync.withoutFsync())) {
                assertThat(log.recoveryFindings()).as("an index corruption never costs data")
                        .noneMatch(f -> f.kind() == RecoveryFinding.Kind.TRUNCATED_TAIL
                                || f.kind() == RecoveryFinding.Kind.DELETED_SEGMENT);
                assertSameAsPristine(log);
                log.appendAsLeader(MemoryRecords.withRecords(0, -1,
                        new dev.insync.replication.log.record.SimpleRecord(99_999, null, new byte[] {1})), 10);
                assertThat(log.logEndOffset()).isEqualTo(leo + 1);
                log.truncateTo(leo);
            }
            // The repaired indexes are sound, checked here entry by entry against the log files, and the
            // next open finds nothing to rebuild.
            for (long base : segmentBases) {
                assertIndexesSound(dir, base);
            }
            try (Log again = Log.open(dir, TP, CONFIG, leo, 0, () -> 0L, FileSync.withoutFsync())) {
                assertThat(again.recoveryFindings()).as("findings after the repair").isEmpty();
                assertSameAsPristine(again);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            deleteRecursively(dir.getParent());
        }
    }

    private static void assertSameAsPristine(Log log) {
        assertThat(log.logEndOffset()).isEqualTo(leo);
        assertThat(log.segmentBaseOffsets()).isEqualTo(segmentBases);
        assertThat(log.leaderEpochCache().epochEntries().toString()).isEqualTo(epochs);
        for (long o = 0; o < leo; o++) {
            MemoryRecords one = log.read(o, 1, leo).records();
            assertThat(bytes(one)).as("one-batch read at %d", o).isEqualTo(oneBatchReads.get((int) o));
            var batch = one.batches().get(0);
            assertThat(batch.baseOffset()).as("lookup of %d", o).isLessThanOrEqualTo(o);
            assertThat(batch.lastOffset()).as("lookup of %d", o).isGreaterThanOrEqualTo(o);
            assertThat(bytes(log.read(o, Integer.MAX_VALUE, leo).records())).as("large read at %d", o)
                    .isEqualTo(maxReads.get((int) o));
        }
    }

    /**
     * Every offset-index entry points at the start of the batch ending at its offset, increasing;
     * time-index timestamps increase, offsets do not go back and each names the last offset of a
     * batch at or before which that timestamp was reached, the last one the batch holding it.
     */
    private static void assertIndexesSound(Path dir, long base) throws IOException {
        List<long[]> batches = batchesOf(LogSegment.logFile(dir, base));
        ByteBuffer index = ByteBuffer.wrap(Files.readAllBytes(LogSegment.indexFile(dir, base)));
        assertThat(index.limit() % OffsetIndex.ENTRY_SIZE).isZero();
        long previous = -1;
        for (int e = 0; e < index.limit() / OffsetIndex.ENTRY_SIZE; e++) {
            long offset = base + index.getInt(e * OffsetIndex.ENTRY_SIZE);
            int position = index.getInt(e * OffsetIndex.ENTRY_SIZE + 4);
            assertThat(offset).as("offset-index entry %d of segment %d", e, base).isGreaterThan(previous);
            int at = indexOfBatchAt(batches, position);
            assertThat(at).as("offset-index entry %d of segment %d points at a batch start", e, base).isNotNegative();
            assertThat(batches.get(at)[1]).as("offset-index entry %d of segment %d", e, base).isEqualTo(offset);
            previous = offset;
        }
        ByteBuffer timeIndex = ByteBuffer.wrap(Files.readAllBytes(LogSegment.timeIndexFile(dir, base)));
        assertThat(timeIndex.limit() % TimeIndex.ENTRY_SIZE).isZero();
        int entries = timeIndex.limit() / TimeIndex.ENTRY_SIZE;
        long previousTs = -1;
        long previousOffset = base;
        long next = batches.get(batches.size() - 1)[1] + 1;
        for (int e = 0; e < entries; e++) {
            long ts = timeIndex.getLong(e * TimeIndex.ENTRY_SIZE);
            long offset = base + timeIndex.getInt(e * TimeIndex.ENTRY_SIZE + 8);
            assertThat(ts).as("time-index entry %d of segment %d", e, base).isGreaterThan(previousTs);
            assertThat(offset).as("time-index entry %d of segment %d", e, base).isGreaterThanOrEqualTo(previousOffset)
                    .isLessThan(next);
            previousTs = ts;
            previousOffset = offset;
        }
        if (entries > 0) {
            long offset = previousOffset;
            assertThat(batches).as("the last time-index entry of segment %d names a batch", base)
                    .anySatisfy(b -> {
                        assertThat(b[1]).isEqualTo(offset);
                        assertThat(b[2]).isEqualTo(timeIndex.getLong((entries - 1) * TimeIndex.ENTRY_SIZE));
                    });
        }
    }

    // ---- corruptions ----

    private static void apply(Path dir, Corruption c) throws IOException {
        long base = segmentBases.get(Math.floorMod(c.segment(), segmentBases.size()));
        Path file = c.timeIndex() ? LogSegment.timeIndexFile(dir, base) : LogSegment.indexFile(dir, base);
        if (!Files.exists(file)) {
            return; // an earlier corruption deleted it
        }
        int entrySize = c.timeIndex() ? TimeIndex.ENTRY_SIZE : OffsetIndex.ENTRY_SIZE;
        byte[] bytes = Files.readAllBytes(file);
        int entries = bytes.length / entrySize;
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        Random random = new Random(c.value());
        int entry = entries == 0 ? 0 : Math.floorMod(c.a(), entries);
        // The position field of an offset-index entry, the offset field of either.
        int positionField = entry * entrySize + 4;
        int offsetField = entry * entrySize + (c.timeIndex() ? 8 : 0);
        long logSize = Files.size(LogSegment.logFile(dir, base));
        switch (c.kind()) {
            case FILL_FF -> java.util.Arrays.fill(bytes, (byte) 0xFF);
            case FILL_ZERO -> java.util.Arrays.fill(bytes, (byte) 0);
            case GARBAGE_RANGE -> {
                if (bytes.length > 0) {
                    int from = Math.floorMod(c.a(), bytes.length);
                    int length = 1 + Math.floorMod(c.b(), bytes.length - from);
                    for (int i = from; i < from + length; i++) {
                        bytes[i] = (byte) random.nextInt();
                    }
                }
            }
            case BIT_FLIP -> {
                if (bytes.length > 0) {
                    int bit = Math.floorMod(c.b(), bytes.length * 8);
                    bytes[bit / 8] ^= (byte) (1 << (bit % 8));
                }
            }
            case NEGATIVE_POSITION -> {
                if (entries > 0) {
                    buf.putInt(c.timeIndex() ? offsetField : positionField, -1 - Math.floorMod(c.b(), 1 << 20));
                }
            }
            case POSITION_PAST_END -> {
                if (entries > 0 && !c.timeIndex()) {
                    buf.putInt(positionField, (int) logSize + Math.floorMod(c.b(), 500) - 30);
                }
            }
            case POSITION_SHIFT -> {
                if (entries > 0 && !c.timeIndex()) {
                    buf.putInt(positionField, buf.getInt(positionField) + shift(c.b()));
                }
            }
            case OFFSET_SHIFT -> {
                if (entries > 0) {
                    buf.putInt(offsetField, buf.getInt(offsetField) + shift(c.b()));
                }
            }
            case TIMESTAMP_SHIFT -> {
                if (entries > 0 && c.timeIndex()) {
                    buf.putLong(entry * entrySize, buf.getLong(entry * entrySize) + shift(c.b()));
                }
            }
            case SWAP_ENTRIES -> {
                if (entries > 1) {
                    int other = Math.floorMod(c.b(), entries);
                    byte[] tmpEntry = new byte[entrySize];
                    System.arraycopy(bytes, entry * entrySize, tmpEntry, 0, entrySize);
                    System.arraycopy(bytes, other * entrySize, bytes, entry * entrySize, entrySize);
                    System.arraycopy(tmpEntry, 0, bytes, other * entrySize, entrySize);
                }
            }
            case DUPLICATE_ENTRY -> {
                if (entries > 1) {
                    int target = Math.max(1, entry);
                    System.arraycopy(bytes, (target - 1) * entrySize, bytes, target * entrySize, entrySize);
                }
            }
            case CUT_TO_LENGTH -> bytes = java.util.Arrays.copyOf(bytes, Math.floorMod(c.b(), bytes.length + 1));
            case EXTEND_GARBAGE -> {
                byte[] extra = new byte[1 + Math.floorMod(c.b(), 3 * entrySize)];
                random.nextBytes(extra);
                byte[] longer = java.util.Arrays.copyOf(bytes, bytes.length + extra.length);
                System.arraycopy(extra, 0, longer, bytes.length, extra.length);
                bytes = longer;
            }
            case POSITION_TO_OTHER_BATCH, OFFSET_TO_OTHER_BATCH -> {
                if (entries > 0 && !c.timeIndex()) {
                    List<long[]> batches = batchesOf(LogSegment.logFile(dir, base));
                    int at = indexOfBatchAt(batches, buf.getInt(positionField));
                    if (at >= 0) {
                        int other = Math.floorMod(at + (c.b() % 2 == 0 ? 1 : -1), batches.size());
                        if (c.kind() == Kind.POSITION_TO_OTHER_BATCH) {
                            buf.putInt(positionField, (int) batches.get(other)[0]);
                        } else {
                            buf.putInt(offsetField, (int) (batches.get(other)[1] - base));
                        }
                    }
                }
            }
            case EMPTY -> bytes = new byte[0];
            case DELETE -> {
                Files.delete(file);
                return;
            }
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer out = ByteBuffer.wrap(bytes);
            while (out.hasRemaining()) {
                ch.write(out);
            }
        }
    }

    /** (position, last offset, max timestamp) of every batch of a segment file. */
    private static List<long[]> batchesOf(Path logFile) throws IOException {
        ByteBuffer data = ByteBuffer.wrap(Files.readAllBytes(logFile));
        List<long[]> batches = new ArrayList<>();
        for (int pos = 0; pos + 61 <= data.limit(); pos += 12 + data.getInt(pos + 8)) {
            batches.add(new long[] {pos, data.getLong(pos) + data.getInt(pos + 23), data.getLong(pos + 35)});
        }
        return batches;
    }

    private static int indexOfBatchAt(List<long[]> batches, int position) {
        for (int i = 0; i < batches.size(); i++) {
            if (batches.get(i)[0] == position) {
                return i;
            }
        }
        return -1;
    }

    /** A non-zero shift of -60..60 (entries are ~60 bytes and a few offsets apart). */
    private static int shift(int raw) {
        int s = Math.floorMod(raw, 120) - 60;
        return s >= 0 ? s + 1 : s;
    }

    // ---- helpers ----

    private static byte[] bytes(MemoryRecords records) {
        ByteBuffer buf = records.buffer();
        byte[] out = new byte[buf.remaining()];
        buf.duplicate().get(out);
        return out;
    }

    private static void copy(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.copy(f, to.resolve(f.getFileName()));
            }
        }
    }

    private static void deleteRecursively(Path root) {
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
