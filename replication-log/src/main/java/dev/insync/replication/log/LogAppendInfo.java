package dev.insync.replication.log;

/**
 * What an append did.
 *
 * @param firstOffset      offset of the first appended record
 * @param lastOffset       offset of the last appended record
 * @param recordCount      number of records appended
 * @param validBytes       bytes appended
 * @param logAppendTimeMs  the log-append time if the topic uses it, else -1
 * @param maxTimestamp     largest record timestamp appended
 * @param flushDue         LOG-11 group commit: the append made a flush due ({@code flush.messages} /
 *                         {@code flush.ms}) that the log did not do itself because its owner defers
 *                         leader flushes ({@link Log#setLeaderFlushDeferred}); the owner must call
 *                         {@link Log#flush(long)} with at least {@code lastOffset + 1}
 */
public record LogAppendInfo(long firstOffset, long lastOffset, int recordCount, int validBytes,
                            long logAppendTimeMs, long maxTimestamp, boolean flushDue) {

    /** An append that left no flush to its owner (it flushed itself or none was due). */
    public LogAppendInfo(long firstOffset, long lastOffset, int recordCount, int validBytes, long logAppendTimeMs,
                         long maxTimestamp) {
        this(firstOffset, lastOffset, recordCount, validBytes, logAppendTimeMs, maxTimestamp, false);
    }
}
