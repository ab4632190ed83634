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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static dev.insync.replication.log.LogFixtures.TP;
import static dev.insync.replication.log.LogFixtures.batch;
import static dev.insync.replication.log.LogFixtures.readOffsets;
import static dev.insync.replication.log.LogFixtures.readValues;
import static dev.insync.replication.log.LogFixtures.smallConfig;
import static org.assertj.core.api.Assertions.assertThat;

class LogRecoveryTest {

    @TempDir
    Path tmp;
    private Log log;

    @AfterEach
    void close() {
        if (log != null) {
            log.close();
        }
    }

    private Path dir() {
        return tmp.resolve(TP.toString());
    }

    private Log open(LogConfig config, long recoveryPoint) {
        log = Log.open(dir(), TP, config, recoveryPoint, 0, () -> 0L);
        return log;
    }

    private static void truncateFile(Path file, long size) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(size);
        }
    }

    private static void overwrite(Path file, long position, byte[] bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(bytes), position);
        }
    }

    private static void copyDir(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.copy(f, to.resolve(f.getFileName()));
            }
        }
    }

    @Test
    @DisplayName("LOG-7 a torn tail cut at every byte of the last batch recovers exactly the complete batches")
    void tornTailAtEveryByte() throws Exception {
        open(smallConfig().withSegmentBytes(100_000), 0);
        for (int i = 0; i < 4; i++) {
            log.appendAsLeader(batch("b" + i, 2), i);
        }
        long lastBatchStart = log.size();
        log.appendAsLeader(batch("last", 3), 4);
        long end = log.size();
        List<String> complete = readValues(log, 0).subList(0, 8);
        log.close();
        log = null;
        Path pristine = tmp.resolve("pristine");
        copyDir(dir(), pristine);

        openEveryCut(pristine, lastBatchStart, end, complete);
    }

    private void openEveryCut(Path pristine, long lastBatchStart, long end, List<String> complete) throws IOException {
        for (long cut = lastBatchStart; cut < end; cut++) {
            Path trial = tmp.resolve("cut-" + cut);
            copyDir(pristine, trial);
            truncateFile(trial.resolve("00000000000000000000.log"), cut);
            // Each trial is a copy of closed files, not a power loss: forcing to disk proves nothing here.
            try (Log recovered = Log.open(trial, TP, smallConfig(), 0, 0, () -> 0L, FileSync.withoutFsync())) {
                assertThat(recovered.logEndOffset()).as("cut at %d", cut).isEqualTo(8);
                assertThat(recovered.size()).isEqualTo(lastBatchStart);
                assertThat(readValues(recovered, 0)).isEqualTo(complete);
                assertThat(recovered.latestEpoch()).as("the epoch of the cut batch is gone").hasValue(3);
                assertThat(recovered.leaderEpochCache().epochEntries()).doesNotContain(new EpochEntry(4, 8));
                recovered.appendAsLeader(batch("again", 1), 3);
                assertThat(recovered.logEndOffset()).isEqualTo(9);
            }
        }
    }

    @Test
    @DisplayName("LOG-7 a corrupt byte inside a batch cuts the log there: no invalid batch is ever served")
    void corruptBatchCutOff() throws Exception {
        open(smallConfig().withSegmentBytes(100_000), 0);
        for (int i = 0; i < 5; i++) {
            log.appendAsLeader(batch("c" + i, 2), 0);
        }
        long thirdBatchStart = log.read(4, 1, 10).records().sizeInBytes() * 2L;
        log.close();
        overwrite(dir().resolve("00000000000000000000.log"), thirdBatchStart + 70, new byte[] {0x7f, 0x7f});
        open(smallConfig(), 0);
        assertThat(log.logEndOffset()).isEqualTo(4);
        assertThat(readValues(log, 0)).containsExactly("c0-0", "c0-1", "c1-0", "c1-1");
    }

    @Test
    @DisplayName("LOG-7 zeroed preallocated bytes or garbage after the last batch are cut off")
    void garbageTailCutOff() throws Exception {
        open(smallConfig(), 0);
        log.appendAsLeader(batch("g", 3), 0);
        long size = log.size();
        log.close();
        overwrite(dir().resolve("00000000000000000000.log"), size, new byte[200]);
        open(smallConfig(), 0);
        assertThat(log.logEndOffset()).isEqualTo(3);
        assertThat(log.size()).isEqualTo(size);
        assertThat(Files.size(dir().resolve("00000000000000000000.log"))).isEqualTo(size);
    }

    /** A log of several segments, closed; returns the values. */
    private List<String> writeSegments() {
        open(smallConfig().withSegmentBytes(400).withIndexIntervalBytes(50), 0);
        for (int i = 0; i < 30; i++) {
            log.appendAsLeader(batch("s" + i, 2), 0);
        }
        assertThat(log.segmentBaseOffsets().size()).isGreaterThan(3);
        List<String> values = readValues(log, 0);
        log.flush();
        log.close();
        return values;
    }

    @Test
    @DisplayName("LOG-7 a corrupt index below the recovery point is rebuilt and reads stay right")
    void corruptIndexRebuilt() throws Exception {
        List<String> values = writeSegments();
        Path index = dir().resolve("00000000000000000000.index");
        long indexSize = Files.size(index);
        assertThat(indexSize).isGreaterThanOrEqualTo(16);
        // Entry 1 now points back before entry 0: not increasing.
        overwrite(index, 8, new byte[] {0, 0, 0, 0, 0, 0, 0, 1});
        open(smallConfig().withSegmentBytes(400).withIndexIntervalBytes(50), 60);
        assertThat(readValues(log, 0)).isEqualTo(values);
        for (long o = 0; o < 60; o++) {
            assertThat(log.read(o, 1, 60).records().batches().get(0).baseOffset()).isEqualTo(o - o % 2);
        }
        log.close();
        assertThat(Files.size(index)).isEqualTo(indexSize);
        log = null;
    }

    @Test
    @DisplayName("LOG-7 an index with a partial entry or pointing past the log is rebuilt")
    void indexPastLogRebuilt() throws Exception {
        List<String> values = writeSegments();
        Path index = dir().resolve("00000000000000000000.index");
        Files.write(index, new byte[] {0, 0, 0, 5, 0, 0, 0x7f, 0}, StandardOpenOption.TRUNCATE_EXISTING);
        Path timeIndex = dir().resolve("00000000000000000000.timeindex");
        Files.write(timeIndex, new byte[5], StandardOpenOption.APPEND);
        open(smallConfig().withSegmentBytes(400).withIndexIntervalBytes(50), 60);
        assertThat(readValues(log, 0)).isEqualTo(values);
        assertThat(log.read(7, 1, 60).records().batches().get(0).baseOffset()).isEqualTo(6);
    }

    @Test
    @DisplayName("LOG-7 missing index files are rebuilt and reads stay right")
    void missingIndexRebuilt() throws Exception {
        List<String> values = writeSegments();
        Path index = dir().resolve("00000000000000000000.index");
        long indexSize = Files.size(index);
        Files.delete(index);
        Files.delete(dir().resolve("00000000000000000000.timeindex"));
        open(smallConfig().withSegmentBytes(400).withIndexIntervalBytes(50), 60);
        assertThat(readValues(log, 0)).isEqualTo(values);
        assertThat(log.read(9, 1, 60).records().batches().get(0).baseOffset()).isEqualTo(8);
        log.close();
        log = null;
        assertThat(Files.size(index)).isEqualTo(indexSize);
        assertThat(Files.exists(dir().resolve("00000000000000000000.timeindex"))).isTrue();
    }

    @Test
    @DisplayName("LOG-7 an orphan index without its .log is deleted on open")
    void orphanIndexDeleted() throws Exception {
        writeSegments();
        Files.write(dir().resolve("00000000000000099999.index"), new byte[16]);
        open(smallConfig(), 60);
        assertThat(Files.exists(dir().resolve("00000000000000099999.index"))).isFalse();
        assertThat(log.logEndOffset()).isEqualTo(60);
    }

    @Test
    @DisplayName("LOG-7 a torn segment in the middle drops every later segment")
    void tornMiddleSegmentDropsLater() throws Exception {
        writeSegments();
        List<Long> bases = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir())) {
            files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".log")).sorted()
                    .forEach(n -> bases.add(Long.parseLong(n.substring(0, 20))));
        }
        Path second = dir().resolve(String.format("%020d.log", bases.get(1)));
        truncateFile(second, Files.size(second) - 1);
        open(smallConfig().withSegmentBytes(400), 0);
        assertThat(log.segmentBaseOffsets()).containsExactly(bases.get(0), bases.get(1));
        assertThat(log.logEndOffset()).isLessThan(bases.get(2));
        assertThat(Files.exists(dir().resolve(String.format("%020d.log", bases.get(2))))).isFalse();
        assertThat(readValues(log, 0)).hasSize((int) log.logEndOffset());
    }

    @Test
    @DisplayName("LOG-7 recovery with a smaller segment.index.bytes keeps every valid batch: the index only gets sparser")
    void recoveryWithFullIndexKeepsBatches() {
        open(smallConfig().withSegmentBytes(100_000).withSegmentIndexBytes(4096).withIndexIntervalBytes(0), 0);
        for (int i = 0; i < 12; i++) {
            log.appendAsLeader(batch("w" + i, 1), 0);
        }
        List<String> values = readValues(log, 0);
        log.close();
        open(smallConfig().withSegmentBytes(100_000).withSegmentIndexBytes(24).withIndexIntervalBytes(0), 0);
        assertThat(log.logEndOffset()).isEqualTo(12);
        assertThat(readValues(log, 0)).isEqualTo(values);
        for (long o = 0; o < 12; o++) {
            assertThat(log.read(o, 1, 12).records().batches().get(0).baseOffset()).isEqualTo(o);
        }
        log.appendAsLeader(batch("next", 1), 0);
        assertThat(log.logEndOffset()).isEqualTo(13);
        assertThat(log.segmentBaseOffsets()).as("the full index rolls the segment").containsExactly(0L, 12L);
    }

    // ---- LOG-7: offsets stay contiguous (LOG-4's "no gap") ----

    /** Five batches of two records each (offsets 0..9) in one segment, closed; returns each batch's position. */
    private long[] fiveBatches() {
        return fiveBatches(smallConfig().withSegmentBytes(100_000));
    }

    private long[] fiveBatches(LogConfig config) {
        open(config, 0);
        long[] positions = new long[5];
        for (int i = 0; i < 5; i++) {
            positions[i] = log.size();
            log.appendAsLeader(batch("c" + i, 2), 0);
        }
        log.close();
        log = null;
        return positions;
    }

    private static void rewriteBaseOffset(Path segment, long position, long baseOffset) throws IOException {
        overwrite(segment, position, ByteBuffer.allocate(8).putLong(0, baseOffset).array());
    }

    @Test
    @DisplayName("LOG-7 a base offset rewritten to jump ahead (not covered by the CRC) ends the log at the last contiguous batch, logged with offset and reason")
    void log7BaseOffsetGapEndsTheLog() throws Exception {
        long[] positions = fiveBatches();
        Path segment = dir().resolve("00000000000000000000.log");
        rewriteBaseOffset(segment, positions[2], 9);
        open(smallConfig(), 0);
        assertThat(log.logEndOffset()).as("the log ends before the batch that would leave a gap").isEqualTo(4);
        assertThat(readOffsets(log, 0)).containsExactly(0L, 1L, 2L, 3L);
        assertThat(log.recoveryFindings()).singleElement().satisfies(f -> {
            assertThat(f.kind()).isEqualTo(RecoveryFinding.Kind.TRUNCATED_TAIL);
            assertThat(f.file()).isEqualTo(segment);
            assertThat(f.offset()).isEqualTo(4);
            assertThat(f.reason()).contains("base offset 9 leaves a gap after offset 3");
        });
        log.appendAsLeader(batch("next", 1), 1);
        assertThat(log.logEndOffset()).isEqualTo(5);
    }

    @Test
    @DisplayName("LOG-7 a base offset rewritten backwards (overlapping the log) ends the log there too")
    void log7BaseOffsetOverlapEndsTheLog() throws Exception {
        long[] positions = fiveBatches();
        Path segment = dir().resolve("00000000000000000000.log");
        rewriteBaseOffset(segment, positions[3], 3);
        open(smallConfig(), 0);
        assertThat(log.logEndOffset()).isEqualTo(6);
        assertThat(readOffsets(log, 0)).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
        assertThat(log.recoveryFindings()).singleElement()
                .satisfies(f -> assertThat(f.reason()).contains("base offset 3 goes back over offsets up to 5"));
    }

    @Test
    @DisplayName("LOG-7 a segment whose first batch does not start at the segment's base offset is emptied, and later segments go")
    void log7FirstBatchMustStartAtTheSegmentBase() throws Exception {
        writeSegments();
        List<Long> bases = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir())) {
            files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".log")).sorted()
                    .forEach(n -> bases.add(Long.parseLong(n.substring(0, 20))));
        }
        Path second = dir().resolve(String.format("%020d.log", bases.get(1)));
        rewriteBaseOffset(second, 0, bases.get(1) + 1);
        open(smallConfig().withSegmentBytes(400), 0);
        assertThat(log.logEndOffset()).isEqualTo(bases.get(1));
        assertThat(log.segmentBaseOffsets()).containsExactly(bases.get(0), bases.get(1));
        assertThat(readOffsets(log, 0)).hasSize((int) (long) bases.get(1));
    }

    @Test
    @DisplayName("LOG-7 a trusted segment whose tail does not continue contiguously is rescanned, not believed")
    void log7TrustedTailMustBeContiguous() throws Exception {
        // No index entry at all (a sparse index): the trust check walks every batch from the start.
        long[] positions = fiveBatches(smallConfig().withSegmentBytes(100_000).withIndexIntervalBytes(100_000));
        Path segment = dir().resolve("00000000000000000000.log");
        rewriteBaseOffset(segment, positions[4], 20);
        open(smallConfig(), 10);
        assertThat(log.logEndOffset()).isEqualTo(8);
        // And the recovery point, above the LEO now, no longer vouches for anything: all is rescanned.
        assertThat(log.recoveryFindings()).extracting(RecoveryFinding::kind).containsExactly(
                RecoveryFinding.Kind.REBUILT_INDEX, RecoveryFinding.Kind.TRUNCATED_TAIL, RecoveryFinding.Kind.RESCANNED_ALL);
        assertThat(log.recoveryFindings().get(0).reason()).contains("has base offset 20, not the next offset 8");
    }

    @Test
    @DisplayName("LOG-7 a torn tail of a segment below a wrong recovery point is cut, never served as a batch")
    void log7TornTailBelowTheRecoveryPointIsCut() throws Exception {
        long[] positions = fiveBatches();
        Path segment = dir().resolve("00000000000000000000.log");
        truncateFile(segment, positions[4] + 70);
        // The recovery point claims all ten offsets are flushed; the last batch is torn all the same.
        open(smallConfig(), 10);
        assertThat(log.logEndOffset()).isEqualTo(8);
        assertThat(readOffsets(log, 0)).hasSize(8);
    }

    // ---- LOG-11 ----

    @Test
    @DisplayName("LOG-11 flush advances the recovery point to the LEO")
    void flushAdvancesRecoveryPoint() {
        open(smallConfig(), 0);
        log.appendAsLeader(batch("f", 4), 0);
        assertThat(log.recoveryPoint()).isZero();
        log.flush();
        assertThat(log.recoveryPoint()).isEqualTo(4);
        log.appendAsLeader(batch("g", 2), 0);
        assertThat(log.recoveryPoint()).isEqualTo(4);
    }

    @Test
    @DisplayName("LOG-11 flush.messages triggers an automatic flush")
    void flushByMessages() {
        open(smallConfig().withFlushMessages(5), 0);
        log.appendAsLeader(batch("a", 3), 0);
        assertThat(log.recoveryPoint()).isZero();
        log.appendAsLeader(batch("b", 2), 0);
        assertThat(log.recoveryPoint()).isEqualTo(5);
    }

    @Test
    @DisplayName("LOG-11 flush.ms triggers an automatic flush, on append or by flushIfDue, by the injected clock")
    void flushByTime() {
        AtomicLong now = new AtomicLong(1_000);
        log = Log.open(dir(), TP, smallConfig().withFlushMs(100), 0, 0, now::get);
        log.appendAsLeader(batch("a", 1), 0);
        assertThat(log.recoveryPoint()).isZero();
        now.addAndGet(99);
        log.flushIfDue();
        assertThat(log.recoveryPoint()).isZero();
        now.addAndGet(1);
        log.flushIfDue();
        assertThat(log.recoveryPoint()).isEqualTo(1);
        log.appendAsLeader(batch("b", 1), 0);
        assertThat(log.recoveryPoint()).isEqualTo(1);
        now.addAndGet(150);
        log.appendAsLeader(batch("c", 1), 0);
        assertThat(log.recoveryPoint()).isEqualTo(3);
    }

    @Test
    @DisplayName("LOG-11 reopen after a crash without flush recovers every complete batch")
    void reopenAfterCloseWithoutFlush() {
        open(smallConfig().withSegmentBytes(500), 0);
        for (int i = 0; i < 20; i++) {
            log.appendAsLeader(batch("u" + i, 2), i / 5);
        }
        List<String> values = readValues(log, 0);
        log.close();
        open(smallConfig().withSegmentBytes(500), 0);
        assertThat(log.logEndOffset()).isEqualTo(40);
        assertThat(readValues(log, 0)).isEqualTo(values);
        assertThat(log.leaderEpochCache().epochEntries()).extracting(EpochEntry::epoch).containsExactly(0, 1, 2, 3);
    }

    @Test
    @DisplayName("LOG-11 losing the unflushed bytes (and part of a batch) recovers to the flushed batches")
    void lostUnflushedBytes() throws Exception {
        open(smallConfig().withSegmentBytes(100_000), 0);
        log.appendAsLeader(batch("durable", 3), 0);
        log.flush();
        long flushedSize = log.size();
        long recoveryPoint = log.recoveryPoint();
        log.appendAsLeader(batch("lost", 3), 1);
        log.appendAsLeader(batch("lost2", 3), 1);
        log.close();
        truncateFile(dir().resolve("00000000000000000000.log"), flushedSize + 17);
        open(smallConfig(), recoveryPoint);
        assertThat(log.logEndOffset()).isEqualTo(3);
        assertThat(readValues(log, 0)).containsExactly("durable-0", "durable-1", "durable-2");
        assertThat(log.latestEpoch()).hasValue(0);
    }
}
