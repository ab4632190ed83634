package dev.insync.replication.log;

import dev.insync.replication.log.epoch.EpochEndOffset;
import dev.insync.replication.log.epoch.LeaderEpochCache;
import dev.insync.replication.log.record.MemoryRecords;

import java.io.Closeable;
import java.nio.file.Path;
import java.util.OptionalInt;

/**
 * One partition's log (Kafka's {@code UnifiedLog}): segments on disk, the leader-epoch cache,
 * the log start offset, the high watermark and the recovery point. Appends and truncations are
 * serialized; reads run concurrently and see only whole batches.
 */
public final class Log implements Closeable {

    private Log() {
    }

    /**
     * Opens (creating if absent) the log in {@code dir}, recovering from {@code recoveryPoint}
     * (LOG-7).
     */
    public static Log open(Path dir, TopicPartition topicPartition, LogConfig config, long recoveryPoint,
                           long logStartOffset) {
        throw new UnsupportedOperationException("log: issue 2");
    }

    public TopicPartition topicPartition() { throw new UnsupportedOperationException("log: issue 2"); }

    public Path dir() { throw new UnsupportedOperationException("log: issue 2"); }

    public LogConfig config() { throw new UnsupportedOperationException("log: issue 2"); }

    /** LOG-4: validates (LOG-5), assigns offsets from the LEO and stamps {@code leaderEpoch}. */
    public LogAppendInfo appendAsLeader(MemoryRecords records, int leaderEpoch) { throw new UnsupportedOperationException("log: issue 2"); }

    /** LOG-4: appends the leader's bytes as they are; learns each new epoch into the cache (FOL-4). */
    public LogAppendInfo appendAsFollower(MemoryRecords records) { throw new UnsupportedOperationException("log: issue 2"); }

    /** LOG-3: whole batches from the one containing startOffset, none at or above maxOffset. */
    public LogReadInfo read(long startOffset, int maxBytes, long maxOffset) { throw new UnsupportedOperationException("log: issue 2"); }

    public long logStartOffset() { throw new UnsupportedOperationException("log: issue 2"); }

    public long logEndOffset() { throw new UnsupportedOperationException("log: issue 2"); }

    public long highWatermark() { throw new UnsupportedOperationException("log: issue 2"); }

    /** Sets the HW clamped to [logStartOffset, LEO]; returns the value set. */
    public long updateHighWatermark(long hw) { throw new UnsupportedOperationException("log: issue 2"); }

    /** Raises the HW to {@code hw} if higher (clamped to the LEO); returns whether it moved. */
    public boolean maybeIncrementHighWatermark(long hw) { throw new UnsupportedOperationException("log: issue 2"); }

    public long recoveryPoint() { throw new UnsupportedOperationException("log: issue 2"); }

    /** The epoch of the latest cache entry, empty if the log has no epoch information. */
    public OptionalInt latestEpoch() { throw new UnsupportedOperationException("log: issue 2"); }

    /** {@link LeaderEpochCache#endOffsetFor} with this log's LEO. */
    public EpochEndOffset endOffsetForEpoch(int epoch) { throw new UnsupportedOperationException("log: issue 2"); }

    public LeaderEpochCache leaderEpochCache() { throw new UnsupportedOperationException("log: issue 2"); }

    /** Records the start of a new leader epoch at the LEO (LDR-1). */
    public void assignEpochStartOffset(int leaderEpoch, long startOffset) { throw new UnsupportedOperationException("log: issue 2"); }

    /** LOG-6; returns whether any data was removed. */
    public boolean truncateTo(long offset) { throw new UnsupportedOperationException("log: issue 2"); }

    /** LOG-6: empties the log and starts it at {@code offset}. */
    public void truncateFullyAndStartAt(long offset) { throw new UnsupportedOperationException("log: issue 2"); }

    /** LOG-11: forces data, then indexes, then advances the recovery point to the LEO. */
    public void flush() { throw new UnsupportedOperationException("log: issue 2"); }

    /** LOG-10: moves the log start offset to {@code offset} (never past the HW) and deletes whole segments below it. */
    public void deleteRecordsBefore(long offset) { throw new UnsupportedOperationException("log: issue 2"); }

    /** LOG-10: a follower takes the leader's log start offset (bounded by its own HW/LEO). */
    public void maybeIncrementLogStartOffset(long offset) { throw new UnsupportedOperationException("log: issue 2"); }

    /** LOG-10: deletes segments past retention.ms / retention.bytes; returns how many. */
    public int deleteOldSegments(long nowMs) { throw new UnsupportedOperationException("log: issue 2"); }

    /** Bytes on disk in all segments. */
    public long size() { throw new UnsupportedOperationException("log: issue 2"); }

    /** Flushes nothing; closes files and trims preallocated indexes. */
    @Override
    public void close() { throw new UnsupportedOperationException("log: issue 2"); }
}
