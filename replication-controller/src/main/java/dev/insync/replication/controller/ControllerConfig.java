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

package dev.insync.replication.controller;

import java.util.Map;

/**
 * Settings of a controller node, with Kafka's property names and defaults where Kafka has them.
 *
 * @param brokerSessionTimeoutMs         {@code broker.session.timeout.ms}: an unfenced broker without a
 *                                       heartbeat for this long is fenced (LDR-4, CTL-3)
 * @param defaultMinInsyncReplicas       {@code min.insync.replicas} of topics created without their own
 * @param defaultUncleanLeaderElection   {@code unclean.leader.election.enable} of such topics (ISR-8)
 * @param defaultReplicationFactor       {@code default.replication.factor} for placed topics
 * @param snapshotIntervalRecords        {@code metadata.log.max.snapshot.interval.records}: the active
 *                                       controller stores a snapshot in the metadata log after this many
 *                                       committed records since the last one; 0 never
 * @param metadataDeltaCacheSize         {@code insync.controller.metadata.delta.cache.size}: committed deltas
 *                                       kept for broker fetches; a broker further behind gets an image
 * @param maxParkedFetches               {@code insync.controller.max.parked.fetches}: metadata long polls held
 *                                       at once; beyond that a poll is answered at once
 * @param maxPendingWrites               {@code insync.controller.max.pending.writes}: requests the active
 *                                       controller holds until their records commit; beyond that a write
 *                                       is refused with {@code REQUEST_TIMED_OUT} (retriable)
 */
public record ControllerConfig(long brokerSessionTimeoutMs, int defaultMinInsyncReplicas,
                               boolean defaultUncleanLeaderElection, int defaultReplicationFactor,
                               int snapshotIntervalRecords, int metadataDeltaCacheSize, int maxParkedFetches,
                               int maxPendingWrites) {

    public static final String BROKER_SESSION_TIMEOUT_MS = "broker.session.timeout.ms";
    public static final String MIN_INSYNC_REPLICAS = "min.insync.replicas";
    public static final String UNCLEAN_LEADER_ELECTION_ENABLE = "unclean.leader.election.enable";
    public static final String DEFAULT_REPLICATION_FACTOR = "default.replication.factor";
    public static final String SNAPSHOT_INTERVAL_RECORDS = "metadata.log.max.snapshot.interval.records";
    public static final String METADATA_DELTA_CACHE_SIZE = "insync.controller.metadata.delta.cache.size";
    public static final String MAX_PARKED_FETCHES = "insync.controller.max.parked.fetches";
    public static final String MAX_PENDING_WRITES = "insync.controller.max.pending.writes";

    /** Kafka's defaults (9000 ms session, min ISR 1, no unclean election, RF 1); snapshots every 100,000 records. */
    public static final ControllerConfig DEFAULT = new ControllerConfig(9000, 1, false, 1, 100_000, 10_000, 10_000, 10_000);

    /** Validates the values. */
    public ControllerConfig {
        if (brokerSessionTimeoutMs <= 0) {
            throw new IllegalArgumentException(BROKER_SESSION_TIMEOUT_MS + " must be positive, got " + brokerSessionTimeoutMs);
        }
        if (defaultMinInsyncReplicas < 1) {
            throw new IllegalArgumentException(MIN_INSYNC_REPLICAS + " must be at least 1, got " + defaultMinInsyncReplicas);
        }
        if (defaultReplicationFactor < 1) {
            throw new IllegalArgumentException(DEFAULT_REPLICATION_FACTOR + " must be at least 1, got " + defaultReplicationFactor);
        }
        if (snapshotIntervalRecords < 0) {
            throw new IllegalArgumentException(SNAPSHOT_INTERVAL_RECORDS + " must be >= 0, got " + snapshotIntervalRecords);
        }
        if (metadataDeltaCacheSize < 1) {
            throw new IllegalArgumentException(METADATA_DELTA_CACHE_SIZE + " must be positive, got " + metadataDeltaCacheSize);
        }
        if (maxParkedFetches < 0) {
            throw new IllegalArgumentException(MAX_PARKED_FETCHES + " must be >= 0, got " + maxParkedFetches);
        }
        if (maxPendingWrites < 1) {
            throw new IllegalArgumentException(MAX_PENDING_WRITES + " must be positive, got " + maxPendingWrites);
        }
    }

    /**
     * The defaults overridden by Kafka-style properties (numbers as numbers or strings).
     *
     * @throws IllegalArgumentException naming the property for a bad value
     */
    public static ControllerConfig fromProperties(Map<String, ?> props) {
        ControllerConfig d = DEFAULT;
        return new ControllerConfig(
                longValue(props, BROKER_SESSION_TIMEOUT_MS, d.brokerSessionTimeoutMs),
                (int) longValue(props, MIN_INSYNC_REPLICAS, d.defaultMinInsyncReplicas),
                booleanValue(props, UNCLEAN_LEADER_ELECTION_ENABLE, d.defaultUncleanLeaderElection),
                (int) longValue(props, DEFAULT_REPLICATION_FACTOR, d.defaultReplicationFactor),
                (int) longValue(props, SNAPSHOT_INTERVAL_RECORDS, d.snapshotIntervalRecords),
                (int) longValue(props, METADATA_DELTA_CACHE_SIZE, d.metadataDeltaCacheSize),
                (int) longValue(props, MAX_PARKED_FETCHES, d.maxParkedFetches),
                (int) longValue(props, MAX_PENDING_WRITES, d.maxPendingWrites));
    }

    /** The same settings with another session timeout. */
    public ControllerConfig withBrokerSessionTimeoutMs(long ms) {
        return new ControllerConfig(ms, defaultMinInsyncReplicas, defaultUncleanLeaderElection, defaultReplicationFactor,
                snapshotIntervalRecords, metadataDeltaCacheSize, maxParkedFetches, maxPendingWrites);
    }

    /** The same settings with another snapshot interval. */
    public ControllerConfig withSnapshotIntervalRecords(int records) {
        return new ControllerConfig(brokerSessionTimeoutMs, defaultMinInsyncReplicas, defaultUncleanLeaderElection,
                defaultReplicationFactor, records, metadataDeltaCacheSize, maxParkedFetches, maxPendingWrites);
    }

    /** The same settings with another delta cache size. */
    public ControllerConfig withMetadataDeltaCacheSize(int deltas) {
        return new ControllerConfig(brokerSessionTimeoutMs, defaultMinInsyncReplicas, defaultUncleanLeaderElection,
                defaultReplicationFactor, snapshotIntervalRecords, deltas, maxParkedFetches, maxPendingWrites);
    }

    /** The same settings with another bound on writes waiting for commit. */
    public ControllerConfig withMaxPendingWrites(int writes) {
        return new ControllerConfig(brokerSessionTimeoutMs, defaultMinInsyncReplicas, defaultUncleanLeaderElection,
                defaultReplicationFactor, snapshotIntervalRecords, metadataDeltaCacheSize, maxParkedFetches, writes);
    }

    private static long longValue(Map<String, ?> props, String name, long defaultValue) {
        Object v = props.get(name);
        if (v == null) {
            return defaultValue;
        }
        try {
            long value = v instanceof Number n ? n.longValue() : Long.parseLong(v.toString().trim());
            if (value > Integer.MAX_VALUE && !name.equals(BROKER_SESSION_TIMEOUT_MS)) {
                throw new IllegalArgumentException(name + " is too large: " + v);
            }
            return value;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a number, got '" + v + "'");
        }
    }

    private static boolean booleanValue(Map<String, ?> props, String name, boolean defaultValue) {
        Object v = props.get(name);
        if (v == null) {
            return defaultValue;
        }
        return switch (v.toString().trim()) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException(name + " must be true or false, got '" + v + "'");
        };
    }
}
