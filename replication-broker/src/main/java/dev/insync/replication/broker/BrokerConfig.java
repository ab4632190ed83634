package dev.insync.replication.broker;

import dev.insync.replication.core.config.ReplicationConfig;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The settings of one {@link InsyncBroker}, from Kafka-named properties: the broker's own
 * ({@code node.id}, {@code log.dirs}, {@code log.retention.check.interval.ms}, the controller
 * client's {@code retry.backoff.ms} / {@code retry.backoff.max.ms}) and every replication setting
 * {@link ReplicationConfig} knows ({@code replica.lag.time.max.ms}, {@code broker.heartbeat.interval.ms},
 * {@code broker.session.timeout.ms}, {@code request.timeout.ms}, {@code segment.bytes}, ...). A bad
 * value fails with an {@link IllegalArgumentException} naming the property; names nobody knows are
 * logged once and listed by {@link #ignoredProperties()}.
 *
 * @param nodeId                      {@code node.id}: this broker's id, at least 0 (required)
 * @param logDirs                     {@code log.dirs} (comma-separated; Kafka's {@code log.dir} if absent):
 *                                    one log directory per disk, at least one, no repeats (required)
 * @param logRetentionCheckIntervalMs {@code log.retention.check.interval.ms} (Kafka's 300000): how often
 *                                    {@code retention.ms} / {@code retention.bytes} are applied; 0 never (ours)
 * @param retryBackoffMs              {@code retry.backoff.ms} (Kafka's 100): the controller client's backoff
 *                                    after a round in which no controller node answered
 * @param retryBackoffMaxMs           {@code retry.backoff.max.ms} (Kafka's 1000): bound of that doubling backoff
 * @param replication                 everything else: the replica manager's and lifecycle's settings
 */
public record BrokerConfig(int nodeId, List<Path> logDirs, long logRetentionCheckIntervalMs, long retryBackoffMs,
                           long retryBackoffMaxMs, ReplicationConfig replication) {

    public static final String NODE_ID = "node.id";
    public static final String LOG_DIRS = "log.dirs";
    public static final String LOG_DIR = "log.dir";
    public static final String LOG_RETENTION_CHECK_INTERVAL_MS = "log.retention.check.interval.ms";
    public static final String RETRY_BACKOFF_MS = "retry.backoff.ms";
    public static final String RETRY_BACKOFF_MAX_MS = "retry.backoff.max.ms";

    /** Kafka's {@code log.retention.check.interval.ms} default. */
    public static final long DEFAULT_LOG_RETENTION_CHECK_INTERVAL_MS = 300_000L;
    /** Kafka's {@code retry.backoff.ms} default. */
    public static final long DEFAULT_RETRY_BACKOFF_MS = 100L;
    /** Kafka's {@code retry.backoff.max.ms} default. */
    public static final long DEFAULT_RETRY_BACKOFF_MAX_MS = 1_000L;

    private static final Set<String> OWN = Set.of(NODE_ID, LOG_DIRS, LOG_DIR, LOG_RETENTION_CHECK_INTERVAL_MS,
            RETRY_BACKOFF_MS, RETRY_BACKOFF_MAX_MS);

    /** Validates; immutable copy. */
    public BrokerConfig {
        if (nodeId < 0) {
            throw new IllegalArgumentException("Invalid value " + nodeId + " for configuration " + NODE_ID
                    + ": must be at least 0");
        }
        logDirs = List.copyOf(logDirs);
        if (logDirs.isEmpty()) {
            throw new IllegalArgumentException("Broker " + nodeId + " needs at least one log directory (" + LOG_DIRS + ")");
        }
        Set<Path> seen = new HashSet<>();
        for (Path dir : logDirs) {
            if (!seen.add(dir.toAbsolutePath().normalize())) {
                throw new IllegalArgumentException("Log directory " + dir + " appears twice in " + LOG_DIRS
                        + " of broker " + nodeId);
            }
        }
        if (logRetentionCheckIntervalMs < 0) {
            throw new IllegalArgumentException("Invalid value " + logRetentionCheckIntervalMs + " for configuration "
                    + LOG_RETENTION_CHECK_INTERVAL_MS + ": must be at least 0");
        }
        if (retryBackoffMs < 0 || retryBackoffMaxMs < retryBackoffMs) {
            throw new IllegalArgumentException("Invalid " + RETRY_BACKOFF_MS + "=" + retryBackoffMs + " / "
                    + RETRY_BACKOFF_MAX_MS + "=" + retryBackoffMaxMs + ": need 0 <= backoff <= max");
        }
        Objects.requireNonNull(replication, "replication");
    }

    /**
     * Parses Kafka-named properties (values as strings, numbers or booleans).
     *
     * @throws IllegalArgumentException naming the property that is missing or bad
     */
    public static BrokerConfig fromProperties(Map<String, ?> props) {
        Objects.requireNonNull(props, "props");
        Map<String, Object> rest = new LinkedHashMap<>();
        props.forEach((name, value) -> {
            if (!OWN.contains(Objects.requireNonNull(name, "property name"))) {
                rest.put(name, value);
            }
        });
        Object id = props.get(NODE_ID);
        if (id == null) {
            throw new IllegalArgumentException("Missing required configuration " + NODE_ID);
        }
        int nodeId = (int) longValue(NODE_ID, id, Integer.MAX_VALUE);
        Object dirs = props.get(LOG_DIRS) != null ? props.get(LOG_DIRS) : props.get(LOG_DIR);
        if (dirs == null) {
            throw new IllegalArgumentException("Missing required configuration " + LOG_DIRS + " (or " + LOG_DIR + ")");
        }
        return new BrokerConfig(nodeId, paths(dirs),
                longValue(props, LOG_RETENTION_CHECK_INTERVAL_MS, DEFAULT_LOG_RETENTION_CHECK_INTERVAL_MS),
                longValue(props, RETRY_BACKOFF_MS, DEFAULT_RETRY_BACKOFF_MS),
                longValue(props, RETRY_BACKOFF_MAX_MS, DEFAULT_RETRY_BACKOFF_MAX_MS),
                ReplicationConfig.fromProperties(rest));
    }

    /** Property names given that neither the broker nor {@link ReplicationConfig} knows (logged once each). */
    public Set<String> ignoredProperties() {
        return replication.ignoredProperties();
    }

    private static List<Path> paths(Object value) {
        List<Path> out = new ArrayList<>();
        for (String part : value.toString().split(",", -1)) {
            String trimmed = part.trim();
            if (trimmed.isEmpty()) {
                throw new IllegalArgumentException("Empty entry in " + LOG_DIRS + " '" + value + "'");
            }
            try {
                out.add(Path.of(trimmed));
            } catch (InvalidPathException e) {
                throw new IllegalArgumentException("Invalid path '" + trimmed + "' in " + LOG_DIRS + ": " + e.getMessage(), e);
            }
        }
        return out;
    }

    private static long longValue(Map<String, ?> props, String name, long defaultValue) {
        Object v = props.get(name);
        return v == null ? defaultValue : longValue(name, v, Long.MAX_VALUE);
    }

    private static long longValue(String name, Object value, long max) {
        long parsed;
        if (value instanceof Byte || value instanceof Short || value instanceof Integer || value instanceof Long) {
            parsed = ((Number) value).longValue();
        } else {
            try {
                parsed = Long.parseLong(value.toString().trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("Invalid value '" + value + "' for configuration " + name
                        + ": expected a whole number", e);
            }
        }
        if (parsed > max) {
            throw new IllegalArgumentException("Invalid value " + value + " for configuration " + name + ": at most " + max);
        }
        return parsed;
    }
}
