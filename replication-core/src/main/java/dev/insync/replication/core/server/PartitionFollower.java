package dev.insync.replication.core.server;

import dev.insync.replication.core.fetcher.FollowerPartition;
import dev.insync.replication.core.fetcher.LogFollowerPartition;
import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.log.Log;
import dev.insync.replication.log.LogAppendInfo;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.epoch.EpochEndOffset;
import dev.insync.replication.log.record.MemoryRecords;

import java.util.Optional;
import java.util.OptionalInt;

/** The fetcher's view of a {@link Partition} this broker follows: every mutation goes through the partition's lock. */
final class PartitionFollower implements FollowerPartition {

    private final Partition partition;

    PartitionFollower(Partition partition) {
        this.partition = partition;
    }

    @Override
    public TopicPartition topicPartition() {
        return partition.topicPartition();
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
        Optional<Log> log = partition.localLog().underlyingLog();
        if (log.isPresent()) {
            return LogFollowerPartition.endOffsetForEpoch(log.get(), epoch);
        }
        EpochEndOffset found = partition.localLog().endOffsetForEpoch(epoch);
        if (found.endOffset() == EpochEndOffset.UNDEFINED_OFFSET || found.leaderEpoch() > epoch) {
            return Optional.empty();
        }
        return Optional.of(found);
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
        partition.localLog().maybeIncrementLogStartOffset(leaderLogStartOffset);
    }
}
