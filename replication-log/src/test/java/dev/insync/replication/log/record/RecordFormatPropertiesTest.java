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

package dev.insync.replication.log.record;

import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

/** Properties of the v2 format: round trip, corruption detection, truncation detection (LOG-1, LOG-5). */
class RecordFormatPropertiesTest {

    private static final TopicPartition TP = new TopicPartition("props", 1);

    /** One generated batch: its builder inputs. */
    record Input(long baseOffset, int epoch, TimestampType type, long appendTime, List<SimpleRecord> records) {

        MemoryRecords build() {
            RecordBatchBuilder builder = new RecordBatchBuilder(baseOffset).partitionLeaderEpoch(epoch);
            if (type == TimestampType.LOG_APPEND_TIME) {
                builder.logAppendTime(appendTime);
            }
            records.forEach(builder::append);
            return builder.build();
        }
    }

    /** The batch-level inputs of {@link Input}, drawn together. */
    private record BatchFields(long baseOffset, int epoch, TimestampType type, long appendTime) {
    }

    static Gen<Input> inputs() {
        Gen<BatchFields> fields = longs().between(0, Long.MAX_VALUE / 2).zip(integers().between(-1, Integer.MAX_VALUE),
                arbitrary().enumValues(TimestampType.class), longs().between(0, 4_000_000_000_000L), BatchFields::new);
        return fields.zip(lists().of(RecordGens.records(64, 8, 3)).ofSizeBetween(1, 6),
                (f, records) -> new Input(f.baseOffset(), f.epoch(), f.type(), f.appendTime(), records));
    }

    private static byte[] bytes(ByteBuffer buf) {
        if (buf == null) {
            return null;
        }
        byte[] out = new byte[buf.remaining()];
        buf.duplicate().get(out);
        return out;
    }

    private static ByteBuffer copy(MemoryRecords records) {
        ByteBuffer buf = ByteBuffer.allocate(records.sizeInBytes());
        buf.put(records.buffer()).flip();
        return buf;
    }

    @Test
    @DisplayName("LOG-1 build -> bytes -> read round-trips any batch")
    void roundTrip() {
        qt().withExamples(200).forAll(inputs()).checkAssert(RecordFormatPropertiesTest::roundTrip);
    }

    private static void roundTrip(Input input) {
        MemoryRecords built = input.build();
        MemoryRecords reread = MemoryRecords.readableRecords(copy(built));
        List<RecordBatch> batches = reread.batches();
        assertThat(batches).hasSize(1);
        RecordBatch batch = batches.get(0);
        int n = input.records().size();
        assertThat(batch.isValid()).isTrue();
        assertThat(batch.baseOffset()).isEqualTo(input.baseOffset());
        assertThat(batch.lastOffset()).isEqualTo(input.baseOffset() + n - 1);
        assertThat(batch.partitionLeaderEpoch()).isEqualTo(input.epoch());
        assertThat(batch.timestampType()).isEqualTo(input.type());
        assertThat(batch.recordCount()).isEqualTo(n);
        long maxCreate = input.records().stream().mapToLong(SimpleRecord::timestamp).max().orElseThrow();
        long expectedMax = input.type() == TimestampType.LOG_APPEND_TIME ? input.appendTime() : maxCreate;
        assertThat(batch.maxTimestamp()).isEqualTo(expectedMax);

        List<Record> records = batch.records();
        assertThat(records).hasSize(n);
        for (int i = 0; i < n; i++) {
            SimpleRecord in = input.records().get(i);
            Record out = records.get(i);
            assertThat(out.offset()).isEqualTo(input.baseOffset() + i);
            assertThat(out.timestamp()).isEqualTo(input.type() == TimestampType.LOG_APPEND_TIME
                    ? input.appendTime() : in.timestamp());
            assertThat(bytes(out.key())).isEqualTo(in.key());
            assertThat(bytes(out.value())).isEqualTo(in.value());
            assertThat(out.headers()).isEqualTo(in.headers());
        }
        RecordsSummary summary = RecordsValidator.validate(reread, Integer.MAX_VALUE, TP);
        assertThat(summary.recordCount()).isEqualTo(n);
        assertThat(summary.maxTimestamp()).isEqualTo(expectedMax);
        assertThat(summary.sizeInBytes()).isEqualTo(built.sizeInBytes());
    }

    @Test
    @DisplayName("LOG-5 any single-byte change in the CRC-covered region or the framing is CORRUPT_MESSAGE")
    void singleByteCorruptionDetected() {
        qt().withExamples(200).forAll(inputs(), integers().between(0, 1 << 20), integers().between(1, 255))
                .checkAssert(RecordFormatPropertiesTest::singleByteCorruptionDetected);
    }

    private static void singleByteCorruptionDetected(Input input, int where, int xor) {
        ByteBuffer buf = copy(input.build());
        // bytes 0-7 (baseOffset) and 12-15 (partitionLeaderEpoch) are deliberately outside the CRC (LOG-4)
        List<Integer> covered = new ArrayList<>();
        for (int i = RecordBatch.LENGTH_OFFSET; i < buf.limit(); i++) {
            if (i < RecordBatch.PARTITION_LEADER_EPOCH_OFFSET || i >= RecordBatch.MAGIC_OFFSET) {
                covered.add(i);
            }
        }
        int index = covered.get(where % covered.size());
        buf.put(index, (byte) (buf.get(index) ^ xor));
        MemoryRecords corrupt = MemoryRecords.readableRecords(buf);
        assertThatThrownBy(() -> RecordsValidator.validate(corrupt, Integer.MAX_VALUE, TP))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.CORRUPT_MESSAGE))
                .hasMessageContaining("position 0");
    }

    @Test
    @DisplayName("LOG-5 every truncation of a valid batch is rejected as CORRUPT_MESSAGE")
    void everyTruncationRejected() {
        qt().withExamples(100).forAll(inputs()).checkAssert(RecordFormatPropertiesTest::everyTruncationRejected);
    }

    private static void everyTruncationRejected(Input input) {
        ByteBuffer full = copy(input.build());
        for (int cut = 1; cut < full.limit(); cut++) {
            MemoryRecords truncated = MemoryRecords.readableRecords(full.duplicate().limit(cut));
            assertThatThrownBy(() -> RecordsValidator.validate(truncated, Integer.MAX_VALUE, TP))
                    .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.CORRUPT_MESSAGE))
                    .hasMessageContaining("Truncated").hasMessageContaining("position 0");
            assertThat(RecordBatch.batchSizeAt(full.duplicate().limit(cut), 0)).isEqualTo(-1);
        }
    }

    @Test
    @DisplayName("LOG-5 a corrupted second batch is named by its own position and the first batch is untouched")
    void secondBatchCorruptionNamesPosition() {
        qt().withExamples(100).forAll(inputs(), inputs())
                .checkAssert(RecordFormatPropertiesTest::secondBatchCorruptionNamesPosition);
    }

    private static void secondBatchCorruptionNamesPosition(Input first, Input second) {
        MemoryRecords a = first.build();
        ByteBuffer both = copy(MemoryRecords.concat(List.of(a, second.build())));
        int last = both.limit() - 1;
        both.put(last, (byte) (both.get(last) ^ 0x40));
        byte[] before = bytes(both);
        assertThatThrownBy(() -> RecordsValidator.validate(MemoryRecords.readableRecords(both), Integer.MAX_VALUE, TP))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.CORRUPT_MESSAGE))
                .hasMessageContaining("position " + a.sizeInBytes());
        assertThat(bytes(both)).isEqualTo(before);
    }
}
