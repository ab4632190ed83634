package dev.insync.replication.testkit.cluster;

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.Record;
import dev.insync.replication.log.record.RecordBatch;
import dev.insync.replication.testkit.network.InMemoryNetwork;
import dev.insync.replication.testkit.sim.NodeId;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * A consumer client of an {@link InMemoryCluster}: fetches from the partition's leader as a consumer
 * (replicaId -1), so it only ever sees records below the HW (FET-1). It keeps a position per
 * partition, starting at 0.
 */
public final class TestConsumer {

    /** Bytes one poll asks for. */
    public static final int MAX_BYTES = 1024 * 1024;
    /** How long a poll waits for an answer before returning nothing. */
    public static final long POLL_TIMEOUT_MS = 2_000;

    private final InMemoryCluster cluster;
    private final String name;
    private final NodeId node;
    private final Scheduler scheduler;
    private final Executor executor;
    private final Map<TopicPartition, Long> positions = new HashMap<>();

    TestConsumer(InMemoryCluster cluster, String name, NodeId node, Scheduler scheduler) {
        this.cluster = cluster;
        this.name = name;
        this.node = node;
        this.scheduler = scheduler;
        this.executor = scheduler.newSerialExecutor("consumer-" + name);
    }

    /** This client's name. */
    public String name() {
        return name;
    }

    /** The next offset this consumer will read. */
    public synchronized long position(String topic, int partition) {
        return positions.getOrDefault(new TopicPartition(topic, partition), 0L);
    }

    /** Moves the position. */
    public synchronized void seek(String topic, int partition, long offset) {
        positions.put(new TopicPartition(topic, partition), offset);
    }

    /**
     * {@link #pollBytes} with keys and values decoded as UTF-8: one fetch from the leader at the
     * current position; advances the position past what it returns. An error or no answer within
     * {@link #POLL_TIMEOUT_MS} gives an empty list.
     */
    public CompletableFuture<List<ConsumedRecord>> poll(String topic, int partition) {
        return pollBytes(topic, partition).thenApply(records -> records.stream().map(ConsumedRecord::of).toList());
    }

    /**
     * One fetch from the leader at the current position, records byte for byte with their headers;
     * advances the position past what it returns. An error or no answer within
     * {@link #POLL_TIMEOUT_MS} gives an empty list. Completes on this client's executor.
     */
    public CompletableFuture<List<ConsumedBytes>> pollBytes(String topic, int partition) {
        TopicPartition tp = new TopicPartition(topic, partition);
        CompletableFuture<List<ConsumedBytes>> result = new CompletableFuture<>();
        executor.execute(() -> {
            int leader = cluster.controller().partition(tp).map(PartitionRegistration::leader)
                    .orElse(PartitionRegistration.NO_LEADER);
            if (leader == PartitionRegistration.NO_LEADER) {
                result.complete(List.of());
                return;
            }
            long position = position(topic, partition);
            FetchRequest request = new FetchRequest(FetchRequest.CONSUMER_REPLICA_ID, -1L, 0, 1, MAX_BYTES,
                    Map.of(tp, new FetchRequest.PartitionData(position, -1L, MAX_BYTES, OptionalInt.empty(),
                            OptionalInt.empty())));
            Scheduler.Cancellable timeout = scheduler.schedule(executor, () -> result.complete(List.of()), POLL_TIMEOUT_MS);
            cluster.network().send(node, NodeId.broker(leader), InMemoryNetwork.FETCH,
                    request).whenComplete((response, error) -> executor.execute(() -> {
                        timeout.cancel();
                        result.complete(error == null ? accept(tp, position, response) : List.of());
                    }));
        });
        return result;
    }

    private synchronized List<ConsumedBytes> accept(TopicPartition tp, long requestedPosition, FetchResponse response) {
        FetchResponse.PartitionData data = response.partitions().get(tp);
        if (data == null || data.error() != Errors.NONE || positions.getOrDefault(tp, 0L) != requestedPosition) {
            return List.of();
        }
        List<ConsumedBytes> out = new ArrayList<>();
        long next = requestedPosition;
        for (RecordBatch batch : data.records().batches()) {
            for (Record r : batch.records()) {
                if (r.offset() >= requestedPosition && r.offset() < data.highWatermark()) {
                    out.add(ConsumedBytes.of(batch, r));
                    next = r.offset() + 1;
                }
            }
        }
        positions.put(tp, next);
        return out;
    }

}
