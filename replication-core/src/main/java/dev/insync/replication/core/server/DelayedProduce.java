package dev.insync.replication.core.server;

import dev.insync.replication.core.partition.AckCheck;
import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.core.purgatory.DelayedOperation;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * An acks=all produce parked until the HW passes every appended partition's last offset (PRO-3),
 * its timeout expires ({@code REQUEST_TIMED_OUT}) or the broker stops leading a partition
 * ({@code NOT_LEADER_OR_FOLLOWER}). Completes its future exactly once (PRO-5).
 */
final class DelayedProduce extends DelayedOperation {

    private final Map<TopicPartition, ProduceResult> results;
    private final Map<TopicPartition, Long> requiredOffsets;
    private final Function<TopicPartition, Optional<Partition>> partitions;
    private final CompletableFuture<Map<TopicPartition, ProduceResult>> future;

    /**
     * @param timeoutMs        the produce's timeout
     * @param results          every partition's result so far, in request order
     * @param requiredOffsets  per appended partition, its last offset + 1 (the HW it waits for)
     * @param partitions       looks up the broker's current partition
     * @param future           completed with the results
     */
    DelayedProduce(long timeoutMs, Map<TopicPartition, ProduceResult> results, Map<TopicPartition, Long> requiredOffsets,
                   Function<TopicPartition, Optional<Partition>> partitions,
                   CompletableFuture<Map<TopicPartition, ProduceResult>> future) {
        super(timeoutMs);
        this.results = new LinkedHashMap<>(results);
        this.requiredOffsets = new LinkedHashMap<>(requiredOffsets);
        this.partitions = partitions;
        this.future = future;
    }

    @Override
    public boolean tryComplete() {
        synchronized (this) {
            var it = requiredOffsets.entrySet().iterator();
            while (it.hasNext()) {
                var e = it.next();
                TopicPartition tp = e.getKey();
                AckCheck check = partitions.apply(tp)
                        .map(p -> p.checkEnoughReplicasReachOffset(e.getValue()))
                        .orElse(new AckCheck(true, Errors.NOT_LEADER_OR_FOLLOWER));
                if (check.done()) {
                    results.put(tp, results.get(tp).withError(check.error()));
                    it.remove();
                }
            }
            if (!requiredOffsets.isEmpty()) {
                return false;
            }
        }
        return forceComplete();
    }

    @Override
    public void onExpiration() {
        synchronized (this) {
            // PRO-3: the HW did not reach these in time (e.g. the ISR fell below min ISR, HW-2).
            requiredOffsets.keySet().forEach(tp -> results.put(tp, results.get(tp).withError(Errors.REQUEST_TIMED_OUT)));
            requiredOffsets.clear();
        }
    }

    @Override
    public void onComplete() {
        Map<TopicPartition, ProduceResult> out;
        synchronized (this) {
            out = Collections.unmodifiableMap(new LinkedHashMap<>(results));
        }
        future.complete(out);
    }

    @Override
    public String toString() {
        return "DelayedProduce(" + results.keySet() + ", timeoutMs=" + delayMs() + ")";
    }
}
