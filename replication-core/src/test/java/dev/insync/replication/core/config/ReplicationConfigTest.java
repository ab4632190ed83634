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

package dev.insync.replication.core.config;

import dev.insync.replication.log.LogConfig;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReplicationConfigTest {

    @Test
    @DisplayName("Defaults are Kafka's (the contract's defaults table)")
    void defaultsAreKafkas() {
        ReplicationConfig c = ReplicationConfig.defaults();
        assertThat(c.replicaLagTimeMaxMs()).isEqualTo(30000);
        assertThat(c.isrExpirationIntervalMs()).isEqualTo(15000);
        assertThat(c.replicaFetchWaitMaxMs()).isEqualTo(500);
        assertThat(c.replicaFetchMinBytes()).isEqualTo(1);
        assertThat(c.replicaFetchMaxBytes()).isEqualTo(1048576);
        assertThat(c.replicaFetchResponseMaxBytes()).isEqualTo(10485760);
        assertThat(c.replicaFetchBackoffMs()).isEqualTo(1000);
        assertThat(c.numReplicaFetchers()).isEqualTo(1);
        assertThat(c.replicaHighWatermarkCheckpointIntervalMs()).isEqualTo(5000);
        assertThat(c.minInsyncReplicas()).isEqualTo(1);
        assertThat(c.uncleanLeaderElectionEnable()).isFalse();
        assertThat(c.brokerHeartbeatIntervalMs()).isEqualTo(2000);
        assertThat(c.brokerSessionTimeoutMs()).isEqualTo(9000);
        assertThat(c.requestTimeoutMs()).isEqualTo(30000);
        assertThat(c.alterPartitionRetryBackoffMs()).isEqualTo(ReplicationConfig.DEFAULT_ALTER_PARTITION_RETRY_BACKOFF_MS);
        LogConfig l = c.logConfig();
        assertThat(l.segmentBytes()).isEqualTo(1073741824);
        assertThat(l.segmentIndexBytes()).isEqualTo(10485760);
        assertThat(l.indexIntervalBytes()).isEqualTo(4096);
        assertThat(l.maxMessageBytes()).isEqualTo(1048588);
        assertThat(l.flushMessages()).isEqualTo(Long.MAX_VALUE);
        assertThat(l.flushMs()).isEqualTo(Long.MAX_VALUE);
        assertThat(l.retentionMs()).isEqualTo(604800000L);
        assertThat(l.retentionBytes()).isEqualTo(-1L);
        assertThat(l).isEqualTo(LogConfig.defaults());
    }

    @Test
    void propertiesAcceptStringsNumbersAndBooleans() {
        Map<String, Object> props = new HashMap<>();
        props.put("replica.lag.time.max.ms", "5000");
        props.put("broker.session.timeout.ms", 30000);
        props.put("min.insync.replicas", 3L);
        props.put("unclean.leader.election.enable", "TRUE");
        props.put("num.replica.fetchers", 4.0);
        props.put("segment.bytes", " 4096 ");
        props.put("retention.bytes", 123456789L);
        props.put("request.timeout.ms", 1500);
        ReplicationConfig c = ReplicationConfig.fromProperties(props);
        assertThat(c.replicaLagTimeMaxMs()).isEqualTo(5000);
        assertThat(c.isrExpirationIntervalMs()).isEqualTo(2500);
        assertThat(c.brokerSessionTimeoutMs()).isEqualTo(30000);
        assertThat(c.minInsyncReplicas()).isEqualTo(3);
        assertThat(c.uncleanLeaderElectionEnable()).isTrue();
        assertThat(c.numReplicaFetchers()).isEqualTo(4);
        assertThat(c.logConfig().segmentBytes()).isEqualTo(4096);
        assertThat(c.logConfig().retentionBytes()).isEqualTo(123456789L);
        assertThat(c.requestTimeoutMs()).isEqualTo(1500);
        // untouched ones keep their defaults
        assertThat(c.replicaFetchBackoffMs()).isEqualTo(1000);
        assertThat(c.ignoredProperties()).isEmpty();
    }

    @Test
    void unknownPropertiesAreIgnoredAndReported() {
        ReplicationConfig c = ReplicationConfig.fromProperties(Map.of("bootstrap.servers", "x:9092", "min.insync.replicas", 2));
        assertThat(c.ignoredProperties()).containsExactly("bootstrap.servers");
        assertThat(c.minInsyncReplicas()).isEqualTo(2);
    }

    @Test
    void wrongTypesNameTheProperty() {
        assertThatThrownBy(() -> ReplicationConfig.fromProperties(Map.of("replica.lag.time.max.ms", "soon")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("replica.lag.time.max.ms");
        assertThatThrownBy(() -> ReplicationConfig.fromProperties(Map.of("unclean.leader.election.enable", "yes")))
                .hasMessageContaining("unclean.leader.election.enable");
        assertThatThrownBy(() -> ReplicationConfig.fromProperties(Map.of("unclean.leader.election.enable", 1)))
                .hasMessageContaining("unclean.leader.election.enable").hasMessageContaining("boolean");
        assertThatThrownBy(() -> ReplicationConfig.fromProperties(Map.of("num.replica.fetchers", 1.5)))
                .hasMessageContaining("num.replica.fetchers");
        assertThatThrownBy(() -> ReplicationConfig.fromProperties(Map.of("segment.bytes", 3_000_000_000L)))
                .hasMessageContaining("segment.bytes").hasMessageContaining("int");
        assertThatThrownBy(() -> ReplicationConfig.fromProperties(Map.of("flush.ms", new Object())))
                .hasMessageContaining("flush.ms");
    }

    @Test
    void outOfRangeValuesAreRejectedWithTheirName() {
        assertThatThrownBy(() -> ReplicationConfig.builder().minInsyncReplicas(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("min.insync.replicas");
        assertThatThrownBy(() -> ReplicationConfig.builder().numReplicaFetchers(0).build())
                .hasMessageContaining("num.replica.fetchers");
        assertThatThrownBy(() -> ReplicationConfig.builder().replicaFetchBackoffMs(-1).build())
                .hasMessageContaining("replica.fetch.backoff.ms");
        assertThatThrownBy(() -> ReplicationConfig.builder().replicaLagTimeMaxMs(0).build())
                .hasMessageContaining("replica.lag.time.max.ms");
        assertThatThrownBy(() -> ReplicationConfig.fromProperties(Map.of("retention.ms", -2)))
                .hasMessageContaining("retention.ms");
        assertThatThrownBy(() -> ReplicationConfig.fromProperties(Map.of("broker.heartbeat.interval.ms", "-5")))
                .hasMessageContaining("broker.heartbeat.interval.ms");
    }

    @Test
    void builderRoundTripsThroughProperties() {
        ReplicationConfig c = ReplicationConfig.builder().replicaLagTimeMaxMs(10_000).minInsyncReplicas(2)
                .numReplicaFetchers(3).build();
        ReplicationConfig again = ReplicationConfig.fromProperties(c.asProperties());
        assertThat(again).isEqualTo(c);
        assertThat(c.toBuilder().build()).isEqualTo(c);
        assertThat(c.toBuilder().minInsyncReplicas(1).build()).isNotEqualTo(c);
    }
}
