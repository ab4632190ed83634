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

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-topic overrides of {@code min.insync.replicas}, changeable at run time without a restart
 * (SCN-2: lowering it from 3 to 2 lets the next acks=all produce succeed). Owned by a broker's
 * {@code ReplicaManager}; a {@code Partition} asks for its topic's value on every check (PRO-2,
 * PRO-3, HW-2), so a change takes effect on the next produce or HW evaluation. Thread-safe: reads
 * and writes may come from any thread.
 */
public final class TopicConfigs {

    private final int defaultMinInsyncReplicas;
    private final Map<String, Integer> minIsrOverrides = new ConcurrentHashMap<>();

    /** @param defaultMinInsyncReplicas the broker default, from {@link ReplicationConfig#minInsyncReplicas()} */
    public TopicConfigs(int defaultMinInsyncReplicas) {
        this.defaultMinInsyncReplicas = requireMinIsr("(broker default)", defaultMinInsyncReplicas);
    }

    /** With the broker default of {@code config}. */
    public TopicConfigs(ReplicationConfig config) {
        this(config.minInsyncReplicas());
    }

    /** The topic's {@code min.insync.replicas}: its override, else the broker default. */
    public int minInsyncReplicas(String topic) {
        Integer override = minIsrOverrides.get(Objects.requireNonNull(topic, "topic"));
        return override != null ? override : defaultMinInsyncReplicas;
    }

    /**
     * HW-2 / PRO-2 / PRO-3: the effective min ISR, {@code min(min.insync.replicas, replicaCount)}, so
     * that a topic with fewer replicas than its setting is not blocked for ever. The one formula for
     * it: the broker's partitions and the controllers (ELR, ISR-7) all call this.
     *
     * @param minInsyncReplicas the topic's {@code min.insync.replicas}, at least 1
     * @param replicaCount      the number of assigned replicas, at least 0
     * @throws IllegalArgumentException for values outside those bounds
     */
    public static int effectiveMinIsr(int minInsyncReplicas, int replicaCount) {
        if (minInsyncReplicas < 1) {
            throw new IllegalArgumentException("Invalid " + ReplicationConfig.MIN_INSYNC_REPLICAS + " "
                    + minInsyncReplicas + ": must be at least 1");
        }
        if (replicaCount < 0) {
            throw new IllegalArgumentException("Negative replica count " + replicaCount);
        }
        return Math.min(minInsyncReplicas, replicaCount);
    }

    /**
     * Sets the topic's {@code min.insync.replicas}; takes effect on the next check.
     *
     * @throws IllegalArgumentException if {@code minInsyncReplicas < 1}; nothing changes then
     */
    public void setMinInsyncReplicas(String topic, int minInsyncReplicas) {
        Objects.requireNonNull(topic, "topic");
        minIsrOverrides.put(topic, requireMinIsr(topic, minInsyncReplicas));
    }

    /**
     * Applies topic-level Kafka properties; only {@code min.insync.replicas} is taken, other names
     * are ignored here (log-level topic settings are the log's business).
     *
     * @throws IllegalArgumentException naming the topic and property for a bad value; nothing changes then
     */
    public void applyTopicProperties(String topic, Map<String, ?> props) {
        Object v = props.get(ReplicationConfig.MIN_INSYNC_REPLICAS);
        if (v != null) {
            int minIsr;
            try {
                minIsr = ReplicationConfig.asInt(ReplicationConfig.MIN_INSYNC_REPLICAS, v);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("Topic " + topic + ": " + e.getMessage(), e);
            }
            setMinInsyncReplicas(topic, minIsr);
        }
    }

    /** Drops the topic's override, so it falls back to the broker default. */
    public void removeOverride(String topic) {
        minIsrOverrides.remove(Objects.requireNonNull(topic, "topic"));
    }

    /** The broker default. */
    public int defaultMinInsyncReplicas() {
        return defaultMinInsyncReplicas;
    }

    private static int requireMinIsr(String topic, int value) {
        if (value < 1) {
            throw new IllegalArgumentException("Invalid value " + value + " for configuration "
                    + ReplicationConfig.MIN_INSYNC_REPLICAS + " of topic " + topic + ": must be at least 1");
        }
        return value;
    }
}
