package dev.insync.replication.core.partition;

import dev.insync.replication.log.TopicPartition;

/**
 * Side effects a {@link Partition} asks its broker to perform: wake the purgatories (PRO-4, FET-5) and count
 * ISR changes (metrics). Called outside the partition's lock; implementations must not block.
 */
public interface PartitionListener {

    /** The leader's HW rose: check the produce purgatory and consumers' fetches for this partition. */
    default void onHighWatermarkIncreased(TopicPartition topicPartition) {
    }

    /** A shrink was committed ({@code IsrShrinksPerSec}). */
    default void onIsrShrink(TopicPartition topicPartition) {
    }

    /** An expansion was committed ({@code IsrExpandsPerSec}). */
    default void onIsrExpand(TopicPartition topicPartition) {
    }

    /** A proposal was refused or failed ({@code FailedIsrUpdatesPerSec}). */
    default void onFailedIsrUpdate(TopicPartition topicPartition) {
    }

    /** Does nothing. */
    PartitionListener NOOP = new PartitionListener() {
    };
}
