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
import dev.insync.replication.log.record.Header;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.Record;
import dev.insync.replication.log.record.RecordBatch;
import dev.insync.replication.log.record.RecordBatchBuilder;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static dev.insync.replication.log.LogFixtures.TP;
import static dev.insync.replication.log.LogFixtures.smallConfig;
import static org.assertj.core.api.Assertions.assertThat;

/** LOG-1/LOG-2: segments we write are read by Kafka's own FileRecords, and Kafka-written segments by our Log. */
class LogKafkaInteropTest {

    @TempDir
    Path tmp;

    /** A record flattened for comparison across the two implementations. */
    record Flat(long offset, long timestamp, String key, String value, List<String> headers) {
    }

    private static String text(ByteBuffer buf) {
        return buf == null ? null : LogFixtures.text(buf);
    }

    private static Flat flat(Record r) {
        List<String> headers = new ArrayList<>();
        for (Header h : r.headers()) {
            headers.add(h.key() + "=" + (h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8)));
        }
        return new Flat(r.offset(), r.timestamp(), text(r.key()), text(r.value()), headers);
    }

    private static Flat flat(org.apache.kafka.common.record.internal.Record r) {
        List<String> headers = new ArrayList<>();
        for (org.apache.kafka.common.header.Header h : r.headers()) {
            headers.add(h.key() + "=" + (h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8)));
        }
        return new Flat(r.offset(), r.timestamp(), r.hasKey() ? text(r.key()) : null,
                r.hasValue() ? text(r.value()) : null, headers);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    @DisplayName("LOG-2 segments written by our Log are read by Kafka's FileRecords.open: same offsets, epochs, CRCs, records; indexes point at Kafka's batch positions")
    void kafkaReadsOurSegments() throws Exception {
        Path dir = tmp.resolve(TP.toString());
        List<Flat> ours = new ArrayList<>();
        List<Long> ourCrcs = new ArrayList<>();
        List<Integer> ourEpochs = new ArrayList<>();
        try (Log log = Log.open(dir, TP, smallConfig().withSegmentBytes(600).withIndexIntervalBytes(60), 0, 0, () -> 0L)) {
            for (int i = 0; i < 12; i++) {
                RecordBatchBuilder builder = new RecordBatchBuilder(0);
                for (int r = 0; r < 3; r++) {
                    builder.append(1_000L * i + r, r == 1 ? null : b("k" + i + "." + r), b("v" + i + "." + r),
                            List.of(new Header("h" + r, r == 2 ? null : b("x" + i))));
                }
                log.appendAsLeader(builder.build(), i / 4 * 2);
            }
            assertThat(log.segmentBaseOffsets().size()).isGreaterThan(2);
            for (RecordBatch batch : log.read(0, Integer.MAX_VALUE, 36).records().batches()) {
                ourCrcs.add(batch.checksum());
                ourEpochs.add(batch.partitionLeaderEpoch());
                batch.records().forEach(r -> ours.add(flat(r)));
            }
            long next = log.read(0, Integer.MAX_VALUE, 36).records().batches().stream()
                    .mapToLong(RecordBatch::nextOffset).max().orElseThrow();
            while (next < 36) {
                for (RecordBatch batch : log.read(next, Integer.MAX_VALUE, 36).records().batches()) {
                    ourCrcs.add(batch.checksum());
                    ourEpochs.add(batch.partitionLeaderEpoch());
                    batch.records().forEach(r -> ours.add(flat(r)));
                    next = batch.nextOffset();
                }
            }
        }

        List<Flat> theirs = new ArrayList<>();
        List<Long> theirCrcs = new ArrayList<>();
        List<Integer> theirEpochs = new ArrayList<>();
        List<Path> logFiles;
        try (Stream<Path> files = Files.list(dir)) {
            logFiles = files.filter(p -> p.toString().endsWith(".log")).sorted().toList();
        }
        for (Path file : logFiles) {
            long base = Long.parseLong(file.getFileName().toString().substring(0, 20));
            List<FileChannelRecordBatch> batches = new ArrayList<>();
            try (FileRecords records = FileRecords.open(file.toFile())) {
                for (FileChannelRecordBatch batch : records.batches()) {
                    batch.ensureValid();
                    batches.add(batch);
                    theirCrcs.add(batch.checksum());
                    theirEpochs.add(batch.partitionLeaderEpoch());
                    for (org.apache.kafka.common.record.internal.Record r : batch) {
                        theirs.add(flat(r));
                    }
                }
                assertThat(batches.get(0).baseOffset()).isEqualTo(base);
                // The .index: (int32 relative offset, int32 position) pairs pointing at the batch ending at that offset.
                ByteBuffer index = ByteBuffer.wrap(Files.readAllBytes(Path.of(file.toString().replace(".log", ".index"))));
                assertThat(index.remaining() % 8).isZero();
                while (index.hasRemaining()) {
                    long offset = base + index.getInt();
                    int position = index.getInt();
                    assertThat(batches).anySatisfy(batch -> {
                        assertThat(batch.position()).isEqualTo(position);
                        assertThat(batch.lastOffset()).isEqualTo(offset);
                    });
                }
                ByteBuffer timeIndex = ByteBuffer.wrap(Files.readAllBytes(Path.of(file.toString().replace(".log", ".timeindex"))));
                assertThat(timeIndex.remaining() % 12).isZero();
                long lastTs = -1;
                while (timeIndex.hasRemaining()) {
                    long ts = timeIndex.getLong();
                    long offset = base + timeIndex.getInt();
                    assertThat(ts).isGreaterThan(lastTs);
                    lastTs = ts;
                    assertThat(batches).anySatisfy(batch -> {
                        assertThat(batch.lastOffset()).isEqualTo(offset);
                        assertThat(batch.maxTimestamp()).isEqualTo(ts);
                    });
                }
            }
        }
        assertThat(theirs).hasSize(36).isEqualTo(ours);
        assertThat(theirCrcs).isEqualTo(ourCrcs);
        assertThat(theirEpochs).isEqualTo(ourEpochs).containsSubsequence(0, 2, 4);
    }

    @Test
    @DisplayName("LOG-7 a segment written by Kafka's MemoryRecordsBuilder opens in our Log and reads back identical")
    void ourLogReadsKafkaSegment() throws Exception {
        Path dir = tmp.resolve(TP.toString());
        Files.createDirectories(dir);
        List<Flat> expected = new ArrayList<>();
        List<ByteBuffer> kafkaBatches = new ArrayList<>();
        long offset = 0;
        for (int i = 0; i < 6; i++) {
            ByteBuffer buffer = ByteBuffer.allocate(4096);
            MemoryRecordsBuilder builder = org.apache.kafka.common.record.internal.MemoryRecords.builder(buffer, (byte) 2,
                    Compression.NONE, TimestampType.CREATE_TIME, offset, 1_000L, i / 2);
            for (int r = 0; r < 4; r++) {
                builder.append(5_000L + 10 * i + r, r == 0 ? null : b("key-" + i + r), b("value-" + i + r),
                        new org.apache.kafka.common.header.Header[] {new RecordHeader("hk", b("hv" + r))});
            }
            org.apache.kafka.common.record.internal.MemoryRecords built = builder.build();
            built.batches().forEach(batch -> batch.forEach(r -> expected.add(flat(r))));
            kafkaBatches.add(built.buffer());
            offset += 4;
        }
        try (var channel = java.nio.channels.FileChannel.open(dir.resolve("00000000000000000000.log"),
                java.nio.file.StandardOpenOption.CREATE_NEW, java.nio.file.StandardOpenOption.WRITE)) {
            for (ByteBuffer buf : kafkaBatches) {
                while (buf.hasRemaining()) {
                    channel.write(buf);
                }
            }
        }
        try (Log log = Log.open(dir, TP, smallConfig().withSegmentBytes(100_000), 0, 0, () -> 0L)) {
            assertThat(log.logEndOffset()).isEqualTo(24);
            // LOG-8: no leader-epoch-checkpoint came with Kafka's segment: the cache is rebuilt from its batches.
            assertThat(log.leaderEpochCache().epochEntries()).containsExactly(new EpochEntry(0, 0), new EpochEntry(1, 8),
                    new EpochEntry(2, 16));
            List<Flat> actual = new ArrayList<>();
            for (RecordBatch batch : log.read(0, Integer.MAX_VALUE, 24).records().batches()) {
                assertThat(batch.isValid()).isTrue();
                batch.records().forEach(r -> actual.add(flat(r)));
            }
            assertThat(actual).isEqualTo(expected);
            assertThat(log.read(13, 1, 24).records().batches().get(0).baseOffset()).isEqualTo(12);
            assertThat(log.read(13, 1, 24).records().batches().get(0).partitionLeaderEpoch()).isEqualTo(1);
            log.appendAsFollower(MemoryRecords.withRecords(24, 3,
                    new dev.insync.replication.log.record.SimpleRecord(1, null, b("ours"))));
            assertThat(log.logEndOffset()).isEqualTo(25);
            assertThat(Arrays.asList(log.latestEpoch().getAsInt())).containsExactly(3);
        }
    }
}
