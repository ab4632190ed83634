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

package dev.insync.replication.core.fetcher;

import dev.insync.replication.core.config.ReplicationConfig;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FetcherConfigTest {

    @Test
    @DisplayName("FOL-3 the fetch settings come from Kafka-named broker properties")
    void fol3FromProperties() {
        ReplicationConfig broker = ReplicationConfig.fromProperties(Map.of(
                "num.replica.fetchers", 3,
                "replica.fetch.wait.max.ms", 250,
                "replica.fetch.min.bytes", 7,
                "replica.fetch.max.bytes", 4096,
                "replica.fetch.response.max.bytes", 65536,
                "replica.fetch.backoff.ms", 200,
                "request.timeout.ms", 9000));
        FetcherConfig c = FetcherConfig.from(5, broker);
        assertThat(c).isEqualTo(new FetcherConfig(5, 3, 250, 7, 4096, 65536, 200, 9000, true));
        assertThat(c.lostResponseTimeoutMs()).isEqualTo(9250);
    }

    @Test
    @DisplayName("FOL-1 FET-7 Kafka's defaults: one fetcher, 500 ms wait, 1 MiB per partition, 10 MiB per response, 1 s backoff,"
            + " fetch sessions on")
    void defaults() {
        assertThat(FetcherConfig.from(1, ReplicationConfig.defaults()))
                .isEqualTo(new FetcherConfig(1, 1, 500, 1, 1_048_576, 10_485_760, 1000, 30_000, true));
        assertThat(FetcherConfig.defaults(1)).as("the fetcher tests' sessionless defaults")
                .isEqualTo(new FetcherConfig(1, 1, 500, 1, 1_048_576, 10_485_760, 1000, 30_000, false));
    }

    @Test
    @DisplayName("FOL-1 a bad setting is refused with its property name")
    void badSettings() {
        assertThatThrownBy(() -> FetcherConfig.defaults(1).withNumFetchers(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("num.replica.fetchers");
        assertThatThrownBy(() -> new FetcherConfig(1, 1, 500, 1, 1024, 1024, 0, 1000))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("replica.fetch.backoff.ms");
        assertThatThrownBy(() -> FetcherManager.fetcherId(new dev.insync.replication.log.TopicPartition("t", 0), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("num.replica.fetchers");
    }

    @Test
    @DisplayName("FOL-1 FOL-3 every fetch setting is bounded: replicaId and wait.max.ms from 0, the others from 1")
    void settingBounds() {
        assertThat(new FetcherConfig(0, 1, 0, 1, 1, 1, 1, 1).replicaId()).isZero();
        record Bad(String name, Runnable make) {
        }
        List<Bad> bad = List.of(
                new Bad("replicaId", () -> new FetcherConfig(-1, 1, 500, 1, 1024, 1024, 1000, 1000)),
                new Bad("num.replica.fetchers", () -> new FetcherConfig(1, 0, 500, 1, 1024, 1024, 1000, 1000)),
                new Bad("replica.fetch.wait.max.ms", () -> new FetcherConfig(1, 1, -1, 1, 1024, 1024, 1000, 1000)),
                new Bad("replica.fetch.min.bytes", () -> new FetcherConfig(1, 1, 500, 0, 1024, 1024, 1000, 1000)),
                new Bad("replica.fetch.max.bytes", () -> new FetcherConfig(1, 1, 500, 1, 0, 1024, 1000, 1000)),
                new Bad("replica.fetch.response.max.bytes", () -> new FetcherConfig(1, 1, 500, 1, 1024, 0, 1000, 1000)),
                new Bad("fetch request timeout", () -> new FetcherConfig(1, 1, 500, 1, 1024, 1024, 1000, 0)));
        for (Bad b : bad) {
            assertThatThrownBy(b.make()::run).as(b.name())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(b.name());
        }
    }
}
