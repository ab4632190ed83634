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
 */
public record LogAppendInfo(long firstOffset, long lastOffset, int recordCount, int validBytes,
                            long logAppendTimeMs, long maxTimestamp) {
}
