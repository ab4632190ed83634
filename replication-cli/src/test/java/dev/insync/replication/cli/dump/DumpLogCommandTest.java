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

package dev.insync.replication.cli.dump;

import dev.insync.replication.cli.InsyncCli;
import dev.insync.replication.log.Log;
import dev.insync.replication.log.LogConfig;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.Header;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.RecordBatchBuilder;
import dev.insync.replication.log.record.SimpleRecord;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code insync dump-log} run through picocli against segments written by our {@link Log} and by
 * Kafka's own builder; the expected text is either written out field by field or rebuilt from
 * kafka-clients' reader ({@link KafkaReferenceDump}).
 */
class DumpLogCommandTest {

    private static final TopicPartition TP = new TopicPartition("rep", 0);
    private static final long T0 = 1_700_000_000_000L;
    private static final String SEGMENT = "00000000000000000000";

    @TempDir
    Path tmp;

    /** What one run of the command printed. */
    record Run(int exitCode, List<String> out, String err) {
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cmd = InsyncCli.commandLine();
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        int code = cmd.execute(args);
        return new Run(code, out.toString().lines().toList(), err.toString());
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Appends each batch as leader in {@code epoch}, flushes and closes; returns the partition dir. */
    private Path writeLog(LogConfig config, int epoch, List<MemoryRecords> batches) {
        Path dir = tmp.resolve("rep-0");
        try (Log log = Log.open(dir, TP, config, 0, 0, () -> T0)) {
            for (MemoryRecords b : batches) {
                log.appendAsLeader(b, epoch);
            }
            log.flush();
        }
        return dir;
    }

    private static MemoryRecords hello(long timestamp, String value) {
        return MemoryRecords.withRecords(new SimpleRecord(timestamp, null, utf8(value)));
    }

    private static List<FileChannelRecordBatch> kafkaBatches(Path logFile) throws IOException {
        List<FileChannelRecordBatch> out = new ArrayList<>();
        try (FileRecords records = FileRecords.open(logFile.toFile(), false)) {
            records.batches().forEach(out::add);
            for (FileChannelRecordBatch b : out) {
                b.ensureValid();
            }
        } catch (RuntimeException e) {
            // a corrupt batch: return what Kafka framed, each with its own isValid()
        }
        return out;
    }

    @Test
    @DisplayName("LOG-1 dump-log prints Kafka's header lines and one line per batch of a segment written by Log")
    void batchLinesOfOurSegment() throws IOException {
        Path dir = writeLog(LogConfig.defaults(), 3, List.of(hello(T0, "hello"), hello(T0 + 5, "world!")));
        Path logFile = dir.resolve(SEGMENT + ".log");
        // CRCs come from Kafka's reader of the same file: the cross-check of our bytes.
        List<FileChannelRecordBatch> kafka = kafkaBatches(logFile);
        assertThat(kafka).hasSize(2);

        Run run = run("dump-log", logFile.toString());

        // 61-byte header + one record of 12 (hello) / 13 (world!) bytes.
        assertThat(run.out()).containsExactly(
                "Dumping " + logFile,
                "Log starting offset: 0",
                "baseOffset: 0 lastOffset: 0 count: 1 baseSequence: -1 lastSequence: -1 producerId: -1"
                        + " producerEpoch: -1 partitionLeaderEpoch: 3 isTransactional: false isControl: false"
                        + " deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: " + T0
                        + " size: 73 magic: 2 compresscodec: none crc: " + kafka.get(0).checksum() + " isvalid: true",
                "baseOffset: 1 lastOffset: 1 count: 1 baseSequence: -1 lastSequence: -1 producerId: -1"
                        + " producerEpoch: -1 partitionLeaderEpoch: 3 isTransactional: false isControl: false"
                        + " deleteHorizonMs: OptionalLong.empty position: 73 CreateTime: " + (T0 + 5)
                        + " size: 74 magic: 2 compresscodec: none crc: " + kafka.get(1).checksum() + " isvalid: true");
        assertThat(run.err()).isEmpty();
        assertThat(run.exitCode()).isZero();
    }

    @Test
    @DisplayName("LOG-1 --print-data-log prints every record's metadata, header keys, key and payload")
    void printDataLog() throws IOException {
        MemoryRecords keyed = new RecordBatchBuilder(0)
                .append(T0, utf8("k1"), utf8("v1"), List.of(new Header("trace", utf8("x")), new Header("h2", null)))
                .append(T0 + 1, null, null)
                .append(T0 + 2, utf8("k3"), utf8("ünï"))
                .build();
        Path dir = writeLog(LogConfig.defaults(), 0, List.of(keyed));
        Path logFile = dir.resolve(SEGMENT + ".log");

        Run run = run("dump-log", "--print-data-log", logFile.toString());

        assertThat(run.out()).hasSize(6);
        assertThat(run.out().get(2)).startsWith("baseOffset: 0 lastOffset: 2 count: 3 ");
        assertThat(run.out().subList(3, 6)).containsExactly(
                "| offset: 0 CreateTime: " + T0 + " keySize: 2 valueSize: 2 sequence: -1 headerKeys: [trace,h2]"
                        + " key: k1 payload: v1",
                "| offset: 1 CreateTime: " + (T0 + 1) + " keySize: -1 valueSize: -1 sequence: -1 headerKeys: []",
                "| offset: 2 CreateTime: " + (T0 + 2) + " keySize: 2 valueSize: 5 sequence: -1 headerKeys: []"
                        + " key: k3 payload: ünï");
        assertThat(run.out()).isEqualTo(KafkaReferenceDump.expectedLines(logFile, 0, true, true));
        assertThat(run.exitCode()).isZero();
    }

    @Test
    @DisplayName("LOG-1 --deep-iteration prints record metadata without keys and payloads")
    void deepIterationWithoutData() throws IOException {
        Path dir = writeLog(LogConfig.defaults(), 1, List.of(hello(T0, "a"), hello(T0, "b")));
        Path logFile = dir.resolve(SEGMENT + ".log");

        Run run = run("dump-log", "--deep-iteration", logFile.toString());

        assertThat(run.out()).isEqualTo(KafkaReferenceDump.expectedLines(logFile, 0, true, false));
        assertThat(run.out()).contains("| offset: 1 CreateTime: " + T0
                + " keySize: -1 valueSize: 1 sequence: -1 headerKeys: []");
        assertThat(run.exitCode()).isZero();
    }

    @Test
    @DisplayName("LOG-1 a Kafka-written segment (idempotent, gzip, log-append time, transaction marker) dumps as Kafka reads it")
    void kafkaWrittenSegment() throws IOException {
        Path logFile = tmp.resolve(SEGMENT + ".log");
        List<ByteBuffer> batches = new ArrayList<>();
        // Idempotent producer whose sequence wraps past Integer.MAX_VALUE to 0 inside the batch.
        MemoryRecordsBuilder idempotent = org.apache.kafka.common.record.internal.MemoryRecords.builder(
                ByteBuffer.allocate(1024), RecordBatch.MAGIC_VALUE_V2, Compression.NONE,
                org.apache.kafka.common.record.TimestampType.CREATE_TIME, 0L, -1L, 4242L, (short) 3,
                Integer.MAX_VALUE - 1, false, 7);
        idempotent.append(T0, utf8("a"), utf8("1"));
        idempotent.append(T0 + 1, utf8("b"), utf8("2"));
        idempotent.append(T0 + 2, utf8("c"), utf8("3"));
        batches.add(idempotent.build().buffer());
        MemoryRecordsBuilder gzip = org.apache.kafka.common.record.internal.MemoryRecords.builder(
                ByteBuffer.allocate(1024), RecordBatch.MAGIC_VALUE_V2, Compression.gzip().build(),
                org.apache.kafka.common.record.TimestampType.CREATE_TIME, 3L, -1L, -1L, (short) -1, -1, false, 7);
        gzip.append(T0 + 10, utf8("zip"), utf8("compressed value"),
                new org.apache.kafka.common.header.Header[] {new RecordHeader("h", utf8("v"))});
        gzip.append(T0 + 11, null, utf8("second"));
        batches.add(gzip.build().buffer());
        MemoryRecordsBuilder appendTime = org.apache.kafka.common.record.internal.MemoryRecords.builder(
                ByteBuffer.allocate(1024), RecordBatch.MAGIC_VALUE_V2, Compression.NONE,
                org.apache.kafka.common.record.TimestampType.LOG_APPEND_TIME, 5L, T0 + 99, -1L, (short) -1, -1,
                false, 8);
        appendTime.append(T0 + 20, null, utf8("stamped"));
        batches.add(appendTime.build().buffer());
        MemoryRecordsBuilder txn = org.apache.kafka.common.record.internal.MemoryRecords.builder(
                ByteBuffer.allocate(1024), RecordBatch.MAGIC_VALUE_V2, Compression.NONE,
                org.apache.kafka.common.record.TimestampType.CREATE_TIME, 6L, -1L, 77L, (short) 1, 0, true, 8);
        txn.append(T0 + 30, utf8("t"), utf8("in txn"));
        batches.add(txn.build().buffer());
        batches.add(org.apache.kafka.common.record.internal.MemoryRecords.withEndTransactionMarker(7L, T0 + 31, 8, 77L,
                (short) 1, new EndTransactionMarker(ControlRecordType.COMMIT, 5)).buffer());
        try (var ch = Files.newByteChannel(logFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            for (ByteBuffer b : batches) {
                ch.write(b.duplicate());
            }
        }

        Run run = run("dump-log", "--print-data-log", logFile.toString());

        assertThat(run.out()).isEqualTo(KafkaReferenceDump.expectedLines(logFile, 0, true, true));
        assertThat(run.out()).anySatisfy(l -> assertThat(l).contains("baseSequence: 2147483646 lastSequence: 0 producerId: 4242"));
        assertThat(run.out()).anySatisfy(l -> assertThat(l).contains("compresscodec: gzip"));
        assertThat(run.out()).anySatisfy(l -> assertThat(l).endsWith("headerKeys: [h] key: zip payload: compressed value"));
        assertThat(run.out()).anySatisfy(l -> assertThat(l).contains("LogAppendTime: " + (T0 + 99)));
        assertThat(run.out()).anySatisfy(l -> assertThat(l).endsWith("endTxnMarker: COMMIT coordinatorEpoch: 5"));
        assertThat(run.err()).isEmpty();
        assertThat(run.exitCode()).isZero();
    }

    @Test
    @DisplayName("LOG-1 compressed batches of every codec, Kafka's and ours, dump as kafka-dump-log.sh prints them (compresscodec, and with --deep-iteration the records)")
    void compressedBatchesOfEveryCodec() throws IOException {
        List<dev.insync.replication.log.record.CompressionType> codecs = List.of(
                dev.insync.replication.log.record.CompressionType.GZIP, dev.insync.replication.log.record.CompressionType.SNAPPY,
                dev.insync.replication.log.record.CompressionType.LZ4, dev.insync.replication.log.record.CompressionType.ZSTD);
        List<MemoryRecords> ours = new ArrayList<>();
        for (dev.insync.replication.log.record.CompressionType codec : codecs) {
            RecordBatchBuilder builder = new RecordBatchBuilder(0).compression(codec);
            builder.append(T0, utf8("ours"), utf8(codec + " by insync"), List.of(new Header("c", utf8(codec.codecName()))));
            builder.append(T0 + 1, null, utf8("x".repeat(300)));
            ours.add(builder.build());
        }
        Path dir = writeLog(LogConfig.defaults(), 3, ours);
        // Kafka's compressed batches after ours, in the same segment.
        Path logFile = dir.resolve(SEGMENT + ".log");
        long offset = 8;
        try (var ch = Files.newByteChannel(logFile, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            for (dev.insync.replication.log.record.CompressionType codec : codecs) {
                MemoryRecordsBuilder kafka = org.apache.kafka.common.record.internal.MemoryRecords.builder(
                        ByteBuffer.allocate(1024), RecordBatch.MAGIC_VALUE_V2, Compression.of(codec.codecName()).build(),
                        org.apache.kafka.common.record.TimestampType.CREATE_TIME, offset, -1L, 4);
                kafka.append(T0 + 5, utf8("kafka"), utf8(codec + " by kafka"));
                kafka.append(T0 + 6, utf8("k2"), null);
                ch.write(kafka.build().buffer());
                offset += 2;
            }
        }

        Run run = run("dump-log", "--deep-iteration", "--print-data-log", logFile.toString());

        assertThat(run.out()).isEqualTo(KafkaReferenceDump.expectedLines(logFile, 0, true, true));
        for (dev.insync.replication.log.record.CompressionType codec : codecs) {
            assertThat(run.out()).filteredOn(l -> l.contains("compresscodec: " + codec.codecName() + " ")).hasSize(2);
            assertThat(run.out()).anySatisfy(l -> assertThat(l).endsWith("headerKeys: [c] key: ours payload: " + codec + " by insync"));
            assertThat(run.out()).anySatisfy(l -> assertThat(l).endsWith("headerKeys: [] key: kafka payload: " + codec + " by kafka"));
        }
        assertThat(run.err()).isEmpty();
        assertThat(run.exitCode()).isZero();
    }

    @Test
    @DisplayName("LOG-1 --skip-record-metadata prints only keys and payloads, with Kafka's separators")
    void skipRecordMetadata() {
        MemoryRecords records = new RecordBatchBuilder(0)
                .append(T0, utf8("k"), utf8("v"))
                .append(T0, null, utf8("only value"))
                .build();
        Path logFile = writeLog(LogConfig.defaults(), 0, List.of(records)).resolve(SEGMENT + ".log");

        Run run = run("dump-log", "--print-data-log", "--skip-record-metadata", logFile.toString());

        assertThat(run.out().subList(3, 5)).containsExactly("| key: k payload: v", " payload: only value");
        assertThat(run.exitCode()).isZero();
    }

    @Test
    @DisplayName("LOG-1 a gap between record offsets is reported as non-consecutive on stderr, exit 1")
    void nonConsecutiveOffsets() throws IOException {
        Path logFile = tmp.resolve(SEGMENT + ".log");
        try (var ch = Files.newByteChannel(logFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            ch.write(MemoryRecords.withRecords(0, 0, new SimpleRecord(T0, null, utf8("a"))).buffer());
            ch.write(MemoryRecords.withRecords(5, 0, new SimpleRecord(T0, null, utf8("b"))).buffer());
        }

        Run shallow = run("dump-log", logFile.toString());
        Run deep = run("dump-log", "--deep-iteration", logFile.toString());

        assertThat(shallow.exitCode()).isZero();
        assertThat(deep.out()).isEqualTo(KafkaReferenceDump.expectedLines(logFile, 0, true, false));
        assertThat(deep.err()).contains("Non-consecutive offsets in " + logFile.toAbsolutePath())
                .contains("  0 is followed by 5");
        assertThat(deep.exitCode()).isEqualTo(1);
    }

    @Test
    @DisplayName("LOG-7 a torn tail is reported as Kafka does (Found N invalid bytes), stderr says why, exit 1")
    void tornTail() throws IOException {
        Path dir = writeLog(LogConfig.defaults(), 0, List.of(hello(T0, "hello"), hello(T0 + 1, "world!")));
        Path logFile = dir.resolve(SEGMENT + ".log");
        long size = Files.size(logFile);
        try (RandomAccessFile f = new RandomAccessFile(logFile.toFile(), "rw")) {
            f.setLength(size - 10); // the second batch (74 bytes at 73) loses its last 10 bytes
        }

        Run run = run("dump-log", logFile.toString());

        assertThat(run.out()).hasSize(4);
        assertThat(run.out().get(2)).startsWith("baseOffset: 0 lastOffset: 0 ").endsWith("isvalid: true");
        assertThat(run.out().get(3)).isEqualTo("Found 64 invalid bytes at the end of " + SEGMENT + ".log");
        assertThat(run.out()).isEqualTo(KafkaReferenceDump.expectedLines(logFile, 0, false, false));
        assertThat(run.err()).contains("64 invalid bytes from position 73").contains("torn write");
        assertThat(run.exitCode()).isEqualTo(1);
    }

    @Test
    @DisplayName("LOG-7 a segment cut at every byte position dumps exactly as Kafka's reader sees it")
    void everyCutPoint() throws IOException {
        Path dir = writeLog(LogConfig.defaults(), 0,
                List.of(hello(T0, "a"), hello(T0 + 1, "bb"), hello(T0 + 2, "ccc")));
        byte[] whole = Files.readAllBytes(dir.resolve(SEGMENT + ".log"));
        Path cut = Files.createDirectory(tmp.resolve("cut")).resolve(SEGMENT + ".log");
        for (int length = 0; length <= whole.length; length++) {
            Files.write(cut, java.util.Arrays.copyOf(whole, length));

            // The dumper itself, without picocli, keeps the few hundred runs fast.
            StringWriter out = new StringWriter();
            Findings findings = new Findings(new PrintWriter(new StringWriter()));
            new SegmentDumper(new PrintWriter(out), findings, new SegmentDumper.Options(true, false, false)).dump(cut);

            List<String> expected = KafkaReferenceDump.expectedLines(cut, 0, true, false);
            assertThat(out.toString().lines()).as("dump of the first %d bytes", length).isEqualTo(expected);
            boolean wholeBatchesOnly = expected.stream().noneMatch(l -> l.startsWith("Found "));
            assertThat(findings.any()).as("findings at %d bytes", length).isEqualTo(!wholeBatchesOnly);
        }
    }

    @Test
    @DisplayName("LOG-7 zero bytes left by preallocation after the last batch are an invalid tail, not a crash")
    void zeroFilledTail() throws IOException {
        Path dir = writeLog(LogConfig.defaults(), 0, List.of(hello(T0, "hello")));
        Path logFile = dir.resolve(SEGMENT + ".log");
        Files.write(logFile, new byte[100], StandardOpenOption.APPEND);

        Run run = run("dump-log", "--deep-iteration", logFile.toString());

        assertThat(run.out()).hasSize(5);
        assertThat(run.out().get(3)).startsWith("| offset: 0 ");
        assertThat(run.out().get(4)).isEqualTo("Found 100 invalid bytes at the end of " + SEGMENT + ".log");
        assertThat(run.err()).contains("100 invalid bytes from position 73").contains("below the minimum");
        assertThat(run.exitCode()).isEqualTo(1);
    }

    @Test
    @DisplayName("LOG-5 a batch failing its CRC prints isvalid: false with its stored crc, agreeing with Kafka, exit 1")
    void corruptBatch() throws IOException {
        Path dir = writeLog(LogConfig.defaults(), 0, List.of(hello(T0, "hello"), hello(T0 + 1, "world!")));
        Path logFile = dir.resolve(SEGMENT + ".log");
        try (RandomAccessFile f = new RandomAccessFile(logFile.toFile(), "rw")) {
            f.seek(70); // inside the first batch's value: covered by the CRC, framing intact
            f.write('X');
        }
        List<FileChannelRecordBatch> kafka = kafkaBatches(logFile);
        assertThat(kafka.get(0).isValid()).isFalse();

        Run run = run("dump-log", logFile.toString());

        assertThat(run.out()).hasSize(4);
        assertThat(run.out().get(2)).endsWith("crc: " + kafka.get(0).checksum() + " isvalid: false");
        assertThat(run.out().get(3)).endsWith("isvalid: true");
        assertThat(run.out()).isEqualTo(KafkaReferenceDump.expectedLines(logFile, 0, false, false));
        assertThat(run.err()).contains("corrupt batch at position 0 (base offset 0)");
        assertThat(run.exitCode()).isEqualTo(1);
    }

    @Test
    @DisplayName("LOG-2 .index and .timeindex dump as 'offset: O position: P' and 'timestamp: T offset: O', checked against the log")
    void indexFiles() {
        List<MemoryRecords> batches = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            batches.add(hello(T0 + 10L * i, "v" + i)); // each batch 70 bytes
        }
        Path dir = writeLog(LogConfig.defaults().withIndexIntervalBytes(0), 0, batches);
        Path index = dir.resolve(SEGMENT + ".index");
        Path timeIndex = dir.resolve(SEGMENT + ".timeindex");

        Run indexRun = run("dump-log", index.toString());
        Run timeRun = run("dump-log", timeIndex.toString());

        // index.interval.bytes 0: every batch after the first is indexed by its last offset and start position.
        assertThat(indexRun.out()).containsExactly("Dumping " + index,
                "offset: 1 position: 70", "offset: 2 position: 140", "offset: 3 position: 210");
        assertThat(indexRun.err()).isEmpty();
        assertThat(indexRun.exitCode()).isZero();
        // Each indexed batch also adds the largest timestamp so far and the last offset of its batch.
        assertThat(timeRun.out()).containsExactly("Dumping " + timeIndex,
                "timestamp: " + (T0 + 10) + " offset: 1", "timestamp: " + (T0 + 20) + " offset: 2",
                "timestamp: " + (T0 + 30) + " offset: 3");
        assertThat(timeRun.err()).isEmpty();
        assertThat(timeRun.exitCode()).isZero();
    }

    @Test
    @DisplayName("LOG-2 an index entry that does not point at its batch is reported as Kafka does, exit 1")
    void indexMismatch() throws IOException {
        List<MemoryRecords> batches = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            batches.add(hello(T0 + i, "v" + i));
        }
        Path dir = writeLog(LogConfig.defaults().withIndexIntervalBytes(0), 0, batches);
        Path index = dir.resolve(SEGMENT + ".index");
        try (RandomAccessFile f = new RandomAccessFile(index.toFile(), "rw")) {
            f.seek(4); // first entry (offset 1 @ 70): point it at the first batch instead
            f.writeInt(0);
        }

        Run run = run("dump-log", index.toString());

        assertThat(run.out()).containsExactly("Dumping " + index, "offset: 1 position: 0", "offset: 2 position: 140");
        assertThat(run.err()).contains("Mismatches in :" + index.toAbsolutePath())
                .contains("  Index offset: 1, log offset: 0");
        assertThat(run.exitCode()).isEqualTo(1);
    }

    @Test
    @DisplayName("LOG-2 a time index entry whose timestamp is not its batch's largest is reported as Kafka does, exit 1")
    void timeIndexMismatch() throws IOException {
        List<MemoryRecords> batches = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            batches.add(hello(T0 + 10L * i, "v" + i));
        }
        Path dir = writeLog(LogConfig.defaults().withIndexIntervalBytes(0), 0, batches);
        Path timeIndex = dir.resolve(SEGMENT + ".timeindex");
        try (RandomAccessFile f = new RandomAccessFile(timeIndex.toFile(), "rw")) {
            f.seek(12); // second entry (T0 + 20 at offset 2): claim T0 + 5
            f.writeLong(T0 + 5);
        }

        Run run = run("dump-log", timeIndex.toString());

        assertThat(run.out()).containsExactly("Dumping " + timeIndex,
                "timestamp: " + (T0 + 10) + " offset: 1", "timestamp: " + (T0 + 5) + " offset: 2");
        assertThat(run.err()).contains("Found timestamp mismatch in :" + timeIndex.toAbsolutePath())
                .contains("  Index timestamp: " + (T0 + 5) + ", log timestamp: " + (T0 + 20))
                .contains("Found out of order timestamp in :" + timeIndex.toAbsolutePath())
                .contains("  Index timestamp: " + (T0 + 5) + ", Previously indexed timestamp: " + (T0 + 10));
        assertThat(run.exitCode()).isEqualTo(1);
    }

    @Test
    @DisplayName("LOG-2 an empty index prints '<file> is empty.' as Kafka does")
    void emptyIndex() throws IOException {
        Path index = tmp.resolve(SEGMENT + ".index");
        Files.createFile(index);
        Files.createFile(tmp.resolve(SEGMENT + ".log"));

        Run run = run("dump-log", index.toString());

        assertThat(run.out()).containsExactly("Dumping " + index, index + " is empty.");
        assertThat(run.exitCode()).isZero();
    }

    @Test
    @DisplayName("dump-log of a missing file, a directory or a non-segment name: message on stderr, exit 1")
    void badFiles() throws IOException {
        Path missing = tmp.resolve(SEGMENT + ".log");
        Run missingRun = run("dump-log", missing.toString());
        assertThat(missingRun.out()).isEmpty();
        assertThat(missingRun.err()).contains("No such file: " + missing);
        assertThat(missingRun.exitCode()).isEqualTo(1);

        Path notSegment = Files.writeString(tmp.resolve("notes.txt"), "hello");
        Run notSegmentRun = run("dump-log", notSegment.toString());
        assertThat(notSegmentRun.err()).contains(notSegment + " is not a segment file");
        assertThat(notSegmentRun.exitCode()).isEqualTo(1);

        Path badName = Files.writeString(tmp.resolve("foo.log"), "hello");
        Run badNameRun = run("dump-log", badName.toString());
        assertThat(badNameRun.err()).contains(badName + " is not a segment file").contains("'foo'");
        assertThat(badNameRun.exitCode()).isEqualTo(1);

        Path dir = Files.createDirectory(tmp.resolve("00000000000000000005.log"));
        Run dirRun = run("dump-log", dir.toString());
        assertThat(dirRun.err()).contains(dir + " is a directory");
        assertThat(dirRun.exitCode()).isEqualTo(1);
    }

    @Test
    @DisplayName("dump-log --files a,b (Kafka's syntax) keeps going after a bad file and still dumps the good ones, exit 1")
    void badFileAmongGoodOnes() {
        Path dir = writeLog(LogConfig.defaults(), 0, List.of(hello(T0, "hello")));
        Path logFile = dir.resolve(SEGMENT + ".log");
        Path missing = tmp.resolve("00000000000000000042.log");

        Run run = run("dump-log", "--files", missing + "," + logFile);

        assertThat(run.out()).hasSize(3).first().isEqualTo("Dumping " + logFile);
        assertThat(run.err()).contains("No such file: " + missing);
        assertThat(run.exitCode()).isEqualTo(1);
    }

    @Test
    @DisplayName("dump-log without a file or with an unknown option is a usage error, exit 2")
    void usageErrors() {
        assertThat(run("dump-log").exitCode()).isEqualTo(2);
        assertThat(run("dump-log", "--no-such-option", "x.log").exitCode()).isEqualTo(2);
    }

    @Test
    @DisplayName("dump-log of a FIFO is a usage error at once (opening it would block until a writer comes), exit 2")
    void fifoIsRefused() throws Exception {
        Path fifo = tmp.resolve(SEGMENT + ".log");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).redirectErrorStream(true).start();
        try {
            org.junit.jupiter.api.Assumptions.assumeTrue(mkfifo.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)
                    && mkfifo.exitValue() == 0, "mkfifo is available");
        } finally {
            mkfifo.destroyForcibly();
        }
        Run run = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(20),
                () -> run("dump-log", fifo.toString()));
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains(fifo + " is not a regular file").doesNotContain("\tat ");
        assertThat(run.out()).isEmpty();
    }
}
