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

package dev.insync.replication.controller.record;

import dev.insync.replication.core.config.ReplicationConfig;

import java.util.Set;

/**
 * A topic-level config value was set: at topic creation (every known key, explicitly) or by an
 * administrator at run time. Keys and values are checked here, so an unknown key in the log is an
 * error, never ignored.
 *
 * @param topic the topic
 * @param name  {@code min.insync.replicas} (an integer >= 1) or {@code unclean.leader.election.enable}
 *              ({@code true} / {@code false})
 * @param value the value as text
 */
public record ConfigRecord(String topic, String name, String value) implements MetadataRecord {

    /** The topic configs the controller knows. */
    public static final Set<String> KNOWN_NAMES =
            Set.of(ReplicationConfig.MIN_INSYNC_REPLICAS, ReplicationConfig.UNCLEAN_LEADER_ELECTION_ENABLE);

    /** Validates the fields. */
    public ConfigRecord {
        RecordChecks.topic(topic);
        if (name == null || !KNOWN_NAMES.contains(name)) {
            throw new IllegalArgumentException("Unknown topic config '" + name + "' for topic " + topic + "; known: "
                    + KNOWN_NAMES);
        }
        if (value == null) {
            throw new IllegalArgumentException("Missing value of " + name + " for topic " + topic);
        }
        if (name.equals(ReplicationConfig.MIN_INSYNC_REPLICAS)) {
            parseMinIsr(topic, value);
        } else {
            parseBoolean(topic, name, value);
        }
    }

    /** A {@code min.insync.replicas} record. */
    public static ConfigRecord minInsyncReplicas(String topic, int value) {
        return new ConfigRecord(topic, ReplicationConfig.MIN_INSYNC_REPLICAS, Integer.toString(value));
    }

    /** An {@code unclean.leader.election.enable} record. */
    public static ConfigRecord uncleanLeaderElection(String topic, boolean value) {
        return new ConfigRecord(topic, ReplicationConfig.UNCLEAN_LEADER_ELECTION_ENABLE, Boolean.toString(value));
    }

    /** The value as an int ({@code min.insync.replicas}). */
    public int intValue() {
        return parseMinIsr(topic, value);
    }

    /** The value as a boolean ({@code unclean.leader.election.enable}). */
    public boolean booleanValue() {
        return parseBoolean(topic, name, value);
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.CONFIG;
    }

    private static int parseMinIsr(String topic, String value) {
        int minIsr;
        try {
            minIsr = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("min.insync.replicas of topic " + topic + " is not an integer: '" + value + "'");
        }
        if (minIsr < 1 || !value.equals(Integer.toString(minIsr))) {
            throw new IllegalArgumentException("min.insync.replicas of topic " + topic + " must be a canonical integer >= 1, got '"
                    + value + "'");
        }
        return minIsr;
    }

    private static boolean parseBoolean(String topic, String name, String value) {
        return switch (value) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException(name + " of topic " + topic + " must be true or false, got '"
                    + value + "'");
        };
    }
}
