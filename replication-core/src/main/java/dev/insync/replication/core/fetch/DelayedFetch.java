package dev.insync.replication.core.fetch;

import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.core.partition.PartitionFetchResult;
import dev.insync.replication.core.purgatory.DelayedOperation;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.core.time.Time;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.MemoryRecords;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * FET-5: a fetch parked in the fetch purgatory (a long poll), watched under each of its
 * {@link TopicPartition}s for up to {@code maxWaitMs}. It completes as soon as the bytes available over its
 * partitions reach {@code minBytes} (each counted as min(bytes from the fetch offset to the LEO for a follower
 * or to the HW for a consumer, the partition's max bytes)), or at once when a partition answers with an error,
 * a divergence appears, or a fetch offset is past the end it may read. On expiry it answers with what there is.
 * Re-reads never update follower state (FET-4: only the first read, done by the caller with
 * {@link #read(FetchRequest, Function, long, boolean)}, does).
 *
 * <p>Who checks it: the caller runs {@code purgatory.checkAndComplete(tp)} after every leader append (a
 * follower's parked fetch must wake on new data) and after every HW rise (for consumers).
 */
public final class DelayedFetch extends DelayedOperation {

    private final FetchRequest request;
    private final Function<TopicPartition, Optional<Partition>> partitions;
    private final Time time;
    private final CompletableFuture<FetchResponse> result = new CompletableFuture<>();

    /**
     * @param request     the fetch; its {@code maxWaitMs} is the delay
     * @param partitions  finds the broker's partition (empty when not hosted)
     * @param time        clock for re-reads
     */
    public DelayedFetch(FetchRequest request, Function<TopicPartition, Optional<Partition>> partitions, Time time) {
        super(request.maxWaitMs());
        this.request = Objects.requireNonNull(request, "request");
        this.partitions = Objects.requireNonNull(partitions, "partitions");
        this.time = Objects.requireNonNull(time, "time");
        if (request.partitions().isEmpty()) {
            throw new IllegalArgumentException("A delayed fetch needs at least one partition (replica "
                    + request.replicaId() + ")");
        }
    }

    /** The partitions to watch under (the purgatory keys). */
    public Set<TopicPartition> keys() {
        return request.partitions().keySet();
    }

    /** Completes exactly once with the answer. */
    public CompletableFuture<FetchResponse> result() {
        return result;
    }

    @Override
    public boolean tryComplete() {
        FetchRead read = read(request, partitions, time.milliseconds(), false);
        return read.satisfies(request.minBytes()) && forceComplete();
    }

    @Override
    public void onExpiration() {
        // FET-5: on expiry the fetch answers with what there is; onComplete reads it.
    }

    @Override
    public void onComplete() {
        result.complete(read(request, partitions, time.milliseconds(), false).response());
    }

    /**
     * Reads every partition of {@code request} once, in request order, within the response's maxBytes (the
     * first partition with data returns at least one batch, later ones nothing once the budget is spent).
     *
     * @param updateFetchState true for the first read of a fetch (FET-4), false for re-reads of a parked one
     */
    public static FetchRead read(FetchRequest request, Function<TopicPartition, Optional<Partition>> partitions,
                                 long nowMs, boolean updateFetchState) {
        Map<TopicPartition, FetchResponse.PartitionData> answers = new LinkedHashMap<>();
        Set<TopicPartition> hwIncreased = new LinkedHashSet<>();
        long bytesAvailable = 0;
        boolean completeNow = false;
        long remainingBytes = request.maxBytes();
        boolean anyRecords = false;
        for (Map.Entry<TopicPartition, FetchRequest.PartitionData> entry : request.partitions().entrySet()) {
            TopicPartition tp = entry.getKey();
            FetchRequest.PartitionData data = entry.getValue();
            Optional<Partition> partition = partitions.apply(tp);
            if (partition.isEmpty()) {
                answers.put(tp, FetchResponse.PartitionData.error(Errors.UNKNOWN_TOPIC_OR_PARTITION));
                completeNow = true;
                continue;
            }
            int maxBytes = (int) Math.max(1, Math.min(data.partitionMaxBytes(), remainingBytes));
            PartitionFetchResult fetched = partition.get().fetchRecords(request, data, maxBytes, nowMs, updateFetchState);
            if (fetched.highWatermarkIncreased()) {
                hwIncreased.add(tp);
            }
            FetchResponse.PartitionData answer = fetched.data();
            if (answer.error() != Errors.NONE || answer.divergingEpoch().isPresent()) {
                completeNow = true;
            } else {
                long readableEnd = request.isFromFollower() ? answer.logEndOffset() : answer.highWatermark();
                if (data.fetchOffset() > readableEnd) {
                    completeNow = true;
                }
                int size = answer.records().sizeInBytes();
                if (size > 0 && anyRecords && size > remainingBytes) {
                    // FET-6: the response is full; this partition answers without records this time
                    answer = new FetchResponse.PartitionData(answer.error(), answer.highWatermark(),
                            answer.lastStableOffset(), answer.logStartOffset(), answer.logEndOffset(),
                            MemoryRecords.EMPTY, answer.divergingEpoch());
                    size = 0;
                }
                bytesAvailable += Math.min(size, data.partitionMaxBytes());
                remainingBytes -= size;
                anyRecords |= size > 0;
            }
            answers.put(tp, answer);
        }
        return new FetchRead(new FetchResponse(Errors.NONE, answers), bytesAvailable, completeNow, hwIncreased);
    }

    @Override
    public String toString() {
        return "DelayedFetch(replica=" + request.replicaId() + ", partitions=" + request.partitions().keySet()
                + ", minBytes=" + request.minBytes() + ", maxWaitMs=" + request.maxWaitMs() + ")";
    }
}
