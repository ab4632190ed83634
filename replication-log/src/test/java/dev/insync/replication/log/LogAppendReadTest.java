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
import dev.insync.replication.log.record.RecordBatch;
import dev.insync.replication.log.record.RecordBatchBuilder;
import dev.insync.replication.log.record.TimestampType;
import dev.insync.replication.log.segment.BatchFraming;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static dev.insync.replication.log.LogFixtures.TP;
import static dev.insync.replication.log.LogFixtures.batch;
import static dev.insync.replication.log.LogFixtures.batchAt;
import static dev.insync.replication.log.LogFixtures.bytes;
import static dev.insync.replication.log.LogFixtures.concat;
import static dev.insync.replication.log.LogFixtures.readValues;
import static dev.insync.replication.log.LogFixtures.smallConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LogAppendReadTest {

    @TempDir
    Path tmp;
    private Log log;

    private Log open(LogConfig config) {
        log = Log.open(tmp.resolve(TP.toString()), TP, config, 0, 0, () -> 5_000L);
        return log;
    }

    @AfterEach
    void close() {
        if (log != null) {
            log.close();
        }
    }

    @Test
    @DisplayName("LOG-4 leader append assigns base offsets from the LEO and stamps the leader epoch")
    void leaderAppendAssignsOffsetsAndEpoch() {
        open(smallConfig());
        MemoryRecords input = batchAt(777, 9, "a", 3);
        byte[] before = bytes(input);
        LogAppendInfo first = log.appendAsLeader(input, 4);
        LogAppendInfo second = log.appendAsLeader(batch("b", 2), 4);

        assertThat(first.firstOffset()).isZero();
        assertThat(first.lastOffset()).isEqualTo(2);
        assertThat(first.recordCount()).isEqualTo(3);
        assertThat(first.validBytes()).isEqualTo(input.sizeInBytes());
        assertThat(first.logAppendTimeMs()).isEqualTo(-1);
        assertThat(first.maxTimestamp()).isEqualTo(1002);
        assertThat(second.firstOffset()).isEqualTo(3);
        assertThat(second.lastOffset()).isEqualTo(4);
        assertThat(log.logEndOffset()).isEqualTo(5);
        assertThat(bytes(input)).as("the caller's bytes are not modified").isEqualTo(before);

        List<RecordBatch> batches = log.read(0, Integer.MAX_VALUE, 5).records().batches();
        assertThat(batches).extracting(RecordBatch::baseOffset).containsExactly(0L, 3L);
        assertThat(batches).extracting(RecordBatch::partitionLeaderEpoch).containsExactly(4, 4);
        assertThat(batches).allSatisfy(b -> assertThat(b.isValid()).isTrue());
        assertThat(batches.get(0).checksum()).as("CRC kept: offset and epoch are not covered")
                .isEqualTo(input.batches().get(0).checksum());
        assertThat(readValues(log, 0)).containsExactly("a-0", "a-1", "a-2", "b-0", "b-1");
        assertThat(log.latestEpoch()).hasValue(4);
        assertThat(log.leaderEpochCache().epochEntries()).hasSize(1);
    }

    @Test
    @DisplayName("LOG-4 leader append of a LOG_APPEND_TIME batch rewrites maxTimestamp and the CRC")
    void leaderAppendLogAppendTime() {
        open(smallConfig());
        MemoryRecords input = new RecordBatchBuilder(0).timestampType(TimestampType.LOG_APPEND_TIME)
                .append(1, null, "x".getBytes()).build();
        LogAppendInfo info = log.appendAsLeader(input, 0);
        assertThat(info.logAppendTimeMs()).isEqualTo(5_000L);
        RecordBatch stored = log.read(0, 1000, 1).records().batches().get(0);
        assertThat(stored.maxTimestamp()).isEqualTo(5_000L);
        assertThat(stored.isValid()).isTrue();
    }

    @Test
    @DisplayName("LOG-4 a new leader epoch is recorded at the LEO; an older epoch is fenced and writes nothing")
    void leaderEpochsInCache() {
        open(smallConfig());
        log.appendAsLeader(batch("a", 2), 0);
        log.appendAsLeader(batch("b", 2), 2);
        assertThat(log.leaderEpochCache().epochEntries()).extracting(e -> e.epoch() + "@" + e.startOffset())
                .containsExactly("0@0", "2@2");
        LogFixtures.Snapshot before = LogFixtures.Snapshot.of(log);
        assertThatThrownBy(() -> log.appendAsLeader(batch("c", 1), 1))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.FENCED_LEADER_EPOCH))
                .hasMessageContaining("topic-0");
        assertThat(LogFixtures.Snapshot.of(log)).isEqualTo(before);
    }

    @Test
    @DisplayName("LOG-4 follower append keeps the leader's bytes and learns every new epoch (FOL-4)")
    void followerAppendKeepsBytesAndLearnsEpochs() {
        open(smallConfig());
        MemoryRecords fromLeader = concat(batchAt(0, 0, "a", 2), batchAt(2, 0, "b", 1), batchAt(3, 3, "c", 2));
        LogAppendInfo info = log.appendAsFollower(fromLeader);
        assertThat(info.firstOffset()).isZero();
        assertThat(info.lastOffset()).isEqualTo(4);
        assertThat(info.recordCount()).isEqualTo(5);
        assertThat(log.logEndOffset()).isEqualTo(5);
        assertThat(bytes(log.read(0, Integer.MAX_VALUE, 5).records())).isEqualTo(bytes(fromLeader));
        assertThat(log.leaderEpochCache().epochEntries()).extracting(e -> e.epoch() + "@" + e.startOffset())
                .containsExactly("0@0", "3@3");
    }

    @Test
    @DisplayName("LOG-4 follower append skips max.message.bytes")
    void followerAppendSkipsMaxMessageBytes() {
        open(smallConfig().withMaxMessageBytes(80));
        MemoryRecords big = batchAt(0, 0, "big", 5);
        assertThat(big.sizeInBytes()).isGreaterThan(80);
        assertThatThrownBy(() -> log.appendAsLeader(big, 0)).isInstanceOfSatisfying(ApiException.class,
                e -> assertThat(e.error()).isEqualTo(Errors.MESSAGE_TOO_LARGE));
        log.appendAsFollower(big);
        assertThat(log.logEndOffset()).isEqualTo(5);
    }

    @Test
    @DisplayName("LOG-4 follower batch below the LEO, with a gap above it, or with non-increasing offsets is rejected and the log is unchanged")
    void followerWrongOffsets() {
        open(smallConfig());
        log.appendAsFollower(batchAt(0, 0, "a", 3));
        LogFixtures.Snapshot before = LogFixtures.Snapshot.of(log);

        assertFollowerRejected(batchAt(2, 0, "below", 2), Errors.OFFSET_OUT_OF_RANGE, "offset 2", before);
        assertFollowerRejected(batchAt(5, 0, "gap", 2), Errors.OFFSET_OUT_OF_RANGE, "offset 5", before);
        assertFollowerRejected(concat(batchAt(3, 0, "x", 2), batchAt(4, 0, "overlap", 1)), Errors.INVALID_RECORD,
                "offset 3", before);
        assertFollowerRejected(concat(batchAt(3, 0, "x", 2), batchAt(1, 0, "back", 1)), Errors.INVALID_RECORD,
                "offset 3", before);
    }

    private void assertFollowerRejected(MemoryRecords records, Errors error, String named, LogFixtures.Snapshot before) {
        assertThatThrownBy(() -> log.appendAsFollower(records))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(error))
                .hasMessageContaining(named).hasMessageContaining("topic-0");
        assertThat(LogFixtures.Snapshot.of(log)).isEqualTo(before);
    }

    /** The corruptions of the issue, each applied to the second of two good batches. */
    enum Corruption {
        CRC_MISMATCH(b -> b.put(b.limit() - 2, (byte) (b.get(b.limit() - 2) ^ 0x55)), Errors.CORRUPT_MESSAGE),
        TRUNCATED_BATCH(b -> b.limit(b.limit() - 5), Errors.CORRUPT_MESSAGE),
        LENGTH_BEYOND_BUFFER(b -> b.putInt(BatchFraming.LENGTH_OFFSET, b.getInt(BatchFraming.LENGTH_OFFSET) + 100),
                Errors.CORRUPT_MESSAGE),
        NEGATIVE_LENGTH(b -> b.putInt(BatchFraming.LENGTH_OFFSET, -7), Errors.CORRUPT_MESSAGE),
        HUGE_LENGTH(b -> b.putInt(BatchFraming.LENGTH_OFFSET, Integer.MAX_VALUE), Errors.CORRUPT_MESSAGE),
        WRONG_MAGIC(b -> b.put(BatchFraming.MAGIC_OFFSET, (byte) 1), Errors.CORRUPT_MESSAGE),
        COUNT_MISMATCH(b -> {
            b.putInt(BatchFraming.RECORD_COUNT_OFFSET, 2);
            BatchFraming.rewriteCrc(b, 0, b.limit());
        }, Errors.CORRUPT_MESSAGE),
        HEADER_ONLY_FRAGMENT(b -> b.limit(10), Errors.CORRUPT_MESSAGE);

        final Consumer<ByteBuffer> mutation;
        final Errors error;

        Corruption(Consumer<ByteBuffer> mutation, Errors error) {
            this.mutation = mutation;
            this.error = error;
        }

        MemoryRecords apply(MemoryRecords good) {
            ByteBuffer copy = ByteBuffer.allocate(good.sizeInBytes());
            copy.put(good.buffer()).flip();
            mutation.accept(copy);
            return MemoryRecords.readableRecords(copy);
        }
    }

    @ParameterizedTest
    @EnumSource(Corruption.class)
    @DisplayName("LOG-5 a corrupt input is rejected whole, by leader and follower alike, and the log is unchanged")
    void corruptInputRejected(Corruption corruption) {
        open(smallConfig());
        log.appendAsLeader(batch("a", 3), 0);
        log.updateHighWatermark(3);
        LogFixtures.Snapshot before = LogFixtures.Snapshot.of(log);
        MemoryRecords bad = concat(batchAt(3, 0, "good", 2), corruption.apply(batchAt(5, 0, "bad", 3)));

        assertThatThrownBy(() -> log.appendAsLeader(bad, 0))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(corruption.error))
                .hasMessageContaining("topic-0").hasMessageContaining("position");
        assertThat(LogFixtures.Snapshot.of(log)).isEqualTo(before);
        assertThatThrownBy(() -> log.appendAsFollower(bad))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(corruption.error));
        assertThat(LogFixtures.Snapshot.of(log)).isEqualTo(before);
    }

    @Test
    @DisplayName("LOG-5 an oversize batch is MESSAGE_TOO_LARGE for the leader and nothing of the input is written")
    void oversizeBatchRejected() {
        open(smallConfig().withMaxMessageBytes(200));
        log.appendAsLeader(batch("a", 1), 0);
        LogFixtures.Snapshot before = LogFixtures.Snapshot.of(log);
        MemoryRecords input = concat(batch("ok", 1), batch("too-large", 20));
        assertThatThrownBy(() -> log.appendAsLeader(input, 0))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.MESSAGE_TOO_LARGE))
                .hasMessageContaining("200");
        assertThat(LogFixtures.Snapshot.of(log)).isEqualTo(before);
    }

    @Test
    @DisplayName("LOG-5 a batch larger than segment.bytes is RECORD_LIST_TOO_LARGE and the log is unchanged")
    void batchLargerThanSegmentRejected() {
        open(smallConfig().withSegmentBytes(300));
        LogFixtures.Snapshot before = LogFixtures.Snapshot.of(log);
        assertThatThrownBy(() -> log.appendAsFollower(batchAt(0, 0, "huge", 40)))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.RECORD_LIST_TOO_LARGE));
        assertThat(LogFixtures.Snapshot.of(log)).isEqualTo(before);
    }

    // ---- LOG-3 ----

    private void appendTenBatchesOfThree() {
        for (int i = 0; i < 10; i++) {
            log.appendAsLeader(batch("r" + i, 3), 0);
        }
    }

    @Test
    @DisplayName("LOG-3 a read starts with the batch containing the start offset and returns whole batches")
    void readStartsWithContainingBatch() {
        open(smallConfig().withSegmentBytes(100_000));
        appendTenBatchesOfThree();
        List<RecordBatch> batches = log.read(7, Integer.MAX_VALUE, 30).records().batches();
        assertThat(batches.get(0).baseOffset()).isEqualTo(6);
        assertThat(batches).extracting(RecordBatch::baseOffset).containsExactly(6L, 9L, 12L, 15L, 18L, 21L, 24L, 27L);
    }

    @Test
    @DisplayName("LOG-3 maxOffset excludes every batch whose last offset is at or above it")
    void readBoundedByMaxOffset() {
        open(smallConfig().withSegmentBytes(100_000));
        appendTenBatchesOfThree();
        assertThat(log.read(0, Integer.MAX_VALUE, 9).records().batches()).extracting(RecordBatch::baseOffset)
                .containsExactly(0L, 3L, 6L);
        // A batch straddling maxOffset (9..11 with maxOffset 10) is left out, as Kafka does.
        assertThat(log.read(0, Integer.MAX_VALUE, 10).records().batches()).extracting(RecordBatch::baseOffset)
                .containsExactly(0L, 3L, 6L);
        assertThat(log.read(9, Integer.MAX_VALUE, 10).records().sizeInBytes()).isZero();
    }

    @Test
    @DisplayName("LOG-3 maxBytes bounds the read to whole batches but at least one batch is returned")
    void readBoundedByMaxBytesAtLeastOneBatch() {
        open(smallConfig().withSegmentBytes(100_000));
        appendTenBatchesOfThree();
        int batchSize = log.read(0, 1, 30).records().sizeInBytes();
        assertThat(log.read(0, 1, 30).records().batches()).hasSize(1);
        assertThat(log.read(0, 0, 30).records().batches()).hasSize(1);
        assertThat(log.read(0, 2 * batchSize, 30).records().batches()).hasSize(2);
        assertThat(log.read(0, 3 * batchSize - 1, 30).records().batches()).hasSize(2);
    }

    @Test
    @DisplayName("LOG-3 offsets in [maxOffset, LEO] read empty; below the log start or above the LEO is OFFSET_OUT_OF_RANGE")
    void readRanges() {
        open(smallConfig());
        appendTenBatchesOfThree();
        log.updateHighWatermark(12);
        for (long offset : new long[] {12, 20, 30}) {
            LogReadInfo info = log.read(offset, 1000, log.highWatermark());
            assertThat(info.records().sizeInBytes()).as("offset %d", offset).isZero();
            assertThat(info.logEndOffset()).isEqualTo(30);
            assertThat(info.highWatermark()).isEqualTo(12);
        }
        assertThatThrownBy(() -> log.read(31, 1000, 40))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE))
                .hasMessageContaining("Offset 31").hasMessageContaining("[0, 30)").hasMessageContaining("topic-0");
        log.deleteRecordsBefore(6);
        assertThatThrownBy(() -> log.read(5, 1000, 40))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE))
                .hasMessageContaining("Offset 5").hasMessageContaining("[6, 30)");
    }

    @Test
    @DisplayName("LOG-3 reads across many segments find the right batch via the index")
    void readAcrossSegments() {
        open(smallConfig().withSegmentBytes(400));
        for (int i = 0; i < 40; i++) {
            log.appendAsLeader(batch("v" + i, 2), 0);
        }
        assertThat(log.segmentBaseOffsets().size()).isGreaterThan(5);
        for (long offset = 0; offset < 80; offset++) {
            RecordBatch first = log.read(offset, 1, 80).records().batches().get(0);
            assertThat(first.baseOffset()).isEqualTo(offset - offset % 2);
        }
        assertThat(readValues(log, 0)).hasSize(80);
    }

    // ---- LOG-2 ----

    @Test
    @DisplayName("LOG-2 segments roll by size and are named by 20-digit base offsets")
    void rollBySize() throws Exception {
        open(smallConfig().withSegmentBytes(300));
        MemoryRecords one = batch("x", 2);
        int perSegment = 300 / one.sizeInBytes();
        for (int i = 0; i < perSegment * 3; i++) {
            log.appendAsLeader(batch("x", 2), 0);
        }
        List<Long> bases = log.segmentBaseOffsets();
        assertThat(bases).hasSize(3);
        assertThat(bases).containsExactly(0L, 2L * perSegment, 4L * perSegment);
        try (var files = Files.list(log.dir())) {
            List<String> names = files.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
            assertThat(names).contains("00000000000000000000.log", "00000000000000000000.index",
                    "00000000000000000000.timeindex",
                    String.format("%020d.log", 2L * perSegment), String.format("%020d.index", 4L * perSegment));
        }
        for (long base : bases.subList(0, 2)) {
            assertThat(Files.size(log.dir().resolve(String.format("%020d.log", base))))
                    .isLessThanOrEqualTo(300).isGreaterThan(300 - one.sizeInBytes());
        }
    }

    @Test
    @DisplayName("LOG-2 a segment rolls when its index is full, and closed indexes are trimmed")
    void rollByFullIndex() throws Exception {
        // 24-byte indexes: 3 offset entries, 1 usable time entry; an entry after every batch.
        open(smallConfig().withSegmentBytes(100_000).withSegmentIndexBytes(24).withIndexIntervalBytes(0));
        for (int i = 0; i < 10; i++) {
            log.appendAsLeader(batch("i" + i, 1), 0);
        }
        assertThat(log.segmentBaseOffsets().size()).isGreaterThan(2);
        assertThat(readValues(log, 0)).containsExactlyElementsOf(
                IntStream.range(0, 10).mapToObj(i -> "i" + i + "-0").collect(Collectors.toList()));
        long firstRoll = log.segmentBaseOffsets().get(1);
        assertThat(Files.size(log.dir().resolve("00000000000000000000.index")) % 8).isZero();
        assertThat(Files.size(log.dir().resolve("00000000000000000000.index"))).isLessThan(24);
        assertThat(firstRoll).isGreaterThan(0);
    }

    @Test
    @DisplayName("LOG-2 the active index is preallocated to segment.index.bytes and trimmed to its entries on close")
    void preallocatedIndexTrimmedOnClose() throws Exception {
        open(smallConfig().withSegmentBytes(100_000).withSegmentIndexBytes(4096).withIndexIntervalBytes(0));
        for (int i = 0; i < 5; i++) {
            log.appendAsLeader(batch("p" + i, 1), 0);
        }
        Path index = log.dir().resolve("00000000000000000000.index");
        Path timeIndex = log.dir().resolve("00000000000000000000.timeindex");
        assertThat(Files.size(index)).isEqualTo(4096);
        assertThat(Files.size(timeIndex)).isEqualTo(4092);
        log.close();
        // Batches 1..4 each get an entry (the first batch starts at position 0 and is never indexed).
        assertThat(Files.size(index)).isEqualTo(4 * 8);
        assertThat(Files.size(timeIndex) % 12).isZero();
        log = Log.open(tmp.resolve(TP.toString()), TP, smallConfig(), 5, 0, () -> 0L);
        assertThat(readValues(log, 0)).hasSize(5);
    }

    // ---- HW ----

    @Test
    @DisplayName("HW held by the log: updateHighWatermark clamps to [logStart, LEO]; maybeIncrement only moves up")
    void highWatermark() {
        open(smallConfig());
        appendTenBatchesOfThree();
        assertThat(log.highWatermark()).isZero();
        assertThat(log.updateHighWatermark(100)).isEqualTo(30);
        assertThat(log.updateHighWatermark(9)).isEqualTo(9);
        log.deleteRecordsBefore(6);
        assertThat(log.updateHighWatermark(2)).isEqualTo(6);
        assertThat(log.maybeIncrementHighWatermark(3)).isFalse();
        assertThat(log.highWatermark()).isEqualTo(6);
        assertThat(log.maybeIncrementHighWatermark(12)).isTrue();
        assertThat(log.maybeIncrementHighWatermark(12)).isFalse();
        assertThat(log.maybeIncrementHighWatermark(1_000)).isTrue();
        assertThat(log.highWatermark()).isEqualTo(30);
    }

    @Test
    @DisplayName("LOG-8 endOffsetForEpoch and assignEpochStartOffset go through the log's cache with its LEO")
    void epochQueries() {
        open(smallConfig());
        log.appendAsLeader(batch("a", 4), 1);
        log.assignEpochStartOffset(3, log.logEndOffset());
        log.appendAsLeader(batch("b", 2), 3);
        assertThat(log.endOffsetForEpoch(1).endOffset()).isEqualTo(4);
        assertThat(log.endOffsetForEpoch(3).endOffset()).isEqualTo(6);
        assertThat(log.endOffsetForEpoch(2).leaderEpoch()).isEqualTo(1);
        assertThat(log.latestEpoch()).hasValue(3);
        assertThat(log.logEndOffset()).isEqualTo(6);
    }
}
