package dev.insync.replication.netty.client;

import dev.insync.replication.log.TopicPartition;

import java.util.Objects;

/**
 * Where an acknowledged record was written (PRO-5).
 *
 * @param topicPartition its partition
 * @param offset         its offset; -1 with acks=0, whose requests get no answer
 * @param leaderEpoch    the leader epoch its batch was appended in (LOG-4); -1 with acks=0
 */
public record RecordMetadata(TopicPartition topicPartition, long offset, int leaderEpoch) {

    public RecordMetadata {
        Objects.requireNonNull(topicPartition, "topicPartition");
    }

    @Override
    public String toString() {
        return topicPartition + "@" + offset + " (leader epoch " + leaderEpoch + ")";
    }
}
