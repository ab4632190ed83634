package dev.insync.replication.core.server;

import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.MemoryRecords;

import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * What a parked fetch (FET-5) saw of each of its partitions when it parked: the hosting
 * {@link Partition} object, its leader and partition epochs, and the fetch offset, which was then
 * the end the fetch may read (the LEO for a follower, the HW for a consumer): nothing was readable.
 *
 * <p>While a partition is still that same leader in the same epochs, online, and its readable end
 * and log start offset leave the fetch offset where it was, a read of it could only answer "no
 * records, no divergence, no error" with the current HW and offsets: {@link #isUnchanged} says so
 * from a few field reads, and {@link #caughtUpAnswer} is that answer, without the partition's lock
 * or a log read. A parked follower fetch covers every partition the follower has from this leader
 * (1,000 in the 3,000-partition bench), and answering it on every wake and at every expiry with a
 * full read of each was most of an idle cluster's CPU. Divergence cannot appear while the epochs
 * hold: the leader's epoch cache only changes with a new leader epoch, and the end offset of the
 * current epoch is the LEO, which only grows.
 */
final class ParkedFetch {

    private final boolean fromFollower;
    private final Partition[] parked;
    private final int[] leaderEpochs;
    private final int[] partitionEpochs;
    private final long[] fetchOffsets;
    /** The first read's answer of each partition, reused at expiry while its offsets still hold. */
    private final FetchResponse.PartitionData[] firstAnswers;

    private ParkedFetch(boolean fromFollower, int n, FetchResponse.PartitionData[] firstAnswers) {
        this.fromFollower = fromFollower;
        this.firstAnswers = firstAnswers;
        this.parked = new Partition[n];
        this.leaderEpochs = new int[n];
        this.partitionEpochs = new int[n];
        this.fetchOffsets = new long[n];
    }

    /**
     * The snapshot of {@code request}'s partitions, in request order, after its first read found
     * nothing to answer at once; empty if one of them is not hosted (no shortcut then).
     *
     * @param firstAnswers that read's answers in request order (kept, not copied)
     */
    static Optional<ParkedFetch> of(FetchRequest request, Function<TopicPartition, Partition> hosted,
                                    FetchResponse.PartitionData[] firstAnswers) {
        if (firstAnswers.length != request.partitions().size()) {
            throw new IllegalArgumentException(firstAnswers.length + " first answers for "
                    + request.partitions().size() + " partitions");
        }
        ParkedFetch snapshot = new ParkedFetch(request.isFromFollower(), request.partitions().size(), firstAnswers);
        int k = 0;
        for (Map.Entry<TopicPartition, FetchRequest.PartitionData> e : request.partitions().entrySet()) {
            Partition p = hosted.apply(e.getKey());
            if (p == null) {
                return Optional.empty();
            }
            snapshot.parked[k] = p;
            snapshot.leaderEpochs[k] = p.leaderEpoch();
            snapshot.partitionEpochs[k] = p.partitionEpoch();
            snapshot.fetchOffsets[k] = e.getValue().fetchOffset();
            k++;
        }
        return Optional.of(snapshot);
    }

    /** How many partitions the snapshot covers (the request's). */
    int size() {
        return parked.length;
    }

    /**
     * Whether the {@code k}-th partition (request order), now hosted as {@code current}, still has
     * nothing a read could return (see the class comment).
     */
    boolean isUnchanged(int k, Partition current) {
        Partition p = parked[k];
        if (current != p || !p.isLeader() || p.isOffline() || p.leaderEpoch() != leaderEpochs[k]
                || p.partitionEpoch() != partitionEpochs[k]) {
            return false;
        }
        long readableEnd = fromFollower ? p.logEndOffset() : p.highWatermark();
        return readableEnd == fetchOffsets[k] && p.localLog().logStartOffset() <= fetchOffsets[k];
    }

    /**
     * The answer a read of an unchanged partition gives (Partition's own: no records, HW as the last
     * stable offset, the current log start and end offsets): the first read's answer when it says
     * exactly that, else a new one.
     */
    FetchResponse.PartitionData caughtUpAnswer(int k) {
        Partition p = parked[k];
        long hw = p.highWatermark();
        long logStartOffset = p.localLog().logStartOffset();
        long logEndOffset = p.logEndOffset();
        FetchResponse.PartitionData first = firstAnswers[k];
        if (first != null && first.error() == Errors.NONE && first.records().sizeInBytes() == 0
                && first.divergingEpoch().isEmpty() && first.highWatermark() == hw && first.lastStableOffset() == hw
                && first.logStartOffset() == logStartOffset && first.logEndOffset() == logEndOffset) {
            return first;
        }
        return new FetchResponse.PartitionData(Errors.NONE, hw, hw, logStartOffset, logEndOffset,
                MemoryRecords.EMPTY, Optional.empty());
    }
}
