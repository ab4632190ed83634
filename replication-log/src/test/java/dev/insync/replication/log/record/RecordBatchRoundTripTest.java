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

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RecordBatchRoundTripTest {

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String s(ByteBuffer buf) {
        byte[] out = new byte[buf.remaining()];
        buf.duplicate().get(out);
        return new String(out, StandardCharsets.UTF_8);
    }

    @Test
    @DisplayName("LOG-1 a built batch reads back with its header fields and records")
    void buildThenRead() {
        MemoryRecords records = new RecordBatchBuilder(100).partitionLeaderEpoch(7)
                .append(1_000, b("k1"), b("v1"))
                .append(1_005, null, b("v2"), List.of(new Header("h", b("x")), new Header("n", null)))
                .append(999, b("k3"), null)
                .build();

        List<RecordBatch> batches = records.batches();
        assertThat(batches).hasSize(1);
        RecordBatch batch = batches.get(0);
        assertThat(batch.baseOffset()).isEqualTo(100);
        assertThat(batch.lastOffset()).isEqualTo(102);
        assertThat(batch.nextOffset()).isEqualTo(103);
        assertThat(batch.partitionLeaderEpoch()).isEqualTo(7);
        assertThat(batch.magic()).isEqualTo(RecordBatch.MAGIC_V2);
        assertThat(batch.isValid()).isTrue();
        assertThat(batch.recordCount()).isEqualTo(3);
        assertThat(batch.baseTimestamp()).isEqualTo(1_000);
        assertThat(batch.maxTimestamp()).isEqualTo(1_005);
        assertThat(batch.producerId()).isEqualTo(-1);
        assertThat(batch.producerEpoch()).isEqualTo((short) -1);
        assertThat(batch.baseSequence()).isEqualTo(-1);
        assertThat(batch.timestampType()).isEqualTo(TimestampType.CREATE_TIME);
        assertThat(batch.sizeInBytes()).isEqualTo(records.sizeInBytes());

        List<Record> rs = batch.records();
        assertThat(rs).extracting(Record::offset).containsExactly(100L, 101L, 102L);
        assertThat(rs).extracting(Record::timestamp).containsExactly(1_000L, 1_005L, 999L);
        assertThat(s(rs.get(0).key())).isEqualTo("k1");
        assertThat(rs.get(1).key()).isNull();
        assertThat(s(rs.get(1).value())).isEqualTo("v2");
        assertThat(rs.get(1).headers()).containsExactly(new Header("h", b("x")), new Header("n", null));
        assertThat(rs.get(2).value()).isNull();
        assertThat(rs.get(0).key().isReadOnly()).isTrue();
    }

    @Test
    @DisplayName("LOG-1 a record is encoded when appended: arrays changed after the append do not change the batch, and a batch grown far past the first room reads back whole and valid")
    void appendCopiesAndGrows() {
        byte[] key = b("key");
        byte[] value = new byte[300];
        java.util.Arrays.fill(value, (byte) 'a');
        byte[] headerValue = b("h1");
        RecordBatchBuilder builder = new RecordBatchBuilder(0).append(5, key, value, List.of(new Header("h", headerValue)));
        key[0] = 'X';
        java.util.Arrays.fill(value, (byte) 'z');
        headerValue[0] = 'X';
        for (int i = 1; i < 100; i++) {
            builder.append(5 + i, null, value);
        }
        MemoryRecords records = builder.build();

        RecordBatch batch = records.batches().get(0);
        assertThat(batch.isValid()).isTrue();
        assertThat(batch.sizeInBytes()).isEqualTo(builder.estimatedSizeInBytes()).isGreaterThan(100 * 300);
        List<Record> rs = batch.records();
        assertThat(rs).hasSize(100);
        assertThat(s(rs.get(0).key())).isEqualTo("key");
        assertThat(s(rs.get(0).value())).isEqualTo("a".repeat(300));
        assertThat(rs.get(0).headers()).containsExactly(new Header("h", b("h1")));
        assertThat(s(rs.get(99).value())).isEqualTo("z".repeat(300));
        assertThat(rs.get(99).offset()).isEqualTo(99);
        assertThat(rs.get(99).timestamp()).isEqualTo(104);
    }

    @Test
    @DisplayName("LOG-4 base offset and leader epoch are rewritten in place without touching the CRC")
    void settersKeepCrc() {
        MemoryRecords records = MemoryRecords.withRecords(new SimpleRecord(5, b("k"), b("v")));
        RecordBatch batch = records.batches().get(0);
        long crc = batch.checksum();
        batch.setBaseOffset(42);
        batch.setPartitionLeaderEpoch(3);
        RecordBatch again = records.batches().get(0);
        assertThat(again.baseOffset()).isEqualTo(42);
        assertThat(again.partitionLeaderEpoch()).isEqualTo(3);
        assertThat(again.checksum()).isEqualTo(crc);
        assertThat(again.isValid()).isTrue();
    }

    @Test
    @DisplayName("LOG-4 stamping LOG_APPEND_TIME rewrites maxTimestamp and recomputes the CRC")
    void logAppendTime() {
        MemoryRecords records = MemoryRecords.withRecords(new SimpleRecord(5, b("k"), b("v")));
        RecordBatch batch = records.batches().get(0);
        long crc = batch.checksum();
        batch.setMaxTimestamp(TimestampType.LOG_APPEND_TIME, 77);
        assertThat(batch.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
        assertThat(batch.maxTimestamp()).isEqualTo(77);
        assertThat(batch.checksum()).isNotEqualTo(crc);
        assertThat(batch.isValid()).isTrue();
        assertThat(batch.records().get(0).timestamp()).isEqualTo(77);

        ByteBuffer before = ByteBuffer.allocate(batch.sizeInBytes()).put(batch.buffer()).flip();
        batch.setMaxTimestamp(TimestampType.LOG_APPEND_TIME, 77);
        assertThat(batch.buffer()).as("an unchanged stamp leaves every byte alone").isEqualTo(before);
        batch.setMaxTimestamp(TimestampType.CREATE_TIME, 5);
        assertThat(batch.timestampType()).isEqualTo(TimestampType.CREATE_TIME);
        assertThat(batch.checksum()).as("back to the builder's bytes, back to its CRC").isEqualTo(crc);
        assertThat(batch.records().get(0).timestamp()).isEqualTo(5);
    }

    @Test
    @DisplayName("LOG-1 several batches iterate in order and batchSizeAt frames each")
    void severalBatches() {
        MemoryRecords all = MemoryRecords.concat(List.of(
                MemoryRecords.withRecords(0, 1, new SimpleRecord(1, null, b("a")), new SimpleRecord(2, null, b("b"))),
                MemoryRecords.withRecords(2, 2, new SimpleRecord(3, null, b("c")))));
        List<RecordBatch> batches = all.batches();
        assertThat(batches).extracting(RecordBatch::baseOffset).containsExactly(0L, 2L);
        assertThat(batches).extracting(RecordBatch::partitionLeaderEpoch).containsExactly(1, 2);
        ByteBuffer buf = all.buffer();
        int first = RecordBatch.batchSizeAt(buf, 0);
        assertThat(first).isEqualTo(batches.get(0).sizeInBytes());
        assertThat(RecordBatch.batchSizeAt(buf, first)).isEqualTo(batches.get(1).sizeInBytes());
        assertThat(RecordBatch.batchSizeAt(buf.duplicate().limit(buf.limit() - 1), first)).isEqualTo(-1);
    }

    @Test
    @DisplayName("LOG-1 withBatches writes several builders back to back, equal to concatenating their builds")
    void withBatches() {
        RecordBatchBuilder a = new RecordBatchBuilder(0).partitionLeaderEpoch(1).append(1, null, b("a"));
        RecordBatchBuilder c = new RecordBatchBuilder(1).partitionLeaderEpoch(1).append(2, b("k"), b("c"))
                .append(3, null, null);
        MemoryRecords both = MemoryRecords.withBatches(a, c);
        assertThat(both).isEqualTo(MemoryRecords.concat(List.of(a.build(), c.build())));
        assertThat(both.batches()).extracting(RecordBatch::nextOffset).containsExactly(1L, 3L);
        assertThat(both.batches()).allMatch(RecordBatch::isValid);
    }
}
