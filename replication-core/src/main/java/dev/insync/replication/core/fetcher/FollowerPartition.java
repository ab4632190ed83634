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

package dev.insync.replication.core.fetcher;

import dev.insync.replication.log.LogAppendInfo;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.epoch.EpochEndOffset;
import dev.insync.replication.log.record.MemoryRecords;

import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;

/**
 * What a fetcher needs from the broker about one partition it follows: the local log's offsets and
 * epochs, and the follower-side mutations. The broker implements it over its {@code Partition} (so
 * the partition's lock and bookkeeping apply); {@link LogFollowerPartition} implements it directly
 * over a {@code Log}. Any method may throw {@link dev.insync.replication.log.ApiException} (e.g.
 * {@code KAFKA_STORAGE_ERROR}); the fetcher then marks only this partition failed (FOL-6).
 */
public interface FollowerPartition {

    /** The partition. */
    TopicPartition topicPartition();

    /**
     * The id of the topic this replica belongs to, sent in every fetch so that the leader of a topic
     * of the same name created again refuses it (FET-2); empty if unknown (then none is sent).
     */
    default Optional<UUID> topicId() {
        return Optional.empty();
    }

    /** The local log start offset, sent in every fetch (FOL-3). */
    long logStartOffset();

    /** The local LEO. */
    long logEndOffset();

    /** The local high watermark. */
    long highWatermark();

    /** The epoch of the latest epoch-cache entry; empty if the log has no epoch information (FOL-7). */
    OptionalInt latestEpoch();

    /**
     * FOL-8: the largest epoch this log knows at or below {@code epoch} and the offset where it
     * ends (the next epoch's start, or the LEO for the latest epoch); for an epoch below every known
     * one, {@code (epoch, start of the first epoch)}; empty if the log has no epoch information or
     * {@code epoch} is above every epoch it knows (Kafka's {@code UnifiedLog.endOffsetForEpoch}).
     */
    Optional<EpochEndOffset> endOffsetForEpoch(int epoch);

    /** FOL-4: appends the leader's batches as they are (LOG-4). */
    LogAppendInfo appendRecordsAsFollower(MemoryRecords records);

    /** LOG-6 truncation; the HW is clamped to the new LEO. */
    void truncateTo(long offset);

    /** LOG-6: empties the log and starts it at {@code offset}. */
    void truncateFullyAndStartAt(long offset);

    /**
     * FOL-5: sets the follower HW to {@code leaderHighWatermark} clamped to [logStart, LEO], even
     * when that is lower than the current HW; returns the HW now in force.
     */
    long updateFollowerHighWatermark(long leaderHighWatermark);

    /** LOG-10: moves the log start offset up to the leader's, bounded by this log. */
    void maybeIncrementLogStartOffset(long leaderLogStartOffset);
}
