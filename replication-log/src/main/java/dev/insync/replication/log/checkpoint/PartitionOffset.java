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

package dev.insync.replication.log.checkpoint;

import dev.insync.replication.log.TopicPartition;

import java.util.Objects;

/**
 * One line of a directory-level offset checkpoint ({@code replication-offset-checkpoint},
 * {@code recovery-point-offset-checkpoint}, {@code log-start-offset-checkpoint}): a partition and
 * an offset, written {@code topic partition offset} (LOG-9).
 *
 * @param topicPartition the partition
 * @param offset         the checkpointed offset, 0 or more
 */
public record PartitionOffset(TopicPartition topicPartition, long offset) {

    /** Validates the offset. */
    public PartitionOffset {
        Objects.requireNonNull(topicPartition, "topicPartition");
        if (offset < 0) {
            throw new IllegalArgumentException("Negative checkpoint offset " + offset + " for " + topicPartition);
        }
    }

    /** The {@code topic partition offset} line format. */
    public static final EntryFormat<PartitionOffset> FORMAT = new EntryFormat<>() {
        @Override
        public String format(PartitionOffset entry) {
            return entry.topicPartition.topic() + " " + entry.topicPartition.partition() + " " + entry.offset;
        }

        @Override
        public PartitionOffset parse(String line) {
            String[] fields = EntryFormat.fields(line, 3);
            TopicPartition tp = new TopicPartition(fields[0], EntryFormat.nonNegativeInt(fields[1], "partition"));
            return new PartitionOffset(tp, EntryFormat.nonNegativeLong(fields[2], "offset"));
        }
    };
}
