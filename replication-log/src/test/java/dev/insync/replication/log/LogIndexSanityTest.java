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
import dev.insync.replication.log.record.RecordBatchBuilder;
import dev.insync.replication.log.segment.LogSegment;
import dev.insync.replication.log.segment.OffsetIndex;
import dev.insync.replication.log.segment.TimeIndex;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static dev.insync.replication.log.LogFixtures.TP;
import static dev.insync.replication.log.LogFixtures.readValues;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * LOG-7: the index sanity check of a segment below the recovery point, case by case (the property
 * test {@link IndexCorruptionPropertyTest} throws random corruptions at it): detected at open,
 * rebuilt from the segment, logged with the file and the reason, reads unchanged; and cheap: a
 * clean open does not scan the data.
 */
class LogIndexSanityTest {

    /** Dense index (an entry every ~2 batches), three segments. */
    private static final LogConfig CONFIG = LogConfig.defaults().withSegmentBytes(900).withSegmentIndexBytes(1024)
            .withIndexIntervalBytes(100);

    @TempDir
    Path tmp;
    private Log log;
    private List<String> values;
    private long leo;

    @AfterEach
    void close() {
        if (log != null) {
            log.close();
        }
    }

    private Path dir() {
        return tmp.resolve(TP.toString());
    }

    /** Writes 30 batches of 2 records with rising timestamps, flushes, closes (every index trimmed). */
    private void writeLog(LogConfig config) {
        log = Log.open(dir(), TP, config, 0, 0, () -> 0L, FileSync.withoutFsync());
        for (int i = 0; i < 30; i++) {
            RecordBatchBuilder builder = new RecordBatchBuilder(0);
            for (int r = 0; r < 2; r++) {
                builder.append(1_000L + 10L * i + r, null, ("v" + i + "-" + r).getBytes(StandardCharsets.UTF_8));
            }
            log.appendAsLeader(builder.build(), i / 10);
        }
        log.flush();
        values = readValues(log, 0);
        leo = log.logEndOffset();
        assertThat(log.segmentBaseOffsets()).hasSizeGreaterThanOrEqualTo(3);
        log.close();
        log = null;
    }

    /** Opens with the recovery point at the LEO: every segment is below it (the checked, not rescanned, path). */
    private Log reopen() {
        return reopen(CONFIG);
    }

    private Log reopen(LogConfig config) {
        log = Log.open(dir(), TP, config, leo, 0, () -> 0L, FileSync.withoutFsync());
        return log;
    }

    private void assertReadsUnchanged() {
        assertThat(log.logEndOffset()).isEqualTo(leo);
        assertThat(readValues(log, 0)).isEqualTo(values);
        for (long o = 0; o < leo; o++) {
            RecordBatch b = log.read(o, 1, leo).records().batches().get(0);
            assertThat(b.baseOffset()).as("lookup of %d", o).isEqualTo(o - o % 2);
        }
    }

    private void assertRebuiltOnce(Path indexFile, String reason) {
        assertThat(log.recoveryFindings()).singleElement().satisfies(f -> {
            assertThat(f.kind()).isEqualTo(RecoveryFinding.Kind.REBUILT_INDEX);
            assertThat(f.file()).isEqualTo(indexFile.resolveSibling(
                    indexFile.getFileName().toString().replaceAll("\\.(time)?index$", ".log")));
            assertThat(f.reason()).contains(indexFile.toString()).contains(reason);
        });
    }

    private static void fill(Path file, byte value) throws IOException {
        byte[] bytes = new byte[(int) Files.size(file)];
        Arrays.fill(bytes, value);
        Files.write(file, bytes);
    }

    private static void putInt(Path file, int position, int value) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        ByteBuffer.wrap(bytes).putInt(position, value);
        Files.write(file, bytes);
    }

    @Test
    @DisplayName("LOG-7 an index full of 0xFF opens (was IllegalArgumentException: Negative position): rebuilt, logged with file and reason")
    void log7IndexOfFfBytesIsRebuilt() throws IOException {
        writeLog(CONFIG);
        Path index = LogSegment.indexFile(dir(), 0);
        fill(index, (byte) 0xFF);
        reopen();
        assertRebuiltOnce(index, "(offset -1, position -1) points outside the");
        assertReadsUnchanged();
        log.close();
        reopen();
        assertThat(log.recoveryFindings()).as("the rebuilt index is sound").isEmpty();
        assertReadsUnchanged();
    }

    @Test
    @DisplayName("LOG-7 a time index full of 0xFF or with garbage is rebuilt")
    void log7TimeIndexOfFfBytesIsRebuilt() throws IOException {
        writeLog(CONFIG);
        Path timeIndex = LogSegment.timeIndexFile(dir(), 0);
        fill(timeIndex, (byte) 0xFF);
        reopen();
        assertRebuiltOnce(timeIndex, "entry 0 (timestamp -1, relative offset -1) is negative");
        assertReadsUnchanged();
    }

    @Test
    @DisplayName("LOG-7 an index of zeros (preallocated, never trimmed) is rebuilt: its entries do not increase")
    void log7ZeroFilledIndexIsRebuilt() throws IOException {
        writeLog(CONFIG);
        Path index = LogSegment.indexFile(dir(), 0);
        Files.write(index, new byte[1024]);
        reopen();
        assertRebuiltOnce(index, "(offset 0, position 0) does not point at the batch ending at that offset");
        assertReadsUnchanged();
    }

    @Test
    @DisplayName("LOG-7 an index entry out of order is rebuilt")
    void log7EntriesOutOfOrderAreRebuilt() throws IOException {
        writeLog(CONFIG);
        Path index = LogSegment.indexFile(dir(), 0);
        byte[] bytes = Files.readAllBytes(index);
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        long first = buf.getLong(0);
        buf.putLong(0, buf.getLong(8)).putLong(8, first);
        Files.write(index, bytes);
        reopen();
        assertRebuiltOnce(index, "does not follow entry 0");
        assertReadsUnchanged();
    }

    @Test
    @DisplayName("LOG-7 an index whose length is not a whole number of entries (torn or truncated) is rebuilt")
    void log7OddLengthIndexIsRebuilt() throws IOException {
        writeLog(CONFIG);
        Path index = LogSegment.indexFile(dir(), 0);
        byte[] bytes = Files.readAllBytes(index);
        Files.write(index, Arrays.copyOf(bytes, bytes.length - 3));
        reopen();
        assertRebuiltOnce(index, "is not a multiple of the 8-byte entry size");
        assertReadsUnchanged();
    }

    @Test
    @DisplayName("LOG-7 an index entry pointing past the segment's size is rebuilt")
    void log7EntryPastTheSegmentIsRebuilt() throws IOException {
        writeLog(CONFIG);
        Path index = LogSegment.indexFile(dir(), 0);
        putInt(index, 4, (int) Files.size(LogSegment.logFile(dir(), 0)) + 10);
        reopen();
        assertRebuiltOnce(index, "points beyond the last batch header of the log");
        assertReadsUnchanged();
    }

    @Test
    @DisplayName("LOG-7 an index entry naming an offset past the segment's end is rebuilt")
    void log7EntryOffsetPastTheSegmentIsRebuilt() throws IOException {
        writeLog(CONFIG);
        long second = segmentBase(1);
        Path index = LogSegment.indexFile(dir(), 0);
        putInt(index, 0, (int) second + 5);
        reopen();
        assertRebuiltOnce(index, "at or past the segment's end offset " + second);
        assertReadsUnchanged();
    }

    @Test
    @DisplayName("LOG-7 a well-formed index entry pointing at a position that is not its batch's start is caught at its first lookup and rebuilt")
    void log7EntryAtTheWrongBatchIsCaughtOnUse() throws IOException {
        // A sparse index: batches between entries, so an entry moved to a neighbouring batch is well-formed.
        LogConfig sparse = CONFIG.withIndexIntervalBytes(250);
        writeLog(sparse);
        Path index = LogSegment.indexFile(dir(), 0);
        ByteBuffer entries = ByteBuffer.wrap(Files.readAllBytes(index));
        assertThat(entries.limit()).isGreaterThanOrEqualTo(2 * OffsetIndex.ENTRY_SIZE);
        int position = entries.getInt(4);
        int batchSize = 12 + ByteBuffer.wrap(Files.readAllBytes(LogSegment.logFile(dir(), 0))).getInt(position + 8);
        putInt(index, 4, position + batchSize);
        reopen(sparse);
        assertThat(log.recoveryFindings()).as("well-formed: the open-time check cannot tell").isEmpty();
        assertReadsUnchanged();
        log.close();
        reopen(sparse);
        assertThat(log.recoveryFindings()).isEmpty();
        ByteBuffer repaired = ByteBuffer.wrap(Files.readAllBytes(index));
        assertThat(repaired.getInt(4)).as("the rebuilt entry").isEqualTo(position);
    }

    @Test
    @DisplayName("LOG-7 a time index with timestamps going back or an offset outside the segment is rebuilt")
    void log7TimeIndexOutOfOrderIsRebuilt() throws IOException {
        writeLog(CONFIG);
        Path timeIndex = LogSegment.timeIndexFile(dir(), 0);
        byte[] bytes = Files.readAllBytes(timeIndex);
        assertThat(bytes.length).isGreaterThanOrEqualTo(2 * TimeIndex.ENTRY_SIZE);
        ByteBuffer.wrap(bytes).putLong(TimeIndex.ENTRY_SIZE, 1);
        Files.write(timeIndex, bytes);
        reopen();
        assertRebuiltOnce(timeIndex, "timestamps must increase");
        assertReadsUnchanged();

        log.close();
        Path second = LogSegment.timeIndexFile(dir(), segmentBase(1));
        putInt(second, 8, 1_000);
        reopen();
        assertRebuiltOnce(second, "at or past the segment's end offset");
    }

    @Test
    @DisplayName("LOG-7 a time index whose last entry is not (max timestamp, last offset) of a batch is rebuilt")
    void log7TimeIndexLastEntryMustMatchItsBatch() throws IOException {
        writeLog(CONFIG);
        Path timeIndex = LogSegment.timeIndexFile(dir(), 0);
        byte[] bytes = Files.readAllBytes(timeIndex);
        int last = bytes.length - TimeIndex.ENTRY_SIZE;
        ByteBuffer.wrap(bytes).putLong(last, ByteBuffer.wrap(bytes).getLong(last) + 1_000_000);
        Files.write(timeIndex, bytes);
        reopen();
        assertRebuiltOnce(timeIndex, "does not match the max timestamp");
        assertReadsUnchanged();
    }

    @Test
    @DisplayName("LOG-7 missing index files are rebuilt, named")
    void log7MissingIndexIsRebuilt() throws IOException {
        writeLog(CONFIG);
        Files.delete(LogSegment.timeIndexFile(dir(), segmentBase(1)));
        reopen();
        assertThat(log.recoveryFindings()).singleElement()
                .satisfies(f -> assertThat(f.reason()).contains("is missing"));
        assertReadsUnchanged();
        assertThat(LogSegment.timeIndexFile(dir(), segmentBase(1))).exists();
    }

    @Test
    @DisplayName("LOG-7 a clean open checks the indexes without scanning the data below the recovery point")
    void log7CleanOpenDoesNotScanTheLog() throws IOException {
        writeLog(CONFIG);
        // A flipped byte inside a record of the first segment: only a rescan (CRC) would see it.
        Path first = LogSegment.logFile(dir(), 0);
        byte[] bytes = Files.readAllBytes(first);
        bytes[75] ^= 0x5A; // inside the first batch's records, covered by its CRC
        Files.write(first, bytes);
        reopen();
        assertThat(log.recoveryFindings()).as("nothing rescanned on a clean open").isEmpty();
        assertThat(log.logEndOffset()).isEqualTo(leo);
        log.close();
        // The same files with the recovery point at 0 are rescanned, and the flip is found.
        log = Log.open(dir(), TP, CONFIG, 0, 0, () -> 0L, FileSync.withoutFsync());
        assertThat(log.recoveryFindings()).extracting(RecoveryFinding::kind).contains(RecoveryFinding.Kind.TRUNCATED_TAIL);
        assertThat(log.logEndOffset()).isLessThan(leo);
    }

    @Test
    @DisplayName("LOG-7 reopening a cleanly closed log reports nothing and writes no index")
    void log7CleanReopenIsQuiet() throws IOException {
        writeLog(CONFIG);
        long indexModified = Files.getLastModifiedTime(LogSegment.indexFile(dir(), 0)).toMillis();
        reopen();
        assertThat(log.recoveryFindings()).isEmpty();
        assertReadsUnchanged();
        assertThat(Files.getLastModifiedTime(LogSegment.indexFile(dir(), 0)).toMillis()).isEqualTo(indexModified);
    }

    /** The base offset of segment number {@code n}. */
    private long segmentBase(int n) throws IOException {
        try (var files = Files.list(dir())) {
            return files.map(p -> p.getFileName().toString()).filter(name -> name.endsWith(".log")).sorted()
                    .map(name -> Long.parseLong(name.substring(0, 20))).toList().get(n);
        }
    }
}
