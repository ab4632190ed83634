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
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.CompressionType;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.RecordBatch;
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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Append throughput per codec (LOG-4, LOG-5): the leader's append, which decompresses a compressed
 * batch to validate its records but stores it as it came, and the follower's append of the same
 * bytes, which does not decompress; and, for scale, what building (compressing) the batch costs a
 * producer. Each append is one batch of 100 JSON-like records of about 100 bytes, compressible as
 * real payloads are (random bytes would not compress at all).
 *
 * <p>Run: {@code java -jar replication-bench/target/benchmarks.jar CompressedAppend -f 1 -wi 3 -i 5 -w 2s -r 2s}.
 * Neither append fsyncs (flush.messages/flush.ms default to never), so both measure the page cache.
 * Divide ops/s by 100 for batches/s' worth of records, or multiply by the batch's uncompressed size
 * for bytes of payload per second.
 */
public class CompressedAppendBenchmark {

    private static final TopicPartition TP = new TopicPartition("bench-codec", 0);
    private static final LogConfig CONFIG = LogConfig.defaults().withSegmentBytes(256 * 1024 * 1024);
    private static final int RECORDS = 100;
    /** Each log is dropped after this many stored bytes, so an iteration writes the page cache, not the disk. */
    private static final long WRAP_BYTES = 512L * 1024 * 1024;

    static MemoryRecords batch(CompressionType codec, long seed) {
        Random random = new Random(seed);
        RecordBatchBuilder builder = new RecordBatchBuilder(0).compression(codec);
        for (int i = 0; i < RECORDS; i++) {
            String json = "{\"id\":" + random.nextInt(1_000_000) + ",\"user\":\"user-" + random.nextInt(500)
                    + "\",\"event\":\"" + (i % 3 == 0 ? "click" : "view") + "\",\"ts\":" + (1_700_000_000_000L + i) + "}";
            builder.append(1_700_000_000_000L + i, null, json.getBytes(StandardCharsets.UTF_8));
        }
        return builder.build();
    }

    /** A fresh leader log and follower log per iteration, and the batch in the codec under test. */
    @State(Scope.Thread)
    public static class CodecState {
        @Param({"none", "gzip", "snappy", "lz4", "zstd"})
        public String codec;

        CompressionType type;
        MemoryRecords records;
        /** A private copy whose base offset is rewritten before each follower append. */
        MemoryRecords followerRecords;
        RecordBatch followerBatch;
        Path dir;
        Log leader;
        Log follower;
        long leaderBytes;
        long followerBytes;

        @Setup(Level.Trial)
        public void buildBatch() {
            type = CompressionType.forName(codec);
            records = batch(type, 42);
            ByteBuffer copy = ByteBuffer.allocate(records.sizeInBytes());
            copy.put(records.buffer()).flip();
            followerRecords = MemoryRecords.readableRecords(copy);
            followerBatch = followerRecords.batches().get(0);
        }

        @Setup(Level.Iteration)
        public void open() throws IOException {
            dir = Files.createTempDirectory("insync-bench-codec");
            leader = Log.open(dir.resolve("leader").resolve(TP.toString()), TP, CONFIG, 0, 0);
            follower = Log.open(dir.resolve("follower").resolve(TP.toString()), TP, CONFIG, 0, 0);
            leaderBytes = 0;
            followerBytes = 0;
        }

        @TearDown(Level.Iteration)
        public void close() throws IOException {
            leader.close();
            follower.close();
            Directories.deleteRecursively(dir);
        }
    }

    /** LOG-4/LOG-5 on the leader: validate (decompressing a compressed batch), assign offsets and epoch, write. */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public long appendAsLeader(CodecState state) {
        long last = state.leader.appendAsLeader(state.records, 1).lastOffset();
        state.leaderBytes += state.records.sizeInBytes();
        if (state.leaderBytes >= WRAP_BYTES) {
            state.leader.truncateFullyAndStartAt(last + 1);
            state.leaderBytes = 0;
        }
        return last;
    }

    /** LOG-4 on a follower: the leader's bytes as they are (framing, CRC, count; no decompression). */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public long appendAsFollower(CodecState state) {
        state.followerBatch.setBaseOffset(state.follower.logEndOffset());
        state.followerBatch.setPartitionLeaderEpoch(1);
        long last = state.follower.appendAsFollower(state.followerRecords).lastOffset();
        state.followerBytes += state.followerRecords.sizeInBytes();
        if (state.followerBytes >= WRAP_BYTES) {
            state.follower.truncateFullyAndStartAt(last + 1);
            state.followerBytes = 0;
        }
        return last;
    }

    /** What a producer pays to build (and compress) the batch, for comparison with the appends. */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public MemoryRecords buildBatch(CodecState state) {
        return batch(state.type, 42);
    }
}
