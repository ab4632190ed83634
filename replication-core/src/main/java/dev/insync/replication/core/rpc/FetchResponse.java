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

package dev.insync.replication.core.rpc;

import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.epoch.EpochEndOffset;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.Records;

import java.util.Map;
import java.util.Optional;

/**
 * The answer to a {@link FetchRequest} (FET-6).
 *
 * @param error       request-level error ({@link Errors#NONE} normally; {@link Errors#FETCH_SESSION_ID_NOT_FOUND}
 *                    or {@link Errors#INVALID_FETCH_SESSION_EPOCH} when an incremental fetch's session is
 *                    unknown or out of step, with no partitions: the follower then opens a new one, FET-7)
 * @param partitions  per partition, in request order; for a fetch in a session, in session order, and for
 *                    an incremental one only the partitions with news for the follower (FET-7)
 * @param sessionId   the fetch session the leader keeps for the follower, {@link FetchRequest#NO_SESSION_ID}
 *                    for none (a fetch without a session, or the leader declined to open one)
 */
public record FetchResponse(Errors error, Map<TopicPartition, PartitionData> partitions, int sessionId) {

    /** Defensive copy keeps the partition order (a map from {@link #of} is already one). */
    public FetchResponse {
        partitions = OrderedPartitionMap.copyOf(partitions);
        if (sessionId < 0) {
            throw new IllegalArgumentException("Negative fetch session id " + sessionId);
        }
    }

    /** A response without a fetch session. */
    public FetchResponse(Errors error, Map<TopicPartition, PartitionData> partitions) {
        this(error, partitions, FetchRequest.NO_SESSION_ID);
    }

    /**
     * A response for the first {@code count} partitions of {@code topicPartitions} with the answer at
     * the same index, in that order; the arrays are copied, not kept.
     *
     * @throws IllegalArgumentException if a partition is listed twice
     */
    public static FetchResponse of(Errors error, TopicPartition[] topicPartitions, PartitionData[] data, int count) {
        return of(error, topicPartitions, data, count, FetchRequest.NO_SESSION_ID);
    }

    /** As {@link #of(Errors, TopicPartition[], PartitionData[], int)}, in fetch session {@code sessionId}. */
    public static FetchResponse of(Errors error, TopicPartition[] topicPartitions, PartitionData[] data, int count,
                                   int sessionId) {
        return new FetchResponse(error, OrderedPartitionMap.of(topicPartitions, data, count), sessionId);
    }

    /** How many partitions {@link #partitions()} holds. */
    public int partitionCount() {
        return partitions.size();
    }

    /** The partition at {@code index} in request order (0 to {@link #partitionCount()} - 1). */
    public TopicPartition topicPartition(int index) {
        return ((OrderedPartitionMap<PartitionData>) partitions).keyAt(index);
    }

    /** The data of the partition at {@code index} in request order. */
    public PartitionData partitionData(int index) {
        return ((OrderedPartitionMap<PartitionData>) partitions).valueAt(index);
    }

    /**
     * One partition's answer.
     *
     * @param error             partition error
     * @param highWatermark     the leader's HW
     * @param lastStableOffset  = HW (no transactions)
     * @param logStartOffset    the leader's log start offset
     * @param logEndOffset      the leader's LEO: lets a follower handle OFFSET_OUT_OF_RANGE without a
     *                          ListOffsets round trip (FOL-6); -1 if unknown
     * @param records           whole batches (LOG-3): in memory, or, from a fetch read in
     *                          {@link RecordsForm#FILE}, slices of the leader's segment files (NET-3)
     * @param divergingEpoch    set when the follower's log diverged (FET-3)
     */
    public record PartitionData(Errors error, long highWatermark, long lastStableOffset, long logStartOffset,
                                long logEndOffset, Records records, Optional<EpochEndOffset> divergingEpoch) {

        /** An error answer with no records and unknown offsets. */
        public static PartitionData error(Errors error) {
            return new PartitionData(error, -1L, -1L, -1L, -1L, MemoryRecords.EMPTY, Optional.empty());
        }
    }
}
