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

import dev.insync.replication.bench.harness.LogRetentionBound;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The properties files of the Insync processes the bench starts (docs/operations.md): one
 * controller node, the only Raft voter, and brokers, every listener on 127.0.0.1. Everything not
 * set here is Insync's default, which is Kafka's (no fsync per message, {@code broker.session.timeout.ms}
 * 9000, {@code replica.lag.time.max.ms} 30000, 8 I/O threads) except {@code num.network.threads}
 * (half the processors, where Kafka's is 3), plus the brokers' {@link LogRetentionBound} when the
 * bench gives one and the {@code overrides} a caller gives.
 */
final class InsyncServerConfig {

    private InsyncServerConfig() {
    }

    /** The addresses of one cluster: listeners of every node, and the controller's Raft port. */
    record Layout(int controllerId, int controllerPort, int raftPort, Map<Integer, Integer> brokerPorts) {

        Layout {
            brokerPorts = Map.copyOf(new TreeMap<>(brokerPorts));
        }

        String controllerEndpoints() {
            return controllerId + "@127.0.0.1:" + controllerPort;
        }

        String bootstrapServers() {
            return new TreeMap<>(brokerPorts).values().stream().map(p -> "127.0.0.1:" + p)
                    .collect(Collectors.joining(","));
        }
    }

    /** The controller node's properties. */
    static Map<String, String> controller(Layout layout, Path metadataLogDir, Map<String, String> overrides) {
        Map<String, String> p = common(layout, layout.controllerId(), "controller", layout.controllerPort());
        p.put("controller.quorum.voters", layout.controllerId() + "@127.0.0.1:" + layout.raftPort());
        p.put("metadata.log.dir", metadataLogDir.toString());
        p.putAll(overrides);
        return p;
    }

    /** A broker's properties, with {@code retention} if given, else Insync's retention defaults. */
    static Map<String, String> broker(Layout layout, int brokerId, Path logDir, Optional<LogRetentionBound> retention,
                                      Map<String, String> overrides) {
        Map<String, String> p = common(layout, brokerId, "broker", layout.brokerPorts().get(brokerId));
        p.put("log.dirs", logDir.toString());
        retention.ifPresent(bound -> p.putAll(retention(bound)));
        p.putAll(overrides);
        return p;
    }

    /** {@code bound} under Insync's names (a broker's defaults for its logs use the topic-level names). */
    static Map<String, String> retention(LogRetentionBound bound) {
        return Map.of("segment.bytes", Integer.toString(bound.segmentBytes()),
                "retention.bytes", Long.toString(bound.retentionBytes()),
                "log.retention.check.interval.ms", Long.toString(bound.checkIntervalMs()));
    }

    private static Map<String, String> common(Layout layout, int nodeId, String role, int port) {
        Map<String, String> p = new TreeMap<>();
        p.put("node.id", Integer.toString(nodeId));
        p.put("process.roles", role);
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + port);
        p.put("insync.controller.endpoints", layout.controllerEndpoints());
        // Brokers register their listeners and learn each other's from metadata (LDR-4): no address table.
        return p;
    }

    /** Writes {@code properties} as a properties file. */
    static void write(Map<String, String> properties, Path file) throws IOException {
        Properties p = new Properties();
        p.putAll(properties);
        StringWriter w = new StringWriter();
        p.store(w, "written by the Insync bench");
        Files.writeString(file, w.toString(), StandardCharsets.ISO_8859_1);
    }
}
