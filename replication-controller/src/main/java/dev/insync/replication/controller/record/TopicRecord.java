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

/**
 * A topic was created. The same batch holds its {@link ConfigRecord}s (every topic config is
 * written explicitly, so replay never depends on the controller's defaults) and one
 * {@link PartitionRecord} per partition.
 *
 * @param name            topic name (Kafka's rules: 1 to 249 of {@code [a-zA-Z0-9._-]})
 * @param partitionCount  number of partitions, at least 1
 */
public record TopicRecord(String name, int partitionCount) implements MetadataRecord {

    /** Bound on the partitions of one topic. */
    public static final int MAX_PARTITIONS = 100_000;

    /** Validates the fields. */
    public TopicRecord {
        RecordChecks.topic(name);
        if (partitionCount < 1 || partitionCount > MAX_PARTITIONS) {
            throw new IllegalArgumentException("Topic " + name + " needs 1 to " + MAX_PARTITIONS + " partitions, got "
                    + partitionCount);
        }
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.TOPIC;
    }
}
