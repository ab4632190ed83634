package dev.insync.replication.bench;

import dev.insync.replication.log.Log;
import dev.insync.replication.log.LogConfig;
import dev.insync.replication.log.LogReadInfo;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.RecordBatchBuilder;
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
import java.util.Comparator;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Leader append against a raw {@code FileChannel.write} of the same bytes in the same run, and a
 * random-offset read that locates a batch through the index (LOG-2, LOG-3, LOG-4).
 *
 * <p>Run: {@code java -jar replication-bench/target/benchmarks.jar LogAppend -f 1 -wi 2 -i 3 -w 2s -r 2s}.
 * Neither side fsyncs (flush.messages/flush.ms default to never), so both measure the page cache.
 */
public class LogAppendBenchmark {

    private static final TopicPartition TP = new TopicPartition("bench", 0);
    /** Segments roll at 256 MiB so a run rolls a few times without filling the disk. */
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

    static void deleteRecursively(Path dir) throws IOException {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** A fresh log and a fresh raw file per iteration, and the batch shape under test. */
    @State(Scope.Thread)
    public static class AppendState {
        /** "100x100": 100 records of 100 bytes; "1x1024": one record of 1 KiB. */
        @Param({"100x100", "1x1024"})
        public String shape;

        MemoryRecords records;
        ByteBuffer rawBytes;
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
            raw = FileChannel.open(dir.resolve("raw.bin"), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        }

        @TearDown(Level.Iteration)
        public void close() throws IOException {
            log.close();
            raw.close();
            deleteRecursively(dir);
        }
    }

    /** LOG-4: validate, assign offsets and epoch, write. */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public long appendAsLeader(AppendState state) {
        return state.log.appendAsLeader(state.records, 1).lastOffset();
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
        return written;
    }

    /** A log of 200k batches of 5 x 100-byte records (about 140 MB) read at random offsets. */
    @State(Scope.Benchmark)
    public static class ReadState {
        static final int BATCHES = 200_000;
        Path dir;
        Log log;

        @Setup(Level.Trial)
        public void fill() throws IOException {
            dir = Files.createTempDirectory("insync-bench-read");
            log = Log.open(dir.resolve(TP.toString()), TP, LogConfig.defaults().withSegmentBytes(32 * 1024 * 1024), 0, 0);
            MemoryRecords batch = batchOf(5, 100);
            for (int i = 0; i < BATCHES; i++) {
                log.appendAsLeader(batch, 0);
            }
        }

        @TearDown(Level.Trial)
        public void close() throws IOException {
            log.close();
            deleteRecursively(dir);
        }
    }

    /** LOG-3: segment by base offset, position by the index, a short scan, one batch returned. */
    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public LogReadInfo readRandomOffset(ReadState state) {
        long leo = state.log.logEndOffset();
        return state.log.read(ThreadLocalRandom.current().nextLong(leo), 1, leo);
    }
}
