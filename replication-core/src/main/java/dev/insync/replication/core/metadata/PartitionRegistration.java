package dev.insync.replication.core.metadata;

import dev.insync.replication.log.TopicPartition;

import java.util.List;

/**
 * The controller's view of one partition, as published in metadata (LDR-3).
 *
 * @param topicPartition      the partition
 * @param replicas            assigned replicas in assignment order
 * @param isr                 in-sync replicas (may be empty with ELR, ISR-7)
 * @param elr                 eligible leader replicas (KIP-966)
 * @param lastKnownElr        last known ELR members
 * @param leader              leader broker id, or {@link #NO_LEADER}
 * @param leaderEpoch         bumped when the leader changes
 * @param partitionEpoch      bumped on every change of this registration
 * @param recovering          true after an unclean election until the leader reports recovery (ISR-8)
 */
public record PartitionRegistration(TopicPartition topicPartition, List<Integer> replicas, List<Integer> isr,
                                    List<Integer> elr, List<Integer> lastKnownElr, int leader, int leaderEpoch,
                                    int partitionEpoch, boolean recovering) {

    /** Leader id of a leaderless partition. */
    public static final int NO_LEADER = -1;

    /** Immutable copies. */
    public PartitionRegistration {
        replicas = List.copyOf(replicas);
        isr = List.copyOf(isr);
        elr = List.copyOf(elr);
        lastKnownElr = List.copyOf(lastKnownElr);
    }
}
