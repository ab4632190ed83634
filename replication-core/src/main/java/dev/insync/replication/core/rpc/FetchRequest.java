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
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;

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
 * <p><b>Fetch sessions</b> (Kafka's KIP-227, FET-7): {@code sessionId} and {@code sessionEpoch} say
 * what kind of fetch this is.
 * <ul>
 *   <li>{@link #NO_SESSION_ID} and {@link #FINAL_EPOCH}: a full fetch without a session (the
 *   default, and every consumer fetch).</li>
 *   <li>{@link #INITIAL_EPOCH}: a full fetch that asks the leader to open a session (and to close
 *   {@code sessionId} first if it is not {@link #NO_SESSION_ID}); the response carries the new id, or
 *   {@link #NO_SESSION_ID} when the leader declined.</li>
 *   <li>a positive epoch: an incremental fetch in session {@code sessionId}: {@code partitions}
 *   holds only the partitions new to the session or whose data changed since the previous fetch,
 *   {@code forgotten} those that leave it; every other partition of the session is fetched again
 *   with the data the session holds. The first incremental fetch has epoch 1, each next one the
 *   following epoch (after {@link Integer#MAX_VALUE} comes 1).</li>
 *   <li>{@link #FINAL_EPOCH} with a session id: closes that session; served as a full fetch without one.</li>
 * </ul>
 *
 * @param replicaId    the follower's broker id, or {@link #CONSUMER_REPLICA_ID}
 * @param brokerEpoch  the follower's broker epoch, -1 for consumers
 * @param maxWaitMs    how long the leader may park the fetch (FET-5)
 * @param minBytes     bytes that complete a parked fetch
 * @param maxBytes     response size bound (FET-6)
 * @param partitions   per partition, in request order (of an incremental fetch: the new or changed ones)
 * @param sessionId    the fetch session, {@link #NO_SESSION_ID} for none
 * @param sessionEpoch {@link #FINAL_EPOCH}, {@link #INITIAL_EPOCH} or an incremental fetch's epoch
 * @param forgotten    partitions leaving the session (incremental fetches only), in the order given
 */
public record FetchRequest(int replicaId, long brokerEpoch, int maxWaitMs, int minBytes, int maxBytes,
                           Map<TopicPartition, PartitionData> partitions, int sessionId, int sessionEpoch,
                           List<TopicPartition> forgotten) {

    /** replicaId of a consumer fetch. */
    public static final int CONSUMER_REPLICA_ID = -1;
    /** The session id of a fetch without a session (Kafka's {@code INVALID_SESSION_ID}). */
    public static final int NO_SESSION_ID = 0;
    /** The epoch of a full fetch that opens a session. */
    public static final int INITIAL_EPOCH = 0;
    /** The epoch of a full fetch without a session (or closing one). */
    public static final int FINAL_EPOCH = -1;

    /**
     * Defensive copies keep the partition order (a map built by the builders is already one).
     *
     * @throws IllegalArgumentException for a negative session id, an epoch below {@link #FINAL_EPOCH},
     *         an incremental epoch without a session id, a full fetch that forgets partitions, or a
     *         partition both fetched and forgotten
     */
    public FetchRequest {
        partitions = OrderedPartitionMap.copyOf(partitions);
        forgotten = List.copyOf(forgotten);
        if (sessionId < 0 || sessionEpoch < FINAL_EPOCH) {
            throw new IllegalArgumentException("Invalid fetch session " + sessionId + " with epoch " + sessionEpoch);
        }
        if (sessionEpoch > INITIAL_EPOCH && sessionId == NO_SESSION_ID) {
            throw new IllegalArgumentException("An incremental fetch (session epoch " + sessionEpoch
                    + ") needs a session id");
        }
        if (sessionEpoch <= INITIAL_EPOCH && !forgotten.isEmpty()) {
            throw new IllegalArgumentException("A full fetch (session epoch " + sessionEpoch
                    + ") forgets nothing, got " + forgotten);
        }
        if (forgotten.size() > 1 && new java.util.HashSet<>(forgotten).size() != forgotten.size()) {
            throw new IllegalArgumentException("A partition is forgotten twice in session " + sessionId + " epoch "
                    + sessionEpoch + ": " + forgotten);
        }
        for (TopicPartition tp : forgotten) {
            if (partitions.containsKey(tp)) {
                throw new IllegalArgumentException("Partition " + tp + " is both fetched and forgotten in session "
                        + sessionId + " epoch " + sessionEpoch);
            }
        }
    }

    /** A full fetch without a session. */
    public FetchRequest(int replicaId, long brokerEpoch, int maxWaitMs, int minBytes, int maxBytes,
                        Map<TopicPartition, PartitionData> partitions) {
        this(replicaId, brokerEpoch, maxWaitMs, minBytes, maxBytes, partitions, NO_SESSION_ID, FINAL_EPOCH, List.of());
    }

    /** Whether this fetch names every partition it reads (no session, or one opening). */
    public boolean isFull() {
        return sessionEpoch <= INITIAL_EPOCH;
    }

    /** Whether this is an incremental fetch in session {@link #sessionId()}. */
    public boolean isIncremental() {
        return sessionEpoch > INITIAL_EPOCH;
    }

    /** The epoch after {@code epoch} in a session: 1 after {@link Integer#MAX_VALUE}, never 0 or negative. */
    public static int nextEpoch(int epoch) {
        return epoch < INITIAL_EPOCH || epoch == Integer.MAX_VALUE ? 1 : epoch + 1;
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
     * @param topicId             the id of the topic the sender's replica belongs to (FET-2: a leader whose
     *                            replica has another id answers {@code INCONSISTENT_TOPIC_ID}), empty if not sent
     */
    public record PartitionData(long fetchOffset, long logStartOffset, int partitionMaxBytes,
                                OptionalInt currentLeaderEpoch, OptionalInt lastFetchedEpoch, Optional<UUID> topicId) {

        /** @throws NullPointerException if an epoch or the topic id is null (use the empty optionals) */
        public PartitionData {
            Objects.requireNonNull(currentLeaderEpoch, "currentLeaderEpoch");
            Objects.requireNonNull(lastFetchedEpoch, "lastFetchedEpoch");
            Objects.requireNonNull(topicId, "topicId");
        }

        /** Without a topic id (a consumer's, or a sender that knows topics by name only). */
        public PartitionData(long fetchOffset, long logStartOffset, int partitionMaxBytes,
                             OptionalInt currentLeaderEpoch, OptionalInt lastFetchedEpoch) {
            this(fetchOffset, logStartOffset, partitionMaxBytes, currentLeaderEpoch, lastFetchedEpoch, Optional.empty());
        }

        /** Reads from {@code fetchOffset}, at most {@code partitionMaxBytes}; no log start offset, no epochs. */
        public static PartitionData at(long fetchOffset, int partitionMaxBytes) {
            return new PartitionData(fetchOffset, -1L, partitionMaxBytes, OptionalInt.empty(), OptionalInt.empty());
        }

        /** This data with the sender's log start offset (a follower's, FET-4). */
        public PartitionData withLogStartOffset(long offset) {
            return new PartitionData(fetchOffset, offset, partitionMaxBytes, currentLeaderEpoch, lastFetchedEpoch,
                    topicId);
        }

        /** This data with the leader epoch the sender believes current (FET-2). */
        public PartitionData withCurrentLeaderEpoch(int epoch) {
            return new PartitionData(fetchOffset, logStartOffset, partitionMaxBytes, OptionalInt.of(epoch),
                    lastFetchedEpoch, topicId);
        }

        /** This data with the epoch of the sender's last batch (FET-3), or empty. */
        public PartitionData withLastFetchedEpoch(OptionalInt epoch) {
            return new PartitionData(fetchOffset, logStartOffset, partitionMaxBytes, currentLeaderEpoch,
                    Objects.requireNonNull(epoch, "epoch"), topicId);
        }

        /** This data with the id of the topic the sender's replica belongs to (FET-2). */
        public PartitionData withTopicId(UUID id) {
            return new PartitionData(fetchOffset, logStartOffset, partitionMaxBytes, currentLeaderEpoch,
                    lastFetchedEpoch, Optional.of(id));
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
        private int sessionId = NO_SESSION_ID;
        private int sessionEpoch = FINAL_EPOCH;
        private List<TopicPartition> forgotten = List.of();

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

        /** The fetch session and its epoch (see {@link FetchRequest}); default: none ({@link #FINAL_EPOCH}). */
        public Builder session(int id, int epoch) {
            this.sessionId = id;
            this.sessionEpoch = epoch;
            return this;
        }

        /** Partitions leaving the session (an incremental fetch's only); the list is copied. */
        public Builder forgotten(List<TopicPartition> partitions) {
            this.forgotten = List.copyOf(partitions);
            return this;
        }

        /**
         * The request.
         *
         * @throws IllegalArgumentException if a partition is listed twice, or the session fields do not fit
         *         (see the record's constructor)
         */
        public FetchRequest build() {
            return new FetchRequest(replicaId, brokerEpoch, maxWaitMs, minBytes, maxBytes,
                    OrderedPartitionMap.of(topicPartitions, data, count), sessionId, sessionEpoch, forgotten);
        }
    }
}
