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

package dev.insync.replication.bench.processes.insync;

import dev.insync.replication.bench.processes.BenchClient;
import dev.insync.replication.bench.processes.BenchClientSettings;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.netty.client.InsyncClient;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Insync's own producer ({@link InsyncClient}) as the bench's client, with the settings the Kafka
 * target gives Kafka's producer: {@code acks}, {@code batch.size}, {@code linger.ms} and
 * {@code max.in.flight.requests.per.connection} from {@link BenchClientSettings}, the rest the
 * client's defaults (which are Kafka's: {@code request.timeout.ms} 30000, {@code delivery.timeout.ms}
 * 120000, {@code retry.backoff.ms} 100). No compression, as Kafka's producer is configured.
 *
 * <p>{@link InsyncClient#send} never blocks, while Kafka's producer blocks once its
 * {@code buffer.memory} (32 MiB) is taken, for at most {@code max.block.ms} (60 s). The throughput
 * loop relies on that back-pressure, so this adapter gives Insync's client the same bound: the key
 * and value bytes of records sent and not yet completed may not exceed {@link #BUFFER_MEMORY_BYTES} (a test may
 * give less);
 * a send waits for room at most {@link #MAX_BLOCK_MS}.
 */
final class InsyncBenchClient implements BenchClient {

    /** Kafka's producer default {@code buffer.memory}. */
    static final int BUFFER_MEMORY_BYTES = 32 * 1024 * 1024;
    /** Kafka's producer default {@code max.block.ms}. */
    static final long MAX_BLOCK_MS = 60_000;

    /** As the Kafka target closes its producer: what is not acknowledged by then is abandoned. */
    static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

    private final InsyncClient client;
    private final int bufferBytes;
    private final Semaphore buffer;

    /** @param bufferBytes the bound of pending key and value bytes: {@link #BUFFER_MEMORY_BYTES} in the bench */
    InsyncBenchClient(String bootstrapServers, BenchClientSettings settings, int bufferBytes) {
        if (bufferBytes < 1) {
            throw new IllegalArgumentException("bufferBytes must be positive, not " + bufferBytes);
        }
        this.bufferBytes = bufferBytes;
        this.buffer = new Semaphore(bufferBytes);
        client = InsyncClient.builder(config(bootstrapServers, settings)).build();
    }

    /** The client's properties for {@code settings}; the rest are its defaults. */
    static Map<String, Object> config(String bootstrapServers, BenchClientSettings settings) {
        Map<String, Object> c = new HashMap<>();
        c.put("bootstrap.servers", bootstrapServers);
        c.put("client.id", "insync-bench");
        c.put("acks", settings.acksName());
        c.put("batch.size", settings.batchBytes());
        c.put("linger.ms", settings.lingerMs());
        c.put("max.in.flight.requests.per.connection", settings.maxInFlightRequests());
        return c;
    }

    @Override
    public void send(String topic, int partition, byte[] value, Completion completion) {
        int bytes = Math.min(bufferBytes, Math.max(1, value.length));
        try {
            if (!buffer.tryAcquire(bytes, MAX_BLOCK_MS, TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("No room in the bench's " + bufferBytes + "-byte send buffer within "
                        + MAX_BLOCK_MS + " ms (Kafka's max.block.ms)");
            }
        } catch (InterruptedException e) {
            // As Kafka's producer: an interrupted send throws, and the caller's loop sees the interrupt.
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for room in the send buffer", e);
        }
        client.send(new TopicPartition(topic, partition), null, value).whenComplete((metadata, error) -> {
            buffer.release(bytes);
            completion.completed(error);
        });
    }

    @Override
    public void close() {
        client.close(CLOSE_TIMEOUT);
    }
}
