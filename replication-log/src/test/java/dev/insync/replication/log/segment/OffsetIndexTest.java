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

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class OffsetIndexTest {

    @TempDir
    Path tmp;

    @Test
    @DisplayName("LOG-2 offset index: preallocated by its first entry, binary-search lookup of the largest offset at"
            + " most the target, Kafka layout")
    void lookupAndLayout() throws Exception {
        Path file = tmp.resolve("00000000000000000100.index");
        OffsetIndex index = new OffsetIndex(file, 100, 80);
        assertThat(Files.size(file)).as("created empty, mapped on first use").isZero();
        assertThat(index.maxEntries()).isEqualTo(10);
        assertThat(index.lookup(150)).isEqualTo(new OffsetIndex.Position(100, 0));
        assertThat(index.isMapped()).as("a lookup in an index without entries maps nothing").isFalse();
        for (int i = 1; i <= 5; i++) {
            index.append(100 + 10L * i, 1000 * i);
        }
        assertThat(index.isMapped()).isTrue();
        assertThat(index.lookup(99)).isEqualTo(new OffsetIndex.Position(100, 0));
        assertThat(index.lookup(109)).isEqualTo(new OffsetIndex.Position(100, 0));
        assertThat(index.lookup(110)).isEqualTo(new OffsetIndex.Position(110, 1000));
        assertThat(index.lookup(139)).isEqualTo(new OffsetIndex.Position(130, 3000));
        assertThat(index.lookup(10_000)).isEqualTo(new OffsetIndex.Position(150, 5000));
        index.close();
        assertThat(Files.size(file)).isEqualTo(40);
        ByteBuffer raw = ByteBuffer.wrap(Files.readAllBytes(file));
        assertThat(raw.getInt(0)).isEqualTo(10);
        assertThat(raw.getInt(4)).isEqualTo(1000);
        assertThat(raw.getInt(32)).isEqualTo(50);
        assertThat(raw.getInt(36)).isEqualTo(5000);
    }

    @Test
    @DisplayName("LOG-2 offset index: full at segment.index.bytes, truncation removes entries at or above the offset")
    void fullAndTruncate() throws Exception {
        OffsetIndex index = new OffsetIndex(tmp.resolve("00000000000000000000.index"), 0, 24);
        index.append(5, 100);
        index.append(9, 200);
        index.append(12, 300);
        assertThat(index.isFull()).isTrue();
        assertThatThrownBy(() -> index.append(20, 400)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("00000000000000000000.index");
        index.truncateTo(9);
        assertThat(index.entries()).isEqualTo(1);
        index.truncateTo(6);
        assertThat(index.entries()).isEqualTo(1);
        index.truncateTo(5);
        assertThat(index.entries()).isZero();
        assertThatThrownBy(() -> {
            index.append(7, 10);
            index.append(6, 20);
        }).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("LOG-7 offset index sanity check: non-increasing entries or positions beyond the log are corrupt")
    void sanityCheck() throws Exception {
        Path file = tmp.resolve("00000000000000000000.index");
        Files.write(file, ByteBuffer.allocate(16).putInt(5).putInt(100).putInt(3).putInt(200).array());
        OffsetIndex index = new OffsetIndex(file, 0, 1024);
        assertThat(index.entries()).isEqualTo(2);
        assertThat(index.sanityCheck(1000, 100)).contains("entry 1");
        Files.write(file, ByteBuffer.allocate(16).putInt(5).putInt(100).putInt(8).putInt(2000).array());
        OffsetIndex second = new OffsetIndex(file, 0, 1024);
        assertThat(second.sanityCheck(1000, 100)).contains("beyond the last batch header of the log (1000 bytes)");
        assertThat(second.sanityCheck(3000, 100)).isNull();
        assertThat(second.sanityCheck(3000, 8)).contains("names offset 8, at or past the segment's end offset 8");
    }

    @Test
    @DisplayName("LOG-2 time index: keeps strictly increasing timestamps, reserves a slot for the roll entry")
    void timeIndex() throws Exception {
        Path file = tmp.resolve("00000000000000000000.timeindex");
        TimeIndex index = new TimeIndex(file, 0, 36);
        assertThat(index.maxEntries()).isEqualTo(3);
        index.maybeAppend(100, 4, false);
        index.maybeAppend(100, 6, false);
        index.maybeAppend(150, 8, false);
        assertThat(index.entries()).isEqualTo(2);
        assertThat(index.isFull()).isTrue();
        index.maybeAppend(200, 9, true);
        assertThat(index.entries()).isEqualTo(3);
        assertThat(index.lookup(120)).isEqualTo(new TimeIndex.Entry(100, 4));
        assertThat(index.lookup(50)).isEqualTo(new TimeIndex.Entry(TimeIndex.NO_TIMESTAMP, 0));
        index.truncateTo(8);
        assertThat(index.lastEntry()).isEqualTo(new TimeIndex.Entry(100, 4));
        index.close();
        assertThat(Files.size(file)).isEqualTo(12);
        assertThat(ByteBuffer.wrap(Files.readAllBytes(file)).getLong(0)).isEqualTo(100);
    }

    @Test
    @DisplayName("LOG-2 segment files are named by the 20-digit zero-padded base offset")
    void fileNames() {
        assertThat(LogSegment.filenamePrefix(0)).isEqualTo("00000000000000000000");
        assertThat(LogSegment.filenamePrefix(1234567)).isEqualTo("00000000000001234567");
        assertThat(LogSegment.logFile(tmp, 42).getFileName().toString()).isEqualTo("00000000000000000042.log");
        assertThat(LogSegment.parseBaseOffset("00000000000000000042.log", ".log")).hasValue(42);
        assertThat(LogSegment.parseBaseOffset("00000000000000000042.index", ".log")).isEmpty();
        assertThat(LogSegment.parseBaseOffset("0000000000000000042.log", ".log")).isEmpty();
        assertThat(LogSegment.parseBaseOffset("0000000000000000004x.log", ".log")).isEmpty();
    }

    @Test
    @DisplayName("LOG-2 index writes: the first entry of each fresh page also goes in positionally (no page fault on a"
            + " hole of the sparse file), later entries of the page only into the mapping; the file holds them all")
    void firstEntryOfAPageIsWrittenPositionally() throws Exception {
        Path file = tmp.resolve("00000000000000000000.index");
        int perPage = MappedIndex.PAGE_BYTES / OffsetIndex.ENTRY_SIZE;
        OffsetIndex index = new OffsetIndex(file, 0, 4 * MappedIndex.PAGE_BYTES);
        index.append(1, 10);
        assertThat(index.pageBackingWrites()).isEqualTo(1);
        for (int i = 2; i <= perPage; i++) {
            index.append(i, 10 * i);
        }
        assertThat(index.pageBackingWrites()).as("one positional write per page").isEqualTo(1);
        index.append(perPage + 1, 10 * (perPage + 1));
        assertThat(index.pageBackingWrites()).isEqualTo(2);
        assertThat(index.lookup(perPage + 1)).isEqualTo(new OffsetIndex.Position(perPage + 1, 10 * (perPage + 1)));

        // Trimming frees the pages past the entries: growing again makes them holes, written positionally again.
        index.truncateTo(2);
        index.trimToValidSize();
        index.resize(4 * MappedIndex.PAGE_BYTES);
        index.append(3, 30);
        assertThat(index.pageBackingWrites()).isEqualTo(3);
        index.close();
        ByteBuffer raw = ByteBuffer.wrap(Files.readAllBytes(file));
        assertThat(raw.limit()).isEqualTo(2 * OffsetIndex.ENTRY_SIZE);
        assertThat(raw.getInt(0)).isEqualTo(1);
        assertThat(raw.getInt(4)).isEqualTo(10);
        assertThat(raw.getInt(8)).isEqualTo(3);
        assertThat(raw.getInt(12)).isEqualTo(30);
    }

    @Test
    @DisplayName("LOG-2 time index writes: positional first write per page too, entries read back from the mapping")
    void timeIndexFirstEntryOfAPageIsWrittenPositionally() throws Exception {
        Path file = tmp.resolve("00000000000000000000.timeindex");
        TimeIndex index = new TimeIndex(file, 0, 2 * MappedIndex.PAGE_BYTES);
        int perPage = MappedIndex.PAGE_BYTES / TimeIndex.ENTRY_SIZE;
        for (int i = 0; i <= perPage; i++) {
            index.maybeAppend(1_000 + i, i, false);
        }
        // Entry perPage straddles the page boundary (12-byte entries): its write backs the second page.
        assertThat(index.pageBackingWrites()).isEqualTo(2);
        assertThat(index.lastEntry()).isEqualTo(new TimeIndex.Entry(1_000 + perPage, perPage));
        index.close();
        ByteBuffer raw = ByteBuffer.wrap(Files.readAllBytes(file));
        assertThat(raw.getLong(perPage * TimeIndex.ENTRY_SIZE)).isEqualTo(1_000 + perPage);
        assertThat(raw.getInt(perPage * TimeIndex.ENTRY_SIZE + 8)).isEqualTo(perPage);
    }

    @Test
    @DisplayName("LOG-2 an index never written or searched is never mapped: it closes as an empty file, reopens with"
            + " no entries, and its first entry preallocates it")
    void unusedIndexIsNeverMapped() throws Exception {
        Path file = tmp.resolve("00000000000000000000.index");
        OffsetIndex index = new OffsetIndex(file, 0, 80);
        assertThat(index.floorSlot(5)).isEqualTo(-1);
        assertThat(index.scanRange(5)).isEqualTo(0xffffffffL);
        assertThat(index.lastEntry()).isEqualTo(new OffsetIndex.Position(0, 0));
        assertThat(index.sanityCheck(0, 0)).isNull();
        index.flush();
        index.resize(40);
        index.resize(80);
        assertThat(index.isMapped()).isFalse();
        index.close();
        assertThat(Files.size(file)).isZero();

        OffsetIndex reopened = new OffsetIndex(file, 0, 80);
        assertThat(reopened.entries()).isZero();
        reopened.append(3, 100);
        assertThat(Files.size(file)).isEqualTo(80);
        assertThat(reopened.lookup(7)).isEqualTo(new OffsetIndex.Position(3, 100));
        reopened.close();
        assertThat(Files.size(file)).isEqualTo(8);
    }

    @Test
    @DisplayName("LOG-2 offset index append: an entry must pass the last one in both offset and position; equal is refused,"
            + " naming both entries and the file")
    void log2AppendMustIncreaseStrictly() throws Exception {
        Path file = tmp.resolve("00000000000000000010.index");
        OffsetIndex index = new OffsetIndex(file, 10, 80);
        index.append(10, 0);
        index.append(15, 100);
        assertThatThrownBy(() -> index.append(15, 200)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Index entry (15, 200) does not follow Position[offset=15, position=100] in " + file);
        assertThatThrownBy(() -> index.append(16, 100)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Index entry (16, 100) does not follow Position[offset=15, position=100] in " + file);
        assertThat(index.entries()).isEqualTo(2);
        index.append(16, 101);
        assertThat(index.lastEntry()).isEqualTo(new OffsetIndex.Position(16, 101));
        assertThat(index.offsetAt(2)).isEqualTo(16);
        assertThat(index.positionAt(2)).isEqualTo(101);
        assertThat(index.offsetAt(0)).isEqualTo(10);
        assertThat(index.positionAt(0)).isZero();
    }

    @Test
    @DisplayName("LOG-2 offset index: offsets below the base or more than Integer.MAX_VALUE above it are refused, naming the file")
    void log2RelativeOffsetBounds() throws Exception {
        Path file = tmp.resolve("00000000000000000100.index");
        OffsetIndex index = new OffsetIndex(file, 100, 80);
        assertThatThrownBy(() -> index.append(99, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Offset 99 is not representable relative to base offset 100 in " + file);
        long tooFar = 100 + (long) Integer.MAX_VALUE + 1;
        assertThatThrownBy(() -> index.append(tooFar, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Offset " + tooFar + " is not representable");
        assertThat(index.entries()).isZero();
        index.append(100, 0);
        index.append(100 + (long) Integer.MAX_VALUE, 61);
        assertThat(index.lastEntry()).isEqualTo(new OffsetIndex.Position(100 + (long) Integer.MAX_VALUE, 61));
        assertThat(index.floorSlot(99)).isEqualTo(-1);
        assertThat(index.floorSlot(100)).isZero();
        assertThat(index.floorSlot(Long.MAX_VALUE)).isEqualTo(1);
    }

    @Test
    @DisplayName("LOG-3 scanRange: the position of the entry at or below the target and of the entry after it (-1 if none)")
    void log3ScanRange() throws Exception {
        OffsetIndex index = new OffsetIndex(tmp.resolve("00000000000000000100.index"), 100, 80);
        index.append(110, 1000);
        index.append(120, 2000);
        index.append(130, 3000);
        assertThat(index.scanRange(105)).as("below every entry: from 0 to the first").isEqualTo(1000L);
        assertThat(index.scanRange(110)).isEqualTo((1000L << 32) | 2000L);
        assertThat(index.scanRange(119)).isEqualTo((1000L << 32) | 2000L);
        assertThat(index.scanRange(120)).isEqualTo((2000L << 32) | 3000L);
        assertThat(index.scanRange(130)).as("the last entry: no next").isEqualTo((3000L << 32) | 0xffffffffL);
        assertThat(index.scanRange(1_000)).isEqualTo((3000L << 32) | 0xffffffffL);
        assertThat(index.lookup(120)).isEqualTo(new OffsetIndex.Position(120, 2000));
        assertThat(index.floorSlot(129)).isEqualTo(1);
    }

    @Test
    @DisplayName("LOG-2 index resize rounds down to whole entries and never below the written ones; an index on disk"
            + " counts only its whole entries")
    void log2ResizeAndReopenCountWholeEntries() throws Exception {
        Path file = tmp.resolve("00000000000000000000.index");
        OffsetIndex index = new OffsetIndex(file, 0, 84);
        assertThat(index.maxEntries()).isEqualTo(10);
        index.append(1, 100);
        index.append(2, 200);
        index.append(3, 300);
        index.resize(20);
        assertThat(index.maxEntries()).as("20 bytes hold two entries, but three are written").isEqualTo(3);
        assertThat(Files.size(file)).isEqualTo(24);
        assertThat(index.isFull()).isTrue();
        index.resize(44);
        assertThat(index.maxEntries()).isEqualTo(5);
        assertThat(Files.size(file)).as("the shrink dropped the mapping; the next one extends the file").isEqualTo(24);
        assertThat(index.isFull()).isFalse();
        assertThat(index.sizeInBytes()).isEqualTo(24);
        assertThat(index.lookup(3)).isEqualTo(new OffsetIndex.Position(3, 300));
        assertThat(Files.size(file)).isEqualTo(40);
        index.close();
        assertThat(Files.size(file)).isEqualTo(24);

        Files.write(file, new byte[] {0, 0, 0, 9}, java.nio.file.StandardOpenOption.APPEND);
        OffsetIndex torn = new OffsetIndex(file, 0, 80);
        assertThat(torn.entries()).isEqualTo(3);
        assertThat(torn.lengthProblem()).isEqualTo("its length 28 is not a multiple of the 8-byte entry size");
        assertThat(new OffsetIndex(tmp.resolve("00000000000000000001.index"), 1, 80).lengthProblem()).isNull();
        assertThat(index.lengthProblem()).isNull();
        assertThatThrownBy(() -> torn.truncateToEntries(4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Cannot truncate index " + file + " with 3 entries to 4");
        assertThatThrownBy(() -> torn.truncateToEntries(-1)).isInstanceOf(IllegalArgumentException.class);
        torn.truncateToEntries(3);
        assertThat(torn.entries()).isEqualTo(3);
        torn.deleteIfExists();
        assertThat(file).doesNotExist();
        torn.deleteIfExists();
    }

    @Test
    @DisplayName("LOG-7 offset index sanity at its exact bounds: one batch header apart and a header fitting at the end"
            + " of the log pass, one byte less does not; negative fields are named")
    void log7SanityCheckBounds() throws Exception {
        int h = BatchFraming.HEADER_SIZE;
        Path file = tmp.resolve("00000000000000000050.index");
        Files.write(file, ByteBuffer.allocate(16).putInt(0).putInt(0).putInt(1).putInt(h).array());
        OffsetIndex index = new OffsetIndex(file, 50, 1024);
        assertThat(index.sanityCheck(2 * h, 52)).isNull();
        assertThat(index.sanityCheck(2 * h - 1, 52))
                .isEqualTo("entry 1 (relative offset 1, position " + h + ") points beyond the last batch header of the log ("
                        + (2 * h - 1) + " bytes)");
        assertThat(index.sanityCheck(2 * h, 51))
                .isEqualTo("entry 1 (relative offset 1, position " + h + ") names offset 51, at or past the segment's end offset 51");

        Files.write(file, ByteBuffer.allocate(16).putInt(0).putInt(0).putInt(1).putInt(h - 1).array());
        assertThat(new OffsetIndex(file, 50, 1024).sanityCheck(10 * h, 100))
                .isEqualTo("entry 1 (relative offset 1, position " + (h - 1) + ") does not follow entry 0 (relative offset 0,"
                        + " position 0): entries must increase by at least one offset and one batch header");
        Files.write(file, ByteBuffer.allocate(16).putInt(1).putInt(0).putInt(1).putInt(h).array());
        assertThat(new OffsetIndex(file, 50, 1024).sanityCheck(10 * h, 100)).startsWith("entry 1 (relative offset 1,")
                .contains("does not follow entry 0");
        Files.write(file, ByteBuffer.allocate(8).putInt(-1).putInt(0).array());
        assertThat(new OffsetIndex(file, 50, 1024).sanityCheck(10 * h, 100))
                .isEqualTo("entry 0 (relative offset -1, position 0) is negative");
        Files.write(file, ByteBuffer.allocate(8).putInt(0).putInt(-1).array());
        assertThat(new OffsetIndex(file, 50, 1024).sanityCheck(10 * h, 100))
                .isEqualTo("entry 0 (relative offset 0, position -1) is negative");
        Files.write(file, ByteBuffer.allocate(8).putInt(0).putInt(Integer.MAX_VALUE).array());
        assertThat(new OffsetIndex(file, 50, 1024).sanityCheck(Integer.MAX_VALUE, 100)).as("no int overflow")
                .contains("points beyond the last batch header");
    }

    @Test
    @DisplayName("LOG-11 a mapped index is forced before it is resized (a shrink drops the mapping), and every change is announced")
    void log11ResizeForcesThenRemaps() throws Exception {
        Path file = tmp.resolve("00000000000000000000.index");
        java.util.List<dev.insync.replication.log.StorageOperation> ops = new java.util.ArrayList<>();
        dev.insync.replication.log.FileSync sync = dev.insync.replication.log.FileSync.withoutFsync().withFaults(ops::add);
        OffsetIndex index = new OffsetIndex(file, 0, 80, sync);
        index.append(1, 100);
        ops.clear();
        index.resize(40);
        assertThat(ops).extracting(dev.insync.replication.log.StorageOperation::kind).containsExactly(
                dev.insync.replication.log.StorageOperation.Kind.FLUSH, dev.insync.replication.log.StorageOperation.Kind.WRITE);
        assertThat(ops).extracting(dev.insync.replication.log.StorageOperation::file).containsOnly(file);
        ops.clear();
        index.flush();
        assertThat(ops).as("the shrink dropped the mapping: nothing was written since, nothing to force").isEmpty();
        index.append(2, 200);
        ops.clear();
        index.flush();
        assertThat(ops).extracting(dev.insync.replication.log.StorageOperation::kind)
                .containsExactly(dev.insync.replication.log.StorageOperation.Kind.FLUSH);
        ops.clear();
        index.deleteIfExists();
        assertThat(ops).extracting(dev.insync.replication.log.StorageOperation::kind)
                .containsExactly(dev.insync.replication.log.StorageOperation.Kind.WRITE);
        assertThat(file).doesNotExist();
        ops.clear();
        index.deleteIfExists();
        assertThat(ops).as("nothing to delete: nothing announced").isEmpty();
    }

    @Test
    @DisplayName("LOG-7 an index found torn (a partial entry at its end) and preallocated for a rebuild is cut to its"
            + " whole entries when trimmed, without ever being mapped")
    void log7TornIndexIsCutToWholeEntriesUnmapped() throws Exception {
        Path file = tmp.resolve("00000000000000000000.index");
        Files.write(file, ByteBuffer.allocate(19).putInt(0, 1).putInt(4, 0).putInt(8, 2).putInt(12, 70).array());
        java.util.List<dev.insync.replication.log.StorageOperation> ops = new java.util.ArrayList<>();
        OffsetIndex index = new OffsetIndex(file, 0, 80,
                dev.insync.replication.log.FileSync.withoutFsync().withFaults(ops::add));
        assertThat(index.entries()).isEqualTo(2);
        index.resize(80);
        assertThat(index.maxEntries()).isEqualTo(10);
        assertThat(Files.size(file)).as("extended only by the mapping that needs it").isEqualTo(19);
        assertThat(ops).isEmpty();
        index.trimToValidSize();
        assertThat(index.isMapped()).isFalse();
        assertThat(Files.size(file)).isEqualTo(16);
        assertThat(index.maxEntries()).isEqualTo(2);
        assertThat(ops).extracting(dev.insync.replication.log.StorageOperation::kind)
                .containsExactly(dev.insync.replication.log.StorageOperation.Kind.WRITE);
        assertThat(index.lastEntry()).isEqualTo(new OffsetIndex.Position(2, 70));
    }

    @Test
    @DisplayName("LOG-2 an index file of exactly 2 GiB - 1 bytes opens; one byte more is refused, naming the file")
    void log2IndexFileSizeLimit() throws Exception {
        Path file = tmp.resolve("00000000000000000000.index");
        try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(Integer.MAX_VALUE); // sparse: no blocks are written
        }
        OffsetIndex largest = new OffsetIndex(file, 0, 80);
        assertThat(largest.entries()).isEqualTo(Integer.MAX_VALUE / OffsetIndex.ENTRY_SIZE);
        assertThat(largest.lengthProblem()).isEqualTo("its length 2147483647 is not a multiple of the 8-byte entry size");
        try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(Integer.MAX_VALUE + 1L);
        }
        assertThatThrownBy(() -> new OffsetIndex(file, 0, 80)).isInstanceOf(java.io.IOException.class)
                .hasMessage("Index file " + file + " is 2147483648 bytes, above the 2 GiB limit");
        Files.delete(file);
    }
}
