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

package dev.insync.replication.core.partition;

import dev.insync.replication.core.fetcher.FollowerPartition;
import dev.insync.replication.log.LogAppendInfo;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.epoch.EpochEndOffset;
import dev.insync.replication.log.record.MemoryRecords;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;

/**
 * A {@link Partition} as its follower fetcher sees it ({@link FollowerPartition}): every mutation goes through
 * the partition, so its lock applies and a partition that has meanwhile become the leader refuses follower
 * appends.
 */
public final class PartitionFollowerView implements FollowerPartition {

    private final Partition partition;

    /** A view over {@code partition}. */
    public PartitionFollowerView(Partition partition) {
        this.partition = Objects.requireNonNull(partition, "partition");
    }

    @Override
    public TopicPartition topicPartition() {
        return partition.topicPartition();
    }

    @Override
    public Optional<UUID> topicId() {
        return partition.topicId();
    }

    @Override
    public long logStartOffset() {
        return partition.localLog().logStartOffset();
    }

    @Override
    public long logEndOffset() {
        return partition.logEndOffset();
    }

    @Override
    public long highWatermark() {
        return partition.highWatermark();
    }

    @Override
    public OptionalInt latestEpoch() {
        return partition.localLog().latestEpoch();
    }

    @Override
    public Optional<EpochEndOffset> endOffsetForEpoch(int epoch) {
        return partition.localLog().knownEndOffsetForEpoch(epoch);
    }

    @Override
    public LogAppendInfo appendRecordsAsFollower(MemoryRecords records) {
        return partition.appendRecordsToFollower(records);
    }

    @Override
    public void truncateTo(long offset) {
        partition.truncateTo(offset);
    }

    @Override
    public void truncateFullyAndStartAt(long offset) {
        partition.truncateFullyAndStartAt(offset);
    }

    @Override
    public long updateFollowerHighWatermark(long leaderHighWatermark) {
        return partition.updateFollowerHighWatermark(leaderHighWatermark);
    }

    @Override
    public void maybeIncrementLogStartOffset(long leaderLogStartOffset) {
        partition.maybeIncrementLogStartOffset(leaderLogStartOffset);
    }
}
