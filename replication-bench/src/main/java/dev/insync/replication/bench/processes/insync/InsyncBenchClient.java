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
import dev.insync.replication.netty.config.ClientConfig;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Insync's own producer ({@link InsyncClient}) as the bench's client, with the settings the Kafka
 * target gives Kafka's producer: {@code acks}, {@code batch.size}, {@code linger.ms} and
 * {@code max.in.flight.requests.per.connection} from {@link BenchClientSettings}, the rest the
 * client's defaults (which are Kafka's: {@code request.timeout.ms} 30000, {@code delivery.timeout.ms}
 * 120000, {@code retry.backoff.ms} 100, {@code max.block.ms} 60000). No compression, as Kafka's
 * producer is configured.
 *
 * <p>The throughput loop relies on the producers' back-pressure: a send blocks while
 * {@code buffer.memory} is taken by records waiting for their outcome. That is Kafka's default
 * ({@link #BUFFER_MEMORY_BYTES}) in the bench; a test may give less.
 */
final class InsyncBenchClient implements BenchClient {

    /** Kafka's producer default {@code buffer.memory}, which is the client's too. */
    static final int BUFFER_MEMORY_BYTES = (int) ClientConfig.DEFAULT_BUFFER_MEMORY;

    /** As the Kafka target closes its producer: what is not acknowledged by then is abandoned. */
    static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

    private final InsyncClient client;
    /**
     * The partitions of the topic sent to last, by index. An application holds its
     * {@code TopicPartition}s; building one per record would re-check the topic's name on every
     * send, which a profile of the twelve-partition run put at 8 % of the sending thread.
     */
    private volatile Partitions partitions = new Partitions("", new TopicPartition[0]);

    /** @param bufferBytes the client's {@code buffer.memory}: {@link #BUFFER_MEMORY_BYTES} in the bench */
    InsyncBenchClient(String bootstrapServers, BenchClientSettings settings, int bufferBytes) {
        if (bufferBytes < 1) {
            throw new IllegalArgumentException("bufferBytes must be positive, not " + bufferBytes);
        }
        client = InsyncClient.builder(config(bootstrapServers, settings, bufferBytes)).build();
    }

    /** The client's properties for {@code settings}; the rest are its defaults. */
    static Map<String, Object> config(String bootstrapServers, BenchClientSettings settings, int bufferBytes) {
        Map<String, Object> c = new HashMap<>();
        c.put(ClientConfig.BOOTSTRAP_SERVERS, bootstrapServers);
        c.put(ClientConfig.CLIENT_ID, "insync-bench");
        c.put(ClientConfig.ACKS, settings.acksName());
        c.put(ClientConfig.BATCH_SIZE, settings.batchBytes());
        c.put(ClientConfig.LINGER_MS, settings.lingerMs());
        c.put(ClientConfig.MAX_IN_FLIGHT, settings.maxInFlightRequests());
        c.put(ClientConfig.BUFFER_MEMORY, bufferBytes);
        return c;
    }

    @Override
    public void send(String topic, int partition, byte[] value, Completion completion) {
        // The callback form, as the Kafka target sends with Kafka's producer: no future per record.
        client.send(partition(topic, partition), null, value, List.of(),
                (metadata, error) -> completion.completed(error));
    }

    private TopicPartition partition(String topic, int partition) {
        Partitions known = partitions;
        if (partition >= 0 && partition < known.byIndex.length && known.topic.equals(topic)) {
            return known.byIndex[partition];
        }
        TopicPartition wanted = new TopicPartition(topic, partition); // rejects a bad name or index
        // A new topic or a higher index: remember 0..partition (senders racing here build equal copies).
        TopicPartition[] byIndex = new TopicPartition[partition + 1];
        for (int p = 0; p < partition; p++) {
            byIndex[p] = new TopicPartition(topic, p);
        }
        byIndex[partition] = wanted;
        partitions = new Partitions(topic, byIndex);
        return wanted;
    }

    private record Partitions(String topic, TopicPartition[] byIndex) {
    }

    @Override
    public void close() {
        client.close(CLOSE_TIMEOUT);
    }
}
