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

/** LOG-2 and LOG-7 for the {@code .timeindex}: what it takes, what it refuses and what its sanity check accepts, at the bounds. */
class TimeIndexTest {

    @TempDir
    Path tmp;

    @Test
    @DisplayName("LOG-2 time index: full one slot before its capacity, refused then unless it is the roll entry, which"
            + " is dropped silently only when no slot is left")
    void log2FullAndTheRollSlot() throws Exception {
        Path file = tmp.resolve("00000000000000000000.timeindex");
        TimeIndex index = new TimeIndex(file, 0, 3 * TimeIndex.ENTRY_SIZE);
        assertThat(index.isFull()).isFalse();
        index.maybeAppend(10, 1, false);
        assertThat(index.isFull()).isFalse();
        index.maybeAppend(20, 2, false);
        assertThat(index.isFull()).isTrue();
        assertThatThrownBy(() -> index.maybeAppend(30, 3, false)).isInstanceOf(IllegalStateException.class)
                .hasMessage("Time index " + file + " is full at 2 entries");
        index.maybeAppend(30, 3, true);
        assertThat(index.entries()).isEqualTo(3);
        index.maybeAppend(40, 4, true);
        assertThat(index.entries()).as("no slot left: nothing written, nothing thrown").isEqualTo(3);
        assertThat(index.lastEntry()).isEqualTo(new TimeIndex.Entry(30, 3));
    }

    @Test
    @DisplayName("LOG-2 time index: an equal timestamp adds nothing, a larger one at the same offset is kept, an offset"
            + " going back is refused naming the file")
    void log2StrictlyIncreasingTimestamps() throws Exception {
        Path file = tmp.resolve("00000000000000000100.timeindex");
        TimeIndex index = new TimeIndex(file, 100, 120);
        index.maybeAppend(TimeIndex.NO_TIMESTAMP, 100, false);
        assertThat(index.entries()).as("no timestamp is never indexed").isZero();
        index.maybeAppend(0, 100, false);
        index.maybeAppend(0, 101, false);
        assertThat(index.entries()).isEqualTo(1);
        index.maybeAppend(5, 100, false);
        assertThat(index.lastEntry()).isEqualTo(new TimeIndex.Entry(5, 100));
        TimeIndex empty = new TimeIndex(tmp.resolve("00000000000000000200.timeindex"), 200, 120);
        assertThatThrownBy(() -> empty.maybeAppend(6, 199, false)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Offset 199 is not representable relative to base offset 200 in " + empty.file());
        assertThat(empty.entries()).isZero();
        index.maybeAppend(9, 104, false);
        assertThatThrownBy(() -> index.maybeAppend(10, 103, false)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Time index entry (10, 103) goes back from Entry[timestamp=9, offset=104] in " + file);
        assertThat(index.entries()).isEqualTo(3);
        assertThat(index.entry(1)).isEqualTo(new TimeIndex.Entry(5, 100));
    }

    @Test
    @DisplayName("LOG-2 time index lookup: the entry with the largest timestamp at most the target, exact hits included")
    void log2Lookup() throws Exception {
        TimeIndex index = new TimeIndex(tmp.resolve("00000000000000000010.timeindex"), 10, 120);
        assertThat(index.lookup(100)).isEqualTo(new TimeIndex.Entry(TimeIndex.NO_TIMESTAMP, 10));
        assertThat(index.lastEntry()).isEqualTo(new TimeIndex.Entry(TimeIndex.NO_TIMESTAMP, 10));
        index.maybeAppend(100, 12, false);
        index.maybeAppend(200, 15, false);
        index.maybeAppend(300, 19, false);
        assertThat(index.lookup(99)).isEqualTo(new TimeIndex.Entry(TimeIndex.NO_TIMESTAMP, 10));
        assertThat(index.lookup(100)).isEqualTo(new TimeIndex.Entry(100, 12));
        assertThat(index.lookup(199)).isEqualTo(new TimeIndex.Entry(100, 12));
        assertThat(index.lookup(200)).isEqualTo(new TimeIndex.Entry(200, 15));
        assertThat(index.lookup(300)).isEqualTo(new TimeIndex.Entry(300, 19));
        assertThat(index.lookup(Long.MAX_VALUE)).isEqualTo(new TimeIndex.Entry(300, 19));
    }

    @Test
    @DisplayName("LOG-6 time index truncation removes the entries at or above the offset, none below")
    void log6TruncateTo() throws Exception {
        Path file = tmp.resolve("00000000000000000000.timeindex");
        TimeIndex index = new TimeIndex(file, 0, 120);
        index.maybeAppend(100, 2, false);
        index.maybeAppend(200, 5, false);
        index.maybeAppend(300, 9, false);
        index.truncateTo(10);
        assertThat(index.entries()).isEqualTo(3);
        index.truncateTo(9);
        assertThat(index.entries()).isEqualTo(2);
        index.truncateTo(6);
        assertThat(index.entries()).isEqualTo(2);
        index.truncateTo(5);
        assertThat(index.lastEntry()).isEqualTo(new TimeIndex.Entry(100, 2));
        index.truncateTo(0);
        assertThat(index.entries()).isZero();
        index.close();
        assertThat(Files.size(file)).isZero();
    }

    private TimeIndex onDisk(long baseOffset, long... timestampAndRelativeOffset) throws Exception {
        Path file = tmp.resolve(LogSegment.filenamePrefix(baseOffset) + ".timeindex");
        ByteBuffer buf = ByteBuffer.allocate(timestampAndRelativeOffset.length / 2 * TimeIndex.ENTRY_SIZE);
        for (int i = 0; i < timestampAndRelativeOffset.length; i += 2) {
            buf.putLong(timestampAndRelativeOffset[i]).putInt((int) timestampAndRelativeOffset[i + 1]);
        }
        Files.write(file, buf.array());
        return new TimeIndex(file, baseOffset, 1024);
    }

    @Test
    @DisplayName("LOG-7 time index sanity at its bounds: timestamps strictly increasing (equal is corrupt), offsets may"
            + " repeat but not go back, the last offset below the segment's end, nothing negative")
    void log7SanityCheckBounds() throws Exception {
        assertThat(onDisk(40, 0, 0, 5, 0, 6, 3).sanityCheck(0, 44)).isNull();
        assertThat(onDisk(41, 5, 0, 6, 3).sanityCheck(0, 44)).isEqualTo("entry 1 (timestamp 6, relative offset 3) names"
                + " offset 44, at or past the segment's end offset 44");
        assertThat(onDisk(42, 5, 0, 5, 1).sanityCheck(0, 100)).isEqualTo("entry 1 (timestamp 5, relative offset 1) does"
                + " not follow entry 0 (timestamp 5, relative offset 0): timestamps must increase and offsets not go back");
        assertThat(onDisk(43, 5, 2, 6, 1).sanityCheck(0, 100)).startsWith("entry 1 (timestamp 6, relative offset 1) does not follow");
        assertThat(onDisk(44, -1, 0).sanityCheck(0, 100)).isEqualTo("entry 0 (timestamp -1, relative offset 0) is negative");
        assertThat(onDisk(45, 3, -1).sanityCheck(0, 100)).isEqualTo("entry 0 (timestamp 3, relative offset -1) is negative");
        assertThat(onDisk(46, 3, 0).sanityCheck(0, 46)).as("an entry at the base of an empty segment")
                .contains("at or past the segment's end offset 46");
        assertThat(new TimeIndex(tmp.resolve("00000000000000000047.timeindex"), 47, 1024).sanityCheck(0, 47)).isNull();
        TimeIndex torn = onDisk(48, 3, 0, 4, 1);
        assertThat(torn.lengthProblem()).isNull();
        Files.write(torn.file(), new byte[] {1, 2, 3}, java.nio.file.StandardOpenOption.APPEND);
        assertThat(new TimeIndex(torn.file(), 48, 1024).lengthProblem())
                .isEqualTo("its length 27 is not a multiple of the 12-byte entry size");
    }
}
