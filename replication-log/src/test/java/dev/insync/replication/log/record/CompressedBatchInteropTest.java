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

import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.KafkaInteropTest.BatchSpec;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static dev.insync.replication.log.record.KafkaInteropTest.assertSameBatch;
import static dev.insync.replication.log.record.KafkaInteropTest.bytes;
import static dev.insync.replication.log.record.KafkaInteropTest.headers;
import static dev.insync.replication.log.record.KafkaInteropTest.kafkaBatch;
import static dev.insync.replication.log.record.KafkaInteropTest.kafkaBytes;
import static dev.insync.replication.log.record.KafkaInteropTest.sampleRecords;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * LOG-1 / LOG-5 for compressed batches: batches that kafka-clients 4.4 compresses with each codec
 * are read by us record for record, and ours are read by kafka-clients record for record.
 */
class CompressedBatchInteropTest {

    private static final TopicPartition TP = new TopicPartition("compressed", 0);

    static Compression kafkaCompression(CompressionType type) {
        return Compression.of(type.codecName()).build();
    }

    /** Records large and varied enough to span several lz4 blocks (64 KiB) and snappy chunks (32 KiB). */
    static List<SimpleRecord> manyRecords(int count, long seed) {
        Random random = new Random(seed);
        List<SimpleRecord> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] value = new byte[random.nextInt(2_000)];
            for (int j = 0; j < value.length; j++) {
                value[j] = (byte) (j % 7 == 0 ? random.nextInt(256) : 'a' + (j % 26)); // compressible, not trivially
            }
            byte[] key = i % 5 == 0 ? null : ("key-" + i).getBytes(StandardCharsets.UTF_8);
            out.add(new SimpleRecord(1_700_000_000_000L + random.nextInt(10_000), key, value,
                    i % 3 == 0 ? List.of(new Header("h" + i, value.length > 10 ? new byte[] {1, 2} : null)) : List.of()));
        }
        return out;
    }

    private static void assertRecordsEqual(List<Record> ours, List<org.apache.kafka.common.record.internal.Record> kafka) {
        assertThat(ours).hasSameSizeAs(kafka);
        for (int i = 0; i < ours.size(); i++) {
            Record o = ours.get(i);
            org.apache.kafka.common.record.internal.Record k = kafka.get(i);
            assertThat(o.offset()).as("offset of record %d", i).isEqualTo(k.offset());
            assertThat(o.timestamp()).as("timestamp of record %d", i).isEqualTo(k.timestamp());
            assertThat(bytes(o.key())).as("key of record %d", i).isEqualTo(bytes(k.key()));
            assertThat(bytes(o.value())).as("value of record %d", i).isEqualTo(bytes(k.value()));
            assertThat(o.headers()).as("headers of record %d", i).isEqualTo(headers(k.headers()));
        }
    }

    private static List<org.apache.kafka.common.record.internal.Record> kafkaRecords(MutableRecordBatch batch) {
        List<org.apache.kafka.common.record.internal.Record> out = new ArrayList<>();
        batch.forEach(out::add);
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = CompressionType.class, names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
    @DisplayName("LOG-1 LOG-5 a batch kafka-clients compressed is read by us record for record and passes the leader's validation")
    void log1KafkaCompressedBatchReadByUsRecordForRecord(CompressionType type) {
        for (BatchSpec spec : List.of(
                KafkaInteropTest.plain(300, 1, sampleRecords()),
                new BatchSpec(77, 12, TimestampType.LOG_APPEND_TIME, 1_800_000_000_000L, 4242L, (short) 3, 17, false,
                        sampleRecords()),
                KafkaInteropTest.plain(0, 2, manyRecords(400, 7)))) {
            ByteBuffer kafkaBuf = kafkaBytes(spec, kafkaCompression(type));
            MemoryRecords ours = MemoryRecords.readableRecords(kafkaBuf.duplicate());
            RecordBatch batch = ours.batches().get(0);
            assertThat(batch.compressionType()).isEqualTo(type);
            assertThat(batch.isCompressed()).isTrue();
            assertSameBatch(kafkaBatch(kafkaBuf.duplicate()), batch);
            // LOG-5: the leader's full validation decompresses and walks them; the bytes are not touched.
            byte[] before = bytes(kafkaBuf);
            RecordsSummary summary = RecordsValidator.validate(ours, Integer.MAX_VALUE, TP);
            assertThat(summary.recordCount()).isEqualTo(spec.records().size());
            assertThat(summary.lastOffset()).isEqualTo(spec.baseOffset() + spec.records().size() - 1);
            assertThat(summary.maxTimestamp()).isEqualTo(batch.maxTimestamp());
            assertThat(bytes(kafkaBuf)).isEqualTo(before);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = CompressionType.class, names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
    @DisplayName("LOG-1 a batch our builder compressed is read by kafka-clients record for record")
    void log1OurCompressedBatchReadByKafkaRecordForRecord(CompressionType type) {
        for (List<SimpleRecord> records : List.of(sampleRecords(), manyRecords(400, 11))) {
            RecordBatchBuilder builder = new RecordBatchBuilder(1_000).partitionLeaderEpoch(4).compression(type);
            records.forEach(builder::append);
            MemoryRecords ours = builder.build();
            RecordBatch batch = ours.batches().get(0);
            assertThat(batch.compressionType()).isEqualTo(type);
            assertThat(batch.isValid()).isTrue();
            assertThat(batch.recordCount()).isEqualTo(records.size());
            assertThat(batch.lastOffsetDelta()).isEqualTo(records.size() - 1);
            if (records.size() > 100) {
                assertThat(batch.sizeInBytes()).as("compressed").isLessThan(builder.estimatedSizeInBytes());
            }

            MutableRecordBatch kafka = kafkaBatch(ours.buffer());
            kafka.ensureValid();
            assertThat(kafka.compressionType().name).isEqualTo(type.codecName());
            assertThat(kafka.countOrNull()).isEqualTo(records.size());
            assertThat(kafka.baseOffset()).isEqualTo(1_000);
            assertThat(kafka.partitionLeaderEpoch()).isEqualTo(4);
            assertThat(kafka.maxTimestamp()).isEqualTo(batch.maxTimestamp());
            assertRecordsEqual(batch.records(), kafkaRecords(kafka));
            assertThat(batch.records()).extracting(r -> bytes(r.value()))
                    .containsExactlyElementsOf(records.stream().map(SimpleRecord::value).toList());
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = CompressionType.class, names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
    @DisplayName("LOG-1 kafka-clients' MemoryRecords.withRecords, compressed, is read by us record for record")
    void log1KafkaMemoryRecordsWithRecordsReadByUs(CompressionType type) {
        org.apache.kafka.common.record.internal.MemoryRecords kafka =
                org.apache.kafka.common.record.internal.MemoryRecords.withRecords(5L, kafkaCompression(type), 9,
                        new org.apache.kafka.common.record.internal.SimpleRecord(10L, "k".getBytes(StandardCharsets.UTF_8),
                                "v".getBytes(StandardCharsets.UTF_8)),
                        new org.apache.kafka.common.record.internal.SimpleRecord(11L, (byte[]) null, (byte[]) null),
                        new org.apache.kafka.common.record.internal.SimpleRecord(12L, new byte[0], new byte[100_000]));
        MemoryRecords ours = MemoryRecords.readableRecords(kafka.buffer());
        assertThat(ours.batches()).singleElement().satisfies(batch -> {
            assertThat(batch.compressionType()).isEqualTo(type);
            assertThat(batch.partitionLeaderEpoch()).isEqualTo(9);
            assertRecordsEqual(batch.records(), kafkaRecords(kafka.batches().iterator().next()));
        });
    }
}
