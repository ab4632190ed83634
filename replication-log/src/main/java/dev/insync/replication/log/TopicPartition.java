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

package dev.insync.replication.log;

import java.util.Objects;

/**
 * A partition of a topic: the unit of replication. Its {@link #toString()} is Kafka's
 * {@code <topic>-<partition>}, which is also the name of its log directory (LOG-2).
 *
 * @param topic     topic name, non-empty, without '/' or whitespace
 * @param partition partition number, 0 or more
 */
public record TopicPartition(String topic, int partition) {

    /** Validates the topic name and partition number. */
    public TopicPartition {
        Objects.requireNonNull(topic, "topic");
        if (!isValidTopicName(topic)) {
            throw new IllegalArgumentException("Invalid topic name '" + topic + "'");
        }
        if (partition < 0) {
            throw new IllegalArgumentException("Negative partition " + partition + " for topic " + topic);
        }
    }

    /** Non-empty, without '/', '\\' or whitespace; a plain loop, as a client builds one per record. */
    private static boolean isValidTopicName(String topic) {
        if (topic.isEmpty()) {
            return false;
        }
        for (int i = 0; i < topic.length(); i++) {
            char c = topic.charAt(i);
            if (c == '/' || c == '\\' || Character.isWhitespace(c)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Parses a log directory name {@code <topic>-<partition>}; the topic itself may contain dashes.
     *
     * @throws IllegalArgumentException if the name has no {@code -<number>} suffix
     */
    public static TopicPartition parse(String dirName) {
        int dash = dirName.lastIndexOf('-');
        if (dash <= 0 || dash == dirName.length() - 1) {
            throw new IllegalArgumentException("Not a <topic>-<partition> name: '" + dirName + "'");
        }
        try {
            return new TopicPartition(dirName.substring(0, dash), Integer.parseInt(dirName.substring(dash + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Not a <topic>-<partition> name: '" + dirName + "'", e);
        }
    }

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
