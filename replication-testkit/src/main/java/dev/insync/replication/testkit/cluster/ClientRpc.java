package dev.insync.replication.testkit.cluster;

import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.testkit.network.ServiceKey;

/**
 * The client-to-broker produce call on the in-memory network (consumers use the fetch key). Public
 * so that load generators (the benchmarks' batching producer) can send many records per request
 * over the same path as {@link TestProducer}.
 */
public final class ClientRpc {

    /** A produce to the leader of one partition. */
    public static final ServiceKey<ProduceRequest, ProduceResponse> PRODUCE =
            ServiceKey.of("produce", ProduceRequest.class, ProduceResponse.class);

    private ClientRpc() {
    }

    /** One partition's records with the producer's acks and the broker-side timeout. */
    public record ProduceRequest(TopicPartition topicPartition, MemoryRecords records, int acks, long timeoutMs) {
    }

    /** The broker's answer: the error, the base offset and the leader epoch the records were written in. */
    public record ProduceResponse(Errors error, long baseOffset, int leaderEpoch) {
    }
}
