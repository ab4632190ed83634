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

import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.FileSync;
import dev.insync.replication.log.TopicPartition;

import java.nio.file.Path;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A directory-level offset checkpoint (LOG-9): {@code replication-offset-checkpoint} (HW-5),
 * {@code recovery-point-offset-checkpoint} or {@code log-start-offset-checkpoint}, one
 * {@code topic partition offset} line per partition.
 */
public final class OffsetCheckpointFile {

    /** HW-5: the high watermark of every partition in the directory. */
    public static final String REPLICATION_OFFSET_CHECKPOINT = "replication-offset-checkpoint";
    /** The offset up to which each log is known flushed; recovery (LOG-7) starts there. */
    public static final String RECOVERY_POINT_OFFSET_CHECKPOINT = "recovery-point-offset-checkpoint";
    /** Each log's start offset (LOG-10). */
    public static final String LOG_START_OFFSET_CHECKPOINT = "log-start-offset-checkpoint";

    private final CheckpointFile<PartitionOffset> checkpoint;

    /** A durable checkpoint file ({@link FileSync#durable()}). */
    public OffsetCheckpointFile(Path file) {
        this(file, FileSync.durable());
    }

    /**
     * @param file     the checkpoint file
     * @param fileSync the owning directory's durability and fault hook
     */
    public OffsetCheckpointFile(Path file, FileSync fileSync) {
        this.checkpoint = new CheckpointFile<>(file, PartitionOffset.FORMAT, fileSync);
    }

    /** The checkpoint file. */
    public Path file() {
        return checkpoint.file();
    }

    /**
     * Atomically replaces the file with these offsets, sorted by topic then partition so the file
     * is stable and easy to read.
     *
     * @throws IllegalArgumentException if an offset is negative (the old file stays)
     * @throws ApiException             KAFKA_STORAGE_ERROR on an I/O failure
     */
    public void write(Map<TopicPartition, Long> offsets) {
        List<PartitionOffset> entries = offsets.entrySet().stream()
                .map(e -> new PartitionOffset(e.getKey(), e.getValue()))
                .sorted(Comparator.comparing((PartitionOffset p) -> p.topicPartition().topic())
                        .thenComparingInt(p -> p.topicPartition().partition()))
                .toList();
        checkpoint.write(entries);
    }

    /**
     * Reads the offsets; a missing or empty file has none. A partition listed twice is corrupt.
     *
     * @throws CorruptCheckpointException naming the file and line if the content is malformed
     * @throws ApiException               KAFKA_STORAGE_ERROR on an I/O failure
     */
    public Map<TopicPartition, Long> read() {
        List<PartitionOffset> entries = checkpoint.read();
        Map<TopicPartition, Long> offsets = new LinkedHashMap<>();
        for (int i = 0; i < entries.size(); i++) {
            PartitionOffset entry = entries.get(i);
            if (offsets.putIfAbsent(entry.topicPartition(), entry.offset()) != null) {
                // Entries start on line 3.
                throw new CorruptCheckpointException(file(), i + 3,
                        "partition " + entry.topicPartition() + " listed twice", null);
            }
        }
        return Collections.unmodifiableMap(offsets);
    }

    @Override
    public String toString() {
        return "OffsetCheckpointFile(" + file() + ")";
    }
}
