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

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of one controller node on a Ratis quorum, with Kafka's property names (KRaft's) where
 * Kafka has them. Build it with {@link #fromProperties(Map)}.
 *
 * @param nodeId                    {@code node.id}: one of the voters
 * @param voters                    {@code controller.quorum.voters}: {@code id@host:port,...}, 1, 3 or 5 of them
 * @param bootstrapServers          {@code controller.quorum.bootstrap.servers}: {@code host:port,...}; each must be
 *                                  a voter's address (dynamic quorums, KIP-853, are not supported)
 * @param metadataLogDir            {@code metadata.log.dir}: the Raft log, its metadata and the snapshots
 * @param electionTimeoutMs         {@code controller.quorum.election.timeout.ms} (1000): the longest a follower
 *                                  waits without hearing from the leader before it stands for election (each
 *                                  wait is drawn from [half of it, all of it], so that candidates do not collide)
 * @param fetchTimeoutMs            {@code controller.quorum.fetch.timeout.ms} (2000): bound on one replication
 *                                  request from the leader to a follower
 * @param brokerHeartbeatIntervalMs {@code broker.heartbeat.interval.ms} (2000), checked against the session timeout
 *                                  and handed to brokers assembled alongside
 * @param snapshotPolicy            the {@code metadata.log.max.*} snapshot bounds
 * @param segmentBytes              {@code metadata.log.segment.bytes}: a Raft log segment rolls at this size; only
 *                                  whole segments are purged after a snapshot. Default 32 MiB (Ratis'), not
 *                                  Kafka's 1 GiB, so the log on disk stays near the snapshot bound
 * @param maxBatchBytes             {@code insync.metadata.max.batch.bytes} (8 MiB): the largest encoded batch
 *                                  (one operation's records) this node appends
 * @param controllerConfig          the controller's own settings ({@code broker.session.timeout.ms}, ...), with
 *                                  its snapshot offers off: this log snapshots by itself
 */
public record RatisControllerConfig(int nodeId, List<QuorumVoter> voters, List<String> bootstrapServers,
                                    Path metadataLogDir, long electionTimeoutMs, long fetchTimeoutMs,
                                    long brokerHeartbeatIntervalMs, SnapshotPolicy snapshotPolicy, long segmentBytes,
                                    int maxBatchBytes, ControllerConfig controllerConfig) {

    public static final String NODE_ID = "node.id";
    public static final String PROCESS_ROLES = "process.roles";
    public static final String CONTROLLER_QUORUM_VOTERS = "controller.quorum.voters";
    public static final String CONTROLLER_QUORUM_BOOTSTRAP_SERVERS = "controller.quorum.bootstrap.servers";
    public static final String METADATA_LOG_DIR = "metadata.log.dir";
    public static final String CONTROLLER_QUORUM_ELECTION_TIMEOUT_MS = "controller.quorum.election.timeout.ms";
    public static final String CONTROLLER_QUORUM_FETCH_TIMEOUT_MS = "controller.quorum.fetch.timeout.ms";
    public static final String BROKER_HEARTBEAT_INTERVAL_MS = "broker.heartbeat.interval.ms";
    public static final String METADATA_LOG_SEGMENT_BYTES = "metadata.log.segment.bytes";
    public static final String METADATA_MAX_BATCH_BYTES = "insync.metadata.max.batch.bytes";

    /** Kafka's defaults. */
    public static final long DEFAULT_ELECTION_TIMEOUT_MS = 1000;
    public static final long DEFAULT_FETCH_TIMEOUT_MS = 2000;
    public static final long DEFAULT_BROKER_HEARTBEAT_INTERVAL_MS = 2000;
    public static final long DEFAULT_SEGMENT_BYTES = 32L * 1024 * 1024;
    public static final int DEFAULT_MAX_BATCH_BYTES = 8 * 1024 * 1024;

    /** Validates; immutable copies. */
    public RatisControllerConfig {
        voters = List.copyOf(voters);
        bootstrapServers = List.copyOf(bootstrapServers);
        Objects.requireNonNull(metadataLogDir, METADATA_LOG_DIR);
        Objects.requireNonNull(snapshotPolicy, "snapshotPolicy");
        Objects.requireNonNull(controllerConfig, "controllerConfig");
        if (voters.size() != 1 && voters.size() != 3 && voters.size() != 5) {
            throw new IllegalArgumentException(CONTROLLER_QUORUM_VOTERS + " must name 1, 3 or 5 controllers (2f+1), got "
                    + voters.size() + ": " + voters);
        }
        if (voters.stream().noneMatch(v -> v.nodeId() == nodeId)) {
            throw new IllegalArgumentException(NODE_ID + " " + nodeId + " is not one of " + CONTROLLER_QUORUM_VOTERS + " "
                    + voters);
        }
        for (String server : bootstrapServers) {
            if (voters.stream().noneMatch(v -> v.address().equals(server))) {
                throw new IllegalArgumentException(CONTROLLER_QUORUM_BOOTSTRAP_SERVERS + " entry " + server
                        + " is not a voter's address; dynamic quorums are not supported, list the voters in "
                        + CONTROLLER_QUORUM_VOTERS);
            }
        }
        requirePositive(CONTROLLER_QUORUM_ELECTION_TIMEOUT_MS, electionTimeoutMs);
        requirePositive(CONTROLLER_QUORUM_FETCH_TIMEOUT_MS, fetchTimeoutMs);
        requirePositive(BROKER_HEARTBEAT_INTERVAL_MS, brokerHeartbeatIntervalMs);
        if (brokerHeartbeatIntervalMs >= controllerConfig.brokerSessionTimeoutMs()) {
            throw new IllegalArgumentException(BROKER_HEARTBEAT_INTERVAL_MS + " (" + brokerHeartbeatIntervalMs
                    + ") must be below " + ControllerConfig.BROKER_SESSION_TIMEOUT_MS + " ("
                    + controllerConfig.brokerSessionTimeoutMs() + ")");
        }
        if (segmentBytes < 64 * 1024) {
            throw new IllegalArgumentException(METADATA_LOG_SEGMENT_BYTES + " must be at least 65536, got " + segmentBytes);
        }
        if (maxBatchBytes < 1024) {
            throw new IllegalArgumentException(METADATA_MAX_BATCH_BYTES + " must be at least 1024, got " + maxBatchBytes);
        }
    }

    private static void requirePositive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }

    /** This node's voter entry. */
    public QuorumVoter self() {
        return voters.stream().filter(v -> v.nodeId() == nodeId).findFirst().orElseThrow();
    }

    /**
     * Parses Kafka-style properties (values as strings or numbers). Required: {@code node.id},
     * {@code process.roles=controller}, {@code controller.quorum.voters}, {@code metadata.log.dir}.
     *
     * @throws IllegalArgumentException naming the property that is missing or wrong
     */
    public static RatisControllerConfig fromProperties(Map<String, ?> props) {
        Objects.requireNonNull(props, "props");
        String roles = required(props, PROCESS_ROLES).trim();
        if (!roles.equals("controller")) {
            throw new IllegalArgumentException(PROCESS_ROLES + " must be 'controller' for a controller node, got '" + roles
                    + "' (combined broker,controller processes are not supported)");
        }
        int nodeId = (int) longValue(props, NODE_ID, -1);
        if (!props.containsKey(NODE_ID)) {
            throw new IllegalArgumentException(NODE_ID + " is required");
        }
        if (!props.containsKey(CONTROLLER_QUORUM_VOTERS)) {
            throw new IllegalArgumentException(CONTROLLER_QUORUM_VOTERS + " is required"
                    + (props.containsKey(CONTROLLER_QUORUM_BOOTSTRAP_SERVERS)
                    ? " (" + CONTROLLER_QUORUM_BOOTSTRAP_SERVERS + " alone needs a dynamic quorum, which is not supported)" : ""));
        }
        List<QuorumVoter> voters = QuorumVoter.parseVoters(props.get(CONTROLLER_QUORUM_VOTERS).toString());
        List<String> bootstrap = new ArrayList<>();
        Object b = props.get(CONTROLLER_QUORUM_BOOTSTRAP_SERVERS);
        if (b != null && !b.toString().isBlank()) {
            for (String s : b.toString().split(",")) {
                String[] hp = QuorumVoter.parseHostPort(s.trim(), CONTROLLER_QUORUM_BOOTSTRAP_SERVERS);
                bootstrap.add(hp[0] + ":" + hp[1]);
            }
        }
        Path dir = Path.of(required(props, METADATA_LOG_DIR));
        SnapshotPolicy d = SnapshotPolicy.DEFAULT;
        SnapshotPolicy policy = new SnapshotPolicy(
                longValue(props, SnapshotPolicy.MAX_RECORD_BYTES_BETWEEN_SNAPSHOTS, d.maxRecordBytesBetweenSnapshots()),
                longValue(props, SnapshotPolicy.MAX_SNAPSHOT_INTERVAL_MS, d.maxSnapshotIntervalMs()),
                longValue(props, SnapshotPolicy.MAX_SNAPSHOT_INTERVAL_RECORDS, d.maxSnapshotIntervalRecords()));
        long maxBatch = longValue(props, METADATA_MAX_BATCH_BYTES, DEFAULT_MAX_BATCH_BYTES);
        if (maxBatch > Integer.MAX_VALUE / 4) {
            throw new IllegalArgumentException(METADATA_MAX_BATCH_BYTES + " is too large: " + maxBatch);
        }
        ControllerConfig controller = ControllerConfig.fromProperties(props).withSnapshotIntervalRecords(0);
        return new RatisControllerConfig(nodeId, voters, bootstrap, dir,
                longValue(props, CONTROLLER_QUORUM_ELECTION_TIMEOUT_MS, DEFAULT_ELECTION_TIMEOUT_MS),
                longValue(props, CONTROLLER_QUORUM_FETCH_TIMEOUT_MS, DEFAULT_FETCH_TIMEOUT_MS),
                longValue(props, BROKER_HEARTBEAT_INTERVAL_MS, DEFAULT_BROKER_HEARTBEAT_INTERVAL_MS),
                policy,
                longValue(props, METADATA_LOG_SEGMENT_BYTES, DEFAULT_SEGMENT_BYTES),
                (int) maxBatch,
                controller);
    }

    private static String required(Map<String, ?> props, String name) {
        Object v = props.get(name);
        if (v == null || v.toString().isBlank()) {
            throw new IllegalArgumentException(name + " is required");
        }
        return v.toString();
    }

    private static long longValue(Map<String, ?> props, String name, long defaultValue) {
        Object v = props.get(name);
        if (v == null) {
            return defaultValue;
        }
        try {
            return v instanceof Number n ? n.longValue() : Long.parseLong(v.toString().trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a number, got '" + v + "'");
        }
    }
}
