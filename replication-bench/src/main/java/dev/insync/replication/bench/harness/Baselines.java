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

package dev.insync.replication.bench.harness;

import dev.insync.replication.testkit.sim.NodeId;
import dev.insync.replication.testkit.sim.RealTimeNodeRuntime;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;

/**
 * What the replicated numbers are compared with: the cost of the mechanisms underneath them,
 * measured in the same run.
 */
public final class Baselines {

    private Baselines() {
    }

    /**
     * Round trips A -> B -> A between two serial executors of a {@link RealTimeNodeRuntime}: the
     * same executor and queue type (one thread, bounded {@code ArrayBlockingQueue}, node gate) that
     * the in-memory transport and the replica fetchers run on. One round trip is two hand-offs.
     *
     * @return latency of each round trip in nanoseconds, after {@code warmup} unrecorded ones
     */
    public static Histogram handOffRoundTrips(int warmup, int count) throws InterruptedException {
        Histogram histogram = new Histogram(3_600_000_000_000L, 3);
        try (RealTimeNodeRuntime runtime = new RealTimeNodeRuntime(1)) {
            Executor a = runtime.forNode(NodeId.broker(1)).newSerialExecutor("handoff-a");
            Executor b = runtime.forNode(NodeId.broker(2)).newSerialExecutor("handoff-b");
            CountDownLatch done = new CountDownLatch(1);
            new PingPong(a, b, warmup, count, histogram, done).next();
            done.await();
        }
        return histogram;
    }

    /** One round trip after another; only the last {@code count} are recorded. */
    private static final class PingPong {
        private final Executor a;
        private final Executor b;
        private final int warmup;
        private final int count;
        private final Histogram histogram;
        private final CountDownLatch done;
        private int round;
        private long startNs;

        PingPong(Executor a, Executor b, int warmup, int count, Histogram histogram, CountDownLatch done) {
            this.a = a;
            this.b = b;
            this.warmup = warmup;
            this.count = count;
            this.histogram = histogram;
            this.done = done;
        }

        void next() {
            a.execute(() -> {
                startNs = System.nanoTime();
                b.execute(() -> a.execute(this::returned));
            });
        }

        private void returned() {
            long elapsed = System.nanoTime() - startNs;
            if (round >= warmup) {
                histogram.recordValue(elapsed);
            }
            round++;
            if (round < warmup + count) {
                next();
            } else {
                done.countDown();
            }
        }
    }

    /**
     * Raw {@code FileChannel.write} of {@code chunk} (the encoded bytes of one produce request)
     * again and again for {@code durationMs}, rewinding every 256 MiB so the file stays bounded.
     *
     * @param forceEach whether to {@code force} after every write (the fsync-on baseline)
     * @return bytes written per second
     */
    public static double fileWriteBytesPerSecond(Path dir, ByteBuffer chunk, long durationMs, boolean forceEach)
            throws IOException {
        Path file = Files.createTempFile(dir, "raw-write-", ".bin");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            long wrapAt = 256L << 20;
            long written = 0;
            long start = System.nanoTime();
            long deadline = start + durationMs * 1_000_000L;
            long now = start;
            while (now < deadline) {
                for (int i = 0; i < 16; i++) {
                    ByteBuffer b = chunk.duplicate();
                    while (b.hasRemaining()) {
                        written += channel.write(b);
                    }
                    if (forceEach) {
                        channel.force(false);
                    }
                    if (channel.position() >= wrapAt) {
                        channel.position(0);
                    }
                }
                now = System.nanoTime();
            }
            return written / ((now - start) / 1e9);
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
