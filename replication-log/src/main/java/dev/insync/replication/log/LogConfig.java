package dev.insync.replication.log;

/**
 * Per-log settings, with Kafka's property names and defaults (SPEC table).
 *
 * @param segmentBytes       {@code segment.bytes}
 * @param segmentIndexBytes  {@code segment.index.bytes}
 * @param indexIntervalBytes {@code index.interval.bytes}
 * @param maxMessageBytes    {@code max.message.bytes}
 * @param flushMessages      {@code flush.messages}
 * @param flushMs            {@code flush.ms}
 * @param retentionMs        {@code retention.ms} (-1: unlimited)
 * @param retentionBytes     {@code retention.bytes} (-1: unlimited)
 */
public record LogConfig(int segmentBytes, int segmentIndexBytes, int indexIntervalBytes, int maxMessageBytes,
                        long flushMessages, long flushMs, long retentionMs, long retentionBytes) {

    /** Kafka's defaults. */
    public static LogConfig defaults() {
        return new LogConfig(1024 * 1024 * 1024, 10 * 1024 * 1024, 4096, 1048588,
                Long.MAX_VALUE, Long.MAX_VALUE, 604800000L, -1L);
    }
}
