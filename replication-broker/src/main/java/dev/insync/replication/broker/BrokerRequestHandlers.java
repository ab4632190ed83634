package dev.insync.replication.broker;

import dev.insync.replication.core.produce.Acks;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.core.server.ReplicaManager;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.MemoryRecords;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The requests one broker serves, handed to its network binding by {@link RequestServer#serve}:
 * replica and consumer Fetch, Produce, and the metadata a Metadata request is answered from. Each
 * call does its work on the calling thread and never blocks; slow outcomes (a parked fetch, an
 * acks=all produce) are futures the broker completes later. Run them on the binding's request
 * threads (or, in the simulator, the broker node's network executor).
 */
public final class BrokerRequestHandlers {

    private final ReplicaManager replicaManager;
    private final BrokerMetadataView metadata;

    BrokerRequestHandlers(ReplicaManager replicaManager, BrokerMetadataView metadata) {
        this.replicaManager = Objects.requireNonNull(replicaManager, "replicaManager");
        this.metadata = Objects.requireNonNull(metadata, "metadata");
    }

    /** The broker's id. */
    public int brokerId() {
        return replicaManager.brokerId();
    }

    /** A replica fetch (replicaId ≥ 0) or a consumer fetch (-1): {@link ReplicaManager#fetch}. */
    public CompletionStage<FetchResponse> fetch(FetchRequest request) {
        return replicaManager.fetch(request);
    }

    /** A produce with parsed acks: {@link ReplicaManager#produce}. */
    public CompletionStage<Map<TopicPartition, ProduceResult>> produce(Map<TopicPartition, MemoryRecords> records, Acks acks,
                                                                       long timeoutMs) {
        return replicaManager.produce(records, acks, timeoutMs);
    }

    /**
     * A produce with the wire's acks code. PRO-1: 0, 1 and -1 are valid; anything else answers
     * {@code INVALID_REQUIRED_ACKS} for every partition and appends nothing.
     */
    public CompletionStage<Map<TopicPartition, ProduceResult>> produce(Map<TopicPartition, MemoryRecords> records, int acks,
                                                                       long timeoutMs) {
        Acks parsed;
        try {
            parsed = Acks.forCode(acks);
        } catch (ApiException e) {
            return CompletableFuture.completedFuture(ProduceResult.failedForAll(records.keySet(), e.error()));
        }
        return produce(records, parsed, timeoutMs);
    }

    /** What Metadata requests are answered from. */
    public BrokerMetadataView metadata() {
        return metadata;
    }

    /**
     * The broker's replica manager, for a binding that needs more than these calls (e.g. a fetch
     * whose records stay in the segment files until they are written to a socket).
     */
    public ReplicaManager replicaManager() {
        return replicaManager;
    }
}
