package dev.insync.replication.core.fetcher;

import dev.insync.replication.log.TopicPartition;

import java.util.Set;

/**
 * What fetchers report back to the broker. Called on the fetcher's executor; implementations must
 * not block (they may submit work elsewhere).
 */
public interface FetcherListener {

    /** After a response was processed: partitions whose follower HW changed (to complete delayed fetches). */
    void onHighWatermarksChanged(Set<TopicPartition> partitions);

    /** FOL-6: a partition was marked failed and is no longer fetched until re-added. */
    void onPartitionFailed(TopicPartition partition, String reason);

    /** A listener that ignores everything. */
    FetcherListener NONE = new FetcherListener() {
        @Override
        public void onHighWatermarksChanged(Set<TopicPartition> partitions) {
        }

        @Override
        public void onPartitionFailed(TopicPartition partition, String reason) {
        }
    };
}
