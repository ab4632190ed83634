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

import dev.insync.replication.log.epoch.EpochEntry;
import dev.insync.replication.log.record.RecordBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static dev.insync.replication.log.LogFixtures.TP;
import static dev.insync.replication.log.LogFixtures.batch;
import static dev.insync.replication.log.LogFixtures.batchAt;
import static dev.insync.replication.log.LogFixtures.readOffsets;
import static dev.insync.replication.log.LogFixtures.readValues;
import static dev.insync.replication.log.LogFixtures.smallConfig;
import static org.assertj.core.api.Assertions.assertThat;

class LogTruncationTest {

    @TempDir
    Path tmp;
    private Log log;

    @AfterEach
    void close() {
        if (log != null) {
            log.close();
        }
    }

    /** 8 batches of 3 records (offsets 0..23), epochs 0 (0..11) and 1 (12..23), 300-byte segments. */
    private Log openWithData() {
        log = Log.open(tmp.resolve(TP.toString()), TP, smallConfig().withSegmentBytes(300), 0, 0, () -> 0L);
        for (int i = 0; i < 8; i++) {
            log.appendAsLeader(batch("t" + i, 3), i < 4 ? 0 : 1);
        }
        log.updateHighWatermark(24);
        assertThat(log.segmentBaseOffsets().size()).isGreaterThan(2);
        return log;
    }

    @Test
    @DisplayName("LOG-6 truncateTo at or beyond the LEO changes no data but still cuts the epoch cache at the LEO")
    void truncateAtOrBeyondLeo() {
        openWithData();
        log.assignEpochStartOffset(2, 24);
        assertThat(log.leaderEpochCache().epochEntries()).hasSize(3);
        List<String> before = readValues(log, 0);
        long size = log.size();
        assertThat(log.truncateTo(24)).isFalse();
        assertThat(log.truncateTo(100)).isFalse();
        assertThat(log.logEndOffset()).isEqualTo(24);
        assertThat(log.size()).isEqualTo(size);
        assertThat(readValues(log, 0)).isEqualTo(before);
        assertThat(log.highWatermark()).isEqualTo(24);
        // The cache is cut at the LEO: an entry starting at the LEO has no records and goes.
        assertThat(log.leaderEpochCache().epochEntries()).containsExactly(new EpochEntry(0, 0), new EpochEntry(1, 12));
    }

    @Test
    @DisplayName("LOG-6 truncateTo at a batch boundary keeps earlier batches, drops later segments, cuts HW and epoch cache")
    void truncateAtBatchBoundary() throws Exception {
        openWithData();
        List<Long> segmentsBefore = log.segmentBaseOffsets();
        assertThat(log.truncateTo(9)).isTrue();
        assertThat(log.logEndOffset()).isEqualTo(9);
        assertThat(log.highWatermark()).isEqualTo(9);
        assertThat(readOffsets(log, 0)).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
        assertThat(log.segmentBaseOffsets()).allMatch(base -> base <= 9);
        for (long base : segmentsBefore) {
            if (base > 9) {
                assertThat(Files.exists(log.dir().resolve(String.format("%020d.log", base)))).isFalse();
            }
        }
        assertThat(log.leaderEpochCache().epochEntries()).containsExactly(new EpochEntry(0, 0));
        // The log continues at the new LEO.
        log.appendAsLeader(batch("after", 2), 2);
        assertThat(readValues(log, 9)).containsExactly("after-0", "after-1");
        assertThat(log.leaderEpochCache().epochEntries()).containsExactly(new EpochEntry(0, 0), new EpochEntry(2, 9));
    }

    @Test
    @DisplayName("LOG-6 truncateTo inside a batch removes that whole batch: the LEO is the end of the last kept batch")
    void truncateInsideBatch() {
        openWithData();
        assertThat(log.truncateTo(13)).isTrue();
        assertThat(log.logEndOffset()).isEqualTo(12);
        assertThat(log.read(0, Integer.MAX_VALUE, 12).records().batches()).extracting(RecordBatch::lastOffset)
                .allMatch(last -> last < 13);
        assertThat(log.leaderEpochCache().epochEntries()).containsExactly(new EpochEntry(0, 0));
        log.appendAsFollower(batchAt(12, 5, "f", 1));
        assertThat(log.logEndOffset()).isEqualTo(13);
    }

    @Test
    @DisplayName("LOG-6 truncateTo at a segment's base offset leaves that segment empty and active")
    void truncateAtSegmentBase() {
        openWithData();
        long secondBase = log.segmentBaseOffsets().get(1);
        assertThat(log.truncateTo(secondBase)).isTrue();
        assertThat(log.logEndOffset()).isEqualTo(secondBase);
        assertThat(log.segmentBaseOffsets()).containsExactly(0L, secondBase);
        log.appendAsLeader(batch("n", 1), 3);
        assertThat(readOffsets(log, secondBase)).containsExactly(secondBase);
    }

    @Test
    @DisplayName("LOG-6 log start = min(offset, log start) and HW = min(HW, LEO) after truncation")
    void truncateMovesLogStartAndHw() {
        openWithData();
        log.deleteRecordsBefore(10);
        assertThat(log.logStartOffset()).isEqualTo(10);
        log.truncateTo(10);
        // The batch 9..11 holding the log start is removed, so the log start falls back to the new LEO.
        assertThat(log.logEndOffset()).isEqualTo(9);
        assertThat(log.logStartOffset()).isEqualTo(9);
        assertThat(log.highWatermark()).isEqualTo(9);
        assertThat(log.read(9, 100, 9).records().sizeInBytes()).isZero();
    }

    @Test
    @DisplayName("LOG-6 truncateTo below the first segment's base offset truncates fully and starts at the offset")
    void truncateBelowFirstSegment() {
        openWithData();
        log.deleteRecordsBefore(log.segmentBaseOffsets().get(1));
        long firstBase = log.segmentBaseOffsets().get(0);
        assertThat(firstBase).isGreaterThan(0);
        assertThat(log.truncateTo(firstBase - 1)).isTrue();
        assertThat(log.segmentBaseOffsets()).containsExactly(firstBase - 1);
        assertThat(log.logStartOffset()).isEqualTo(firstBase - 1);
        assertThat(log.logEndOffset()).isEqualTo(firstBase - 1);
        assertThat(log.highWatermark()).isEqualTo(firstBase - 1);
        assertThat(log.size()).isZero();
        assertThat(log.leaderEpochCache().epochEntries()).isEmpty();
    }

    @Test
    @DisplayName("LOG-6 truncateFullyAndStartAt empties the log, clears the epoch cache and starts at the offset")
    void truncateFullyAndStartAt() throws Exception {
        openWithData();
        log.truncateFullyAndStartAt(100);
        assertThat(log.segmentBaseOffsets()).containsExactly(100L);
        assertThat(log.logStartOffset()).isEqualTo(100);
        assertThat(log.logEndOffset()).isEqualTo(100);
        assertThat(log.highWatermark()).isEqualTo(100);
        assertThat(log.recoveryPoint()).isEqualTo(100);
        assertThat(log.leaderEpochCache().epochEntries()).isEmpty();
        try (var files = Files.list(log.dir())) {
            assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".log")))
                    .containsExactly("00000000000000000100.log");
        }
        log.appendAsFollower(batchAt(100, 7, "x", 2));
        assertThat(readOffsets(log, 100)).containsExactly(100L, 101L);
        log.close();
        log = Log.open(tmp.resolve(TP.toString()), TP, smallConfig(), 0, 100, () -> 0L);
        assertThat(log.logStartOffset()).isEqualTo(100);
        assertThat(log.logEndOffset()).isEqualTo(102);
        assertThat(log.leaderEpochCache().epochEntries()).containsExactly(new EpochEntry(7, 100));
    }

    @Test
    @DisplayName("LOG-6 truncation persists: after reopen the log holds exactly the kept batches and indexes work")
    void truncationSurvivesReopen() {
        openWithData();
        log.truncateTo(15);
        log.flush();
        log.close();
        log = Log.open(tmp.resolve(TP.toString()), TP, smallConfig().withSegmentBytes(300), 15, 0, () -> 0L);
        assertThat(log.logEndOffset()).isEqualTo(15);
        assertThat(readOffsets(log, 0)).hasSize(15);
        for (long o = 0; o < 15; o++) {
            assertThat(log.read(o, 1, 15).records().batches().get(0).lastOffset()).isGreaterThanOrEqualTo(o);
        }
    }
}
