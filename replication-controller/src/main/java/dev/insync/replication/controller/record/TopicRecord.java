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

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.UUID;

/**
 * A topic was created. The same batch holds its {@link ConfigRecord}s (every topic config is
 * written explicitly, so replay never depends on the controller's defaults) and one
 * {@link PartitionRecord} per partition.
 *
 * <p>The topic id (Kafka's topic id) tells this topic apart from an earlier or later topic of the
 * same name: a broker that kept the log of a deleted topic finds a different id in the
 * metadata when the name is created again, and deletes that log instead of serving it as the new
 * topic's (see {@link RemoveTopicRecord}). Version 0 records, written before ids existed, read as
 * {@link #legacyId}.
 *
 * @param name            topic name (Kafka's rules: 1 to 249 of {@code [a-zA-Z0-9._-]})
 * @param partitionCount  number of partitions, at least 1
 * @param topicId         the id of this incarnation of the name, never the zero UUID
 */
public record TopicRecord(String name, int partitionCount, UUID topicId) implements MetadataRecord {

    /** Bound on the partitions of one topic. */
    public static final int MAX_PARTITIONS = 100_000;

    /** Validates the fields. */
    public TopicRecord {
        RecordChecks.topic(name);
        if (partitionCount < 1 || partitionCount > MAX_PARTITIONS) {
            throw new IllegalArgumentException("Topic " + name + " needs 1 to " + MAX_PARTITIONS + " partitions, got "
                    + partitionCount);
        }
        Objects.requireNonNull(topicId, "topicId");
        if (topicId.getMostSignificantBits() == 0 && topicId.getLeastSignificantBits() == 0) {
            throw new IllegalArgumentException("Topic " + name + " has the zero topic id");
        }
    }

    /** A record of a topic whose id is {@link #legacyId} (as a version 0 record reads). */
    public TopicRecord(String name, int partitionCount) {
        this(name, partitionCount, legacyId(name));
    }

    /**
     * The id of the topic {@code name} created by the record at {@code offset}: offsets are never
     * reused, so every creation gets its own id, and replay and simulation stay deterministic
     * (Kafka draws a random one; a seeded run here must give the same history every time).
     */
    public static UUID idFor(String name, long offset) {
        return UUID.nameUUIDFromBytes(("insync-topic:" + name + "@" + offset).getBytes(StandardCharsets.UTF_8));
    }

    /** The id a version 0 record (no id field) reads as: a function of the name alone. */
    public static UUID legacyId(String name) {
        return UUID.nameUUIDFromBytes(("insync-topic:" + name).getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.TOPIC;
    }
}
