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

package dev.insync.replication.bench.processes;

import dev.insync.replication.bench.harness.JitWarmup;
import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The measurements of the process bench, written once against {@link ProcessBenchTarget} and
 * {@link BenchClient} so that every target is measured alike: one producer, records with a null
 * key and a value of {@code valueBytes}.
 * <ul>
 *   <li>{@link #throughput}: one thread sends round-robin over the partitions as fast as the
 *       client takes records; acknowledged records over a measured window after a warm-up, and the
 *       CPU seconds the server processes used in that window.</li>
 *   <li>{@link #latency}: acks=all, one record in flight, the time from {@code send} to its
 *       acknowledgement.</li>
 *   <li>{@link #failover}: acks=all records keep flowing (a small window of them in flight); the
 *       partition's leader is killed with {@code kill -9}; the wall time from the kill to the first
 *       acknowledgement of a record sent after the killed process was gone.</li>
 * </ul>
 */
public final class ProcessWorkload {

    /** Records in flight while failing over: enough that sending goes on while earlier records wait for a new leader. */
    static final int FAILOVER_WINDOW = 64;
    /** Acknowledged records before the kill, so that the client and the leader are warm. */
    static final int FAILOVER_WARMUP_RECORDS = 1_000;
    /** Bound of one acks=all record in the latency measurement. */
    static final Duration SEND_TIMEOUT = Duration.ofSeconds(30);
    /** Bound for the sending thread to stop after a window (it may be blocked in a full client). */
    static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    /** In flight while failing over, per broker connection: Kafka's default. */
    static final int FAILOVER_MAX_IN_FLIGHT_REQUESTS = 5;

    private final ProcessBenchTarget target;
    private final byte[] value;
    private final int batchBytes;
    private final Consumer<String> progress;
    private final ServerJit jit = new ServerJit();
    private final long jitQuietTimeoutMs;

    /**
     * @param batchBytes      the batch size of the latency and failover clients (they send without linger)
     * @param jitQuietTimeoutMs how much longer than asked a warm-up may go on waiting for the servers' JIT
     *                          compilers to be quiet ({@link JitWarmup}, {@link ServerJit}); 0 for fixed warm-ups
     */
    public ProcessWorkload(ProcessBenchTarget target, int valueBytes, int batchBytes, long jitQuietTimeoutMs,
                           Consumer<String> progress) {
        this.target = target;
        this.jitQuietTimeoutMs = jitQuietTimeoutMs;
        this.batchBytes = batchBytes;
        this.value = new byte[valueBytes];
        for (int i = 0; i < valueBytes; i++) {
            value[i] = (byte) ('a' + i % 26);
        }
        this.progress = progress;
    }

    /**
     * Records acknowledged per second over the window and the server CPU spent on them; how long the
     * warm-up before it took and the share of the servers' CPU their JIT compilers used in the window
     * (NaN where not readable).
     */
    public record Throughput(double recordsPerSecond, double bytesPerSecond, double serverCpuSeconds, long ackedRecords,
                             long failedRecords, Throwable lastError, double warmupSeconds, double serverJitShare) {

        /** Server CPU seconds per million acknowledged records; NaN if none was. */
        public double serverCpuSecondsPerMillionRecords() {
            return ackedRecords == 0 ? Double.NaN : serverCpuSeconds / ackedRecords * 1e6;
        }
    }

    /** Send-to-acknowledgement times (nanoseconds) of acks=all records sent one at a time. */
    public record Latency(Histogram histogram, long failedRecords, Throwable lastError) {
    }

    /** What a leader's {@code kill -9} cost. */
    public record Failover(int killedBroker, double killToFirstAckMs, long ackedBeforeKill) {
    }

    /**
     * Runs a closed loop of sends to {@code topic} for {@code warmupMs} and on until the servers' JIT
     * compilers are quiet (at most the workload's {@code jitQuietTimeoutMs} longer), then measures over
     * {@code measureMs}.
     */
    public Throughput throughput(String topic, int partitions, BenchClientSettings settings, long warmupMs, long measureMs)
            throws Exception {
        AtomicLong acked = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicReference<Throwable> lastError = new AtomicReference<>();
        BenchClient.Completion completion = error -> {
            if (error == null) {
                acked.incrementAndGet();
            } else {
                failed.incrementAndGet();
                lastError.set(error);
            }
        };
        try (BenchClient client = target.client(settings)) {
            Sender sender = new Sender("bench-throughput-sender", () -> {
                for (int p = 0; !Thread.currentThread().isInterrupted(); p = (p + 1) % partitions) {
                    send(client, topic, p, completion);
                }
            });
            sender.start();
            try {
                JitWarmup warmup = jit.warmup(target, warmupMs, jitQuietTimeoutMs);
                warmup.await();
                long acked0 = acked.get();
                double cpu0 = target.serverCpuSeconds();
                double jit0 = jit.compilerCpuSeconds(target);
                long t0 = System.nanoTime();
                Thread.sleep(measureMs);
                long acked1 = acked.get();
                double cpu1 = target.serverCpuSeconds();
                double jit1 = jit.compilerCpuSeconds(target);
                long t1 = System.nanoTime();
                double seconds = (t1 - t0) / 1e9;
                long records = acked1 - acked0;
                return new Throughput(records / seconds, records * (double) value.length / seconds, cpu1 - cpu0, records,
                        failed.get(), lastError.get(), warmup.durationMs() / 1e3, (jit1 - jit0) / (cpu1 - cpu0));
            } finally {
                sender.stop();
            }
        }
    }

    /**
     * {@code warmup} unrecorded acks=all records (and more until the servers' JIT compilers are quiet,
     * at most the workload's {@code jitQuietTimeoutMs}), then {@code sends} recorded ones, each sent once
     * the previous one was acknowledged.
     */
    public Latency latency(String topic, int warmup, int sends) throws Exception {
        Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(SEND_TIMEOUT.toSeconds()), 3);
        long failed = 0;
        Throwable lastError = null;
        JitWarmup quiet = jit.warmup(target, 0, jitQuietTimeoutMs);
        int recorded = 0;
        try (BenchClient client = target.client(new BenchClientSettings(-1, batchBytes, 0, 1))) {
            for (int i = 0; recorded < sends; i++) {
                boolean measured = i >= warmup && quiet.settled();
                CompletableFuture<Throwable> done = new CompletableFuture<>();
                long t0 = System.nanoTime();
                send(client, topic, 0, done::complete);
                Throwable error;
                try {
                    error = done.get(SEND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    throw new TimeoutException("No acknowledgement within " + SEND_TIMEOUT.toMillis() + " ms of record " + i
                            + " to " + topic + "-0 on " + target.name());
                }
                long ns = System.nanoTime() - t0;
                if (error != null) {
                    failed++;
                    lastError = error;
                } else if (measured) {
                    h.recordValue(Math.min(ns, h.getHighestTrackableValue()));
                }
                if (measured) {
                    recorded++;
                }
            }
        }
        return new Latency(h, failed, lastError);
    }

    /**
     * Keeps acks=all records flowing to {@code topic}'s partition 0, kills its leader, and waits at
     * most {@code timeout} for the first acknowledgement of a record sent after the kill.
     */
    public Failover failover(String topic, Duration timeout) throws Exception {
        Semaphore window = new Semaphore(FAILOVER_WINDOW);
        AtomicLong acked = new AtomicLong();
        AtomicLong killedAtNs = new AtomicLong();
        // Set once the killed process is gone: records sent from then on count, since no ack can come from it.
        AtomicBoolean leaderGone = new AtomicBoolean();
        AtomicLong firstAckNs = new AtomicLong();
        CountDownLatch recovered = new CountDownLatch(1);
        try (BenchClient client = target.client(new BenchClientSettings(-1, batchBytes, 0, FAILOVER_MAX_IN_FLIGHT_REQUESTS))) {
            Sender sender = new Sender("bench-failover-sender", () -> {
                while (!Thread.currentThread().isInterrupted()) {
                    try {
                        if (!window.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                            continue;
                        }
                    } catch (InterruptedException e) {
                        return;
                    }
                    boolean sentAfterKill = leaderGone.get();
                    send(client, topic, 0, error -> {
                        window.release();
                        if (error == null) {
                            long now = System.nanoTime();
                            acked.incrementAndGet();
                            if (sentAfterKill && firstAckNs.compareAndSet(0, now)) {
                                recovered.countDown();
                            }
                        }
                    });
                }
            });
            sender.start();
            try {
                long warmDeadline = System.nanoTime() + SEND_TIMEOUT.toNanos();
                while (acked.get() < FAILOVER_WARMUP_RECORDS) {
                    if (System.nanoTime() - warmDeadline > 0) {
                        throw new TimeoutException(target.name() + ": only " + acked.get() + " records acknowledged on "
                                + topic + " within " + SEND_TIMEOUT.toSeconds() + " s, before any kill");
                    }
                    Thread.sleep(10);
                }
                int leader = target.leaderOf(topic, 0);
                long ackedBeforeKill = acked.get();
                progress.accept("kill -9 of broker " + leader + ", the leader of " + topic + "-0");
                killedAtNs.set(System.nanoTime());
                target.kill(leader);
                leaderGone.set(true);
                if (!recovered.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new TimeoutException(target.name() + ": no acks=all write to " + topic + "-0 acknowledged within "
                            + timeout.toMillis() + " ms of killing its leader, broker " + leader);
                }
                return new Failover(leader, (firstAckNs.get() - killedAtNs.get()) / 1e6, ackedBeforeKill);
            } finally {
                sender.stop();
            }
        }
    }

    private void send(BenchClient client, String topic, int partition, BenchClient.Completion completion) {
        try {
            client.send(topic, partition, value, completion);
        } catch (RuntimeException e) {
            completion.completed(e);
        }
    }

    /** The one sending thread of a measurement, stopped by interruption within {@link #STOP_TIMEOUT}. */
    private static final class Sender {
        private final Thread thread;

        Sender(String name, Runnable loop) {
            this.thread = new Thread(loop, name);
            this.thread.setDaemon(true);
        }

        void start() {
            thread.start();
        }

        void stop() throws InterruptedException {
            thread.interrupt();
            thread.join(STOP_TIMEOUT.toMillis());
            if (thread.isAlive()) {
                throw new IllegalStateException(thread.getName() + " did not stop within " + STOP_TIMEOUT.toSeconds()
                        + " s (blocked in the client)");
            }
        }
    }
}
