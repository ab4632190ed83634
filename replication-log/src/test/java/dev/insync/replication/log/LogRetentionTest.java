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
import dev.insync.replication.log.record.RecordBatchBuilder;
import dev.insync.replication.log.segment.LogSegment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static dev.insync.replication.log.LogFixtures.TP;
import static dev.insync.replication.log.LogFixtures.batch;
import static dev.insync.replication.log.LogFixtures.readOffsets;
import static dev.insync.replication.log.LogFixtures.smallConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class LogRetentionTest {

    @TempDir
    Path tmp;
    private Log log;

    @AfterEach
    void close() {
        if (log != null) {
            log.close();
        }
    }

    private Log open(LogConfig config) {
        log = Log.open(tmp.resolve(TP.toString()), TP, config, 0, 0, () -> 0L);
        return log;
    }

    /** One batch of {@code count} records all with timestamp {@code ts}. */
    private static dev.insync.replication.log.record.MemoryRecords batchAtTime(long ts, int count) {
        RecordBatchBuilder builder = new RecordBatchBuilder(0);
        for (int i = 0; i < count; i++) {
            builder.append(ts, null, ("t" + ts + "-" + i).getBytes());
        }
        return builder.build();
    }

    @Test
    @DisplayName("LOG-10 deleteRecordsBefore moves the log start, deletes whole segments below it and cuts the epoch cache")
    void deleteRecordsBefore() {
        open(smallConfig().withSegmentBytes(300));
        for (int i = 0; i < 12; i++) {
            log.appendAsLeader(batch("d" + i, 2), i < 6 ? 0 : 1);
        }
        log.updateHighWatermark(24);
        List<Long> bases = log.segmentBaseOffsets();
        long target = bases.get(2) + 1;
        log.deleteRecordsBefore(target);
        assertThat(log.logStartOffset()).isEqualTo(target);
        assertThat(log.segmentBaseOffsets()).first().isEqualTo(bases.get(2));
        assertThat(Files.exists(log.dir().resolve(String.format("%020d.log", bases.get(0))))).isFalse();
        assertThat(readOffsets(log, target)).first().isEqualTo(target - 1); // the batch holding target starts before it
        assertThat(log.leaderEpochCache().epochEntries()).first().extracting(EpochEntry::startOffset)
                .isEqualTo(target);
        // A lower offset is a no-op.
        log.deleteRecordsBefore(1);
        assertThat(log.logStartOffset()).isEqualTo(target);
    }

    @Test
    @DisplayName("LOG-10 deleteRecordsBefore never goes past the HW: OFFSET_OUT_OF_RANGE and nothing changes")
    void deleteRecordsBeforeNeverPastHw() {
        open(smallConfig().withSegmentBytes(300));
        for (int i = 0; i < 12; i++) {
            log.appendAsLeader(batch("d" + i, 2), 0);
        }
        log.updateHighWatermark(10);
        LogFixtures.Snapshot before = LogFixtures.Snapshot.of(log);
        assertThatThrownBy(() -> log.deleteRecordsBefore(11))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE))
                .hasMessageContaining("11").hasMessageContaining("high watermark 10").hasMessageContaining("topic-0");
        assertThat(LogFixtures.Snapshot.of(log)).isEqualTo(before);
        log.deleteRecordsBefore(10);
        assertThat(log.logStartOffset()).isEqualTo(10);
    }

    @Test
    @DisplayName("LOG-10 a follower takes the leader's log start offset, bounded by its own HW")
    void followerLogStartBoundedByHw() {
        open(smallConfig());
        for (int i = 0; i < 5; i++) {
            log.appendAsLeader(batch("x" + i, 2), 0);
        }
        log.updateHighWatermark(6);
        log.maybeIncrementLogStartOffset(8);
        assertThat(log.logStartOffset()).isEqualTo(6);
        log.maybeIncrementLogStartOffset(4);
        assertThat(log.logStartOffset()).isEqualTo(6);
    }

    @Test
    @DisplayName("LOG-10 retention.ms deletes the oldest segments by their largest timestamp, only below the HW")
    void retentionByTime() {
        open(smallConfig().withSegmentBytes(250).withRetentionMs(1_000));
        for (int i = 0; i < 10; i++) {
            log.appendAsLeader(batchAtTime(10_000L * (i + 1), 2), 0);
        }
        List<Long> bases = log.segmentBaseOffsets();
        assertThat(bases.size()).isGreaterThan(3);
        long now = 10_000L * 4 + 1_001; // batches with ts <= 40_000 are past retention
        log.updateHighWatermark(bases.get(1));
        assertThat(log.deleteOldSegments(now)).as("the HW blocks the second segment").isEqualTo(1);
        assertThat(log.logStartOffset()).isEqualTo(bases.get(1));
        log.updateHighWatermark(20);
        int deleted = log.deleteOldSegments(now);
        assertThat(deleted).isGreaterThanOrEqualTo(1);
        long start = log.logStartOffset();
        // Every remaining segment holds a batch younger than the retention, and nothing below start is readable.
        assertThat(log.segmentBaseOffsets()).first().isEqualTo(start);
        assertThat(readOffsets(log, start)).first().isEqualTo(start);
        assertThat(log.deleteOldSegments(now)).isZero();
        assertThat(log.logEndOffset()).isEqualTo(20);
    }

    @Test
    @DisplayName("LOG-10 retention.bytes deletes the oldest segments while the log is above the limit")
    void retentionBySize() {
        open(smallConfig().withSegmentBytes(300).withRetentionBytes(600));
        for (int i = 0; i < 20; i++) {
            log.appendAsLeader(batch("s" + i, 2), 0);
        }
        log.updateHighWatermark(log.logEndOffset());
        long sizeBefore = log.size();
        int deleted = log.deleteOldSegments(0);
        assertThat(deleted).isPositive();
        assertThat(log.size()).isLessThanOrEqualTo(sizeBefore);
        assertThat(log.size()).isGreaterThan(600 - 300);
        assertThat(log.logStartOffset()).isEqualTo(log.segmentBaseOffsets().get(0));
        assertThat(readOffsets(log, log.logStartOffset())).last().isEqualTo(39L);
    }

    @Test
    @DisplayName("LOG-10 retention rolls and deletes the active segment only when all of it is below the HW")
    void retentionOfActiveSegment() {
        open(smallConfig().withSegmentBytes(100_000).withRetentionMs(10));
        log.appendAsLeader(batchAtTime(100, 3), 0);
        log.updateHighWatermark(2);
        assertThat(log.deleteOldSegments(1_000)).isZero();
        log.updateHighWatermark(3);
        assertThat(log.deleteOldSegments(1_000)).isEqualTo(1);
        assertThat(log.segmentBaseOffsets()).containsExactly(3L);
        assertThat(log.logStartOffset()).isEqualTo(3);
        assertThat(log.logEndOffset()).isEqualTo(3);
        log.appendAsLeader(batchAtTime(2_000, 1), 0);
        assertThat(readOffsets(log, 3)).containsExactly(3L);
    }

    /** A hook that stops the first deletion of a file renamed for it until {@link #release}; other operations pass. */
    private static final class HeldDeletion implements StorageFaults {
        final CountDownLatch reached = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public void beforeOperation(StorageOperation operation) throws IOException {
            if (operation.file().getFileName().toString().endsWith(LogSegment.DELETED_SUFFIX) && reached.getCount() > 0) {
                reached.countDown();
                try {
                    if (!release.await(30, TimeUnit.SECONDS)) {
                        throw new IOException("the test never released the deletion");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException(e);
                }
            }
        }
    }

    private List<Path> filesOf(Path dir, String suffix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(suffix)).toList();
        }
    }

    @Test
    @DisplayName("LOG-10 retention deletes a segment's files after it released the log's locks: appends and reads"
            + " go on while a deletion is under way, and no file of the segment is left afterwards")
    void retentionDeletesFilesOutsideTheLocks() throws Exception {
        HeldDeletion hook = new HeldDeletion();
        log = Log.open(tmp.resolve(TP.toString()), TP, smallConfig().withSegmentBytes(300).withRetentionBytes(600), 0, 0,
                () -> 0L, FileSync.withoutFsync().withFaults(hook));
        for (int i = 0; i < 20; i++) {
            log.appendAsLeader(batch("s" + i, 2), 0);
        }
        log.updateHighWatermark(log.logEndOffset());
        long firstBase = log.segmentBaseOffsets().get(0);
        ExecutorService retention = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> deleted = retention.submit(() -> log.deleteOldSegments(0));
            assertThat(hook.reached.await(10, TimeUnit.SECONDS)).as("the deletion reached the unlink").isTrue();
            assertThat(log.segmentBaseOffsets()).as("the segment is out of the log before its files go")
                    .doesNotContain(firstBase);

            // With the deletion held, the log's locks must be free: both calls would wait for them otherwise.
            ExecutorService other = Executors.newSingleThreadExecutor();
            try {
                long leo = other.submit(() -> log.appendAsLeader(batch("during", 2), 0).lastOffset())
                        .get(10, TimeUnit.SECONDS);
                assertThat(leo).isEqualTo(41);
                assertThat(other.submit(() -> readOffsets(log, log.logStartOffset())).get(10, TimeUnit.SECONDS))
                        .first().isEqualTo(log.logStartOffset());
            } finally {
                other.shutdownNow();
            }

            hook.release.countDown();
            assertThat(deleted.get(10, TimeUnit.SECONDS)).isPositive();
        } finally {
            hook.release.countDown();
            retention.shutdownNow();
        }
        assertThat(filesOf(log.dir(), LogSegment.DELETED_SUFFIX)).isEmpty();
        assertThat(log.dir().resolve(String.format("%020d.log", firstBase))).doesNotExist();
        assertThat(log.dir().resolve(String.format("%020d.index", firstBase))).doesNotExist();
    }

    @Test
    @DisplayName("LOG-10 a deletion that fails takes the log offline (§9), and the next open deletes what was left"
            + " renamed, without taking it for a segment")
    void aFailedDeletionIsTheDirectorysAndTheNextOpenFinishesIt() throws IOException {
        Path dir = tmp.resolve(TP.toString());
        StorageFaults failDeletions = operation -> {
            if (operation.file().getFileName().toString().endsWith(LogSegment.DELETED_SUFFIX)) {
                throw new IOException("injected: the disk refuses the unlink");
            }
        };
        LogConfig config = smallConfig().withSegmentBytes(300).withRetentionBytes(600);
        log = Log.open(dir, TP, config, 0, 0, () -> 0L, FileSync.withoutFsync().withFaults(failDeletions));
        for (int i = 0; i < 20; i++) {
            log.appendAsLeader(batch("s" + i, 2), 0);
        }
        log.updateHighWatermark(log.logEndOffset());

        assertThatThrownBy(() -> log.deleteOldSegments(0))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR))
                .hasMessageContaining("renamed for deletion");
        assertThatThrownBy(() -> log.appendAsLeader(batch("after", 1), 0))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR));
        long start = log.logStartOffset();
        assertThat(filesOf(dir, LogSegment.DELETED_SUFFIX)).isNotEmpty();
        log.close();

        log = Log.open(dir, TP, config, 0, start, () -> 0L);
        assertThat(filesOf(dir, LogSegment.DELETED_SUFFIX)).isEmpty();
        assertThat(log.segmentBaseOffsets()).first().isEqualTo(start);
        assertThat(readOffsets(log, start)).first().isEqualTo(start);
        assertThat(readOffsets(log, start)).last().isEqualTo(39L);
    }

    @Test
    @DisplayName("LOG-8 LOG-10 a log reopened with an older log-start checkpoint than its epoch cache (moving the log start wrote the cache first) starts where the cache says, so the cache describes it")
    void logStartRestoredFromTheEpochCacheAfterACrash() {
        open(smallConfig());
        for (int i = 0; i < 5; i++) {
            log.appendAsLeader(batch("x" + i, 2), i < 2 ? 1 : 2);
        }
        log.updateHighWatermark(10);
        log.maybeIncrementLogStartOffset(7);
        assertThat(log.leaderEpochCache().epochEntries()).containsExactly(new EpochEntry(2, 7));
        log.close();

        // The broker dies before its log-start checkpoint: the owner reopens the log at log start 0.
        log = Log.open(tmp.resolve(TP.toString()), TP, smallConfig(), 0, 0, () -> 0L);
        assertThat(log.logStartOffset()).isEqualTo(7);
        assertThat(log.leaderEpochCache().epochEntries()).containsExactly(new EpochEntry(2, 7));
        assertThat(log.recoveryFindings()).extracting(RecoveryFinding::kind).contains(RecoveryFinding.Kind.CLAMPED_LOG_START);
        assertThatThrownBy(() -> log.read(2, 1 << 20, log.logEndOffset()))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE));
        assertThat(log.read(7, 1 << 20, log.logEndOffset()).records().batches()).isNotEmpty();
    }

    @Test
    @DisplayName("LOG-10 deleting segments unmaps their files at once, and closing the log unmaps the rest: no"
            + " deleted file stays mapped (its disk space held) until the garbage collector runs")
    void deletedAndClosedSegmentsAreUnmappedAtOnce() throws IOException {
        Path maps = Path.of("/proc/self/maps");
        assumeTrue(Files.isReadable(maps), "needs Linux's /proc/self/maps to see the process's mappings");
        // Segments above the 1 MiB a read map needs, with index entries every 4 KiB.
        int segmentBytes = 2 * 1024 * 1024;
        open(LogConfig.defaults().withSegmentBytes(segmentBytes).withIndexIntervalBytes(4096));
        while (log.segmentBaseOffsets().size() < 4 || log.size() < 3 * segmentBytes + segmentBytes * 3 / 4) {
            log.appendAsLeader(LogFixtures.kilobyteRecords(16), 0);
        }
        log.updateHighWatermark(log.logEndOffset());
        List<Long> bases = log.segmentBaseOffsets();
        for (int i = 0; i < 4; i++) {
            // A read from the middle of a segment looks its offset index up and walks the mapped file.
            long middle = (bases.get(i) + (i < 3 ? bases.get(i + 1) : log.logEndOffset())) / 2;
            assertThat(log.read(middle, 1, log.logEndOffset()).records().batches()).isNotEmpty();
        }
        List<Path> live = filesOf(bases.subList(3, 4), ".log", ".index");
        assertThat(mappedFiles(maps)).as("the reads mapped every segment's file and offset index")
                .containsAll(filesOf(bases, ".log", ".index"));

        log.deleteRecordsBefore(bases.get(3));

        List<Path> doomed = filesOf(bases.subList(0, 3), ".log", ".index", ".timeindex");
        assertThat(doomed).noneMatch(Files::exists);
        assertThat(mappedFiles(maps)).as("mappings of deleted segments").doesNotContainAnyElementsOf(doomed)
                .as("the live segment's mappings").containsAll(live);
        assertThat(log.read(bases.get(3) + 1, 1, log.logEndOffset()).records().batches()).isNotEmpty();
        log.close();
        assertThat(mappedFiles(maps)).as("mappings left after close").isEmpty();
    }

    /** Each segment's files with these suffixes. */
    private List<Path> filesOf(List<Long> bases, String... suffixes) {
        return bases.stream().flatMap(base -> Stream.of(suffixes)
                .map(suffix -> log.dir().resolve(String.format("%020d%s", base, suffix)))).toList();
    }

    /** The files of this log's directory the process has mapped now (a deleted one with its old name). */
    private List<Path> mappedFiles(Path maps) throws IOException {
        String dir = log.dir().toString();
        return Files.readAllLines(maps).stream()
                .map(line -> line.endsWith(" (deleted)") ? line.substring(0, line.length() - " (deleted)".length()) : line)
                .filter(line -> line.contains(dir + "/"))
                .map(line -> Path.of(line.substring(line.indexOf(dir))))
                .distinct().toList();
    }
}
