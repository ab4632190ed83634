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

package dev.insync.replication.bench;

import dev.insync.replication.testkit.internal.Directories;
import dev.insync.replication.log.Log;
import dev.insync.replication.log.LogConfig;
import dev.insync.replication.log.LogReadInfo;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.RecordBatchBuilder;
import dev.insync.replication.log.segment.LogSegment;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Leader append against a raw {@code FileChannel.write} of the same bytes in the same run, and a
 * random-offset read that locates a batch through the index of a 1 GiB segment (LOG-2, LOG-3, LOG-4).
 *
 * <p>Run: {@code java -jar replication-bench/target/benchmarks.jar LogAppend -f 1 -wi 3 -i 5 -w 2s -r 2s}.
 * Neither side fsyncs (flush.messages/flush.ms default to never), so both measure the page cache.
 */
public class LogAppendBenchmark {

    private static final TopicPartition TP = new TopicPartition("bench", 0);
    /** Segments roll at 256 MiB, so a log rolls a few times before it is dropped at 1 GiB (see AppendState). */
    private static final LogConfig CONFIG = LogConfig.defaults().withSegmentBytes(256 * 1024 * 1024);

    static MemoryRecords batchOf(int records, int valueBytes) {
        byte[] value = new byte[valueBytes];
        new Random(42).nextBytes(value);
        RecordBatchBuilder builder = new RecordBatchBuilder(0);
        for (int i = 0; i < records; i++) {
            builder.append(1_700_000_000_000L + i, null, value);
        }
        return builder.build();
    }

    /** A fresh log and a fresh raw file per iteration, and the batch shape under test. */
    @State(Scope.Thread)
    public static class AppendState {
        /** "100x100": 100 records of 100 bytes; "1x1024": one record of 1 KiB. */
        @Param({"100x100", "1x1024"})
        public String shape;

        /**
         * Both sides drop their file every GiB, so an iteration measures writes into the page
         * cache and not the disk's writeback throttling (a 2 s iteration would otherwise write GBs).
         */
        static final long WRAP_BYTES = 1024L * 1024 * 1024;

        MemoryRecords records;
        ByteBuffer rawBytes;
        long logBytes;
        long rawBytesWritten;
        Path dir;
        Log log;
        FileChannel raw;

        @Setup(Level.Trial)
        public void buildBatch() {
            String[] parts = shape.split("x");
            records = batchOf(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
            rawBytes = ByteBuffer.allocateDirect(records.sizeInBytes());
            rawBytes.put(records.buffer()).flip();
        }

        @Setup(Level.Iteration)
        public void open() throws IOException {
            dir = Files.createTempDirectory("insync-bench-append");
            log = Log.open(dir.resolve(TP.toString()), TP, CONFIG, 0, 0);
            logBytes = 0;
            newRawFile();
        }

        void newRawFile() throws IOException {
            Path file = dir.resolve("raw.bin");
            if (raw != null) {
                raw.close();
                Files.delete(file);
            }
            raw = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            rawBytesWritten = 0;
        }

        @TearDown(Level.Iteration)
        public void close() throws IOException {
            log.close();
            raw.close();
            raw = null;
            Directories.deleteRecursively(dir);
        }
    }

    /** LOG-4: validate, assign offsets and epoch, write. */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public long appendAsLeader(AppendState state) {
        long last = state.log.appendAsLeader(state.records, 1).lastOffset();
        state.logBytes += state.records.sizeInBytes();
        if (state.logBytes >= AppendState.WRAP_BYTES) {
            // Delete the segments (their dirty pages are dropped, never written back) and go on at the same LEO.
            state.log.truncateFullyAndStartAt(last + 1);
            state.logBytes = 0;
        }
        return last;
    }

    /** Baseline: the same bytes appended to a plain file with FileChannel.write. */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public int rawFileChannelWrite(AppendState state) throws IOException {
        ByteBuffer bytes = state.rawBytes.duplicate();
        int written = 0;
        while (bytes.hasRemaining()) {
            written += state.raw.write(bytes);
        }
        state.rawBytesWritten += written;
        if (state.rawBytesWritten >= AppendState.WRAP_BYTES) {
            // Same as the log side: close and delete the file (dropping its pages), start a new one.
            state.newRawFile();
        }
        return written;
    }

    /**
     * One segment of about {@code segmentMiB} MiB (1 GiB by default, the size) of 5 x 100-byte
     * batches (about 600 bytes each, so about 1.8 M batches and 260 k index entries at the default
     * index.interval.bytes of 4096), read at random offsets with the page cache warm: the bytes were
     * just written, are read once more sequentially, and every ~4 KiB is read through the log
     * before measuring.
     */
    @State(Scope.Benchmark)
    public static class ReadState {
        @Param({"1024"})
        public int segmentMiB;

        Path dir;
        Log log;
        /** The same segment opened on its own, to time locating a batch without reading it. */
        LogSegment segment;
        int segmentSize;

        @Setup(Level.Trial)
        public void fill() throws IOException {
            dir = Files.createTempDirectory("insync-bench-read");
            int segmentBytes = (int) Math.min(Integer.MAX_VALUE, segmentMiB * 1024L * 1024L);
            LogConfig config = LogConfig.defaults().withSegmentBytes(segmentBytes);
            log = Log.open(dir.resolve(TP.toString()), TP, config, 0, 0);
            // 1000 batches per append: the fill is bounded by the disk, not by per-call overhead.
            MemoryRecords one = batchOf(5, 100);
            int perAppend = 1000;
            ByteBuffer many = ByteBuffer.allocate(one.sizeInBytes() * perAppend);
            for (int i = 0; i < perAppend; i++) {
                many.put(one.buffer());
            }
            MemoryRecords chunk = MemoryRecords.readableRecords(many.flip());
            long written = 0;
            while (written + chunk.sizeInBytes() <= segmentBytes) {
                log.appendAsLeader(chunk, 0);
                written += chunk.sizeInBytes();
            }
            if (log.segmentBaseOffsets().size() != 1) {
                throw new IllegalStateException("Expected one segment, got " + log.segmentBaseOffsets());
            }
            // Closing trims the preallocated index to its entries, so the standalone segment opened
            // next maps exactly those; the log is then reopened (clean shutdown, no recovery).
            long leo = log.logEndOffset();
            log.close();
            Path logDir = dir.resolve(TP.toString());
            segment = LogSegment.open(logDir, 0, config.indexIntervalBytes(), config.segmentIndexBytes());
            segmentSize = segment.size();
            log = Log.open(logDir, TP, config, leo, 0);
            warmPageCache(LogSegment.logFile(logDir, 0));
            warmReadPath();
        }

        /**
         * Steady state of a long-running broker: reads every ~4 KiB of the log once through both
         * the log and the standalone segment, so the first-touch faults of the segments' read maps
         * (page-table entries, not disk reads) are not charged to the first measured iterations.
         */
        private void warmReadPath() throws IOException {
            long leo = log.logEndOffset();
            for (long offset = 0; offset < leo; offset += 30) {
                log.read(offset, 1, leo);
                segment.translateOffset(offset, segmentSize);
            }
        }

        private static void warmPageCache(Path file) throws IOException {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                ByteBuffer buf = ByteBuffer.allocateDirect(1024 * 1024);
                long pos = 0;
                int n;
                while ((n = ch.read(buf.clear(), pos)) > 0) {
                    pos += n;
                }
            }
        }

        @TearDown(Level.Trial)
        public void close() throws IOException {
            log.close();
            segment.close();
            Directories.deleteRecursively(dir);
        }
    }

    /** LOG-3, the whole read: segment by base offset, position by the index, one batch returned. */
    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public LogReadInfo readRandomOffset(ReadState state) {
        long leo = state.log.logEndOffset();
        return state.log.read(ThreadLocalRandom.current().nextLong(leo), 1, leo);
    }

    /** LOG-3, locate only: index binary search plus the in-memory scan to the batch holding the offset. */
    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public LogSegment.BatchPosition locateRandomOffset(ReadState state) throws IOException {
        long leo = state.log.logEndOffset();
        return state.segment.translateOffset(ThreadLocalRandom.current().nextLong(leo), state.segmentSize);
    }
}
