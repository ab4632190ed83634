package dev.insync.replication.log.record;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * A zero-copy view of one Kafka v2 record batch (LOG-1) held in a {@link ByteBuffer}. Accessors
 * read the header fields in place; {@link #records()} decodes the records lazily. The setters for
 * base offset and partition leader epoch write in place: neither field is covered by the CRC (LOG-4).
 */
public final class RecordBatch {

    /** Size in bytes of the fixed batch header (baseOffset .. recordCount). */
    public static final int HEADER_SIZE = 61;
    /** The only magic value this library reads or writes. */
    public static final byte MAGIC_V2 = 2;
    /** partitionLeaderEpoch of a batch that has none (and of Kafka's "unknown" epoch). */
    public static final int NO_PARTITION_LEADER_EPOCH = -1;

    private final ByteBuffer buffer;

    RecordBatch(ByteBuffer buffer) {
        this.buffer = buffer;
    }

    /** A view over exactly one batch starting at the buffer's position; validates framing only. */
    public static RecordBatch wrap(ByteBuffer buffer) {
        throw new UnsupportedOperationException("record format: issue 2");
    }

    public long baseOffset() { throw new UnsupportedOperationException("record format: issue 2"); }

    public long lastOffset() { throw new UnsupportedOperationException("record format: issue 2"); }

    /** lastOffset + 1. */
    public long nextOffset() { throw new UnsupportedOperationException("record format: issue 2"); }

    public int lastOffsetDelta() { throw new UnsupportedOperationException("record format: issue 2"); }

    public int partitionLeaderEpoch() { throw new UnsupportedOperationException("record format: issue 2"); }

    public byte magic() { throw new UnsupportedOperationException("record format: issue 2"); }

    /** The stored CRC-32C as an unsigned value. */
    public long checksum() { throw new UnsupportedOperationException("record format: issue 2"); }

    /** Whether the stored CRC matches the bytes from attributes to the end. */
    public boolean isValid() { throw new UnsupportedOperationException("record format: issue 2"); }

    /** @throws dev.insync.replication.log.ApiException CORRUPT_MESSAGE naming the offset if not valid */
    public void ensureValid() { throw new UnsupportedOperationException("record format: issue 2"); }

    /** Total size: 12-byte log overhead (baseOffset, batchLength) + batchLength. */
    public int sizeInBytes() { throw new UnsupportedOperationException("record format: issue 2"); }

    public short attributes() { throw new UnsupportedOperationException("record format: issue 2"); }

    public boolean isCompressed() { throw new UnsupportedOperationException("record format: issue 2"); }

    public TimestampType timestampType() { throw new UnsupportedOperationException("record format: issue 2"); }

    public long baseTimestamp() { throw new UnsupportedOperationException("record format: issue 2"); }

    public long maxTimestamp() { throw new UnsupportedOperationException("record format: issue 2"); }

    public long producerId() { throw new UnsupportedOperationException("record format: issue 2"); }

    public short producerEpoch() { throw new UnsupportedOperationException("record format: issue 2"); }

    public int baseSequence() { throw new UnsupportedOperationException("record format: issue 2"); }

    public int recordCount() { throw new UnsupportedOperationException("record format: issue 2"); }

    /** Decodes the records; throws CORRUPT_MESSAGE on malformed record bytes. */
    public List<Record> records() { throw new UnsupportedOperationException("record format: issue 2"); }

    /** A read-only duplicate of this batch's bytes, position 0, limit sizeInBytes. */
    public ByteBuffer buffer() { throw new UnsupportedOperationException("record format: issue 2"); }

    /** Rewrites baseOffset in place (not covered by the CRC). */
    public void setBaseOffset(long baseOffset) { throw new UnsupportedOperationException("record format: issue 2"); }

    /** Rewrites partitionLeaderEpoch in place (not covered by the CRC). */
    public void setPartitionLeaderEpoch(int epoch) { throw new UnsupportedOperationException("record format: issue 2"); }
}
