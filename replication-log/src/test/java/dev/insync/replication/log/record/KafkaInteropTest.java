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
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.quicktheories.core.Gen;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * LOG-1: our batches and Kafka's (kafka-clients, test scope only) are the same bytes, and each side
 * reads the other's record for record.
 */
class KafkaInteropTest {

    private static final TopicPartition TP = new TopicPartition("interop", 0);

    /** Inputs for one batch, built identically by both implementations. */
    record BatchSpec(long baseOffset, int epoch, TimestampType type, long logAppendTime, long producerId,
                     short producerEpoch, int baseSequence, boolean transactional, List<SimpleRecord> records) {
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static List<SimpleRecord> sampleRecords() {
        return List.of(
                new SimpleRecord(1_700_000_000_000L, b("key-0"), b("value-0")),
                new SimpleRecord(1_700_000_000_050L, null, b("value-1"), List.of(new Header("trace", b("abc")))),
                new SimpleRecord(1_699_999_999_990L, b("key-2"), null,
                        List.of(new Header("a", null), new Header("ünïcode", b("")))),
                new SimpleRecord(1_700_000_000_010L, b(""), b("x".repeat(300))));
    }

    static BatchSpec plain(long baseOffset, int epoch, List<SimpleRecord> records) {
        return new BatchSpec(baseOffset, epoch, TimestampType.CREATE_TIME, -1L, -1L, (short) -1, -1, false, records);
    }

    static ByteBuffer kafkaBytes(BatchSpec spec) {
        return kafkaBytes(spec, Compression.NONE);
    }

    static ByteBuffer kafkaBytes(BatchSpec spec, Compression compression) {
        org.apache.kafka.common.record.TimestampType type = spec.type() == TimestampType.CREATE_TIME
                ? org.apache.kafka.common.record.TimestampType.CREATE_TIME
                : org.apache.kafka.common.record.TimestampType.LOG_APPEND_TIME;
        MemoryRecordsBuilder builder = org.apache.kafka.common.record.internal.MemoryRecords.builder(
                ByteBuffer.allocate(1024), RecordBatch.MAGIC_V2, compression, type, spec.baseOffset(),
                spec.logAppendTime(), spec.producerId(), spec.producerEpoch(), spec.baseSequence(),
                spec.transactional(), spec.epoch());
        for (SimpleRecord r : spec.records()) {
            builder.append(r.timestamp(), r.key(), r.value(), r.headers().stream()
                    .map(h -> new RecordHeader(h.key(), h.value()))
                    .toArray(org.apache.kafka.common.header.Header[]::new));
        }
        return builder.build().buffer();
    }

    static ByteBuffer ourBytes(BatchSpec spec) {
        return ourRecords(spec).buffer();
    }

    static MemoryRecords ourRecords(BatchSpec spec) {
        RecordBatchBuilder builder = new RecordBatchBuilder(spec.baseOffset()).partitionLeaderEpoch(spec.epoch())
                .producer(spec.producerId(), spec.producerEpoch(), spec.baseSequence())
                .transactional(spec.transactional());
        if (spec.type() == TimestampType.LOG_APPEND_TIME) {
            builder.logAppendTime(spec.logAppendTime());
        }
        spec.records().forEach(builder::append);
        return builder.build();
    }

    /** Kafka's view of the single batch in {@code buf}, sharing its bytes. */
    static MutableRecordBatch kafkaBatch(ByteBuffer buf) {
        return org.apache.kafka.common.record.internal.MemoryRecords.readableRecords(buf).batches().iterator().next();
    }

    static byte[] bytes(ByteBuffer buf) {
        if (buf == null) {
            return null;
        }
        byte[] out = new byte[buf.remaining()];
        buf.duplicate().get(out);
        return out;
    }

    static List<Header> headers(org.apache.kafka.common.header.Header[] hs) {
        List<Header> out = new ArrayList<>();
        for (org.apache.kafka.common.header.Header h : hs) {
            out.add(new Header(h.key(), h.value()));
        }
        return out;
    }

    /** Asserts that a Kafka batch and ours describe the same batch, field by field and record by record. */
    static void assertSameBatch(org.apache.kafka.common.record.internal.RecordBatch kafka, RecordBatch ours) {
        assertThat(kafka.isValid()).isTrue();
        assertThat(ours.isValid()).isTrue();
        assertThat(ours.baseOffset()).isEqualTo(kafka.baseOffset());
        assertThat(ours.lastOffset()).isEqualTo(kafka.lastOffset());
        assertThat(ours.nextOffset()).isEqualTo(kafka.nextOffset());
        assertThat(ours.partitionLeaderEpoch()).isEqualTo(kafka.partitionLeaderEpoch());
        assertThat(ours.magic()).isEqualTo(kafka.magic());
        assertThat(ours.checksum()).isEqualTo(kafka.checksum());
        assertThat(ours.sizeInBytes()).isEqualTo(kafka.sizeInBytes());
        assertThat(ours.maxTimestamp()).isEqualTo(kafka.maxTimestamp());
        assertThat(ours.timestampType().name()).isEqualTo(kafka.timestampType().name());
        assertThat(ours.producerId()).isEqualTo(kafka.producerId());
        assertThat(ours.producerEpoch()).isEqualTo(kafka.producerEpoch());
        assertThat(ours.baseSequence()).isEqualTo(kafka.baseSequence());
        assertThat(ours.isTransactional()).isEqualTo(kafka.isTransactional());
        assertThat(ours.isControlBatch()).isEqualTo(kafka.isControlBatch());
        assertThat(ours.recordCount()).isEqualTo(kafka.countOrNull());
        List<Record> ourRecords = ours.records();
        List<org.apache.kafka.common.record.internal.Record> kafkaRecords = new ArrayList<>();
        kafka.forEach(kafkaRecords::add);
        assertThat(ourRecords).hasSameSizeAs(kafkaRecords);
        for (int i = 0; i < ourRecords.size(); i++) {
            Record o = ourRecords.get(i);
            org.apache.kafka.common.record.internal.Record k = kafkaRecords.get(i);
            assertThat(o.offset()).as("offset of record %d", i).isEqualTo(k.offset());
            assertThat(o.timestamp()).as("timestamp of record %d", i).isEqualTo(k.timestamp());
            assertThat(bytes(o.key())).as("key of record %d", i).isEqualTo(bytes(k.key()));
            assertThat(bytes(o.value())).as("value of record %d", i).isEqualTo(bytes(k.value()));
            assertThat(o.headers()).as("headers of record %d", i).isEqualTo(headers(k.headers()));
        }
    }

    @Test
    @DisplayName("LOG-1 batches built by Kafka's MemoryRecordsBuilder read back identically with our reader")
    void kafkaBuiltReadByUs() {
        List<BatchSpec> specs = List.of(
                plain(1_000, 5, sampleRecords()),
                new BatchSpec(0, 0, TimestampType.CREATE_TIME, -1, 4242L, (short) 3, 17, false, sampleRecords()),
                new BatchSpec(77, 12, TimestampType.LOG_APPEND_TIME, 1_800_000_000_000L, -1, (short) -1, -1, false,
                        sampleRecords()),
                plain(5, -1, List.of(new SimpleRecord(-1, null, null))));
        for (BatchSpec spec : specs) {
            ByteBuffer kafkaBuf = kafkaBytes(spec);
            MemoryRecords ours = MemoryRecords.readableRecords(kafkaBuf.duplicate());
            List<RecordBatch> ourBatches = ours.batches();
            List<MutableRecordBatch> kafkaBatches = new ArrayList<>();
            org.apache.kafka.common.record.internal.MemoryRecords.readableRecords(kafkaBuf.duplicate()).batches()
                    .forEach(kafkaBatches::add);
            assertThat(ourBatches).hasSize(1).hasSameSizeAs(kafkaBatches);
            assertSameBatch(kafkaBatches.get(0), ourBatches.get(0));
            RecordsSummary summary = RecordsValidator.validate(ours, Integer.MAX_VALUE, TP);
            assertThat(summary.recordCount()).isEqualTo(spec.records().size());
            assertThat(summary.firstOffset()).isEqualTo(spec.baseOffset());
            assertThat(summary.lastOffset()).isEqualTo(spec.baseOffset() + spec.records().size() - 1);
        }
    }

    @Test
    @DisplayName("LOG-1 our batches parse with Kafka's MemoryRecords.readableRecords with identical fields and valid CRCs")
    void oursReadByKafka() {
        MemoryRecords ours = MemoryRecords.concat(List.of(
                new RecordBatchBuilder(0).partitionLeaderEpoch(3).append(10, b("k"), b("v")).build(),
                new RecordBatchBuilder(1).partitionLeaderEpoch(4)
                        .append(20, null, b("v1"), List.of(new Header("h1", b("x")), new Header("h2", null)))
                        .append(19, b("k2"), null).build()));
        List<MutableRecordBatch> kafkaBatches = new ArrayList<>();
        org.apache.kafka.common.record.internal.MemoryRecords kafka =
                org.apache.kafka.common.record.internal.MemoryRecords.readableRecords(ours.buffer());
        kafka.batches().forEach(kafkaBatches::add);
        assertThat(kafka.validBytes()).isEqualTo(ours.sizeInBytes());
        List<RecordBatch> ourBatches = ours.batches();
        assertThat(kafkaBatches).hasSize(2);
        for (int i = 0; i < 2; i++) {
            assertSameBatch(kafkaBatches.get(i), ourBatches.get(i));
            kafkaBatches.get(i).ensureValid();
        }
    }

    @Test
    @DisplayName("LOG-1 our batches written to a file are read by Kafka's FileRecords.open with identical fields")
    void oursReadByKafkaFileRecords(@TempDir Path dir) throws IOException {
        MemoryRecords first = new RecordBatchBuilder(0).partitionLeaderEpoch(1).append(1, b("a"), b("1")).build();
        MemoryRecords second = new RecordBatchBuilder(1).partitionLeaderEpoch(2)
                .append(2, null, b("2"), List.of(new Header("h", b("v")))).append(3, b("c"), null).build();
        File file = dir.resolve("00000000000000000000.log").toFile();
        try (FileChannel ch = FileChannel.open(file.toPath(), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            assertThat(first.writeFullyTo(ch)).isEqualTo(first.sizeInBytes());
            assertThat(second.writeFullyTo(ch)).isEqualTo(second.sizeInBytes());
        }
        List<RecordBatch> ourBatches = MemoryRecords.concat(List.of(first, second)).batches();
        try (FileRecords fileRecords = FileRecords.open(file)) {
            assertThat(fileRecords.sizeInBytes()).isEqualTo(first.sizeInBytes() + second.sizeInBytes());
            List<org.apache.kafka.common.record.internal.RecordBatch> kafkaBatches = new ArrayList<>();
            fileRecords.batches().forEach(kafkaBatches::add);
            assertThat(kafkaBatches).hasSize(2);
            for (int i = 0; i < 2; i++) {
                assertSameBatch(kafkaBatches.get(i), ourBatches.get(i));
            }
        }
        try (FileChannel ch = FileChannel.open(file.toPath(), StandardOpenOption.READ)) {
            RecordBatch again = RecordBatch.readFrom(ch, first.sizeInBytes());
            assertThat(again).isEqualTo(ourBatches.get(1));
            assertThat(RecordBatch.readFrom(ch, ch.size())).isNull();
        }
    }

    @Test
    @DisplayName("LOG-1 our builder's bytes equal Kafka's for the same inputs")
    void byteForByteFixedCases() {
        List<BatchSpec> specs = List.of(
                plain(0, -1, List.of(new SimpleRecord(0, null, null))),
                plain(1_000, 5, sampleRecords()),
                new BatchSpec(42, 9, TimestampType.CREATE_TIME, -1, 123_456_789L, (short) 2, 1000, true, sampleRecords()),
                new BatchSpec(7, 1, TimestampType.LOG_APPEND_TIME, 1_800_000_000_000L, -1, (short) -1, -1, false,
                        sampleRecords()));
        for (BatchSpec spec : specs) {
            assertThat(bytes(ourBytes(spec))).as("bytes of %s", spec).isEqualTo(bytes(kafkaBytes(spec)));
        }
    }

    @Test
    @DisplayName("LOG-4 in-place base offset, epoch and LOG_APPEND_TIME rewrites match Kafka's own setters")
    void settersMatchKafka() {
        BatchSpec spec = plain(0, -1, sampleRecords());
        ByteBuffer kafkaBuf = kafkaBytes(spec);
        MutableRecordBatch kafka = kafkaBatch(kafkaBuf);
        kafka.setLastOffset(500 + spec.records().size() - 1);
        kafka.setPartitionLeaderEpoch(8);
        kafka.setMaxTimestamp(org.apache.kafka.common.record.TimestampType.LOG_APPEND_TIME, 1_900_000_000_000L);

        MemoryRecords ours = ourRecords(spec);
        RecordBatch batch = ours.batches().get(0);
        batch.setBaseOffset(500);
        batch.setPartitionLeaderEpoch(8);
        batch.setMaxTimestamp(TimestampType.LOG_APPEND_TIME, 1_900_000_000_000L);

        assertThat(bytes(batch.buffer())).isEqualTo(bytes(kafkaBuf));
        assertSameBatch(kafka, batch);
    }

    @Test
    @DisplayName("LOG-1 a Kafka transaction-marker control batch is read as data with its flags exposed")
    void controlBatchReadAsData() {
        ByteBuffer marker = org.apache.kafka.common.record.internal.MemoryRecords.withEndTransactionMarker(
                900L, 1_700_000_000_000L, 6, 31L, (short) 2,
                new org.apache.kafka.common.record.internal.EndTransactionMarker(
                        org.apache.kafka.common.record.internal.ControlRecordType.COMMIT, 4)).buffer();
        MemoryRecords ours = MemoryRecords.readableRecords(marker.duplicate());
        RecordBatch batch = ours.batches().get(0);
        assertThat(batch.isControlBatch()).isTrue();
        assertThat(batch.isTransactional()).isTrue();
        assertSameBatch(kafkaBatch(marker.duplicate()), batch);
        assertThat(RecordsValidator.validate(ours, Integer.MAX_VALUE, TP).recordCount()).isEqualTo(1);
    }

    /** The batch-level inputs of a {@link BatchSpec}, drawn together. */
    private record SpecFields(long baseOffset, int epoch, TimestampType type, long appendTime) {
    }

    static Gen<BatchSpec> specs() {
        Gen<SpecFields> fields = longs().between(0, Long.MAX_VALUE / 2).zip(integers().between(-1, Integer.MAX_VALUE),
                arbitrary().enumValues(TimestampType.class), longs().between(0, 4_000_000_000_000L), SpecFields::new);
        return fields.zip(longs().between(-1, Long.MAX_VALUE), lists().of(RecordGens.records(200, 12, 3)).ofSizeBetween(1, 8),
                (f, pid, recs) -> new BatchSpec(f.baseOffset(), f.epoch(), f.type(),
                        f.type() == TimestampType.LOG_APPEND_TIME ? f.appendTime() : -1, pid,
                        pid < 0 ? -1 : (short) (pid % Short.MAX_VALUE), pid < 0 ? -1 : (int) (pid % 1000),
                        false, recs));
    }

    @Test
    @DisplayName("LOG-1 for any inputs our builder writes exactly Kafka's bytes and each reads the other's")
    void anyBatchIsByteIdenticalToKafka() {
        qt().withExamples(150).forAll(specs()).checkAssert(spec -> {
            ByteBuffer ours = ourBytes(spec);
            ByteBuffer kafka = kafkaBytes(spec);
            assertThat(bytes(ours)).isEqualTo(bytes(kafka));
            assertSameBatch(kafkaBatch(kafka), MemoryRecords.readableRecords(ours).batches().get(0));
        });
    }
}
