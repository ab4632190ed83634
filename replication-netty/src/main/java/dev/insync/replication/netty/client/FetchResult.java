package dev.insync.replication.netty.client;

import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;

import java.util.List;

/**
 * One consumer fetch of one partition.
 *
 * @param topicPartition the partition
 * @param error          {@link Errors#NONE}, the leader's error, NETWORK_EXCEPTION / REQUEST_TIMED_OUT
 *                       for a transport failure, or LEADER_NOT_AVAILABLE-like NOT_LEADER_OR_FOLLOWER when
 *                       no leader is known
 * @param records        the records at or after the fetch offset and below the HW, in offset order
 *                       (empty unless NONE)
 * @param nextOffset     where the next fetch starts: after the last record returned, else the fetch offset
 * @param highWatermark  the leader's HW, -1 if not answered
 * @param logStartOffset the leader's log start offset, -1 if not answered
 */
public record FetchResult(TopicPartition topicPartition, Errors error, List<ConsumerRecord> records, long nextOffset,
                          long highWatermark, long logStartOffset) {

    public FetchResult {
        records = List.copyOf(records);
    }

    static FetchResult failed(TopicPartition tp, Errors error, long offset) {
        return new FetchResult(tp, error, List.of(), offset, -1L, -1L);
    }
}
