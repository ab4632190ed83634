package dev.insync.replication.core.produce;

import dev.insync.replication.core.partition.AckCheck;
import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.core.purgatory.DelayedOperation;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * A produce waiting in the produce purgatory (PRO-3, PRO-5), watched under each of its {@link TopicPartition}s:
 * an acks=all produce waiting for the HW, and (LOG-11 group commit) an acks=1 or acks=all produce whose append
 * made a flush due, waiting for the leader's flush. Every partition appended without error and with something
 * to wait for starts with REQUEST_TIMED_OUT and "acks pending"; {@link #tryComplete()} asks
 * {@link Partition#checkFlushedToOffset} (if it waits for the flush) and
 * {@link Partition#checkEnoughReplicasReachOffset} (if it waits for the HW) for each pending one and clears the
 * error when both passed the required offset (NONE, or NOT_ENOUGH_REPLICAS_AFTER_APPEND when the maximal ISR
 * fell below min ISR), or sets the first error either reports (NOT_LEADER_OR_FOLLOWER when this broker no
 * longer leads or hosts it, KAFKA_STORAGE_ERROR when the flush failed). When no partition is pending the
 * operation completes; if the timer fires first, the still-pending partitions answer REQUEST_TIMED_OUT. Either
 * way {@link #result()} completes exactly once.
 *
 * <p>Who checks it (PRO-4): the caller runs {@code purgatory.checkAndComplete(tp)} after an HW rise, after
 * the leader's flush of the partition (or its failure) and after the partition loses leadership.
 */
public final class DelayedProduce extends DelayedOperation {

    private static final Logger LOG = LoggerFactory.getLogger(DelayedProduce.class);

    /** One partition's wait. */
    private static final class Status {
        final long requiredOffset;
        final boolean awaitHighWatermark;
        volatile boolean awaitFlush;
        volatile ProduceResult result;
        volatile boolean acksPending;

        Status(PartitionWait wait) {
            ProduceResult initial = wait.appendResult();
            this.requiredOffset = wait.requiredOffset();
            this.awaitHighWatermark = wait.awaitHighWatermark();
            this.awaitFlush = wait.awaitFlush();
            if (initial.error() == Errors.NONE && (awaitHighWatermark || awaitFlush)) {
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
     * @param requiredOffset     the last appended offset + 1 (the HW and/or the leader's recovery point must reach it)
     * @param appendResult       the local append's result (an error here means nothing to wait for)
     * @param awaitHighWatermark PRO-3, acks=all: wait for the HW
     * @param awaitFlush         LOG-11 group commit: the append made a flush due; wait for the leader's flush
     */
    public record PartitionWait(long requiredOffset, ProduceResult appendResult, boolean awaitHighWatermark,
                                boolean awaitFlush) {

        /** An acks=all wait for the HW only (no flush was due). */
        public PartitionWait(long requiredOffset, ProduceResult appendResult) {
            this(requiredOffset, appendResult, true, false);
        }
    }

    // Parallel arrays in request order: tryComplete runs for every parked produce on every HW
    // change, and walking a map's wrapped entry iterators showed in the profile.
    private final TopicPartition[] topicPartitions;
    private final Status[] statuses;
    private final Set<TopicPartition> keys;
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
        this.topicPartitions = waits.keySet().toArray(new TopicPartition[0]);
        this.statuses = new Status[topicPartitions.length];
        for (int i = 0; i < topicPartitions.length; i++) {
            statuses[i] = new Status(waits.get(topicPartitions[i]));
        }
        this.keys = topicPartitions.length == 1 ? Set.of(topicPartitions[0])
                : Collections.unmodifiableSet(new LinkedHashSet<>(Arrays.asList(topicPartitions)));
    }

    /**
     * Under partition {@code key}: the offset its HW must reach (the last appended offset + 1) when
     * this produce waits for the HW there, so an HW step completes parked produces in offset order
     * and stops at the first one it has not reached
     * ({@link dev.insync.replication.core.purgatory.DelayedOperationPurgatory#checkAndCompleteUpTo});
     * {@link Long#MAX_VALUE} when it waits for nothing there that an HW step could bring (a flush-only
     * wait, or a partition that failed at once), {@link Long#MIN_VALUE} for a key not in it.
     */
    @Override
    public long watchPosition(Object key) {
        for (int i = 0; i < topicPartitions.length; i++) {
            if (topicPartitions[i].equals(key)) {
                Status status = statuses[i];
                return status.awaitHighWatermark && status.acksPending ? status.requiredOffset : Long.MAX_VALUE;
            }
        }
        return Long.MIN_VALUE;
    }

    /** The partitions to watch under (the purgatory keys). */
    public Set<TopicPartition> keys() {
        return keys;
    }

    /** Completes exactly once with every partition's answer (PRO-5). */
    public CompletableFuture<Map<TopicPartition, ProduceResult>> result() {
        return result;
    }

    @Override
    public boolean tryComplete() {
        for (int i = 0; i < statuses.length; i++) {
            Status status = statuses[i];
            if (!status.acksPending) {
                continue;
            }
            Optional<Partition> partition = partitions.apply(topicPartitions[i]);
            if (partition.isEmpty()) {
                finish(status, Errors.NOT_LEADER_OR_FOLLOWER);
                continue;
            }
            if (status.awaitFlush) {
                AckCheck flushed = partition.get().checkFlushedToOffset(status.requiredOffset);
                if (!flushed.done()) {
                    continue;
                }
                if (flushed.error() != Errors.NONE) {
                    finish(status, flushed.error());
                    continue;
                }
                status.awaitFlush = false;
            }
            if (!status.awaitHighWatermark) {
                finish(status, Errors.NONE);
                continue;
            }
            AckCheck check = partition.get().checkEnoughReplicasReachOffset(status.requiredOffset);
            if (check.done()) {
                finish(status, check.error());
            }
        }
        for (Status status : statuses) {
            if (status.acksPending) {
                return false;
            }
        }
        return forceComplete();
    }

    private static void finish(Status status, Errors error) {
        status.result = status.result.withError(error);
        status.acksPending = false;
    }

    @Override
    public void onExpiration() {
        for (int i = 0; i < statuses.length; i++) {
            Status status = statuses[i];
            if (status.acksPending) {
                LOG.debug("Produce to {} timed out waiting for {} to reach {}", topicPartitions[i],
                        status.awaitFlush ? "the leader's flush" : "the HW", status.requiredOffset);
            }
        }
    }

    @Override
    public void onComplete() {
        Map<TopicPartition, ProduceResult> answer = new LinkedHashMap<>();
        for (int i = 0; i < statuses.length; i++) {
            answer.put(topicPartitions[i], statuses[i].result);
        }
        result.complete(Collections.unmodifiableMap(answer));
    }

    @Override
    public String toString() {
        Map<TopicPartition, Long> required = new LinkedHashMap<>();
        for (int i = 0; i < statuses.length; i++) {
            required.put(topicPartitions[i], statuses[i].requiredOffset);
        }
        return "DelayedProduce(" + required + ", timeoutMs=" + delayMs() + ")";
    }
}
