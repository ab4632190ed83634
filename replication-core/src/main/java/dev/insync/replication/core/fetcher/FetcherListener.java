package dev.insync.replication.core.fetcher;

import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;

import java.util.Set;

/**
 * What fetchers report back to the broker. Called on the fetcher's executor; implementations must
 * not block (they may submit work elsewhere).
 */
public interface FetcherListener {

    /** After a response was processed: partitions whose follower HW changed (to complete delayed fetches). */
    void onHighWatermarksChanged(Set<TopicPartition> partitions);

    /**
     * FOL-6: a partition was marked failed and is no longer fetched until re-added.
     *
     * @param error  what it amounts to on the wire: FENCED_LEADER_EPOCH, KAFKA_STORAGE_ERROR (the
     *               broker should take the partition offline) or UNKNOWN_SERVER_ERROR
     * @param reason a message naming the partition and offset
     */
    void onPartitionFailed(TopicPartition partition, Errors error, String reason);

    /** A listener that ignores everything. */
    FetcherListener NONE = new FetcherListener() {
        @Override
        public void onHighWatermarksChanged(Set<TopicPartition> partitions) {
        }

        @Override
        public void onPartitionFailed(TopicPartition partition, Errors error, String reason) {
        }
    };
}
