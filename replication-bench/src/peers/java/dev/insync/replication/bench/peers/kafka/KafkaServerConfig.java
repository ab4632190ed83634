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

/**
 * The {@code server.properties} of the Kafka 4.4 processes the bench starts: KRaft with a static
 * quorum of one controller ({@code controller.quorum.voters}), brokers listening on 127.0.0.1.
 * Everything not set here is Kafka's default; {@link #nonDefaults} lists what the bench sets
 * beyond addresses and directories, so the report can say it.
 */
final class KafkaServerConfig {

    static final String CONTROLLER_LISTENER = "CONTROLLER";
    static final String BROKER_LISTENER = "PLAINTEXT";


    private KafkaServerConfig() {
    }

    /**
     * The broker settings that are not Kafka's defaults and not addresses, ids or directories:
     * {@code retention} under Kafka's names, if given.
     */
    static Map<String, String> nonDefaults(Optional<LogRetentionBound> retention) {
        Map<String, String> p = new TreeMap<>();
        // The bench creates its topics with their RF and min.insync.replicas; a typo must not create another.
        p.put("auto.create.topics.enable", "false");
        retention.ifPresent(bound -> {
            p.put("log.segment.bytes", Integer.toString(bound.segmentBytes()));
            p.put("log.retention.bytes", Long.toString(bound.retentionBytes()));
            p.put("log.retention.check.interval.ms", Long.toString(bound.checkIntervalMs()));
            // Insync deletes a segment's files at once; Kafka's default keeps them another minute.
            p.put("log.segment.delete.delay.ms", "0");
        });
        return p;
    }

    /** The controller's properties: node {@code nodeId}, the only voter. */
    static Map<String, String> controller(int nodeId, String voters, int port, Path logDir) {
        Map<String, String> p = common("controller", nodeId, voters, logDir);
        p.put("listeners", CONTROLLER_LISTENER + "://127.0.0.1:" + port);
        return p;
    }

    /** A broker's properties, with {@code nonDefaults} ({@link #nonDefaults}). */
    static Map<String, String> broker(int nodeId, String voters, int port, Path logDir, Map<String, String> nonDefaults) {
        Map<String, String> p = common("broker", nodeId, voters, logDir);
        String listener = BROKER_LISTENER + "://127.0.0.1:" + port;
        p.put("listeners", listener);
        p.put("advertised.listeners", listener);
        p.put("inter.broker.listener.name", BROKER_LISTENER);
        p.putAll(nonDefaults);
        return p;
    }

    private static Map<String, String> common(String role, int nodeId, String voters, Path logDir) {
        Map<String, String> p = new TreeMap<>();
        p.put("process.roles", role);
        p.put("node.id", Integer.toString(nodeId));
        p.put("controller.quorum.voters", voters);
        p.put("controller.listener.names", CONTROLLER_LISTENER);
        p.put("listener.security.protocol.map", CONTROLLER_LISTENER + ":PLAINTEXT," + BROKER_LISTENER + ":PLAINTEXT");
        p.put("log.dirs", logDir.toString());
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

    /** A log4j 2 configuration: INFO to standard output, which the process group captures per process. */
    static void writeLog4j(Path file) throws IOException {
        Files.writeString(file, String.join("\n",
                "status = warn",
                "appender.out.type = Console",
                "appender.out.name = STDOUT",
                "appender.out.layout.type = PatternLayout",
                "appender.out.layout.pattern = [%d] %p %m (%c)%n",
                "rootLogger.level = info",
                "rootLogger.appenderRef.out.ref = STDOUT",
                "") + "\n");
    }
}
