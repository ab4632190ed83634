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

import dev.insync.replication.log.record.CompressionType;
import dev.insync.replication.log.record.Header;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.Record;
import dev.insync.replication.log.record.RecordBatch;
import dev.insync.replication.log.record.RecordBatchBuilder;
import dev.insync.replication.log.record.TimestampType;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static dev.insync.replication.log.LogFixtures.TP;
import static dev.insync.replication.log.LogFixtures.smallConfig;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * LOG-1 / LOG-4 / LOG-7 with compressed batches through the whole log: a leader stamps offsets and
 * epoch into the compressed batch without recompressing it, a follower appends the leader's bytes,
 * reads serve the batch as stored, and segments of Kafka-compressed batches open and read back.
 */
class LogCompressedBatchesTest {

    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path tmp;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static MemoryRecords compressed(CompressionType type, String prefix, int count) {
        RecordBatchBuilder builder = new RecordBatchBuilder(999).compression(type);
        for (int i = 0; i < count; i++) {
            builder.append(T0 + i, b("k" + i), b(prefix + "-" + i + "-" + "x".repeat(50)),
                    List.of(new Header("n", b(Integer.toString(i)))));
        }
        return builder.build();
    }

    /** The bytes from the records section to the end: the compressed stream. */
    private static byte[] recordsSection(RecordBatch batch) {
        ByteBuffer buf = batch.buffer();
        byte[] out = new byte[buf.remaining() - RecordBatch.HEADER_SIZE];
        buf.get(RecordBatch.HEADER_SIZE, out);
        return out;
    }

    private static List<String> values(Log log) {
        List<String> out = new ArrayList<>();
        for (RecordBatch batch : log.read(log.logStartOffset(), Integer.MAX_VALUE, log.logEndOffset()).records().batches()) {
            for (Record r : batch.records()) {
                out.add(r.offset() + ":" + LogFixtures.text(r.value()).split("-x")[0]);
            }
        }
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = CompressionType.class, names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
    @DisplayName("LOG-4 a leader appends a compressed batch without recompressing it: offsets and epoch stamped, records section and CRC unchanged, reads serve it as stored")
    void log4LeaderAppendKeepsCompressedBytes(CompressionType type) {
        try (Log log = Log.open(tmp.resolve(TP.toString()), TP, smallConfig().withSegmentBytes(100_000), 0, 0, () -> T0)) {
            log.appendAsLeader(LogFixtures.batch("plain", 5), 2);
            MemoryRecords input = compressed(type, "zip", 20);
            RecordBatch sent = input.batches().get(0);
            byte[] inputBytes = LogFixtures.bytes(input);

            LogAppendInfo info = log.appendAsLeader(input, 3);

            assertThat(info.firstOffset()).isEqualTo(5);
            assertThat(info.lastOffset()).isEqualTo(24);
            assertThat(info.recordCount()).isEqualTo(20);
            assertThat(LogFixtures.bytes(input)).as("the caller's bytes").isEqualTo(inputBytes);
            List<RecordBatch> read = log.read(5, Integer.MAX_VALUE, log.logEndOffset()).records().batches();
            assertThat(read).hasSize(1);
            RecordBatch stored = read.get(0);
            assertThat(stored.compressionType()).isEqualTo(type);
            assertThat(stored.baseOffset()).isEqualTo(5);
            assertThat(stored.partitionLeaderEpoch()).isEqualTo(3);
            assertThat(stored.sizeInBytes()).isEqualTo(sent.sizeInBytes());
            assertThat(stored.checksum()).as("CRC untouched: offsets and epoch are outside it").isEqualTo(sent.checksum());
            assertThat(stored.isValid()).isTrue();
            assertThat(recordsSection(stored)).as("not recompressed").isEqualTo(recordsSection(sent));
            assertThat(stored.records()).extracting(Record::offset).containsExactlyElementsOf(
                    java.util.stream.LongStream.range(5, 25).boxed().toList());
            assertThat(log.leaderEpochCache().epochForOffset(5)).hasValue(3);

            // FOL-4: the follower appends the leader's bytes as they are (shallow: no decompression).
            try (Log follower = Log.open(tmp.resolve("follower").resolve(TP.toString()), TP, smallConfig().withSegmentBytes(100_000),
                    0, 0, () -> T0)) {
                follower.appendAsFollower(log.read(0, Integer.MAX_VALUE, log.logEndOffset()).records());
                assertThat(values(follower)).isEqualTo(values(log));
                assertThat(LogFixtures.bytes(follower.read(5, Integer.MAX_VALUE, 25).records()))
                        .isEqualTo(LogFixtures.bytes(log.read(5, Integer.MAX_VALUE, 25).records()));
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = CompressionType.class, names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
    @DisplayName("LOG-4 LOG_APPEND_TIME on a compressed batch rewrites maxTimestamp and the CRC, not the compressed records")
    void log4LogAppendTimeCompressed(CompressionType type) {
        try (Log log = Log.open(tmp.resolve(TP.toString()), TP, smallConfig(), 0, 0, () -> T0 + 5_000)) {
            RecordBatchBuilder builder = new RecordBatchBuilder(0).compression(type).timestampType(TimestampType.LOG_APPEND_TIME);
            builder.append(T0, b("k"), b("v0")).append(T0 + 1, null, b("v1"));
            MemoryRecords input = builder.build();
            log.appendAsLeader(input, 0);
            RecordBatch stored = log.read(0, Integer.MAX_VALUE, 2).records().batches().get(0);
            assertThat(stored.maxTimestamp()).isEqualTo(T0 + 5_000);
            assertThat(stored.isValid()).isTrue();
            assertThat(recordsSection(stored)).isEqualTo(recordsSection(input.batches().get(0)));
            assertThat(stored.records()).extracting(Record::timestamp).containsExactly(T0 + 5_000, T0 + 5_000);
        }
    }

    @Test
    @DisplayName("LOG-7 LOG-1 a segment of Kafka-compressed batches (every codec) opens in our Log and reads back record for record; Kafka reads our compressed appends")
    void log7KafkaCompressedSegmentRoundTrip() throws Exception {
        Path dir = tmp.resolve(TP.toString());
        Files.createDirectories(dir);
        List<String> expected = new ArrayList<>();
        List<ByteBuffer> kafkaBatches = new ArrayList<>();
        long offset = 0;
        List<CompressionType> codecs = List.of(CompressionType.GZIP, CompressionType.SNAPPY, CompressionType.LZ4,
                CompressionType.ZSTD, CompressionType.NONE);
        for (int i = 0; i < codecs.size(); i++) {
            MemoryRecordsBuilder builder = org.apache.kafka.common.record.internal.MemoryRecords.builder(
                    ByteBuffer.allocate(4096), (byte) 2, Compression.of(codecs.get(i).codecName()).build(),
                    org.apache.kafka.common.record.TimestampType.CREATE_TIME, offset, T0, i);
            for (int r = 0; r < 4; r++) {
                builder.append(T0 + 10 * i + r, r == 0 ? null : b("key-" + i + r), b("value-" + i + r),
                        new org.apache.kafka.common.header.Header[] {new RecordHeader("hk", b("hv" + r))});
                expected.add((offset + r) + ":value-" + i + r);
            }
            kafkaBatches.add(builder.build().buffer());
            offset += 4;
        }
        try (FileChannel channel = FileChannel.open(dir.resolve("00000000000000000000.log"), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE)) {
            for (ByteBuffer buf : kafkaBatches) {
                while (buf.hasRemaining()) {
                    channel.write(buf);
                }
            }
        }
        try (Log log = Log.open(dir, TP, smallConfig().withSegmentBytes(100_000), 0, 0, () -> T0)) {
            assertThat(log.logEndOffset()).as("recovery keeps every compressed batch").isEqualTo(20);
            assertThat(values(log)).isEqualTo(expected);
            List<CompressionType> read = log.read(0, Integer.MAX_VALUE, 20).records().batches().stream()
                    .map(RecordBatch::compressionType).toList();
            assertThat(read).isEqualTo(codecs);
            for (CompressionType type : codecs) {
                log.appendAsLeader(compressed(type, "ours-" + type, 3), 7);
            }
            log.flush();
        }
        List<String> kafkaRead = new ArrayList<>();
        List<String> kafkaCodecs = new ArrayList<>();
        Path segment;
        try (Stream<Path> files = Files.list(dir)) {
            segment = files.filter(p -> p.toString().endsWith(".log")).sorted().findFirst().orElseThrow();
        }
        try (FileRecords records = FileRecords.open(segment.toFile())) {
            for (FileChannelRecordBatch batch : records.batches()) {
                batch.ensureValid();
                kafkaCodecs.add(batch.compressionType().name);
                for (org.apache.kafka.common.record.internal.Record r : batch) {
                    kafkaRead.add(r.offset() + ":" + LogFixtures.text(r.value()).split("-x")[0]);
                }
            }
        }
        assertThat(kafkaRead).hasSize(35).startsWith(expected.toArray(String[]::new));
        assertThat(kafkaRead.get(20)).isEqualTo("20:ours-gzip-0");
        assertThat(kafkaRead.get(34)).isEqualTo("34:ours-none-2");
        assertThat(kafkaCodecs).containsExactly("gzip", "snappy", "lz4", "zstd", "none", "gzip", "snappy", "lz4",
                "zstd", "none");
    }
}
