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

import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.RecordBatchBuilder;
import dev.insync.replication.testkit.cluster.ClientRpc;
import dev.insync.replication.testkit.network.InMemoryNetwork;
import dev.insync.replication.testkit.sim.NodeId;
import org.HdrHistogram.Histogram;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A closed-loop load generator over the in-memory network: it keeps {@code window} produce
 * requests in flight, each carrying {@code recordsPerRequest} records of {@code valueBytes} bytes
 * for the next partition in round-robin order, and sends the next request from the completion of
 * the previous one (on the client's network thread, as a real client's I/O thread would).
 *
 * <p>Every request carries its own copy of one pre-encoded batch (a single memcpy), because the
 * leader stamps offsets and epochs into the bytes it is given; encoding records is the client's
 * cost and not what the benchmark measures.
 */
public final class BatchingProducer {

    /** One partition and the broker that leads it when the load starts. */
    public record Target(TopicPartition topicPartition, NodeId leader) {
    }

    private final InMemoryNetwork network;
    private final NodeId client;
    private final List<Target> targets;
    private final MemoryRecords template;
    /** The template's bytes as an array: one {@code clone()} per request is a plain memcpy. */
    private final byte[] templateArray;
    private final int recordsPerRequest;
    private final int acks;
    private final int window;
    private final long timeoutMs;

    private final AtomicLong ackedRecords = new AtomicLong();
    private final AtomicLong ackedBytes = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger nextTarget = new AtomicInteger();
    private volatile Errors lastError = Errors.NONE;
    private volatile boolean running;
    private volatile CompletableFuture<Void> drained = new CompletableFuture<>();

    /** Latency recording (only meaningful with a window of one): null when off. */
    private volatile Histogram latencies;
    private volatile long stopAfterRequests = Long.MAX_VALUE;
    private final AtomicLong completedRequests = new AtomicLong();

    /**
     * @param batchBytes the largest encoded request (16 KiB in the issue); at least one record is sent
     * @param maxRecordsPerRequest 1 for a one-record-per-request client
     */
    public BatchingProducer(InMemoryNetwork network, NodeId client, List<Target> targets, int valueBytes,
                            int batchBytes, int maxRecordsPerRequest, int acks, int window, long timeoutMs) {
        if (targets.isEmpty()) {
            throw new IllegalArgumentException("A producer needs at least one target partition");
        }
        this.network = network;
        this.client = client;
        this.targets = List.copyOf(targets);
        this.acks = acks;
        this.window = window;
        this.timeoutMs = timeoutMs;
        this.template = encodeBatch(valueBytes, batchBytes, maxRecordsPerRequest);
        this.recordsPerRequest = template.batches().get(0).recordCount();
        this.templateArray = new byte[template.sizeInBytes()];
        template.buffer().get(templateArray);
    }

    /**
     * One batch of as many records of {@code valueBytes} (no key) as fit in {@code batchBytes}, at
     * most {@code maxRecords} and at least one: what every request of this producer carries.
     */
    public static MemoryRecords encodeBatch(int valueBytes, int batchBytes, int maxRecords) {
        byte[] value = new byte[valueBytes];
        for (int i = 0; i < value.length; i++) {
            value[i] = (byte) ('a' + i % 26);
        }
        RecordBatchBuilder builder = new RecordBatchBuilder(0);
        long now = System.currentTimeMillis();
        builder.append(now, null, value);
        while (builder.recordCount() < maxRecords && builder.estimatedSizeInBytes() + valueBytes + 16 <= batchBytes) {
            builder.append(now, null, value);
        }
        return builder.build();
    }

    /** A copy of the encoded bytes every request carries. */
    public ByteBuffer templateBytes() {
        return ByteBuffer.wrap(templateArray.clone());
    }

    /** Records carried by each request. */
    public int recordsPerRequest() {
        return recordsPerRequest;
    }

    /** Encoded bytes of each request's records. */
    public int requestBytes() {
        return template.sizeInBytes();
    }

    /** Records acknowledged without error so far. */
    public long ackedRecords() {
        return ackedRecords.get();
    }

    /** Record bytes (encoded) acknowledged without error so far. */
    public long ackedBytes() {
        return ackedBytes.get();
    }

    /** Requests that ended with an error so far. */
    public long failures() {
        return failures.get();
    }

    /** The most recent error, NONE if there was none. */
    public Errors lastError() {
        return lastError;
    }

    /** Starts the closed loop: {@code window} requests go out now. */
    public void start() {
        running = true;
        drained = new CompletableFuture<>();
        for (int i = 0; i < window; i++) {
            sendOne();
        }
    }

    /**
     * Runs with a window of one until {@code warmup + count} requests completed, recording the
     * latency of the last {@code count} into {@code histogram} (nanoseconds).
     */
    public void measureLatency(Histogram histogram, long warmup, long count) throws InterruptedException {
        if (window != 1) {
            throw new IllegalStateException("Latency is measured with one request in flight, this producer has " + window);
        }
        stopAfterRequests = warmup;
        completedRequests.set(0);
        start();
        awaitDrained();
        histogram.reset();
        latencies = histogram;
        stopAfterRequests = count;
        completedRequests.set(0);
        start();
        awaitDrained();
        latencies = null;
    }

    /** Runs until {@code requests} requests completed (with this producer's window), then drains. */
    public void runRequests(long requests) throws InterruptedException {
        stopAfterRequests = requests;
        completedRequests.set(0);
        start();
        awaitDrained();
        stopAfterRequests = Long.MAX_VALUE;
    }

    /** Stops sending and waits until every request in flight completed. */
    public void stop() throws InterruptedException {
        running = false;
        awaitDrained();
    }

    private void awaitDrained() throws InterruptedException {
        try {
            drained.get();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("The producer's completion failed", e.getCause());
        }
    }

    private void sendOne() {
        Target target = targets.get(Math.floorMod(nextTarget.getAndIncrement(), targets.size()));
        // Not template.buffer(): copying from a read-only buffer goes byte by byte.
        ClientRpc.ProduceRequest request = new ClientRpc.ProduceRequest(target.topicPartition(),
                MemoryRecords.readableRecords(ByteBuffer.wrap(templateArray.clone())), acks, timeoutMs);
        inFlight.incrementAndGet();
        long startNs = System.nanoTime();
        network.send(client, target.leader(), ClientRpc.PRODUCE, request)
                .whenComplete((response, error) -> onResponse(startNs, response, error));
    }

    private void onResponse(long startNs, ClientRpc.ProduceResponse response, Throwable error) {
        Histogram histogram = latencies;
        if (histogram != null) {
            histogram.recordValue(System.nanoTime() - startNs);
        }
        if (error == null && response.error() == Errors.NONE) {
            ackedRecords.addAndGet(recordsPerRequest);
            ackedBytes.addAndGet(template.sizeInBytes());
        } else {
            failures.incrementAndGet();
            lastError = error == null ? response.error() : Errors.NETWORK_EXCEPTION;
        }
        int remaining = inFlight.decrementAndGet();
        long completed = completedRequests.incrementAndGet();
        if (completed >= stopAfterRequests) {
            running = false;
        }
        if (running) {
            sendOne();
        } else if (remaining == 0) {
            drained.complete(null);
        }
    }
}
