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

package dev.insync.replication.netty.client;

import dev.insync.replication.netty.config.ClientConfig;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The client's Kafka-named properties. */
class ClientConfigTest {

    @Test
    @DisplayName("PRO-1 acks: all and -1 are the same, 0 and 1 are accepted, anything else names the property")
    void acks() {
        assertThat(ClientConfig.fromProperties(Map.of("bootstrap.servers", "h:1", "acks", "all")).acks()).isEqualTo((short) -1);
        assertThat(ClientConfig.fromProperties(Map.of("bootstrap.servers", "h:1", "acks", "-1")).acks()).isEqualTo((short) -1);
        assertThat(ClientConfig.fromProperties(Map.of("bootstrap.servers", "h:1", "acks", 0)).acks()).isEqualTo((short) 0);
        assertThat(ClientConfig.fromProperties(Map.of("bootstrap.servers", "h:1", "acks", "1")).acks()).isEqualTo((short) 1);
        assertThatThrownBy(() -> ClientConfig.fromProperties(Map.of("bootstrap.servers", "h:1", "acks", "2")))
                .hasMessageContaining("acks").hasMessageContaining("'2'");
    }

    @Test
    @DisplayName("Kafka's defaults; bootstrap.servers parses host:port lists, IPv6 in brackets")
    void defaultsAndAddresses() {
        ClientConfig c = ClientConfig.fromProperties(Map.of("bootstrap.servers", "a:9092, [::1]:9093"));
        assertThat(c.bootstrapServers()).containsExactly(InetSocketAddress.createUnresolved("a", 9092),
                InetSocketAddress.createUnresolved("::1", 9093));
        assertThat(c.acks()).isEqualTo((short) -1);
        assertThat(c.batchSizeBytes()).isEqualTo(16_384);
        assertThat(c.lingerMs()).isEqualTo(5);
        assertThat(c.maxInFlightPerConnection()).isEqualTo(5);
        assertThat(c.retries()).isEqualTo(Integer.MAX_VALUE);
        assertThat(c.deliveryTimeoutMs()).isEqualTo(120_000);
        assertThat(c.requestTimeoutMs()).isEqualTo(30_000);
        assertThat(c.retryBackoffMs()).isEqualTo(100);
        assertThat(c.retryBackoffMaxMs()).isEqualTo(1_000);
        assertThat(c.bufferMemoryBytes()).isEqualTo(33_554_432L);
        assertThat(c.maxBlockMs()).isEqualTo(60_000L);
    }

    @Test
    @DisplayName("bad values name their property: a missing bootstrap, a port out of range, a negative linger, buffer.memory 0, a negative max.block.ms, in flight 0, delivery timeout below linger + request timeout")
    void badValues() {
        assertThatThrownBy(() -> ClientConfig.fromProperties(Map.of())).hasMessageContaining("bootstrap.servers");
        assertThatThrownBy(() -> ClientConfig.fromProperties(Map.of("bootstrap.servers", "h:70000")))
                .hasMessageContaining("bootstrap.servers").hasMessageContaining("h:70000");
        assertThatThrownBy(() -> ClientConfig.fromProperties(Map.of("bootstrap.servers", "nocolon")))
                .hasMessageContaining("not host:port");
        assertThatThrownBy(() -> ClientConfig.fromProperties(Map.of("bootstrap.servers", "h:1", "linger.ms", -1)))
                .hasMessageContaining("linger.ms");
        assertThatThrownBy(() -> ClientConfig.fromProperties(Map.of("bootstrap.servers", "h:1", "buffer.memory", 0)))
                .hasMessageContaining("buffer.memory");
        assertThatThrownBy(() -> ClientConfig.fromProperties(Map.of("bootstrap.servers", "h:1", "max.block.ms", -1)))
                .hasMessageContaining("max.block.ms");
        assertThatThrownBy(() -> ClientConfig.fromProperties(Map.of("bootstrap.servers", "h:1",
                "max.in.flight.requests.per.connection", 0))).hasMessageContaining("max.in.flight.requests.per.connection");
        assertThatThrownBy(() -> ClientConfig.fromProperties(Map.of("bootstrap.servers", "h:1", "delivery.timeout.ms", 100,
                "request.timeout.ms", 1000))).hasMessageContaining("delivery.timeout.ms");
        assertThatThrownBy(() -> ClientConfig.fromProperties(Map.of("bootstrap.servers", "h:1", "batch.size", "x")))
                .hasMessageContaining("batch.size");
        assertThatThrownBy(() -> ClientConfig.fromProperties(Map.of("bootstrap.servers", "h:1", "retry.backoff.max.ms", -1)))
                .hasMessageContaining("retry.backoff.max.ms");
    }

    @Test
    @DisplayName("an unset delivery.timeout.ms grows to linger.ms + request.timeout.ms when those exceed its default")
    void deliveryTimeoutFollows() {
        assertThat(ClientConfig.fromProperties(Map.of("bootstrap.servers", "h:1", "request.timeout.ms", 200_000))
                .deliveryTimeoutMs()).isEqualTo(200_005);
    }
}
