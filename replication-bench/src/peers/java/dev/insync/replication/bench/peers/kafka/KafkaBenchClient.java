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

package dev.insync.replication.bench.peers.kafka;

import dev.insync.replication.bench.processes.BenchClient;
import dev.insync.replication.bench.processes.BenchClientSettings;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Kafka's own producer (kafka-clients 4.4) as the bench's client. Idempotence is off: Insync's
 * producer path has no producer ids or sequence numbers, so Kafka is measured doing the same work
 * (and off, it also allows more than 5 requests in flight). No compression, as Insync's batches.
 */
final class KafkaBenchClient implements BenchClient {

    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

    private final KafkaProducer<byte[], byte[]> producer;

    KafkaBenchClient(String bootstrapServers, BenchClientSettings settings) {
        producer = new KafkaProducer<>(config(bootstrapServers, settings), new ByteArraySerializer(),
                new ByteArraySerializer());
    }

    /** The producer configuration for {@code settings}; the rest are Kafka's defaults. */
    static Map<String, Object> config(String bootstrapServers, BenchClientSettings settings) {
        Map<String, Object> c = new HashMap<>();
        c.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        c.put(ProducerConfig.CLIENT_ID_CONFIG, "insync-bench");
        c.put(ProducerConfig.ACKS_CONFIG, settings.acksName());
        c.put(ProducerConfig.BATCH_SIZE_CONFIG, settings.batchBytes());
        c.put(ProducerConfig.LINGER_MS_CONFIG, settings.lingerMs());
        c.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, settings.maxInFlightRequests());
        c.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        c.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
        return c;
    }

    @Override
    public void send(String topic, int partition, byte[] value, Completion completion) {
        producer.send(new ProducerRecord<>(topic, partition, null, value), (metadata, error) -> completion.completed(error));
    }

    @Override
    public void close() {
        producer.close(CLOSE_TIMEOUT);
    }
}
