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

package dev.insync.replication.controller.ratis;

import dev.insync.replication.controller.ControllerConfig;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Kafka-named properties of a controller node: defaults, and errors that name the property. */
class RatisControllerConfigTest {

    private static Map<String, Object> base() {
        Map<String, Object> p = new HashMap<>();
        p.put("node.id", "2");
        p.put("process.roles", "controller");
        p.put("controller.quorum.voters", "1@127.0.0.1:9093, 2@127.0.0.1:9094,3@127.0.0.1:9095");
        p.put("metadata.log.dir", "/tmp/insync-meta");
        return p;
    }

    @Test
    @DisplayName("Kafka's names and defaults; the controller's own snapshot offers are off (the Ratis log snapshots itself)")
    void defaults() {
        RatisControllerConfig c = RatisControllerConfig.fromProperties(base());
        assertThat(c.nodeId()).isEqualTo(2);
        assertThat(c.self()).isEqualTo(new QuorumVoter(2, "127.0.0.1", 9094));
        assertThat(c.voters()).hasSize(3);
        assertThat(c.metadataLogDir()).isEqualTo(Path.of("/tmp/insync-meta"));
        assertThat(c.electionTimeoutMs()).isEqualTo(1000);
        assertThat(c.fetchTimeoutMs()).isEqualTo(2000);
        assertThat(c.brokerHeartbeatIntervalMs()).isEqualTo(2000);
        assertThat(c.controllerConfig().brokerSessionTimeoutMs()).isEqualTo(9000);
        assertThat(c.controllerConfig().snapshotIntervalRecords()).isZero();
        assertThat(c.snapshotPolicy()).isEqualTo(SnapshotPolicy.DEFAULT);
        assertThat(SnapshotPolicy.DEFAULT.maxRecordBytesBetweenSnapshots()).isEqualTo(20L * 1024 * 1024);
        assertThat(SnapshotPolicy.DEFAULT.maxSnapshotIntervalMs()).isEqualTo(3_600_000L);
    }

    @Test
    @DisplayName("Overrides, and bootstrap servers that are voters")
    void overrides() {
        Map<String, Object> p = base();
        p.put("controller.quorum.election.timeout.ms", 500);
        p.put("controller.quorum.bootstrap.servers", "127.0.0.1:9093,127.0.0.1:9095");
        p.put("metadata.log.max.record.bytes.between.snapshots", "1048576");
        p.put("metadata.log.max.snapshot.interval.ms", 0);
        p.put("metadata.log.max.snapshot.interval.records", 10);
        p.put(ControllerConfig.BROKER_SESSION_TIMEOUT_MS, 6000);
        RatisControllerConfig c = RatisControllerConfig.fromProperties(p);
        assertThat(c.electionTimeoutMs()).isEqualTo(500);
        assertThat(c.bootstrapServers()).containsExactly("127.0.0.1:9093", "127.0.0.1:9095");
        assertThat(c.snapshotPolicy()).isEqualTo(new SnapshotPolicy(1048576, 0, 10));
        assertThat(c.controllerConfig().brokerSessionTimeoutMs()).isEqualTo(6000);
    }

    @Test
    @DisplayName("Bad properties are errors naming the property")
    void errors() {
        Map<String, Object> p = base();
        p.put("process.roles", "broker,controller");
        assertThatThrownBy(() -> RatisControllerConfig.fromProperties(p)).hasMessageContaining("process.roles");
        p.put("process.roles", "controller");
        p.put("node.id", 7);
        assertThatThrownBy(() -> RatisControllerConfig.fromProperties(p)).hasMessageContaining("node.id 7");
        p.put("node.id", 1);
        p.put("controller.quorum.voters", "1@127.0.0.1:9093,2@127.0.0.1:9094");
        assertThatThrownBy(() -> RatisControllerConfig.fromProperties(p)).hasMessageContaining("1, 3 or 5");
        p.put("controller.quorum.voters", "1@127.0.0.1:9093,1@127.0.0.1:9094,3@h:1");
        assertThatThrownBy(() -> RatisControllerConfig.fromProperties(p)).hasMessageContaining("twice");
        p.put("controller.quorum.voters", "1@127.0.0.1");
        assertThatThrownBy(() -> RatisControllerConfig.fromProperties(p)).hasMessageContaining("host:port");
        p.put("controller.quorum.voters", "1@127.0.0.1:9093");
        p.put("controller.quorum.bootstrap.servers", "10.9.9.9:9093");
        assertThatThrownBy(() -> RatisControllerConfig.fromProperties(p)).hasMessageContaining("controller.quorum.bootstrap.servers");
        p.remove("controller.quorum.bootstrap.servers");
        p.put("broker.heartbeat.interval.ms", 9000);
        assertThatThrownBy(() -> RatisControllerConfig.fromProperties(p)).hasMessageContaining("broker.heartbeat.interval.ms");
        p.remove("broker.heartbeat.interval.ms");
        p.put("metadata.log.max.snapshot.interval.ms", "soon");
        assertThatThrownBy(() -> RatisControllerConfig.fromProperties(p)).hasMessageContaining("metadata.log.max.snapshot.interval.ms");
        p.remove("metadata.log.max.snapshot.interval.ms");
        p.remove("controller.quorum.voters");
        p.put("controller.quorum.bootstrap.servers", "127.0.0.1:9093");
        assertThatThrownBy(() -> RatisControllerConfig.fromProperties(p)).hasMessageContaining("controller.quorum.voters")
                .hasMessageContaining("dynamic");
        p.put("controller.quorum.voters", "1@127.0.0.1:9093");
        p.remove("metadata.log.dir");
        assertThatThrownBy(() -> RatisControllerConfig.fromProperties(p)).hasMessageContaining("metadata.log.dir");
    }
}
