package dev.insync.replication.log.record;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;
import java.util.List;

/**
 * Zero or more whole v2 record batches back to back in one {@link ByteBuffer}: what a producer
 * sends, what a read returns and what a follower appends.
 */
public final class MemoryRecords {

    /** No batches. */
    public static final MemoryRecords EMPTY = new MemoryRecords(ByteBuffer.allocate(0));

    private final ByteBuffer buffer;

    private MemoryRecords(ByteBuffer buffer) {
        this.buffer = buffer;
    }

    /** Wraps bytes without copying; framing is checked when batches are iterated. */
    public static MemoryRecords readableRecords(ByteBuffer buffer) {
        return new MemoryRecords(buffer.slice());
    }

    /** One uncompressed batch of these records with base offset 0 and no leader epoch. */
    public static MemoryRecords withRecords(SimpleRecord... records) {
        throw new UnsupportedOperationException("record format: issue 2");
    }

    /** A read-only duplicate of the bytes. */
    public ByteBuffer buffer() {
        return buffer.asReadOnlyBuffer();
    }

    public int sizeInBytes() {
        return buffer.remaining();
    }

    /**
     * The batches in order; throws CORRUPT_MESSAGE naming the position if a batch header is
     * truncated or its length is out of bounds.
     */
    public List<RecordBatch> batches() {
        throw new UnsupportedOperationException("record format: issue 2");
    }

    /** Writes all bytes to the channel; returns the number written. */
    public int writeFullyTo(GatheringByteChannel channel) throws IOException {
        throw new UnsupportedOperationException("record format: issue 2");
    }
}
