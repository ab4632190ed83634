package dev.insync.replication.core.fetcher;

import dev.insync.replication.log.Log;
import dev.insync.replication.log.LogAppendInfo;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.epoch.EpochEndOffset;
import dev.insync.replication.log.epoch.EpochEntry;
import dev.insync.replication.log.record.MemoryRecords;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A {@link FollowerPartition} straight over a {@link Log}, for embedders and tests that follow a
 * log without a {@code Partition} around it.
 */
public final class LogFollowerPartition implements FollowerPartition {

    private final Log log;

    /** Follows into {@code log}. */
    public LogFollowerPartition(Log log) {
        this.log = Objects.requireNonNull(log, "log");
    }

    @Override
    public TopicPartition topicPartition() {
        return log.topicPartition();
    }

    @Override
    public long logStartOffset() {
        return log.logStartOffset();
    }

    @Override
    public long logEndOffset() {
        return log.logEndOffset();
    }

    @Override
    public long highWatermark() {
        return log.highWatermark();
    }

    @Override
    public OptionalInt latestEpoch() {
        return log.latestEpoch();
    }

    @Override
    public Optional<EpochEndOffset> endOffsetForEpoch(int epoch) {
        return endOffsetForEpoch(log, epoch);
    }

    /**
     * FOL-8's follower lookup over a log, as Kafka's {@code UnifiedLog.endOffsetForEpoch}: empty
     * when the log has no epoch information or the epoch is above all it knows. For an epoch below
     * every known one the cache's answer {@code (requested, start of the first epoch)} is used: every
     * record the follower holds was written in a later epoch than the leader's, so it truncates to
     * where its first epoch starts. (Treating that case as "no epoch at or below E" would truncate
     * to {@code min(leaderEndOffset, LEO)}, keep the diverged records and retry forever.)
     */
    public static Optional<EpochEndOffset> endOffsetForEpoch(Log log, int epoch) {
        List<EpochEntry> entries = log.leaderEpochCache().epochEntries();
        if (entries.isEmpty()) {
            return Optional.empty();
        }
        EpochEndOffset found = log.endOffsetForEpoch(epoch);
        if (found.endOffset() == EpochEndOffset.UNDEFINED_OFFSET || found.leaderEpoch() > epoch) {
            return Optional.empty();
        }
        return Optional.of(found);
    }

    @Override
    public LogAppendInfo appendRecordsAsFollower(MemoryRecords records) {
        return log.appendAsFollower(records);
    }

    @Override
    public void truncateTo(long offset) {
        log.truncateTo(offset);
    }

    @Override
    public void truncateFullyAndStartAt(long offset) {
        log.truncateFullyAndStartAt(offset);
    }

    @Override
    public long updateFollowerHighWatermark(long leaderHighWatermark) {
        return log.updateHighWatermark(leaderHighWatermark);
    }

    @Override
    public void maybeIncrementLogStartOffset(long leaderLogStartOffset) {
        log.maybeIncrementLogStartOffset(leaderLogStartOffset);
    }
}
