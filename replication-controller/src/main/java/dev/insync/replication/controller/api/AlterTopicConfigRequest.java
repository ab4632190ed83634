package dev.insync.replication.controller.api;

/**
 * Sets one topic config at run time, e.g. {@code min.insync.replicas} (SCN-2); the topic's
 * partitions are re-evaluated (ELR cleared where the ISR now reaches the minimum, elections where
 * unclean election was just enabled).
 *
 * @param topic the topic
 * @param name  {@code min.insync.replicas} or {@code unclean.leader.election.enable}
 * @param value the new value
 */
public record AlterTopicConfigRequest(String topic, String name, String value) {
}
