package dev.insync.replication.core.rpc;

import dev.insync.replication.log.TopicPartition;

import java.util.Map;
import java.util.OptionalInt;

/**
 * A Fetch (FOL-3, FET-1): from a follower ({@code replicaId >= 0}) or a consumer ({@code replicaId == -1}).
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

    /** Defensive copy keeps the partition order (a map from {@link #of} is already one). */
    public FetchRequest {
        partitions = OrderedPartitionMap.copyOf(partitions);
    }

    /**
     * A request for the first {@code count} partitions of {@code topicPartitions} with the data at the
     * same index, in that order; the arrays are copied, not kept.
     *
     * @throws IllegalArgumentException if a partition is listed twice
     */
    public static FetchRequest of(int replicaId, long brokerEpoch, int maxWaitMs, int minBytes, int maxBytes,
                                  TopicPartition[] topicPartitions, PartitionData[] data, int count) {
        return new FetchRequest(replicaId, brokerEpoch, maxWaitMs, minBytes, maxBytes,
                OrderedPartitionMap.of(topicPartitions, data, count));
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
     * One partition of a fetch.
     *
     * @param fetchOffset         first offset wanted; for a follower, its LEO (the acknowledgement, FET-4)
     * @param logStartOffset      the follower's log start offset, -1 for consumers
     * @param partitionMaxBytes   bound for this partition
     * @param currentLeaderEpoch  the leader epoch the sender believes current (FET-2), empty if not sent
     * @param lastFetchedEpoch    epoch of the sender's last batch (FET-3), empty without epoch information
     */
    public record PartitionData(long fetchOffset, long logStartOffset, int partitionMaxBytes,
                                OptionalInt currentLeaderEpoch, OptionalInt lastFetchedEpoch) {
    }
}
