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

package dev.insync.replication.log.record;

import dev.insync.replication.log.Errors;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.GatheringByteChannel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Zero or more whole v2 record batches back to back in one {@link ByteBuffer}: what a producer
 * sends, what a read returns and what a follower appends. Iterating batches decodes no records
 * and allocates one small view per batch; the views share this buffer's bytes, so their setters
 * (base offset, leader epoch, max timestamp) write through.
 */
public final class MemoryRecords implements Records {

    /** No batches. */
    public static final MemoryRecords EMPTY = new MemoryRecords(ByteBuffer.allocate(0).asReadOnlyBuffer());

    private final ByteBuffer buffer;

    private MemoryRecords(ByteBuffer buffer) {
        this.buffer = buffer;
    }

    /**
     * Wraps the bytes between the buffer's position and limit without copying; framing is checked
     * when batches are iterated. Batch setters write through to these bytes (and fail with
     * {@link java.nio.ReadOnlyBufferException} on a read-only buffer).
     */
    public static MemoryRecords readableRecords(ByteBuffer buffer) {
        return new MemoryRecords(buffer.slice());
    }

    /** One uncompressed batch of these records with base offset 0 and no leader epoch. */
    public static MemoryRecords withRecords(SimpleRecord... records) {
        return withRecords(0L, RecordBatch.NO_PARTITION_LEADER_EPOCH, records);
    }

    /** One uncompressed create-time batch of these records at {@code baseOffset} with this leader epoch. */
    public static MemoryRecords withRecords(long baseOffset, int partitionLeaderEpoch, SimpleRecord... records) {
        RecordBatchBuilder builder = new RecordBatchBuilder(baseOffset).partitionLeaderEpoch(partitionLeaderEpoch);
        for (SimpleRecord r : records) {
            builder.append(r);
        }
        return builder.build();
    }

    /**
     * Several batches back to back in one buffer, each written straight from its builder (no
     * intermediate copies): the usual way to make a multi-batch produce or follower input.
     *
     * @throws IllegalStateException if a builder has no records
     */
    public static MemoryRecords withBatches(RecordBatchBuilder... builders) {
        long size = 0;
        for (int i = 0; i < builders.length; i++) {
            if (builders[i].recordCount() == 0) {
                throw new IllegalStateException("Cannot write an empty batch: builder " + i + " of " + builders.length
                        + " has no records");
            }
            size += builders[i].exactSizeInBytes();
        }
        if (size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("Batches total " + size + " bytes, more than one buffer can hold");
        }
        ByteBuffer out = ByteBuffer.allocate((int) size);
        for (RecordBatchBuilder b : builders) {
            b.writeTo(out);
        }
        return new MemoryRecords(out.flip());
    }

    /** The batches of all inputs back to back, copied into one new buffer, in order. */
    public static MemoryRecords concat(List<MemoryRecords> parts) {
        int size = 0;
        for (MemoryRecords p : parts) {
            size = Math.addExact(size, p.sizeInBytes());
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        for (MemoryRecords p : parts) {
            out.put(p.buffer.duplicate());
        }
        return new MemoryRecords(out.flip());
    }

    /** A read-only duplicate of the bytes. */
    public ByteBuffer buffer() {
        return buffer.asReadOnlyBuffer();
    }

    /** A writable duplicate sharing the bytes, for in-package readers that must not copy (CRC, views). */
    ByteBuffer sharedBuffer() {
        return buffer.duplicate();
    }

    /** Total bytes of all batches. */
    @Override
    public int sizeInBytes() {
        return buffer.remaining();
    }

    /** This: the bytes are in memory already. */
    @Override
    public MemoryRecords toMemoryRecords() {
        return this;
    }

    /**
     * The batches in order; throws CORRUPT_MESSAGE naming the position if a batch header is
     * truncated or its length is out of bounds (or its magic is not 2). CRCs are not checked here
     * (see {@link RecordsValidator}).
     */
    @Override
    public List<RecordBatch> batches() {
        List<RecordBatch> out = new ArrayList<>();
        int pos = buffer.position();
        int limit = buffer.limit();
        while (pos < limit) {
            int size = RecordBatch.batchSizeAt(buffer, pos);
            if (size < 0) {
                throw Errors.CORRUPT_MESSAGE.exception("Truncated record batch at position " + (pos - buffer.position())
                        + ": only " + (limit - pos) + " bytes remain" + declaredSize(pos));
            }
            out.add(new RecordBatch(buffer.slice(pos, size)));
            pos += size;
        }
        return Collections.unmodifiableList(out);
    }

    private String declaredSize(int pos) {
        if (buffer.limit() - pos < RecordBatch.LENGTH_OFFSET + 4) {
            return " (fewer than a batch header)";
        }
        return " but the batch at base offset " + buffer.getLong(pos) + " declares "
                + ((long) buffer.getInt(pos + RecordBatch.LENGTH_OFFSET) + RecordBatch.LOG_OVERHEAD);
    }

    /** Writes all bytes to the channel; returns the number written. */
    public int writeFullyTo(GatheringByteChannel channel) throws IOException {
        ByteBuffer src = buffer.duplicate();
        int written = 0;
        while (src.hasRemaining()) {
            written += channel.write(src);
        }
        return written;
    }

    /** Equal when the bytes are equal. */
    @Override
    public boolean equals(Object o) {
        return o instanceof MemoryRecords other && buffer.equals(other.buffer);
    }

    @Override
    public int hashCode() {
        return buffer.hashCode();
    }

    @Override
    public String toString() {
        return "MemoryRecords(" + sizeInBytes() + " bytes)";
    }
}
