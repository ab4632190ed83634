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

import dev.insync.replication.log.TopicPartition;

import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * A Fetch (FOL-3, FET-1): from a follower ({@code replicaId >= 0}) or a consumer ({@code replicaId == -1}).
 * Build one with {@link #consumer()} or {@link #follower(int, long)}:
 *
 * <pre>{@code
 * FetchRequest read = FetchRequest.consumer().maxWaitMs(500)
 *         .partition(tp, FetchRequest.PartitionData.at(offset, 1 << 20))
 *         .build();
 * }</pre>
 *
 * @param replicaId   the follower's broker id, or {@link #CONSUMER_REPLICA_ID}
 * @param brokerEpoch the follower's broker epoch, -1 for consumers
 * @param maxWaitMs   how long the leader may park the fetch (FET-5)
 * @param minBytes    bytes that complete a parked fetch
 * @param maxBytes    response size bound (FET-6)
 * @param partitions  per partition, in request order
 */
public record FetchRequest(int replicaId, long brokerEpoch, int maxWaitMs, int minBytes, int maxBytes,
                           Map<TopicPartition, PartitionData> partitions) {

    /** replicaId of a consumer fetch. */
    public static final int CONSUMER_REPLICA_ID = -1;

    /** Defensive copy keeps the partition order (a map built by the builders is already one). */
    public FetchRequest {
        partitions = OrderedPartitionMap.copyOf(partitions);
    }

    /** A builder of a consumer fetch ({@link #CONSUMER_REPLICA_ID}, broker epoch -1): reads below the HW only (FET-1). */
    public static Builder consumer() {
        return new Builder(CONSUMER_REPLICA_ID, -1L);
    }

    /**
     * A builder of a follower fetch (FOL-3): reads to the LEO, and its fetch offsets are the follower's
     * acknowledgements (FET-4).
     *
     * @param replicaId   the follower's broker id, at least 0
     * @param brokerEpoch the follower's broker epoch (FET-2), -1 if unknown
     */
    public static Builder follower(int replicaId, long brokerEpoch) {
        if (replicaId < 0) {
            throw new IllegalArgumentException("A follower fetch needs a broker id >= 0, got " + replicaId);
        }
        return new Builder(replicaId, brokerEpoch);
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

    /** Whether this is a follower fetch (FET-1). */
    public boolean isFromFollower() {
        return replicaId >= 0;
    }

    /**
     * One partition of a fetch. A consumer's is {@link #at(long, int)}; a follower adds its log start
     * offset and epochs with the {@code with*} methods.
     *
     * @param fetchOffset         first offset wanted; for a follower, its LEO (the acknowledgement, FET-4)
     * @param logStartOffset      the follower's log start offset, -1 for consumers
     * @param partitionMaxBytes   bound for this partition
     * @param currentLeaderEpoch  the leader epoch the sender believes current (FET-2), empty if not sent
     * @param lastFetchedEpoch    epoch of the sender's last batch (FET-3), empty without epoch information
     */
    public record PartitionData(long fetchOffset, long logStartOffset, int partitionMaxBytes,
                                OptionalInt currentLeaderEpoch, OptionalInt lastFetchedEpoch) {

        /** @throws NullPointerException if an epoch is null (use {@link OptionalInt#empty()}) */
        public PartitionData {
            Objects.requireNonNull(currentLeaderEpoch, "currentLeaderEpoch");
            Objects.requireNonNull(lastFetchedEpoch, "lastFetchedEpoch");
        }

        /** Reads from {@code fetchOffset}, at most {@code partitionMaxBytes}; no log start offset, no epochs. */
        public static PartitionData at(long fetchOffset, int partitionMaxBytes) {
            return new PartitionData(fetchOffset, -1L, partitionMaxBytes, OptionalInt.empty(), OptionalInt.empty());
        }

        /** This data with the sender's log start offset (a follower's, FET-4). */
        public PartitionData withLogStartOffset(long offset) {
            return new PartitionData(fetchOffset, offset, partitionMaxBytes, currentLeaderEpoch, lastFetchedEpoch);
        }

        /** This data with the leader epoch the sender believes current (FET-2). */
        public PartitionData withCurrentLeaderEpoch(int epoch) {
            return new PartitionData(fetchOffset, logStartOffset, partitionMaxBytes, OptionalInt.of(epoch),
                    lastFetchedEpoch);
        }

        /** This data with the epoch of the sender's last batch (FET-3), or empty. */
        public PartitionData withLastFetchedEpoch(OptionalInt epoch) {
            return new PartitionData(fetchOffset, logStartOffset, partitionMaxBytes, currentLeaderEpoch,
                    Objects.requireNonNull(epoch, "epoch"));
        }
    }

    /**
     * Builds a {@link FetchRequest}; partitions stay in the order added. Defaults: {@code maxWaitMs} 0 (answer at
     * once), {@code minBytes} 1, {@code maxBytes} {@link #DEFAULT_MAX_BYTES} (Kafka's {@code fetch.max.bytes}).
     */
    public static final class Builder {

        /** Kafka's {@code fetch.max.bytes} default, 50 MiB. */
        public static final int DEFAULT_MAX_BYTES = 50 * 1024 * 1024;

        private final int replicaId;
        private final long brokerEpoch;
        private int maxWaitMs;
        private int minBytes = 1;
        private int maxBytes = DEFAULT_MAX_BYTES;
        private TopicPartition[] topicPartitions = new TopicPartition[4];
        private PartitionData[] data = new PartitionData[4];
        private int count;

        private Builder(int replicaId, long brokerEpoch) {
            this.replicaId = replicaId;
            this.brokerEpoch = brokerEpoch;
        }

        /** How long the leader may park the fetch waiting for {@code minBytes} (FET-5), at least 0. */
        public Builder maxWaitMs(int ms) {
            if (ms < 0) {
                throw new IllegalArgumentException("Negative fetch maxWaitMs " + ms);
            }
            this.maxWaitMs = ms;
            return this;
        }

        /** Bytes that complete a parked fetch, at least 0. */
        public Builder minBytes(int bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("Negative fetch minBytes " + bytes);
            }
            this.minBytes = bytes;
            return this;
        }

        /** The response's size bound (FET-6: one batch of the first partition with data is sent regardless), at least 1. */
        public Builder maxBytes(int bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("Fetch maxBytes must be at least 1, got " + bytes);
            }
            this.maxBytes = bytes;
            return this;
        }

        /** Adds a partition after those added before; {@link #build()} refuses one listed twice. */
        public Builder partition(TopicPartition topicPartition, PartitionData partitionData) {
            Objects.requireNonNull(topicPartition, "topicPartition");
            Objects.requireNonNull(partitionData, "partitionData");
            if (count == topicPartitions.length) {
                topicPartitions = Arrays.copyOf(topicPartitions, count * 2);
                data = Arrays.copyOf(data, count * 2);
            }
            topicPartitions[count] = topicPartition;
            data[count] = partitionData;
            count++;
            return this;
        }

        /**
         * Replaces the partitions with the first {@code count} of {@code topicPartitions} and the data at the same
         * index (the follower fetcher's path: it reuses its arrays each round). The arrays are copied by
         * {@link #build()}, not kept, and must not change before it.
         */
        public Builder partitions(TopicPartition[] topicPartitions, PartitionData[] partitionData, int count) {
            this.topicPartitions = Objects.requireNonNull(topicPartitions, "topicPartitions");
            this.data = Objects.requireNonNull(partitionData, "partitionData");
            this.count = count;
            return this;
        }

        /**
         * The request.
         *
         * @throws IllegalArgumentException if a partition is listed twice
         */
        public FetchRequest build() {
            return new FetchRequest(replicaId, brokerEpoch, maxWaitMs, minBytes, maxBytes,
                    OrderedPartitionMap.of(topicPartitions, data, count));
        }
    }
}
