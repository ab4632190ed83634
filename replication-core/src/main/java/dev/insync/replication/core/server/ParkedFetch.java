/*
 * Copyright 2026 The Insync developers
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package dev.insync.replication.core.server;

import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.MemoryRecords;

import java.util.Optional;

/**
 * What a parked fetch (FET-5) saw of each of its partitions at its first read: the hosting
 * {@link Partition} object, its leader and partition epochs, the fetch offset and the answer.
 *
 * <p>While a partition is still that same leader in the same epochs, online, its readable end (the
 * LEO for a follower, the HW for a consumer) is the fetch offset, and its log start offset is not
 * above it, a read of it could only answer "no
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
    private final long hostedGeneration;
    private final TopicPartition[] topicPartitions;
    private final Partition[] parked;
    private final int[] leaderEpochs;
    private final int[] partitionEpochs;
    private final long[] fetchOffsets;
    /** The first read's answer of each partition, reused at expiry while its offsets still hold. */
    private final FetchResponse.PartitionData[] firstAnswers;
    private boolean allHosted = true;

    /**
     * An empty snapshot of {@code request}'s partitions, filled by its first read ({@link #record}).
     *
     * @param hostedGeneration the broker's hosted-partitions generation before that read: while it
     *                         is unchanged, the recorded Partition objects are still the hosted ones
     */
    ParkedFetch(FetchRequest request, long hostedGeneration) {
        int n = request.partitions().size();
        this.fromFollower = request.isFromFollower();
        this.hostedGeneration = hostedGeneration;
        this.topicPartitions = new TopicPartition[n];
        this.parked = new Partition[n];
        this.leaderEpochs = new int[n];
        this.partitionEpochs = new int[n];
        this.fetchOffsets = new long[n];
        this.firstAnswers = new FetchResponse.PartitionData[n];
    }

    /**
     * Records the {@code k}-th partition (request order), {@code tp}, as the first read left it:
     * hosted as {@code partition} (null if not hosted: no shortcut for this fetch then), fetched at
     * {@code fetchOffset}, answered with {@code answer}.
     */
    void record(int k, TopicPartition tp, Partition partition, long fetchOffset, FetchResponse.PartitionData answer) {
        topicPartitions[k] = tp;
        if (partition == null) {
            allHosted = false;
            return;
        }
        parked[k] = partition;
        leaderEpochs[k] = partition.leaderEpoch();
        partitionEpochs[k] = partition.partitionEpoch();
        fetchOffsets[k] = fetchOffset;
        firstAnswers[k] = answer;
    }

    /** Whether every partition was hosted at the first read; if not, the snapshot must not be used. */
    boolean isUsable() {
        return allHosted;
    }

    /** The hosted-partitions generation the snapshot was taken in. */
    long hostedGeneration() {
        return hostedGeneration;
    }

    /** How many partitions the snapshot covers (the request's). */
    int size() {
        return parked.length;
    }

    /** The {@code k}-th partition's name. */
    TopicPartition topicPartition(int k) {
        return topicPartitions[k];
    }

    /** The {@code k}-th partition as hosted at the first read. */
    Partition partition(int k) {
        return parked[k];
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
