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

import dev.insync.replication.log.FileSync;
import dev.insync.replication.log.epoch.EpochEntry;
import dev.insync.replication.log.record.RecordBatchBuilder;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One segment on its own, at the exact boundaries of its rules: when an index entry is written
 * (LOG-2), which batches a read returns (LOG-3), what a truncation removes and reports (LOG-6), and
 * what recovery keeps, cuts and reports (LOG-7, LOG-8).
 */
class LogSegmentTest {

    @TempDir
    Path dir;

    /** Where one appended batch is: offsets [base, last] at [position, position + size). */
    record Placed(long base, long last, int position, int size) {
    }

    /** A batch of {@code count} records with values of {@code valueBytes}, the last record at {@code maxTimestamp}. */
    private static ByteBuffer batch(long base, int count, int epoch, long maxTimestamp, int valueBytes) {
        RecordBatchBuilder builder = new RecordBatchBuilder(base).partitionLeaderEpoch(epoch);
        for (int i = 0; i < count; i++) {
            builder.append(maxTimestamp - (count - 1) + i, null, new byte[valueBytes]);
        }
        return builder.build().buffer();
    }

    private static Placed append(LogSegment segment, long base, int count, int epoch, long maxTimestamp)
            throws IOException {
        return append(segment, batch(base, count, epoch, maxTimestamp, 10));
    }

    private static Placed append(LogSegment segment, ByteBuffer batch) throws IOException {
        int position = segment.size();
        int size = batch.remaining();
        long base = BatchFraming.baseOffset(batch, batch.position());
        long last = BatchFraming.lastOffset(batch, batch.position());
        segment.append(batch);
        assertThat(segment.size()).isEqualTo(position + size);
        return new Placed(base, last, position, size);
    }

    private static List<OffsetIndex.Position> offsetEntries(LogSegment segment) {
        List<OffsetIndex.Position> out = new ArrayList<>();
        for (int i = 0; i < segment.offsetIndex().entries(); i++) {
            out.add(segment.offsetIndex().entry(i));
        }
        return out;
    }

    private static List<TimeIndex.Entry> timeEntries(LogSegment segment) {
        List<TimeIndex.Entry> out = new ArrayList<>();
        for (int i = 0; i < segment.timeIndex().entries(); i++) {
            out.add(segment.timeIndex().entry(i));
        }
        return out;
    }

    private static int batchSize(int count) {
        return batch(0, count, 0, 100, 10).remaining();
    }

    private static void appendBytes(Path file, byte[] bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            ch.write(ByteBuffer.wrap(bytes));
        }
    }

    @Test
    @DisplayName("LOG-2 an index entry is written for the first batch after more than index.interval.bytes (not at"
            + " exactly the interval), with the largest timestamp so far and the offset that first reached it")
    void log2IndexEntryAfterMoreThanTheInterval() throws IOException {
        int s = batchSize(1);
        LogSegment segment = LogSegment.create(dir, 0, s, 4096);
        // Timestamps 100, 100, 50, 300: the second 100 does not move the offset of the largest timestamp.
        Placed b0 = append(segment, 0, 1, 0, 100);
        Placed b1 = append(segment, 1, 1, 0, 100);
        assertThat(segment.offsetIndex().entries()).as("after exactly one interval: no entry yet").isZero();
        Placed b2 = append(segment, 2, 1, 0, 50);
        Placed b3 = append(segment, 3, 1, 0, 300);
        assertThat(List.of(b0.position(), b1.position(), b2.position(), b3.position())).containsExactly(0, s, 2 * s, 3 * s);
        assertThat(offsetEntries(segment)).containsExactly(new OffsetIndex.Position(2, 2 * s));
        assertThat(timeEntries(segment)).containsExactly(new TimeIndex.Entry(100, 0));
        assertThat(segment.maxTimestampSoFar()).isEqualTo(300);
        assertThat(segment.indexIsFull()).isFalse();

        // Rolling records the final largest timestamp and trims both files to their entries.
        segment.onBecomeInactiveSegment();
        assertThat(timeEntries(segment)).containsExactly(new TimeIndex.Entry(100, 0), new TimeIndex.Entry(300, 3));
        assertThat(Files.size(segment.offsetIndex().file())).isEqualTo(OffsetIndex.ENTRY_SIZE);
        assertThat(Files.size(segment.timeIndex().file())).isEqualTo(2 * TimeIndex.ENTRY_SIZE);
        segment.onBecomeInactiveSegment();
        assertThat(timeEntries(segment)).as("a second roll adds nothing").hasSize(2);
        segment.close();

        // Reopened as it was written: trusted, and the index finds every batch.
        LogSegment reopened = LogSegment.openUnchecked(dir, 0, s, 4096, FileSync.durable());
        LogSegment.TrustCheck check = reopened.checkTrusted(4);
        assertThat(check).isEqualTo(new LogSegment.TrustCheck(null, 4));
        assertThat(reopened.maxTimestampSoFar()).isEqualTo(300);
        assertThat(reopened.translateOffset(3, reopened.size()))
                .isEqualTo(new LogSegment.BatchPosition(3 * s, s, 3, 3));
        assertThat(reopened.readNextOffset()).isEqualTo(4);
        reopened.close();
    }

    @Test
    @DisplayName("LOG-2 a full index takes no more entries (the segment must roll) and the appends still succeed")
    void log2FullIndexTakesNoMoreEntries() throws IOException {
        // 24 bytes: three offset entries, two time entries of which one is kept for the roll.
        LogSegment segment = LogSegment.create(dir, 0, 0, 24);
        append(segment, 0, 1, 0, 10);
        assertThat(segment.indexIsFull()).isFalse();
        append(segment, 1, 1, 0, 20);
        assertThat(segment.offsetIndex().entries()).isEqualTo(1);
        assertThat(segment.indexIsFull()).as("the time index keeps its last slot").isTrue();
        Placed last = append(segment, 2, 1, 0, 30);
        assertThat(offsetEntries(segment)).containsExactly(new OffsetIndex.Position(1, last.position() - last.size()));
        segment.onBecomeInactiveSegment();
        assertThat(timeEntries(segment)).containsExactly(new TimeIndex.Entry(20, 1), new TimeIndex.Entry(30, 2));
        segment.close();
    }

    @Test
    @DisplayName("LOG-2 a segment's indexes hold offsets up to base + Integer.MAX_VALUE and no further")
    void log2RelativeOffsetRange() throws IOException {
        LogSegment segment = LogSegment.create(dir, 1_000, 4096, 4096);
        assertThat(segment.offsetIndex().baseOffset()).isEqualTo(1_000);
        assertThat(segment.timeIndex().baseOffset()).isEqualTo(1_000);
        assertThat(segment.canConvertToRelativeOffset(1_000)).isTrue();
        assertThat(segment.canConvertToRelativeOffset(999)).isFalse();
        assertThat(segment.canConvertToRelativeOffset(1_000 + (long) Integer.MAX_VALUE)).isTrue();
        assertThat(segment.canConvertToRelativeOffset(1_001 + (long) Integer.MAX_VALUE)).isFalse();
        segment.close();
    }

    @Test
    @DisplayName("LOG-2 file names: a negative base offset is refused, names of another length or suffix are not segments")
    void log2FileNames() {
        assertThatThrownBy(() -> LogSegment.filenamePrefix(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Negative segment base offset -1");
        assertThat(LogSegment.filenamePrefix(Long.MAX_VALUE)).isEqualTo("09223372036854775807");
        assertThat(LogSegment.indexFile(dir, 7).getFileName().toString()).isEqualTo("00000000000000000007.index");
        assertThat(LogSegment.timeIndexFile(dir, 7).getFileName().toString()).isEqualTo("00000000000000000007.timeindex");
        assertThat(LogSegment.parseBaseOffset("00000000000000000007.timeindex", ".timeindex")).hasValue(7);
        assertThat(LogSegment.parseBaseOffset("000000000000000000007.log", ".log")).isEmpty();
        assertThat(LogSegment.parseBaseOffset("x0000000000000000007.log", ".log")).isEmpty();
        assertThat(LogSegment.parseBaseOffset("+0000000000000000007.log", ".log")).as("digits only, no sign").isEmpty();
        assertThat(LogSegment.parseBaseOffset("99999999999999999999.log", ".log")).as("above Long.MAX_VALUE").isEmpty();
    }

    /** Five batches of two records each (offsets 0-9), all of the same size. */
    private List<Placed> fiveBatches(LogSegment segment) throws IOException {
        List<Placed> placed = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            placed.add(append(segment, 2L * i, 2, 0, 100 + i));
        }
        return placed;
    }

    @Test
    @DisplayName("LOG-3 a segment read returns whole batches up to exactly maxBytes, at least the first one only with"
            + " minOneBatch, none at or above maxOffset, and null past its last batch")
    void log3ReadBounds() throws IOException {
        LogSegment segment = LogSegment.create(dir, 0, 4096, 4096);
        List<Placed> b = fiveBatches(segment);
        int s = b.get(0).size();

        assertThat(segment.read(0, 2 * s, Long.MAX_VALUE, false).remaining()).isEqualTo(2 * s);
        assertThat(segment.read(0, 2 * s - 1, Long.MAX_VALUE, false).remaining()).isEqualTo(s);
        assertThat(segment.read(0, s, Long.MAX_VALUE, false).remaining()).isEqualTo(s);
        assertThat(segment.read(0, s - 1, Long.MAX_VALUE, false).remaining()).as("first batch too large").isZero();
        assertThat(segment.read(0, s - 1, Long.MAX_VALUE, true).remaining()).isEqualTo(s);
        assertThat(segment.read(0, 1, Long.MAX_VALUE, true).remaining()).isEqualTo(s);

        ByteBuffer fromMiddle = segment.read(5, Integer.MAX_VALUE, Long.MAX_VALUE, false);
        assertThat(BatchFraming.baseOffset(fromMiddle, 0)).as("the batch containing offset 5").isEqualTo(4);
        assertThat(fromMiddle.remaining()).isEqualTo(3 * s);

        assertThat(segment.read(0, Integer.MAX_VALUE, 4, false).remaining()).as("last offsets 1 and 3 below 4").isEqualTo(2 * s);
        assertThat(segment.read(0, Integer.MAX_VALUE, 3, false).remaining()).as("last offset 3 is not below 3").isEqualTo(s);
        assertThat(segment.read(0, Integer.MAX_VALUE, 1, true).remaining()).as("even with minOneBatch").isZero();
        assertThat(segment.read(0, Integer.MAX_VALUE, 2, false).remaining()).isEqualTo(s);

        assertThat(segment.read(9, 1, Long.MAX_VALUE, true).remaining()).isEqualTo(s);
        assertThat(BatchFraming.baseOffset(segment.read(9, 1, Long.MAX_VALUE, true), 0)).isEqualTo(8);
        assertThat(segment.read(10, 1, Long.MAX_VALUE, true)).isNull();
        segment.close();
    }

    @Test
    @DisplayName("LOG-3 NET-3 readFileRecords slices the file at the same bounds as read, at the first batch's position")
    void log3FileRecordsBounds() throws IOException {
        LogSegment segment = LogSegment.create(dir, 0, 4096, 4096);
        List<Placed> b = fiveBatches(segment);
        int s = b.get(0).size();

        FileRecords two = (FileRecords) segment.readFileRecords(2, 2 * s, Long.MAX_VALUE, false);
        assertThat(two.position()).isEqualTo(s);
        assertThat(two.sizeInBytes()).isEqualTo(2 * s);
        assertThat(((FileRecords) segment.readFileRecords(2, 2 * s - 1, Long.MAX_VALUE, false)).sizeInBytes()).isEqualTo(s);
        assertThat(segment.readFileRecords(2, s - 1, Long.MAX_VALUE, false).sizeInBytes()).isZero();
        assertThat(segment.readFileRecords(2, s, Long.MAX_VALUE, false).sizeInBytes()).as("exactly maxBytes").isEqualTo(s);
        assertThat(segment.readFileRecords(2, s - 1, Long.MAX_VALUE, true).sizeInBytes()).isEqualTo(s);
        assertThat(segment.readFileRecords(0, Integer.MAX_VALUE, 5, false).sizeInBytes()).isEqualTo(2 * s);
        assertThat(segment.readFileRecords(0, Integer.MAX_VALUE, 4, false).sizeInBytes()).isEqualTo(2 * s);
        assertThat(segment.readFileRecords(0, Integer.MAX_VALUE, 3, false).sizeInBytes()).isEqualTo(s);
        assertThat(segment.readFileRecords(2, Integer.MAX_VALUE, 3, true).sizeInBytes()).isZero();
        FileRecords all = (FileRecords) segment.readFileRecords(0, Integer.MAX_VALUE, Long.MAX_VALUE, false);
        assertThat(all.position()).isZero();
        assertThat(all.sizeInBytes()).isEqualTo(5 * s);
        assertThat(all.toMemoryRecords().buffer()).isEqualTo(segment.read(0, Integer.MAX_VALUE, Long.MAX_VALUE, false));
        assertThat(segment.readFileRecords(10, 1, Long.MAX_VALUE, true)).isNull();
        segment.close();
    }

    @Test
    @DisplayName("LOG-3 locating a batch never looks past the end position it is given")
    void log3TranslateOffsetBoundedByEndPosition() throws IOException {
        LogSegment segment = LogSegment.create(dir, 0, 4096, 4096);
        List<Placed> b = fiveBatches(segment);
        assertThat(segment.translateOffset(0, segment.size())).isEqualTo(new LogSegment.BatchPosition(0, b.get(0).size(), 0, 1));
        assertThat(segment.translateOffset(7, b.get(3).position())).isNull();
        assertThat(segment.translateOffset(7, b.get(4).position()))
                .isEqualTo(new LogSegment.BatchPosition(b.get(3).position(), b.get(3).size(), 6, 7));
        segment.close();
    }

    @Test
    @DisplayName("LOG-6 segment truncation removes the batch holding the offset and everything after, returns the"
            + " bytes removed, cuts both indexes and reloads the largest timestamp of what is kept")
    void log6TruncateTo() throws IOException {
        int s = batchSize(2);
        LogSegment segment = LogSegment.create(dir, 0, s - 1, 4096);
        // Timestamps by batch: 100, 400, 200, 300, 250; an index entry at every batch after the first.
        long[] timestamps = {100, 400, 200, 300, 250};
        List<Placed> b = new ArrayList<>();
        for (int i = 0; i < timestamps.length; i++) {
            b.add(append(segment, 2L * i, 2, 0, timestamps[i]));
        }
        assertThat(offsetEntries(segment)).hasSize(4);
        assertThat(timeEntries(segment)).containsExactly(new TimeIndex.Entry(400, 3));

        assertThat(segment.truncateTo(10)).as("at the end: nothing").isZero();
        assertThat(segment.size()).isEqualTo(5 * s);

        assertThat(segment.truncateTo(7)).as("offset 7 is inside batch 6-7").isEqualTo(2 * s);
        assertThat(segment.size()).isEqualTo(3 * s);
        assertThat(Files.size(segment.logFile())).isEqualTo(3 * s);
        assertThat(offsetEntries(segment)).containsExactly(new OffsetIndex.Position(3, s), new OffsetIndex.Position(5, 2 * s));
        assertThat(segment.maxTimestampSoFar()).isEqualTo(400);
        assertThat(segment.readNextOffset()).isEqualTo(6);

        assertThat(segment.truncateTo(2)).isEqualTo(2 * s);
        assertThat(offsetEntries(segment)).isEmpty();
        assertThat(timeEntries(segment)).isEmpty();
        assertThat(segment.maxTimestampSoFar()).as("only the first batch is left").isEqualTo(100);
        segment.onBecomeInactiveSegment();
        assertThat(timeEntries(segment)).containsExactly(new TimeIndex.Entry(100, 1));
        segment.resizeIndexes(4096);

        // Appending again counts a fresh interval: the first batch after the cut gets no entry.
        append(segment, 2, 2, 0, 500);
        assertThat(offsetEntries(segment)).isEmpty();
        append(segment, 4, 2, 0, 600);
        assertThat(offsetEntries(segment)).containsExactly(new OffsetIndex.Position(5, 2 * s));
        assertThat(timeEntries(segment)).containsExactly(new TimeIndex.Entry(100, 1), new TimeIndex.Entry(600, 5));
        assertThat(segment.truncateTo(0)).isEqualTo(3 * s);
        assertThat(segment.size()).isZero();
        assertThat(segment.maxTimestampSoFar()).isEqualTo(TimeIndex.NO_TIMESTAMP);
        assertThat(segment.readNextOffset()).isZero();
        segment.close();
    }

    @Test
    @DisplayName("LOG-7 LOG-8 recovery of a whole segment keeps every byte, rebuilds the indexes as the appends built"
            + " them and reports where each leader epoch starts (batches without an epoch start none)")
    void log7RecoverCleanSegment() throws IOException {
        int s = batchSize(2);
        LogSegment segment = LogSegment.create(dir, 100, s - 1, 4096);
        int[] epochs = {-1, 0, 0, 2, 2, 5};
        for (int i = 0; i < epochs.length; i++) {
            append(segment, 100 + 2L * i, 2, epochs[i], 1_000 + 10L * i);
        }
        List<OffsetIndex.Position> offsets = offsetEntries(segment);
        List<TimeIndex.Entry> times = timeEntries(segment);
        assertThat(offsets).hasSize(5);
        List<EpochEntry> expectedEpochs = List.of(new EpochEntry(0, 102), new EpochEntry(2, 106), new EpochEntry(5, 110));
        assertThat(segment.readEpochStarts()).isEqualTo(expectedEpochs);

        FileRecords slice = (FileRecords) segment.readFileRecords(104, Integer.MAX_VALUE, Long.MAX_VALUE, false);
        LogSegment.RecoveryResult result = segment.recover();
        assertThat(result).isEqualTo(new LogSegment.RecoveryResult(6 * s, 0, 112, null, expectedEpochs));
        try (FileRecords.Transfer t = slice.openTransfer()) {
            assertThat(t.bytesUnchanged()).as("NET-3: recovery that cuts nothing leaves earlier reads valid").isTrue();
        }
        assertThat(offsetEntries(segment)).isEqualTo(offsets);
        assertThat(timeEntries(segment)).isEqualTo(times);
        assertThat(segment.maxTimestampSoFar()).isEqualTo(1_050);
        assertThat(segment.size()).isEqualTo(6 * s);
        segment.close();
    }

    @Test
    @DisplayName("LOG-7 recovery cuts a garbage tail at the last whole batch, reports position, offset and reason, and"
            + " the indexes point only at kept batches")
    void log7RecoverCutsGarbageTail() throws IOException {
        int s = batchSize(2);
        LogSegment segment = LogSegment.create(dir, 0, s - 1, 4096);
        for (int i = 0; i < 3; i++) {
            append(segment, 2L * i, 2, 1, 1_000 + i);
        }
        segment.close();
        appendBytes(LogSegment.logFile(dir, 0), new byte[20]);
        // The index on disk lost its last entry too: the rebuilt one must not be bounded by the file's size.
        try (FileChannel ch = FileChannel.open(LogSegment.indexFile(dir, 0), StandardOpenOption.WRITE)) {
            ch.truncate(OffsetIndex.ENTRY_SIZE);
        }

        LogSegment reopened = LogSegment.openUnchecked(dir, 0, s - 1, 4096, FileSync.durable());
        assertThat(reopened.size()).isEqualTo(3 * s + 20);
        assertThat(reopened.checkTrusted(-1).problem()).isNotNull();
        LogSegment.RecoveryResult result = reopened.recover();
        assertThat(result.validBytes()).isEqualTo(3 * s);
        assertThat(result.truncatedBytes()).isEqualTo(20);
        assertThat(result.nextOffset()).isEqualTo(6);
        assertThat(result.reason()).isEqualTo("batch at position " + 3 * s + " (offset 6): batch length 0 is below the minimum 49");
        assertThat(result.epochStarts()).containsExactly(new EpochEntry(1, 0));
        assertThat(reopened.size()).isEqualTo(3 * s);
        assertThat(Files.size(reopened.logFile())).isEqualTo(3 * s);
        assertThat(offsetEntries(reopened)).containsExactly(new OffsetIndex.Position(3, s), new OffsetIndex.Position(5, 2 * s));
        assertThat(reopened.checkTrusted(6)).isEqualTo(new LogSegment.TrustCheck(null, 6));
        reopened.close();
    }

    @Test
    @DisplayName("LOG-7 recovery reads batches straddling its read chunks and larger than them, keeping all of them")
    void log7RecoverAcrossChunks() throws IOException {
        LogSegment segment = LogSegment.create(dir, 0, 4096, 64 * 1024);
        Random random = new Random(9);
        List<Placed> placed = new ArrayList<>();
        long next = 0;
        for (int i = 0; i < 60; i++) {
            int count = 1 + random.nextInt(5);
            // Mostly a few KiB; every 20th batch is larger than the 64 KiB chunk.
            int valueBytes = i % 20 == 7 ? 40_000 : 100 + random.nextInt(3_000);
            placed.add(append(segment, batch(next, count, 3, 5_000 + i, valueBytes)));
            next += count;
        }
        int size = segment.size();
        assertThat(size).isGreaterThan(4 * 64 * 1024);
        List<OffsetIndex.Position> offsets = offsetEntries(segment);
        segment.close();
        appendBytes(LogSegment.logFile(dir, 0), new byte[] {0, 0, 0});

        LogSegment reopened = LogSegment.openUnchecked(dir, 0, 4096, 64 * 1024, FileSync.durable());
        LogSegment.RecoveryResult result = reopened.recover();
        assertThat(result.validBytes()).isEqualTo(size);
        assertThat(result.truncatedBytes()).isEqualTo(3);
        assertThat(result.nextOffset()).isEqualTo(next);
        assertThat(result.reason()).isEqualTo("batch at position " + size + " (offset " + next
                + "): only 3 bytes left, less than the 12-byte batch overhead");
        assertThat(result.epochStarts()).containsExactly(new EpochEntry(3, 0));
        assertThat(offsetEntries(reopened)).isEqualTo(offsets);
        for (Placed p : placed) {
            assertThat(reopened.translateOffset(p.last(), reopened.size()))
                    .isEqualTo(new LogSegment.BatchPosition(p.position(), p.size(), p.base(), p.last()));
        }
        reopened.close();
    }

    @Test
    @DisplayName("LOG-7 recovery stops at a batch that goes back over offsets already in the segment, or leaves a gap")
    void log7RecoverStopsAtNonContiguousBatch() throws IOException {
        int s = batchSize(2);
        LogSegment segment = LogSegment.create(dir, 10, 4096, 4096);
        append(segment, 10, 2, 0, 100);
        segment.close();
        appendBytes(LogSegment.logFile(dir, 10), bytes(batch(11, 2, 0, 200, 10)));
        LogSegment back = LogSegment.openUnchecked(dir, 10, 4096, 4096, FileSync.durable());
        assertThat(back.recover().reason()).isEqualTo("batch at position " + s
                + " (offset 12): base offset 11 goes back over offsets up to 11 already in the log");
        assertThat(back.size()).isEqualTo(s);
        back.close();

        appendBytes(LogSegment.logFile(dir, 10), bytes(batch(13, 2, 0, 200, 10)));
        LogSegment gap = LogSegment.openUnchecked(dir, 10, 4096, 4096, FileSync.durable());
        assertThat(gap.recover().reason()).isEqualTo("batch at position " + s
                + " (offset 12): base offset 13 leaves a gap after offset 11: offsets would not be contiguous (LOG-4)");
        gap.close();

        appendBytes(LogSegment.logFile(dir, 10), bytes(batch(12, 2, 0, 200, 10)));
        LogSegment contiguous = LogSegment.openUnchecked(dir, 10, 4096, 4096, FileSync.durable());
        LogSegment.RecoveryResult result = contiguous.recover();
        assertThat(result.reason()).isNull();
        assertThat(result.nextOffset()).isEqualTo(14);
        assertThat(result.truncatedBytes()).isZero();
        contiguous.close();
    }

    private static byte[] bytes(ByteBuffer buf) {
        byte[] out = new byte[buf.remaining()];
        buf.duplicate().get(out);
        return out;
    }

    @Test
    @DisplayName("LOG-7 rebuilding the indexes after a bad entry gives the entries the appends wrote; an inactive"
            + " segment's are trimmed with its final time entry")
    void log7RebuildIndexes() throws IOException {
        int s = batchSize(2);
        LogSegment segment = LogSegment.create(dir, 0, s - 1, 4096);
        for (int i = 0; i < 4; i++) {
            append(segment, 2L * i, 2, 0, 1_000 - i);
        }
        List<OffsetIndex.Position> offsets = offsetEntries(segment);
        List<TimeIndex.Entry> times = timeEntries(segment);
        assertThat(offsets).hasSize(3);
        assertThat(times).containsExactly(new TimeIndex.Entry(1_000, 1));

        segment.rebuildIndexes(true);
        assertThat(offsetEntries(segment)).isEqualTo(offsets);
        assertThat(timeEntries(segment)).isEqualTo(times);
        assertThat(segment.offsetIndex().maxEntries()).as("active: still preallocated").isEqualTo(4096 / OffsetIndex.ENTRY_SIZE);

        segment.rebuildIndexes(false);
        assertThat(offsetEntries(segment)).isEqualTo(offsets);
        assertThat(Files.size(segment.offsetIndex().file())).isEqualTo(3L * OffsetIndex.ENTRY_SIZE);
        assertThat(Files.size(segment.timeIndex().file())).isEqualTo(TimeIndex.ENTRY_SIZE);
        segment.close();
    }

    @Test
    @DisplayName("LOG-7 rebuilding the indexes of a file that does not frame into whole batches fails, naming the file and position")
    void log7RebuildIndexesOfBadFraming() throws IOException {
        int s = batchSize(2);
        LogSegment segment = LogSegment.create(dir, 0, 4096, 4096);
        append(segment, 0, 2, 0, 100);
        segment.close();
        Path log = LogSegment.logFile(dir, 0);
        appendBytes(log, new byte[10]);
        LogSegment torn = LogSegment.openUnchecked(dir, 0, 4096, 4096, FileSync.durable());
        assertThatThrownBy(() -> torn.rebuildIndexes(true)).isInstanceOf(IOException.class)
                .hasMessage("Cannot rebuild the indexes of " + log + ": 10 bytes at position " + s + " are not a whole batch");
        torn.closeWithoutWrites();

        appendBytes(log, new byte[BatchFraming.HEADER_SIZE - 10]); // exactly one header's worth of garbage now
        LogSegment garbage = LogSegment.openUnchecked(dir, 0, 4096, 4096, FileSync.durable());
        assertThatThrownBy(() -> garbage.rebuildIndexes(true)).isInstanceOf(IOException.class)
                .hasMessage("Cannot rebuild the indexes of " + log + ": the batch at position " + s
                        + " (size 12) runs past the end at " + (s + BatchFraming.HEADER_SIZE));
        garbage.closeWithoutWrites();
    }

    @Test
    @DisplayName("LOG-2 one append of several batches from the middle of a buffer indexes each at its file position;"
            + " an empty append changes nothing")
    void log2AppendOfSeveralBatchesFromABufferOffset() throws IOException {
        int s = batchSize(2);
        LogSegment segment = LogSegment.create(dir, 0, s - 1, 4096);
        append(segment, 0, 2, 0, 100);
        ByteBuffer three = ByteBuffer.allocate(5 + 3 * s);
        for (int i = 0; i < 3; i++) {
            three.put(5 + i * s, batch(2 + 2L * i, 2, 0, 200 + i, 10), 0, s);
        }
        three.position(5);
        segment.append(three);
        assertThat(segment.size()).isEqualTo(4 * s);
        assertThat(three.position()).as("the caller's buffer is not consumed").isEqualTo(5);
        assertThat(offsetEntries(segment)).containsExactly(new OffsetIndex.Position(3, s), new OffsetIndex.Position(5, 2 * s),
                new OffsetIndex.Position(7, 3 * s));
        assertThat(segment.maxTimestampSoFar()).isEqualTo(202);

        segment.append(ByteBuffer.allocate(0));
        assertThat(segment.size()).isEqualTo(4 * s);
        assertThat(segment.readNextOffset()).isEqualTo(8);
        for (long offset = 0; offset < 8; offset++) {
            assertThat(segment.translateOffset(offset, segment.size()).position()).isEqualTo((int) (offset / 2) * s);
        }
        segment.close();
    }

    @Test
    @DisplayName("LOG-2 a new segment starts without the index files an earlier segment at its offset left behind")
    void log2CreateDeletesStaleIndexes() throws IOException {
        Files.write(LogSegment.indexFile(dir, 0), ByteBuffer.allocate(16).putInt(0, 3).putInt(4, 500).array());
        Files.write(LogSegment.timeIndexFile(dir, 0), new byte[24]);
        LogSegment segment = LogSegment.create(dir, 0, 4096, 4096);
        assertThat(segment.offsetIndex().entries()).isZero();
        assertThat(segment.timeIndex().entries()).isZero();
        assertThat(segment.indexesWereMissing()).isFalse();
        append(segment, 0, 2, 0, 100);
        assertThat(segment.translateOffset(1, segment.size()).position()).isZero();
        segment.close();
        assertThat(Files.size(LogSegment.indexFile(dir, 0))).isZero();
        assertThatThrownBy(() -> LogSegment.create(dir, 0, 4096, 4096)).as("the .log is never overwritten")
                .isInstanceOf(java.nio.file.FileAlreadyExistsException.class);
    }

    @Test
    @DisplayName("LOG-2 a segment file up to 2 GiB - 1 bytes opens and appends up to exactly that size; a longer file"
            + " or an append past it is refused, naming the file")
    void log2SegmentSizeLimit() throws IOException {
        int s = batchSize(2);
        Path log = LogSegment.logFile(dir, 0);
        try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(log.toFile(), "rw")) {
            raf.setLength(Integer.MAX_VALUE - s); // sparse
        }
        LogSegment segment = LogSegment.openUnchecked(dir, 0, 1 << 20, 4096, FileSync.withoutFsync());
        assertThat(segment.size()).isEqualTo(Integer.MAX_VALUE - s);
        ByteBuffer fits = batch(0, 2, 0, 100, 10);
        segment.append(fits);
        assertThat(segment.size()).isEqualTo(Integer.MAX_VALUE);
        assertThatThrownBy(() -> segment.append(batch(2, 2, 0, 100, 10))).isInstanceOf(IOException.class)
                .hasMessage("Append of " + s + " bytes would overflow segment " + log);
        assertThat(Files.size(log)).isEqualTo(Integer.MAX_VALUE);
        segment.closeWithoutWrites();
        try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(log.toFile(), "rw")) {
            raf.setLength(Integer.MAX_VALUE + 1L);
        }
        assertThatThrownBy(() -> LogSegment.openUnchecked(dir, 0, 1 << 20, 4096, FileSync.withoutFsync()))
                .isInstanceOf(IOException.class).hasMessage("Segment " + log + " is 2147483648 bytes, above the 2 GiB limit");
        Files.delete(log);
    }

    /** A batch of one record whose value makes it exactly {@code size} bytes. */
    private static ByteBuffer batchOfSize(long base, int size) {
        int value = size - batchSize(1) + 10;
        for (int attempt = 0; attempt < 8; attempt++) {
            ByteBuffer b = batch(base, 1, 0, 100, value);
            if (b.remaining() == size) {
                return b;
            }
            value += size - b.remaining();
        }
        throw new AssertionError("no batch of exactly " + size + " bytes");
    }

    @Test
    @DisplayName("LOG-7 recovery keeps a batch larger than its read chunk whose header starts exactly 12 bytes before"
            + " the chunk's end (only the length field is in the chunk)")
    void log7RecoverBigBatchStartingTwelveBytesBeforeTheChunkEnd() throws IOException {
        LogSegment segment = LogSegment.create(dir, 0, 1 << 20, 4096);
        append(segment, batchOfSize(0, 64 * 1024 - BatchFraming.LOG_OVERHEAD));
        Placed big = append(segment, batch(1, 1, 0, 100, 100_000));
        assertThat(big.position()).isEqualTo(64 * 1024 - 12);
        segment.close();

        LogSegment reopened = LogSegment.openUnchecked(dir, 0, 1 << 20, 4096, FileSync.durable());
        LogSegment.RecoveryResult result = reopened.recover();
        assertThat(result.truncatedBytes()).isZero();
        assertThat(result.validBytes()).isEqualTo(big.position() + big.size());
        assertThat(result.nextOffset()).isEqualTo(2);
        reopened.close();
    }

    @Test
    @DisplayName("LOG-3 reads spanning the mapped part of a large segment and the tail appended since return the bytes"
            + " on disk, copied or sliced")
    void log3ReadsAcrossTheReadMapEnd() throws IOException {
        LogSegment segment = LogSegment.create(dir, 0, 4096, 1 << 20);
        List<Placed> placed = new ArrayList<>();
        long next = 0;
        while (segment.size() < (1 << 20) + 100_000) {
            placed.add(append(segment, batch(next, 2, 0, 100, 5_000)));
            next += 2;
        }
        // The first read maps the file as it is now; 200 KB more is too little for a remap.
        assertThat(segment.read(0, 1, Long.MAX_VALUE, true)).isNotNull();
        int mappedEnd = segment.size();
        for (int i = 0; i < 20; i++) {
            placed.add(append(segment, batch(next, 2, 0, 100, 5_000)));
            next += 2;
        }
        Placed before = placed.stream().filter(p -> p.position() + p.size() <= mappedEnd).reduce((a, b) -> b).orElseThrow();
        int maxBytes = 5 * before.size();
        byte[] onDisk = Files.readAllBytes(segment.logFile());
        ByteBuffer expected = ByteBuffer.wrap(onDisk, before.position(), maxBytes);

        ByteBuffer copied = segment.read(before.base(), maxBytes, Long.MAX_VALUE, false);
        assertThat(copied).isEqualTo(expected);
        FileRecords sliced = (FileRecords) segment.readFileRecords(before.base(), maxBytes, Long.MAX_VALUE, false);
        assertThat(sliced.position()).isEqualTo(before.position());
        assertThat(sliced.toMemoryRecords().buffer()).isEqualTo(expected);
        Placed last = placed.get(placed.size() - 1);
        assertThat(segment.read(last.base(), 1, Long.MAX_VALUE, true))
                .isEqualTo(ByteBuffer.wrap(onDisk, last.position(), last.size()));
        segment.close();
    }

    @Test
    @DisplayName("LOG-7 LogSegment.open trusts a whole segment as it is and recovers a damaged one")
    void log7OpenChecksThenRecovers() throws IOException {
        int s = batchSize(2);
        LogSegment segment = LogSegment.create(dir, 0, s - 1, 4096);
        for (int i = 0; i < 3; i++) {
            append(segment, 2L * i, 2, 0, 100 + i);
        }
        segment.close();
        Path log = LogSegment.logFile(dir, 0);
        long modified = Files.getLastModifiedTime(log).toMillis();
        LogSegment whole = LogSegment.open(dir, 0, s - 1, 4096);
        assertThat(whole.size()).isEqualTo(3 * s);
        assertThat(whole.readNextOffset()).isEqualTo(6);
        assertThat(whole.lastModifiedMs()).isEqualTo(modified);
        assertThat(whole.toString()).isEqualTo("LogSegment(" + dir.getFileName() + "/00000000000000000000, size=" + 3 * s + ")");
        assertThat(whole.offsetIndex().baseOffset()).isZero();
        whole.close();

        appendBytes(log, new byte[7]);
        LogSegment damaged = LogSegment.open(dir, 0, s - 1, 4096);
        assertThat(damaged.size()).as("the torn tail is cut").isEqualTo(3 * s);
        assertThat(Files.size(log)).isEqualTo(3 * s);
        assertThat(damaged.translateOffset(5, damaged.size()).position()).isEqualTo(2 * s);
        damaged.close();
    }

    @Test
    @DisplayName("LOG-2 closing a segment without writes, or deleting it, gives its descriptor back and refuses new"
            + " transfers; an open that fails on an index gives it back too")
    void log2CloseAndDeleteReleaseTheFile() throws IOException {
        OpenFileBudget budget = new OpenFileBudget(10);
        LogSegment segment = LogSegment.create(dir, 0, 4096, 4096, FileSync.withoutFsync(), budget);
        append(segment, 0, 2, 0, 100);
        FileRecords slice = (FileRecords) segment.readFileRecords(0, Integer.MAX_VALUE, Long.MAX_VALUE, false);
        assertThat(budget.held()).isEqualTo(1);
        segment.closeWithoutWrites();
        assertThat(budget.held()).isZero();
        assertThatThrownBy(slice::openTransfer).isInstanceOf(IOException.class).hasMessageContaining("is closed");
        assertThat(Files.size(LogSegment.indexFile(dir, 0))).as("nothing written: the preallocation stays").isZero();

        LogSegment again = LogSegment.openUnchecked(dir, 0, 4096, 4096, FileSync.withoutFsync(), budget);
        assertThat(budget.held()).isEqualTo(1);
        again.deleteFiles();
        assertThat(budget.held()).isZero();
        assertThat(LogSegment.logFile(dir, 0)).doesNotExist();

        for (String suffix : List.of(LogSegment.INDEX_SUFFIX, LogSegment.TIME_INDEX_SUFFIX)) {
            LogSegment.create(dir, 0, 4096, 4096).close();
            Path index = dir.resolve(LogSegment.filenamePrefix(0) + suffix);
            try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(index.toFile(), "rw")) {
                raf.setLength(Integer.MAX_VALUE + 1L); // sparse
            }
            assertThatThrownBy(() -> LogSegment.openUnchecked(dir, 0, 4096, 4096, FileSync.withoutFsync(), budget))
                    .isInstanceOf(IOException.class).hasMessageContaining(index.toString()).hasMessageContaining("2 GiB");
            assertThat(budget.held()).as(suffix).isZero();
            Files.delete(index);
            Files.delete(LogSegment.logFile(dir, 0));
            Files.deleteIfExists(LogSegment.indexFile(dir, 0));
            Files.deleteIfExists(LogSegment.timeIndexFile(dir, 0));
        }
    }

    @Test
    @DisplayName("LOG-7 a rebuild never uses bytes of another segment left in the thread's scan buffer")
    void log7RebuildIgnoresAnotherSegmentsScanBytes() throws IOException {
        Path other = Files.createDirectories(dir.resolve("other"));
        LogSegment a = LogSegment.create(other, 0, 1, 4096);
        for (int i = 0; i < 6; i++) {
            append(a, i, 1, 0, 100 + i);
        }
        int s2 = batchSize(2);
        LogSegment b = LogSegment.create(dir, 0, s2 - 1, 4096);
        for (int i = 0; i < 3; i++) {
            append(b, 2L * i, 2, 0, 200 + i);
        }
        List<OffsetIndex.Position> expected = offsetEntries(b);
        assertThat(a.translateOffset(0, a.size())).isNotNull(); // leaves a's first bytes in this thread's buffer
        b.rebuildIndexes(true);
        assertThat(offsetEntries(b)).isEqualTo(expected);
        a.close();
        b.close();
    }
}
