package dev.insync.replication.controller.state;

import dev.insync.replication.core.config.TopicConfigs;

/**
 * The controller's state of one topic.
 *
 * @param name                   topic name
 * @param partitionCount         number of partitions
 * @param minInsyncReplicas      {@code min.insync.replicas}
 * @param uncleanLeaderElection  {@code unclean.leader.election.enable}
 */
public record TopicEntry(String name, int partitionCount, int minInsyncReplicas, boolean uncleanLeaderElection) {

    /** Kafka's defaults until the creation batch's config records are replayed. */
    static TopicEntry created(String name, int partitionCount) {
        return new TopicEntry(name, partitionCount, 1, false);
    }

    TopicEntry withMinInsyncReplicas(int value) {
        return new TopicEntry(name, partitionCount, value, uncleanLeaderElection);
    }

    TopicEntry withUncleanLeaderElection(boolean value) {
        return new TopicEntry(name, partitionCount, minInsyncReplicas, value);
    }

    /** HW-2 / ISR-7: the one formula, {@link TopicConfigs#effectiveMinIsr}. */
    public int effectiveMinIsr(int replicaCount) {
        return TopicConfigs.effectiveMinIsr(minInsyncReplicas, replicaCount);
    }
}
