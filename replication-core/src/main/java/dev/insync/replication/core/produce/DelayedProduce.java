package dev.insync.replication.core.produce;

import dev.insync.replication.core.partition.AckCheck;
import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.core.purgatory.DelayedOperation;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * An acks=all produce waiting in the produce purgatory (PRO-3, PRO-5), watched under each of its
 * {@link TopicPartition}s. Every partition appended without error starts with REQUEST_TIMED_OUT and "acks
 * pending"; {@link #tryComplete()} asks {@link Partition#checkEnoughReplicasReachOffset} for each pending one
 * and clears the error when its HW has passed the required offset (NONE, or NOT_ENOUGH_REPLICAS_AFTER_APPEND
 * when the maximal ISR fell below min ISR), or sets NOT_LEADER_OR_FOLLOWER when this broker no longer leads (or
 * no longer hosts) it. When no partition is pending the operation completes; if the timer fires first, the
 * still-pending partitions answer REQUEST_TIMED_OUT. Either way {@link #result()} completes exactly once.
 *
 * <p>Who checks it (PRO-4): the caller runs {@code purgatory.checkAndComplete(tp)} after an HW rise and after
 * the partition loses leadership.
 */
public final class DelayedProduce extends DelayedOperation {

    private static final Logger LOG = LoggerFactory.getLogger(DelayedProduce.class);

    /** One partition's wait. */
    private static final class Status {
        final long requiredOffset;
        volatile ProduceResult result;
        volatile boolean acksPending;

        Status(long requiredOffset, ProduceResult initial) {
            this.requiredOffset = requiredOffset;
            if (initial.error() == Errors.NONE) {
                // PRO-3: the timeout error is preset and cleared when the acks arrive
                this.acksPending = true;
                this.result = initial.withError(Errors.REQUEST_TIMED_OUT);
            } else {
                this.acksPending = false;
                this.result = initial;
            }
        }
    }

    /**
     * What one partition waits for.
     *
     * @param requiredOffset the last appended offset + 1 (the HW must reach it)
     * @param appendResult   the local append's result (an error here means nothing to wait for)
     */
    public record PartitionWait(long requiredOffset, ProduceResult appendResult) {
    }

    private final Map<TopicPartition, Status> statuses;
    private final Function<TopicPartition, Optional<Partition>> partitions;
    private final CompletableFuture<Map<TopicPartition, ProduceResult>> result = new CompletableFuture<>();

    /**
     * @param timeoutMs   the request's timeout (PRO-3)
     * @param waits       per partition, in request order
     * @param partitions  finds the broker's partition (empty when no longer hosted)
     */
    public DelayedProduce(long timeoutMs, Map<TopicPartition, PartitionWait> waits,
                          Function<TopicPartition, Optional<Partition>> partitions) {
        super(timeoutMs);
        Objects.requireNonNull(waits, "waits");
        if (waits.isEmpty()) {
            throw new IllegalArgumentException("A delayed produce needs at least one partition");
        }
        this.partitions = Objects.requireNonNull(partitions, "partitions");
        Map<TopicPartition, Status> map = new LinkedHashMap<>();
        waits.forEach((tp, wait) -> map.put(tp, new Status(wait.requiredOffset(), wait.appendResult())));
        this.statuses = Collections.unmodifiableMap(map);
    }

    /** The partitions to watch under (the purgatory keys). */
    public Set<TopicPartition> keys() {
        return statuses.keySet();
    }

    /** Completes exactly once with every partition's answer (PRO-5). */
    public CompletableFuture<Map<TopicPartition, ProduceResult>> result() {
        return result;
    }

    @Override
    public boolean tryComplete() {
        for (Map.Entry<TopicPartition, Status> entry : statuses.entrySet()) {
            Status status = entry.getValue();
            if (!status.acksPending) {
                continue;
            }
            Optional<Partition> partition = partitions.apply(entry.getKey());
            AckCheck check = partition.isPresent()
                    ? partition.get().checkEnoughReplicasReachOffset(status.requiredOffset)
                    : new AckCheck(true, Errors.NOT_LEADER_OR_FOLLOWER);
            if (check.done()) {
                status.result = status.result.withError(check.error());
                status.acksPending = false;
            }
        }
        for (Status status : statuses.values()) {
            if (status.acksPending) {
                return false;
            }
        }
        return forceComplete();
    }

    @Override
    public void onExpiration() {
        statuses.forEach((tp, status) -> {
            if (status.acksPending) {
                LOG.debug("Produce to {} timed out waiting for the HW to reach {}", tp, status.requiredOffset);
            }
        });
    }

    @Override
    public void onComplete() {
        Map<TopicPartition, ProduceResult> answer = new LinkedHashMap<>();
        statuses.forEach((tp, status) -> answer.put(tp, status.result));
        result.complete(Collections.unmodifiableMap(answer));
    }

    @Override
    public String toString() {
        Map<TopicPartition, Long> required = new LinkedHashMap<>();
        statuses.forEach((tp, s) -> required.put(tp, s.requiredOffset));
        return "DelayedProduce(" + required + ", timeoutMs=" + delayMs() + ")";
    }
}
