package dev.insync.replication.log.record;

import java.util.List;

/**
 * Builds one uncompressed v2 batch (LOG-1). Offsets are relative to {@code baseOffset}; a leader
 * append rewrites the base offset and epoch anyway (LOG-4).
 */
public final class RecordBatchBuilder {

    /** A builder for a batch starting at {@code baseOffset}, create-time timestamps, no producer id. */
    public RecordBatchBuilder(long baseOffset) {
        throw new UnsupportedOperationException("record format: issue 2");
    }

    public RecordBatchBuilder partitionLeaderEpoch(int epoch) { throw new UnsupportedOperationException("record format: issue 2"); }

    public RecordBatchBuilder timestampType(TimestampType type) { throw new UnsupportedOperationException("record format: issue 2"); }

    public RecordBatchBuilder append(long timestamp, byte[] key, byte[] value) { throw new UnsupportedOperationException("record format: issue 2"); }

    public RecordBatchBuilder append(long timestamp, byte[] key, byte[] value, List<Header> headers) { throw new UnsupportedOperationException("record format: issue 2"); }

    public RecordBatchBuilder append(SimpleRecord record) { throw new UnsupportedOperationException("record format: issue 2"); }

    /** The finished batch; at least one record must have been appended. */
    public MemoryRecords build() { throw new UnsupportedOperationException("record format: issue 2"); }
}
