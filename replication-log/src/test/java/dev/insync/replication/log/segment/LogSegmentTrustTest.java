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
import dev.insync.replication.log.record.RecordBatchBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * LOG-7: {@link LogSegment#checkTrusted} on a segment below the recovery point, one damage at a
 * time, each at the exact bound where the check must start to object, and the reason it gives
 * (naming the file). A trusted segment also gets its largest timestamp back.
 */
class LogSegmentTrustTest {

    private static final long BASE = 20;
    /** Small enough that every batch after the first gets an index entry. */
    private static final int INTERVAL = 10;

    @TempDir
    Path dir;

    private LogSegment opened;
    private int batchSize;

    @AfterEach
    void close() throws IOException {
        if (opened != null) {
            opened.closeWithoutWrites();
        }
    }

    private static ByteBuffer batch(long base, int count, long maxTimestamp) {
        RecordBatchBuilder builder = new RecordBatchBuilder(base).partitionLeaderEpoch(1);
        for (int i = 0; i < count; i++) {
            builder.append(maxTimestamp - (count - 1) + i, null, new byte[8]);
        }
        return builder.build().buffer();
    }

    /** Writes and closes a segment of three 2-record batches (offsets 20-25, timestamps up to 300, 500, 400). */
    private void writeSegment() throws IOException {
        if (opened != null) {
            opened.closeWithoutWrites();
            opened = null;
        }
        Files.deleteIfExists(log());
        Files.deleteIfExists(index());
        Files.deleteIfExists(timeIndex());
        LogSegment segment = LogSegment.create(dir, BASE, INTERVAL, 4096);
        long[] timestamps = {300, 500, 400};
        for (int i = 0; i < 3; i++) {
            ByteBuffer b = batch(BASE + 2L * i, 2, timestamps[i]);
            batchSize = b.remaining();
            segment.append(b);
        }
        segment.close();
    }

    private LogSegment.TrustCheck check(long expectedNextOffset) throws IOException {
        if (opened != null) {
            opened.closeWithoutWrites();
        }
        opened = LogSegment.openUnchecked(dir, BASE, INTERVAL, 4096, FileSync.durable());
        return opened.checkTrusted(expectedNextOffset);
    }

    private Path log() {
        return LogSegment.logFile(dir, BASE);
    }

    private Path index() {
        return LogSegment.indexFile(dir, BASE);
    }

    private Path timeIndex() {
        return LogSegment.timeIndexFile(dir, BASE);
    }

    private static void write(Path file, long position, ByteBuffer bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(bytes, position);
        }
    }

    private static void writeInt(Path file, long position, int value) throws IOException {
        write(file, position, ByteBuffer.allocate(4).putInt(0, value));
    }

    private static void append(Path file, byte[] bytes) throws IOException {
        Files.write(file, bytes, StandardOpenOption.APPEND);
    }

    @Test
    @DisplayName("LOG-7 a whole segment is trusted, ends where the next begins, and gets its largest timestamp back")
    void log7WholeSegmentIsTrusted() throws IOException {
        writeSegment();
        assertThat(Files.size(index())).isEqualTo(2L * OffsetIndex.ENTRY_SIZE);
        assertThat(check(26)).isEqualTo(new LogSegment.TrustCheck(null, 26));
        assertThat(opened.maxTimestampSoFar()).isEqualTo(500);
        assertThat(opened.indexesWereMissing()).isFalse();
        assertThat(check(-1)).isEqualTo(new LogSegment.TrustCheck(null, 26));
    }

    @Test
    @DisplayName("LOG-7 a segment not ending where the next segment starts is not trusted, also when that is offset 0")
    void log7MustEndAtTheNextSegment() throws IOException {
        writeSegment();
        assertThat(check(27).problem()).isEqualTo(log() + " ends at offset 26 but the next segment starts at 27");
        opened.closeWithoutWrites();
        assertThat(check(0).problem()).isEqualTo(log() + " ends at offset 26 but the next segment starts at 0");
        assertThat(check(0).nextOffset()).isEqualTo(-1);
    }

    @Test
    @DisplayName("LOG-7 a missing index file, or one of a length that is not whole entries, is not trusted")
    void log7IndexFilesMissingOrTorn() throws IOException {
        writeSegment();
        Files.delete(timeIndex());
        assertThat(check(-1).problem()).isEqualTo("an index file of " + log() + " is missing");
        assertThat(opened.indexesWereMissing()).isTrue();
        opened.closeWithoutWrites();
        opened = null;

        writeSegment();
        append(index(), new byte[3]);
        assertThat(check(-1).problem()).isEqualTo("offset index " + index()
                + ": its length 19 is not a multiple of the 8-byte entry size");
        opened.closeWithoutWrites();
        opened = null;

        writeSegment();
        append(timeIndex(), new byte[5]);
        assertThat(check(-1).problem()).startsWith("time index " + timeIndex() + ": its length ")
                .endsWith(" is not a multiple of the 12-byte entry size");
    }

    @Test
    @DisplayName("LOG-7 the offset index's last entry must point inside the file and at the batch ending at its offset")
    void log7LastOffsetEntryMustPointAtItsBatch() throws IOException {
        writeSegment();
        int size = 3 * batchSize;
        // Last entry (offset 25, position 2 * batchSize); move it so that exactly a header prefix fits after it.
        writeInt(index(), 12, size - (BatchFraming.MAX_TIMESTAMP_OFFSET + 8));
        assertThat(check(-1).problem()).as("a timestamp header fits: read, and found not to be the batch")
                .isEqualTo("offset index " + index() + ": its last entry 1 (offset 25, position "
                        + (size - BatchFraming.MAX_TIMESTAMP_OFFSET - 8) + ") does not point at the batch ending at that"
                        + " offset in " + log());
        opened.closeWithoutWrites();
        writeInt(index(), 12, size - (BatchFraming.MAX_TIMESTAMP_OFFSET + 8) + 1);
        assertThat(check(-1).problem()).isEqualTo("offset index " + index() + ": its last entry 1 (offset 25, position "
                + (size - BatchFraming.MAX_TIMESTAMP_OFFSET - 7) + ") points outside the " + size + " bytes of " + log());
        opened.closeWithoutWrites();
        writeInt(index(), 12, -1);
        assertThat(check(-1).problem()).contains("points outside the " + size + " bytes");
        opened.closeWithoutWrites();
        // The right position but the wrong offset: the batch there ends at 25, not 24.
        writeInt(index(), 12, 2 * batchSize);
        writeInt(index(), 8, 4);
        assertThat(check(-1).problem()).isEqualTo("offset index " + index() + ": its last entry 1 (offset 24, position "
                + 2 * batchSize + ") does not point at the batch ending at that offset in " + log());
    }

    @Test
    @DisplayName("LOG-7 a tail after the last batch is not trusted: fewer bytes than a header, or a header whose batch"
            + " runs past the end")
    void log7TailMustBeWholeBatches() throws IOException {
        writeSegment();
        int size = 3 * batchSize;
        append(log(), new byte[BatchFraming.HEADER_SIZE - 1]);
        assertThat(check(-1).problem()).isEqualTo(log() + " ends in " + (BatchFraming.HEADER_SIZE - 1) + " bytes at position "
                + size + " that are not a whole batch");
        opened.closeWithoutWrites();
        append(log(), new byte[1]);
        assertThat(check(-1).problem()).isEqualTo("the batch at position " + size + " of " + log()
                + " (size 12) runs past its end at " + (size + BatchFraming.HEADER_SIZE));
    }

    @Test
    @DisplayName("LOG-7 a batch after the last index entry with another magic, a negative lastOffsetDelta or a base"
            + " offset that does not follow on is not trusted")
    void log7BatchesAfterTheLastEntryMustFollowOn() throws IOException {
        writeSegment();
        Path log = log();
        int size = 3 * batchSize;
        ByteBuffer extra = batch(26, 1, 600);
        append(log, bytes(extra));
        assertThat(check(-1)).as("a single-record batch (lastOffsetDelta 0) that follows on")
                .isEqualTo(new LogSegment.TrustCheck(null, 27));
        assertThat(opened.maxTimestampSoFar()).isEqualTo(600);
        opened.onBecomeInactiveSegment();
        assertThat(opened.timeIndex().lastEntry()).as("the roll entry: the largest timestamp found after the index, at its offset")
                .isEqualTo(new TimeIndex.Entry(600, 26));
        assertThat(Files.size(timeIndex())).isEqualTo(2L * TimeIndex.ENTRY_SIZE);
        opened.closeWithoutWrites();
        Files.write(timeIndex(), java.util.Arrays.copyOf(Files.readAllBytes(timeIndex()), TimeIndex.ENTRY_SIZE));

        write(log, size + BatchFraming.MAGIC_OFFSET, ByteBuffer.wrap(new byte[] {1}));
        assertThat(check(-1).problem()).isEqualTo("the batch at position " + size + " of " + log
                + " has magic 1 and lastOffsetDelta 0");
        opened.closeWithoutWrites();
        write(log, size + BatchFraming.MAGIC_OFFSET, ByteBuffer.wrap(new byte[] {2}));
        writeInt(log, size + BatchFraming.LAST_OFFSET_DELTA_OFFSET, -1);
        assertThat(check(-1).problem()).isEqualTo("the batch at position " + size + " of " + log
                + " has magic 2 and lastOffsetDelta -1");
        opened.closeWithoutWrites();
        writeInt(log, size + BatchFraming.LAST_OFFSET_DELTA_OFFSET, 0);
        write(log, size, ByteBuffer.allocate(8).putLong(0, 27));
        assertThat(check(-1).problem()).isEqualTo("the batch at position " + size + " of " + log
                + " has base offset 27, not the next offset 26");
    }

    @Test
    @DisplayName("LOG-7 without an offset-index entry the first batch must start at the segment's base offset")
    void log7FirstBatchStartsAtTheBase() throws IOException {
        LogSegment segment = LogSegment.create(dir, BASE, 1 << 20, 4096);
        segment.append(batch(BASE, 2, 100));
        segment.append(batch(BASE + 2, 2, 200));
        segment.close();
        assertThat(Files.size(index())).isZero();
        assertThat(check(24)).isEqualTo(new LogSegment.TrustCheck(null, 24));
        assertThat(opened.maxTimestampSoFar()).isEqualTo(200);
        opened.closeWithoutWrites();
        write(log(), 0, ByteBuffer.allocate(8).putLong(0, BASE + 1));
        assertThat(check(-1).problem()).isEqualTo("the batch at position 0 of " + log() + " has base offset 21, not the next offset 20");
    }

    @Test
    @DisplayName("LOG-7 index entries failing their sanity checks make the segment untrusted, naming the index")
    void log7IndexSanityFailures() throws IOException {
        writeSegment();
        // Entries (3, batchSize) and (5, 2 * batchSize); the last one stays right, entry 0 is damaged.
        writeInt(index(), 0, 5);
        assertThat(check(-1).problem()).isEqualTo("offset index " + index() + ": entry 1 (relative offset 5, position "
                + 2 * batchSize + ") does not follow entry 0 (relative offset 5, position " + batchSize
                + "): entries must increase by at least one offset and one batch header");
        writeInt(index(), 0, 6);
        assertThat(check(-1).problem()).isEqualTo("offset index " + index() + ": entry 0 (relative offset 6, position "
                + batchSize + ") names offset 26, at or past the segment's end offset 26");
        writeInt(index(), 0, 3);
        assertThat(check(-1).problem()).isNull();

        // The time index: entry 0 (500, 23); make its timestamp negative.
        ByteBuffer ts = ByteBuffer.allocate(8).putLong(0, -5);
        write(timeIndex(), 0, ts);
        assertThat(check(-1).problem()).isEqualTo("time index " + timeIndex()
                + ": entry 0 (timestamp -5, relative offset 3) is negative");
    }

    @Test
    @DisplayName("LOG-7 the time index's last entry must be the max timestamp and last offset of one batch")
    void log7LastTimeEntryMustMatchItsBatch() throws IOException {
        writeSegment();
        assertThat(Files.size(timeIndex())).isEqualTo(TimeIndex.ENTRY_SIZE);
        // (500, 23) names the batch 22-23; 22 is inside it, not its last offset.
        writeInt(timeIndex(), 8, 2);
        assertThat(check(-1).problem()).isEqualTo("time index " + timeIndex() + ": its last entry (timestamp 500, offset 22)"
                + " does not name the last offset of a batch in " + log());
        opened.closeWithoutWrites();
        writeInt(timeIndex(), 8, 3);
        write(timeIndex(), 0, ByteBuffer.allocate(8).putLong(0, 499));
        assertThat(check(-1).problem()).isEqualTo("time index " + timeIndex() + ": its last entry (timestamp 499, offset 23)"
                + " does not match the max timestamp 500 of the batch ending there in " + log());
        opened.closeWithoutWrites();
        write(timeIndex(), 0, ByteBuffer.allocate(8).putLong(0, 500));
        assertThat(check(-1).problem()).isNull();
    }

    @Test
    @DisplayName("LOG-7 an inner offset-index entry naming another batch's offset passes the in-memory checks but is"
            + " caught where it is used: by the time-index check at open, and by any lookup landing on it")
    void log7InnerEntryCaughtOnUse() throws IOException {
        writeSegment();
        writeInt(index(), 0, 2); // entry 0: (22, batchSize), but the batch at batchSize ends at 23
        String corrupt = "Corrupt index " + index() + ": entry 0 (offset 22, position " + batchSize
                + ") does not point at the batch ending at that offset in " + log() + " (found size " + batchSize
                + ", last offset 23)";
        assertThat(check(26).problem()).isEqualTo(corrupt);
        assertThatThrownBy(() -> opened.translateOffset(22, opened.size())).isInstanceOf(CorruptIndexException.class)
                .hasMessage(corrupt).satisfies(e -> assertThat(((CorruptIndexException) e).file()).isEqualTo(index()));
        assertThat(opened.translateOffset(21, opened.size())).as("below the entry: scanned from the start")
                .isEqualTo(new LogSegment.BatchPosition(0, batchSize, 20, 21));
        assertThat(opened.translateOffset(25, opened.size())).as("the last entry is right")
                .isEqualTo(new LogSegment.BatchPosition(2 * batchSize, batchSize, 24, 25));

        opened.rebuildIndexes(false);
        assertThat(opened.offsetIndex().entry(0)).isEqualTo(new OffsetIndex.Position(23, batchSize));
        assertThat(opened.translateOffset(22, opened.size())).isEqualTo(new LogSegment.BatchPosition(batchSize, batchSize, 22, 23));
    }

    @Test
    @DisplayName("LOG-7 a lookup whose index entry points where no whole batch header fits before the end it reads to"
            + " reports the entry, not a wrong batch")
    void log7LookupEntryOutsideTheReadEnd() throws IOException {
        writeSegment();
        check(26);
        int h = BatchFraming.HEADER_SIZE;
        // Entry 0 is (23, batchSize): reading up to batchSize + h - 1 leaves no room for its header.
        assertThatThrownBy(() -> opened.translateOffset(23, batchSize + h - 1)).isInstanceOf(CorruptIndexException.class)
                .hasMessage("Corrupt index " + index() + ": entry 0 (offset 23) points at position " + batchSize
                        + ", outside the " + (batchSize + h - 1) + " bytes of " + log());
        // One byte more and the header fits: the batch is found (whole, it ends at 2 * batchSize).
        assertThatThrownBy(() -> opened.translateOffset(23, batchSize + h)).as("its header fits, the batch does not")
                .isInstanceOf(CorruptIndexException.class).hasMessageContaining("does not point at the batch");
        assertThat(opened.translateOffset(23, 2 * batchSize)).isEqualTo(new LogSegment.BatchPosition(batchSize, batchSize, 22, 23));
    }

    /** A header-only batch (no records, as Kafka's compaction can leave) holding offset {@code offset}, at {@code maxTimestamp}. */
    private static byte[] emptyBatch(long offset, long maxTimestamp) {
        ByteBuffer b = ByteBuffer.allocate(BatchFraming.HEADER_SIZE);
        b.put(0, batch(offset, 1, maxTimestamp), 0, BatchFraming.HEADER_SIZE);
        b.putInt(BatchFraming.LENGTH_OFFSET, BatchFraming.HEADER_SIZE - BatchFraming.LOG_OVERHEAD);
        b.putInt(BatchFraming.LAST_OFFSET_DELTA_OFFSET, 0);
        b.putInt(BatchFraming.RECORD_COUNT_OFFSET, 0);
        b.putInt(BatchFraming.PARTITION_LEADER_EPOCH_OFFSET, 3);
        BatchFraming.rewriteCrc(b, 0, BatchFraming.HEADER_SIZE);
        return b.array();
    }

    @Test
    @DisplayName("LOG-1 LOG-7 a header-only batch (61 bytes, no records) is a whole batch to every walk: trust, largest"
            + " timestamp, lookups, reads, next offset, epochs, recovery and index rebuilds")
    void log7HeaderOnlyBatchIsWhole() throws IOException {
        writeSegment();
        int h = BatchFraming.HEADER_SIZE;
        int size = 3 * batchSize;
        append(log(), emptyBatch(26, 900));
        append(log(), bytes(batch(27, 2, 700)));
        assertThat(check(-1)).isEqualTo(new LogSegment.TrustCheck(null, 29));
        assertThat(opened.maxTimestampSoFar()).as("found past the empty batch").isEqualTo(900);
        assertThat(opened.translateOffset(26, opened.size())).isEqualTo(new LogSegment.BatchPosition(size, h, 26, 26));
        assertThat(opened.translateOffset(27, opened.size())).isEqualTo(new LogSegment.BatchPosition(size + h, batchSize, 27, 28));
        assertThat(opened.read(26, 1, Long.MAX_VALUE, true).remaining()).isEqualTo(h);
        assertThat(opened.read(24, batchSize + h, Long.MAX_VALUE, false).remaining()).isEqualTo(batchSize + h);
        assertThat(opened.readFileRecords(24, batchSize + h, Long.MAX_VALUE, false).sizeInBytes()).isEqualTo(batchSize + h);
        assertThat(opened.readFileRecords(26, h, Long.MAX_VALUE, false).sizeInBytes()).isEqualTo(h);
        assertThat(opened.readNextOffset()).isEqualTo(29);
        assertThat(opened.readEpochStarts()).containsExactly(new dev.insync.replication.log.epoch.EpochEntry(1, 20),
                new dev.insync.replication.log.epoch.EpochEntry(3, 26), new dev.insync.replication.log.epoch.EpochEntry(1, 27));
        opened.rebuildIndexes(true);
        assertThat(opened.offsetIndex().entries()).isEqualTo(4);
        assertThat(opened.offsetIndex().entry(2)).isEqualTo(new OffsetIndex.Position(26, size));
        LogSegment.RecoveryResult result = opened.recover();
        assertThat(result.validBytes()).isEqualTo(size + h + batchSize);
        assertThat(result.truncatedBytes()).isZero();
        assertThat(result.nextOffset()).isEqualTo(29);
        // Cut after it, the empty batch is the last one and its entry the offset index's last: still trusted.
        assertThat(opened.truncateTo(27)).isEqualTo(batchSize);
        assertThat(opened.offsetIndex().lastEntry()).isEqualTo(new OffsetIndex.Position(26, size));
        opened.close();
        opened = null;
        assertThat(check(27)).isEqualTo(new LogSegment.TrustCheck(null, 27));
        assertThat(opened.maxTimestampSoFar()).isEqualTo(900);
    }

    @Test
    @DisplayName("LOG-2 LOG-7 batches without timestamps leave the time index empty and the segment trusted; a largest"
            + " timestamp of exactly 0 is a timestamp and gets its roll entry")
    void log7NoTimestamps() throws IOException {
        LogSegment segment = LogSegment.create(dir, BASE, INTERVAL, 4096);
        segment.append(batch(BASE, 2, TimeIndex.NO_TIMESTAMP)); // records at -2 and -1: no timestamp
        segment.close();
        assertThat(Files.size(timeIndex())).isZero();
        assertThat(check(22)).isEqualTo(new LogSegment.TrustCheck(null, 22));
        assertThat(opened.maxTimestampSoFar()).isEqualTo(TimeIndex.NO_TIMESTAMP);

        opened.closeWithoutWrites();
        opened = null;
        Files.delete(log());
        LogSegment zero = LogSegment.create(dir, BASE, INTERVAL, 4096);
        zero.append(batch(BASE, 2, 0));
        assertThat(zero.maxTimestampSoFar()).isZero();
        zero.close();
        assertThat(Files.size(timeIndex())).isEqualTo(TimeIndex.ENTRY_SIZE);
        assertThat(check(22)).isEqualTo(new LogSegment.TrustCheck(null, 22));
        assertThat(opened.timeIndex().lastEntry()).isEqualTo(new TimeIndex.Entry(0, 21));
    }

    @Test
    @DisplayName("LOG-2 of two batches after the last index entry with the same largest timestamp, the first one's"
            + " offset is the one the roll entry names")
    void log2EqualLargestTimestampKeepsTheFirstOffset() throws IOException {
        writeSegment();
        append(log(), bytes(batch(26, 1, 600)));
        append(log(), bytes(batch(27, 1, 600)));
        assertThat(check(-1)).isEqualTo(new LogSegment.TrustCheck(null, 28));
        opened.onBecomeInactiveSegment();
        assertThat(opened.timeIndex().lastEntry()).isEqualTo(new TimeIndex.Entry(600, 26));
    }

    @Test
    @DisplayName("LOG-7 a torn last batch is named as such: under the last index entry, or after it")
    void log7TornLastBatch() throws IOException {
        writeSegment();
        int size = 3 * batchSize;
        try (FileChannel ch = FileChannel.open(log(), StandardOpenOption.WRITE)) {
            ch.truncate(size - 1);
        }
        assertThat(check(-1).problem()).isEqualTo("offset index " + index() + ": its last entry 1 (offset 25, position "
                + 2 * batchSize + ") does not point at the batch ending at that offset in " + log());
        writeSegment();
        append(log(), java.util.Arrays.copyOf(bytes(batch(26, 2, 600)), batchSize - 1));
        assertThat(check(-1).problem()).isEqualTo("the batch at position " + size + " of " + log() + " (size " + batchSize
                + ") runs past its end at " + (size + batchSize - 1));
    }

    private static byte[] bytes(ByteBuffer buf) {
        byte[] out = new byte[buf.remaining()];
        buf.duplicate().get(out);
        return out;
    }
}
