package dev.insync.replication.core.metadata.follower;

/**
 * A broker's long poll for committed metadata after the offset it has (CTL-5), as KRaft brokers
 * fetch {@code __cluster_metadata}. Any controller node may answer, active or not.
 *
 * @param brokerId    the asking broker
 * @param afterOffset the offset of the last delta (or image) it has, -1 for none
 * @param maxWaitMs   how long the controller may hold the request while nothing newer is committed
 * @param maxDeltas   at most this many deltas in the answer (at least 1)
 */
public record MetadataFetchRequest(int brokerId, long afterOffset, long maxWaitMs, int maxDeltas) {

    /** Validates. */
    public MetadataFetchRequest {
        if (afterOffset < -1) {
            throw new IllegalArgumentException("afterOffset must be >= -1, got " + afterOffset);
        }
        if (maxWaitMs < 0) {
            throw new IllegalArgumentException("Negative maxWaitMs " + maxWaitMs);
        }
        if (maxDeltas < 1) {
            throw new IllegalArgumentException("maxDeltas must be positive, got " + maxDeltas);
        }
    }
}
