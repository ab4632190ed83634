package dev.insync.replication.core.fetcher;

import java.util.Objects;

/**
 * What the broker hands the {@link FetcherManager} when a partition starts following a leader
 * (LDR-2, FOL-7).
 *
 * @param partition           the local partition the fetched records go into
 * @param leaderId            the leader broker
 * @param currentLeaderEpoch  the leader epoch from metadata
 * @param initOffset          {@link FetcherManager#initialFetchOffset(FollowerPartition)}
 */
public record InitialFetchState(FollowerPartition partition, int leaderId, int currentLeaderEpoch, long initOffset) {

    /** Rejects a missing partition or leader. */
    public InitialFetchState {
        Objects.requireNonNull(partition, "partition");
        if (leaderId < 0) {
            throw new IllegalArgumentException("No leader for " + partition.topicPartition()
                    + ": a partition without a leader gets no fetcher (FOL-7)");
        }
        if (initOffset < 0) {
            throw new IllegalArgumentException("Negative initial fetch offset " + initOffset + " for "
                    + partition.topicPartition());
        }
    }
}
