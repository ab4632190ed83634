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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Immutable broker-wide replication settings, with Kafka's property names and defaults (the contract's
 * table). Build one from a map of Kafka properties ({@link #fromProperties(Map)}; values may be
 * strings, numbers or booleans) or with a {@link #builder()}. Every value is validated on
 * construction; a bad one fails with an {@link IllegalArgumentException} that names the property.
 * Unknown property names are not an error: they are logged once per name and reported by
 * {@link #ignoredProperties()}.
 *
 * <p>Properties that are not Kafka's (Insync-only tuning knobs) carry the prefix {@code insync.}.
 * The log-level properties ({@code segment.bytes}, ...) are gathered into {@link #logConfig()}.
 * {@code min.insync.replicas} here is the broker default; per-topic run-time overrides live in
 * {@link TopicConfigs}.
 */
public final class ReplicationConfig {

    private static final Logger log = LoggerFactory.getLogger(ReplicationConfig.class);

    /** Unknown names already warned about, so a name is logged once per JVM, not per broker. */
    private static final Set<String> WARNED_UNKNOWN = Collections.synchronizedSet(new TreeSet<>());

    public static final String REPLICA_LAG_TIME_MAX_MS = "replica.lag.time.max.ms";
    public static final String REPLICA_FETCH_WAIT_MAX_MS = "replica.fetch.wait.max.ms";
    public static final String REPLICA_FETCH_MIN_BYTES = "replica.fetch.min.bytes";
    public static final String REPLICA_FETCH_MAX_BYTES = "replica.fetch.max.bytes";
    public static final String REPLICA_FETCH_RESPONSE_MAX_BYTES = "replica.fetch.response.max.bytes";
    public static final String REPLICA_FETCH_BACKOFF_MS = "replica.fetch.backoff.ms";
    public static final String NUM_REPLICA_FETCHERS = "num.replica.fetchers";
    public static final String REPLICA_HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS = "replica.high.watermark.checkpoint.interval.ms";
    public static final String MIN_INSYNC_REPLICAS = "min.insync.replicas";
    public static final String UNCLEAN_LEADER_ELECTION_ENABLE = "unclean.leader.election.enable";
    public static final String BROKER_HEARTBEAT_INTERVAL_MS = "broker.heartbeat.interval.ms";
    public static final String BROKER_SESSION_TIMEOUT_MS = "broker.session.timeout.ms";
    /** The default timeout of an acks=all produce call (PRO-3, PRO-5); Kafka's client {@code request.timeout.ms}. */
    public static final String REQUEST_TIMEOUT_MS = "request.timeout.ms";
    /** Insync-only: backoff before resending an AlterPartition request after a request-level error (ISR-5). */
    public static final String ALTER_PARTITION_RETRY_BACKOFF_MS = "insync.alter.partition.retry.backoff.ms";
    /** Insync-only: backoff between broker registration attempts and after a failed heartbeat (LDR-4). */
    public static final String BROKER_REGISTRATION_RETRY_BACKOFF_MS = "insync.broker.registration.retry.backoff.ms";
    /** Insync-only: whether followers fetch in fetch sessions and leaders keep them (FET-7, KIP-227). */
    public static final String FETCH_SESSIONS_ENABLED = "insync.fetch.sessions.enabled";
    /** Kafka's: how many fetch sessions a leader keeps at most (FET-7). */
    public static final String MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS = "max.incremental.fetch.session.cache.slots";

    public static final String SEGMENT_BYTES = "segment.bytes";
    public static final String SEGMENT_INDEX_BYTES = "segment.index.bytes";
    public static final String INDEX_INTERVAL_BYTES = "index.interval.bytes";
    public static final String MAX_MESSAGE_BYTES = "max.message.bytes";
    public static final String FLUSH_MESSAGES = "flush.messages";
    public static final String FLUSH_MS = "flush.ms";
    public static final String RETENTION_MS = "retention.ms";
    public static final String RETENTION_BYTES = "retention.bytes";

    /** Default of {@link #ALTER_PARTITION_RETRY_BACKOFF_MS}: short, since requests never time out (ISR-5). */
    public static final long DEFAULT_ALTER_PARTITION_RETRY_BACKOFF_MS = 50L;
    /** Default of {@link #BROKER_REGISTRATION_RETRY_BACKOFF_MS}. */
    public static final long DEFAULT_BROKER_REGISTRATION_RETRY_BACKOFF_MS = 100L;

    private static final Set<String> KNOWN = Set.of(
            REPLICA_LAG_TIME_MAX_MS, REPLICA_FETCH_WAIT_MAX_MS, REPLICA_FETCH_MIN_BYTES, REPLICA_FETCH_MAX_BYTES,
            REPLICA_FETCH_RESPONSE_MAX_BYTES, REPLICA_FETCH_BACKOFF_MS, NUM_REPLICA_FETCHERS,
            REPLICA_HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS, MIN_INSYNC_REPLICAS, UNCLEAN_LEADER_ELECTION_ENABLE,
            BROKER_HEARTBEAT_INTERVAL_MS, BROKER_SESSION_TIMEOUT_MS, REQUEST_TIMEOUT_MS,
            ALTER_PARTITION_RETRY_BACKOFF_MS, BROKER_REGISTRATION_RETRY_BACKOFF_MS,
            FETCH_SESSIONS_ENABLED, MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS,
            SEGMENT_BYTES, SEGMENT_INDEX_BYTES, INDEX_INTERVAL_BYTES, MAX_MESSAGE_BYTES, FLUSH_MESSAGES, FLUSH_MS,
            RETENTION_MS, RETENTION_BYTES);

    private final long replicaLagTimeMaxMs;
    private final long replicaFetchWaitMaxMs;
    private final int replicaFetchMinBytes;
    private final int replicaFetchMaxBytes;
    private final int replicaFetchResponseMaxBytes;
    private final long replicaFetchBackoffMs;
    private final int numReplicaFetchers;
    private final long replicaHighWatermarkCheckpointIntervalMs;
    private final int minInsyncReplicas;
    private final boolean uncleanLeaderElectionEnable;
    private final long brokerHeartbeatIntervalMs;
    private final long brokerSessionTimeoutMs;
    private final long requestTimeoutMs;
    private final long alterPartitionRetryBackoffMs;
    private final long brokerRegistrationRetryBackoffMs;
    private final boolean fetchSessionsEnabled;
    private final int fetchSessionCacheSlots;
    private final LogConfig logConfig;
    private final Set<String> ignoredProperties;

    private ReplicationConfig(Builder b) {
        replicaLagTimeMaxMs = atLeast(REPLICA_LAG_TIME_MAX_MS, b.replicaLagTimeMaxMs, 1);
        replicaFetchWaitMaxMs = atLeast(REPLICA_FETCH_WAIT_MAX_MS, b.replicaFetchWaitMaxMs, 0);
        replicaFetchMinBytes = (int) atLeast(REPLICA_FETCH_MIN_BYTES, b.replicaFetchMinBytes, 0);
        replicaFetchMaxBytes = (int) atLeast(REPLICA_FETCH_MAX_BYTES, b.replicaFetchMaxBytes, 0);
        replicaFetchResponseMaxBytes = (int) atLeast(REPLICA_FETCH_RESPONSE_MAX_BYTES, b.replicaFetchResponseMaxBytes, 0);
        replicaFetchBackoffMs = atLeast(REPLICA_FETCH_BACKOFF_MS, b.replicaFetchBackoffMs, 0);
        numReplicaFetchers = (int) atLeast(NUM_REPLICA_FETCHERS, b.numReplicaFetchers, 1);
        replicaHighWatermarkCheckpointIntervalMs =
                atLeast(REPLICA_HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS, b.replicaHighWatermarkCheckpointIntervalMs, 1);
        minInsyncReplicas = (int) atLeast(MIN_INSYNC_REPLICAS, b.minInsyncReplicas, 1);
        uncleanLeaderElectionEnable = b.uncleanLeaderElectionEnable;
        brokerHeartbeatIntervalMs = atLeast(BROKER_HEARTBEAT_INTERVAL_MS, b.brokerHeartbeatIntervalMs, 1);
        brokerSessionTimeoutMs = atLeast(BROKER_SESSION_TIMEOUT_MS, b.brokerSessionTimeoutMs, 1);
        requestTimeoutMs = atLeast(REQUEST_TIMEOUT_MS, b.requestTimeoutMs, 0);
        alterPartitionRetryBackoffMs = atLeast(ALTER_PARTITION_RETRY_BACKOFF_MS, b.alterPartitionRetryBackoffMs, 0);
        brokerRegistrationRetryBackoffMs =
                atLeast(BROKER_REGISTRATION_RETRY_BACKOFF_MS, b.brokerRegistrationRetryBackoffMs, 0);
        fetchSessionsEnabled = b.fetchSessionsEnabled;
        fetchSessionCacheSlots = (int) atLeast(MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS, b.fetchSessionCacheSlots, 0);
        logConfig = new LogConfig(
                (int) atLeast(SEGMENT_BYTES, b.segmentBytes, 14),
                (int) atLeast(SEGMENT_INDEX_BYTES, b.segmentIndexBytes, 8),
                (int) atLeast(INDEX_INTERVAL_BYTES, b.indexIntervalBytes, 0),
                (int) atLeast(MAX_MESSAGE_BYTES, b.maxMessageBytes, 0),
                atLeast(FLUSH_MESSAGES, b.flushMessages, 1),
                atLeast(FLUSH_MS, b.flushMs, 0),
                atLeast(RETENTION_MS, b.retentionMs, -1),
                atLeast(RETENTION_BYTES, b.retentionBytes, -1));
        ignoredProperties = Set.copyOf(b.ignoredProperties);
    }

    private static long atLeast(String name, long value, long min) {
        if (value < min) {
            throw new IllegalArgumentException("Invalid value " + value + " for configuration " + name
                    + ": must be at least " + min);
        }
        return value;
    }

    /** Kafka's defaults for everything. */
    public static ReplicationConfig defaults() {
        return builder().build();
    }

    /** A builder starting from Kafka's defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Parses Kafka-named properties over the defaults. Values may be {@link String}s (trimmed),
     * {@link Number}s (integral only) or {@link Boolean}s.
     *
     * @throws IllegalArgumentException naming the property for a wrong type, unparsable or out-of-range value
     */
    public static ReplicationConfig fromProperties(Map<String, ?> props) {
        Objects.requireNonNull(props, "props");
        return builder().properties(props).build();
    }

    /** A builder pre-filled with this configuration's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.replicaLagTimeMaxMs = replicaLagTimeMaxMs;
        b.replicaFetchWaitMaxMs = replicaFetchWaitMaxMs;
        b.replicaFetchMinBytes = replicaFetchMinBytes;
        b.replicaFetchMaxBytes = replicaFetchMaxBytes;
        b.replicaFetchResponseMaxBytes = replicaFetchResponseMaxBytes;
        b.replicaFetchBackoffMs = replicaFetchBackoffMs;
        b.numReplicaFetchers = numReplicaFetchers;
        b.replicaHighWatermarkCheckpointIntervalMs = replicaHighWatermarkCheckpointIntervalMs;
        b.minInsyncReplicas = minInsyncReplicas;
        b.uncleanLeaderElectionEnable = uncleanLeaderElectionEnable;
        b.brokerHeartbeatIntervalMs = brokerHeartbeatIntervalMs;
        b.brokerSessionTimeoutMs = brokerSessionTimeoutMs;
        b.requestTimeoutMs = requestTimeoutMs;
        b.alterPartitionRetryBackoffMs = alterPartitionRetryBackoffMs;
        b.brokerRegistrationRetryBackoffMs = brokerRegistrationRetryBackoffMs;
        b.fetchSessionsEnabled = fetchSessionsEnabled;
        b.fetchSessionCacheSlots = fetchSessionCacheSlots;
        b.logConfig(logConfig);
        b.ignoredProperties.addAll(ignoredProperties);
        return b;
    }

    /** {@code replica.lag.time.max.ms}: how long a follower may go without catching up before it leaves the ISR (ISR-1). */
    public long replicaLagTimeMaxMs() {
        return replicaLagTimeMaxMs;
    }

    /** ISR-1: the shrink task's period, half the lag time (at least 1 ms). */
    public long isrExpirationIntervalMs() {
        return Math.max(1L, replicaLagTimeMaxMs / 2);
    }

    /** {@code replica.fetch.wait.max.ms}: a follower fetch's maxWaitMs (FOL-3). */
    public long replicaFetchWaitMaxMs() {
        return replicaFetchWaitMaxMs;
    }

    /** {@code replica.fetch.min.bytes}: a follower fetch's minBytes (FOL-3). */
    public int replicaFetchMinBytes() {
        return replicaFetchMinBytes;
    }

    /** {@code replica.fetch.max.bytes}: per-partition maxBytes of a follower fetch (FOL-3). */
    public int replicaFetchMaxBytes() {
        return replicaFetchMaxBytes;
    }

    /** {@code replica.fetch.response.max.bytes}: the whole follower fetch's maxBytes (FOL-3). */
    public int replicaFetchResponseMaxBytes() {
        return replicaFetchResponseMaxBytes;
    }

    /** {@code replica.fetch.backoff.ms} (FOL-2, FOL-6). */
    public long replicaFetchBackoffMs() {
        return replicaFetchBackoffMs;
    }

    /** {@code num.replica.fetchers}: fetchers per leader broker (FOL-1), at least 1. */
    public int numReplicaFetchers() {
        return numReplicaFetchers;
    }

    /** {@code replica.high.watermark.checkpoint.interval.ms} (HW-5). */
    public long replicaHighWatermarkCheckpointIntervalMs() {
        return replicaHighWatermarkCheckpointIntervalMs;
    }

    /** {@code min.insync.replicas}: the broker default, at least 1; topics may override it in {@link TopicConfigs}. */
    public int minInsyncReplicas() {
        return minInsyncReplicas;
    }

    /** {@code unclean.leader.election.enable} (ISR-8). */
    public boolean uncleanLeaderElectionEnable() {
        return uncleanLeaderElectionEnable;
    }

    /** {@code broker.heartbeat.interval.ms} (LDR-4). */
    public long brokerHeartbeatIntervalMs() {
        return brokerHeartbeatIntervalMs;
    }

    /** {@code broker.session.timeout.ms} (LDR-4, ISR-7). */
    public long brokerSessionTimeoutMs() {
        return brokerSessionTimeoutMs;
    }

    /** {@code request.timeout.ms}: default timeout of an acks=all produce call (PRO-3). */
    public long requestTimeoutMs() {
        return requestTimeoutMs;
    }

    /** {@value #ALTER_PARTITION_RETRY_BACKOFF_MS} (ISR-5). */
    public long alterPartitionRetryBackoffMs() {
        return alterPartitionRetryBackoffMs;
    }

    /** {@value #BROKER_REGISTRATION_RETRY_BACKOFF_MS} (LDR-4). */
    public long brokerRegistrationRetryBackoffMs() {
        return brokerRegistrationRetryBackoffMs;
    }

    /** The log settings ({@code segment.bytes}, {@code index.interval.bytes}, ...). */
    public LogConfig logConfig() {
        return logConfig;
    }

    /** Property names given to {@link #fromProperties(Map)} that this library does not know. */
    public Set<String> ignoredProperties() {
        return ignoredProperties;
    }

    /**
     * {@code insync.fetch.sessions.enabled} (default true, as in Kafka): followers fetch in incremental
     * fetch sessions and a leader keeps them (FET-7); off, every fetch lists every partition, as before
     * KIP-227.
     */
    public boolean fetchSessionsEnabled() {
        return fetchSessionsEnabled;
    }

    /** {@code max.incremental.fetch.session.cache.slots} (default 1000): a leader's bound on open fetch sessions (FET-7). */
    public int fetchSessionCacheSlots() {
        return fetchSessionCacheSlots;
    }

    /** All settings by Kafka property name, values as typed (for logging and {@code describe}). */
    public Map<String, Object> asProperties() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(REPLICA_LAG_TIME_MAX_MS, replicaLagTimeMaxMs);
        m.put(REPLICA_FETCH_WAIT_MAX_MS, replicaFetchWaitMaxMs);
        m.put(REPLICA_FETCH_MIN_BYTES, replicaFetchMinBytes);
        m.put(REPLICA_FETCH_MAX_BYTES, replicaFetchMaxBytes);
        m.put(REPLICA_FETCH_RESPONSE_MAX_BYTES, replicaFetchResponseMaxBytes);
        m.put(REPLICA_FETCH_BACKOFF_MS, replicaFetchBackoffMs);
        m.put(NUM_REPLICA_FETCHERS, numReplicaFetchers);
        m.put(REPLICA_HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS, replicaHighWatermarkCheckpointIntervalMs);
        m.put(MIN_INSYNC_REPLICAS, minInsyncReplicas);
        m.put(UNCLEAN_LEADER_ELECTION_ENABLE, uncleanLeaderElectionEnable);
        m.put(BROKER_HEARTBEAT_INTERVAL_MS, brokerHeartbeatIntervalMs);
        m.put(BROKER_SESSION_TIMEOUT_MS, brokerSessionTimeoutMs);
        m.put(REQUEST_TIMEOUT_MS, requestTimeoutMs);
        m.put(ALTER_PARTITION_RETRY_BACKOFF_MS, alterPartitionRetryBackoffMs);
        m.put(BROKER_REGISTRATION_RETRY_BACKOFF_MS, brokerRegistrationRetryBackoffMs);
        m.put(FETCH_SESSIONS_ENABLED, fetchSessionsEnabled);
        m.put(MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS, fetchSessionCacheSlots);
        m.put(SEGMENT_BYTES, logConfig.segmentBytes());
        m.put(SEGMENT_INDEX_BYTES, logConfig.segmentIndexBytes());
        m.put(INDEX_INTERVAL_BYTES, logConfig.indexIntervalBytes());
        m.put(MAX_MESSAGE_BYTES, logConfig.maxMessageBytes());
        m.put(FLUSH_MESSAGES, logConfig.flushMessages());
        m.put(FLUSH_MS, logConfig.flushMs());
        m.put(RETENTION_MS, logConfig.retentionMs());
        m.put(RETENTION_BYTES, logConfig.retentionBytes());
        return Collections.unmodifiableMap(m);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ReplicationConfig other && asProperties().equals(other.asProperties());
    }

    @Override
    public int hashCode() {
        return asProperties().hashCode();
    }

    @Override
    public String toString() {
        return "ReplicationConfig" + asProperties();
    }

    /** Mutable builder; {@link #build()} validates. Starts from Kafka's defaults. */
    public static final class Builder {
        private long replicaLagTimeMaxMs = 30_000L;
        private long replicaFetchWaitMaxMs = 500L;
        private long replicaFetchMinBytes = 1;
        private long replicaFetchMaxBytes = 1_048_576;
        private long replicaFetchResponseMaxBytes = 10_485_760;
        private long replicaFetchBackoffMs = 1_000L;
        private long numReplicaFetchers = 1;
        private long replicaHighWatermarkCheckpointIntervalMs = 5_000L;
        private long minInsyncReplicas = 1;
        private boolean uncleanLeaderElectionEnable = false;
        private long brokerHeartbeatIntervalMs = 2_000L;
        private long brokerSessionTimeoutMs = 9_000L;
        private long requestTimeoutMs = 30_000L;
        private long alterPartitionRetryBackoffMs = DEFAULT_ALTER_PARTITION_RETRY_BACKOFF_MS;
        private long brokerRegistrationRetryBackoffMs = DEFAULT_BROKER_REGISTRATION_RETRY_BACKOFF_MS;
        private boolean fetchSessionsEnabled = true;
        private long fetchSessionCacheSlots = 1000;
        private long segmentBytes;
        private long segmentIndexBytes;
        private long indexIntervalBytes;
        private long maxMessageBytes;
        private long flushMessages;
        private long flushMs;
        private long retentionMs;
        private long retentionBytes;
        private final Set<String> ignoredProperties = new TreeSet<>();

        private Builder() {
            logConfig(LogConfig.defaults());
        }

        /**
         * Applies Kafka-named properties; unknown names are remembered and logged once.
         *
         * @throws IllegalArgumentException naming the property for a wrong type or unparsable value
         */
        public Builder properties(Map<String, ?> props) {
            for (Map.Entry<String, ?> e : props.entrySet()) {
                set(Objects.requireNonNull(e.getKey(), "property name"), e.getValue());
            }
            return this;
        }

        /** Sets one Kafka-named property (see {@link #properties(Map)}). */
        public Builder set(String name, Object value) {
            if (!KNOWN.contains(name)) {
                ignoredProperties.add(name);
                if (WARNED_UNKNOWN.add(name)) {
                    log.warn("Ignoring unknown replication configuration property '{}'", name);
                }
                return this;
            }
            if (value == null) {
                throw new IllegalArgumentException("Missing value for configuration " + name);
            }
            switch (name) {
                case REPLICA_LAG_TIME_MAX_MS -> replicaLagTimeMaxMs = asLong(name, value);
                case REPLICA_FETCH_WAIT_MAX_MS -> replicaFetchWaitMaxMs = asLong(name, value);
                case REPLICA_FETCH_MIN_BYTES -> replicaFetchMinBytes = asInt(name, value);
                case REPLICA_FETCH_MAX_BYTES -> replicaFetchMaxBytes = asInt(name, value);
                case REPLICA_FETCH_RESPONSE_MAX_BYTES -> replicaFetchResponseMaxBytes = asInt(name, value);
                case REPLICA_FETCH_BACKOFF_MS -> replicaFetchBackoffMs = asLong(name, value);
                case NUM_REPLICA_FETCHERS -> numReplicaFetchers = asInt(name, value);
                case REPLICA_HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS ->
                        replicaHighWatermarkCheckpointIntervalMs = asLong(name, value);
                case MIN_INSYNC_REPLICAS -> minInsyncReplicas = asInt(name, value);
                case UNCLEAN_LEADER_ELECTION_ENABLE -> uncleanLeaderElectionEnable = asBoolean(name, value);
                case BROKER_HEARTBEAT_INTERVAL_MS -> brokerHeartbeatIntervalMs = asLong(name, value);
                case BROKER_SESSION_TIMEOUT_MS -> brokerSessionTimeoutMs = asLong(name, value);
                case REQUEST_TIMEOUT_MS -> requestTimeoutMs = asLong(name, value);
                case ALTER_PARTITION_RETRY_BACKOFF_MS -> alterPartitionRetryBackoffMs = asLong(name, value);
                case BROKER_REGISTRATION_RETRY_BACKOFF_MS -> brokerRegistrationRetryBackoffMs = asLong(name, value);
                case FETCH_SESSIONS_ENABLED -> fetchSessionsEnabled = asBoolean(name, value);
                case MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS -> fetchSessionCacheSlots = asInt(name, value);
                case SEGMENT_BYTES -> segmentBytes = asInt(name, value);
                case SEGMENT_INDEX_BYTES -> segmentIndexBytes = asInt(name, value);
                case INDEX_INTERVAL_BYTES -> indexIntervalBytes = asInt(name, value);
                case MAX_MESSAGE_BYTES -> maxMessageBytes = asInt(name, value);
                case FLUSH_MESSAGES -> flushMessages = asLong(name, value);
                case FLUSH_MS -> flushMs = asLong(name, value);
                case RETENTION_MS -> retentionMs = asLong(name, value);
                case RETENTION_BYTES -> retentionBytes = asLong(name, value);
                default -> throw new IllegalStateException("Known configuration " + name + " has no setter");
            }
            return this;
        }

        public Builder replicaLagTimeMaxMs(long v) { replicaLagTimeMaxMs = v; return this; }
        public Builder replicaFetchWaitMaxMs(long v) { replicaFetchWaitMaxMs = v; return this; }
        public Builder replicaFetchMinBytes(int v) { replicaFetchMinBytes = v; return this; }
        public Builder replicaFetchMaxBytes(int v) { replicaFetchMaxBytes = v; return this; }
        public Builder replicaFetchResponseMaxBytes(int v) { replicaFetchResponseMaxBytes = v; return this; }
        public Builder replicaFetchBackoffMs(long v) { replicaFetchBackoffMs = v; return this; }
        public Builder numReplicaFetchers(int v) { numReplicaFetchers = v; return this; }
        public Builder replicaHighWatermarkCheckpointIntervalMs(long v) { replicaHighWatermarkCheckpointIntervalMs = v; return this; }
        public Builder minInsyncReplicas(int v) { minInsyncReplicas = v; return this; }
        public Builder uncleanLeaderElectionEnable(boolean v) { uncleanLeaderElectionEnable = v; return this; }
        public Builder brokerHeartbeatIntervalMs(long v) { brokerHeartbeatIntervalMs = v; return this; }
        public Builder brokerSessionTimeoutMs(long v) { brokerSessionTimeoutMs = v; return this; }
        public Builder requestTimeoutMs(long v) { requestTimeoutMs = v; return this; }
        public Builder alterPartitionRetryBackoffMs(long v) { alterPartitionRetryBackoffMs = v; return this; }
        public Builder brokerRegistrationRetryBackoffMs(long v) { brokerRegistrationRetryBackoffMs = v; return this; }
        public Builder fetchSessionsEnabled(boolean v) { fetchSessionsEnabled = v; return this; }
        public Builder fetchSessionCacheSlots(int v) { fetchSessionCacheSlots = v; return this; }

        /** Replaces all log-level settings. */
        public Builder logConfig(LogConfig c) {
            segmentBytes = c.segmentBytes();
            segmentIndexBytes = c.segmentIndexBytes();
            indexIntervalBytes = c.indexIntervalBytes();
            maxMessageBytes = c.maxMessageBytes();
            flushMessages = c.flushMessages();
            flushMs = c.flushMs();
            retentionMs = c.retentionMs();
            retentionBytes = c.retentionBytes();
            return this;
        }

        /**
         * Validates and builds.
         *
         * @throws IllegalArgumentException naming the first property out of range
         */
        public ReplicationConfig build() {
            return new ReplicationConfig(this);
        }
    }

    static long asLong(String name, Object value) {
        return parse(name, value, "a long", s -> Long.parseLong(s));
    }

    static int asInt(String name, Object value) {
        long v = parse(name, value, "an int", s -> Long.parseLong(s));
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("Invalid value " + value + " for configuration " + name
                    + ": does not fit in an int");
        }
        return (int) v;
    }

    private static long parse(String name, Object value, String expected, Function<String, Long> parser) {
        if (value instanceof Byte || value instanceof Short || value instanceof Integer || value instanceof Long) {
            return ((Number) value).longValue();
        }
        if (value instanceof Number n) {
            double d = n.doubleValue();
            if (d == Math.rint(d) && !Double.isInfinite(d) && Math.abs(d) <= (double) Long.MAX_VALUE) {
                return n.longValue();
            }
            throw new IllegalArgumentException("Invalid value " + value + " for configuration " + name
                    + ": expected " + expected + ", not a fraction");
        }
        if (value instanceof String s) {
            try {
                return parser.apply(s.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("Invalid value '" + s + "' for configuration " + name
                        + ": expected " + expected, e);
            }
        }
        throw new IllegalArgumentException("Invalid value " + value + " for configuration " + name
                + ": expected " + expected + ", got " + value.getClass().getSimpleName());
    }

    static boolean asBoolean(String name, Object value) {
        if (value instanceof Boolean b) {
            return b;
        }
        if (value instanceof String s) {
            String t = s.trim();
            if (t.equalsIgnoreCase("true")) {
                return true;
            }
            if (t.equalsIgnoreCase("false")) {
                return false;
            }
            throw new IllegalArgumentException("Invalid value '" + s + "' for configuration " + name
                    + ": expected true or false");
        }
        throw new IllegalArgumentException("Invalid value " + value + " for configuration " + name
                + ": expected a boolean, got " + value.getClass().getSimpleName());
    }
}
