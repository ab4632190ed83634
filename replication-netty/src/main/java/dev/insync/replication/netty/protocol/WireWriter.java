package dev.insync.replication.netty.protocol;

import dev.insync.replication.log.record.MemoryRecords;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;

import java.nio.charset.StandardCharsets;
import java.util.OptionalInt;

/**
 * Writes one frame. Fixed-size fields go into a scratch buffer; record bytes are never copied but
 * added as their own component after their length ({@link #records}), so a frame is a chain of
 * "fields, records, fields, records, ...". That is the seam for zero copy (NET-3): a file-backed
 * variant of {@link #records} can emit a {@code FileRegion} in the same place without changing any
 * codec. Encoders check the same bounds decoders do, so a peer never receives a frame it must refuse.
 */
public final class WireWriter {

    private final ByteBufAllocator alloc;
    private final CompositeByteBuf out;
    private ByteBuf scratch;
    private boolean finished;

    public WireWriter(ByteBufAllocator alloc) {
        this.alloc = alloc;
        // No consolidation: merging components would copy the record bytes.
        this.out = alloc.compositeBuffer(Integer.MAX_VALUE);
        this.scratch = alloc.buffer(256);
    }

    public WireWriter int8(int v) {
        scratch.writeByte(v);
        return this;
    }

    public WireWriter int16(int v) {
        scratch.writeShort(v);
        return this;
    }

    public WireWriter int32(int v) {
        scratch.writeInt(v);
        return this;
    }

    public WireWriter int64(long v) {
        scratch.writeLong(v);
        return this;
    }

    public WireWriter bool(boolean v) {
        return int8(v ? 1 : 0);
    }

    /** An optional int32: int8 presence, then the value when present. */
    public WireWriter optionalInt32(OptionalInt v) {
        bool(v.isPresent());
        if (v.isPresent()) {
            int32(v.getAsInt());
        }
        return this;
    }

    /** A non-null string of at most {@code maxBytes} UTF-8 bytes. */
    public WireWriter string(String s, int maxBytes, String field) {
        if (s == null) {
            throw new IllegalArgumentException(field + " must not be null");
        }
        return nullableString(s, maxBytes, field);
    }

    /** A string or null (length -1). */
    public WireWriter nullableString(String s, int maxBytes, String field) {
        if (s == null) {
            return int16(-1);
        }
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > maxBytes) {
            throw new IllegalArgumentException(field + " '" + s + "' is " + bytes.length + " bytes, more than "
                    + maxBytes);
        }
        int16(bytes.length);
        scratch.writeBytes(bytes);
        return this;
    }

    /** An array's element count. */
    public WireWriter arrayLength(int n) {
        if (n < -1) {
            throw new IllegalArgumentException("Negative array length " + n);
        }
        return int32(n);
    }

    /** int32 length, then the record bytes as their own component (not copied). */
    public WireWriter records(MemoryRecords records) {
        int size = records.sizeInBytes();
        int32(size);
        if (size > 0) {
            cutScratch();
            out.addComponent(true, Unpooled.wrappedBuffer(records.buffer()));
        }
        return this;
    }

    private void cutScratch() {
        if (scratch.isReadable()) {
            out.addComponent(true, scratch);
            scratch = alloc.buffer(256);
        }
    }

    /** Bytes written so far. */
    public int size() {
        return out.readableBytes() + scratch.readableBytes();
    }

    /** The frame; this writer must not be used afterwards. */
    public ByteBuf finish() {
        if (finished) {
            throw new IllegalStateException("Writer already finished");
        }
        finished = true;
        if (scratch.isReadable()) {
            out.addComponent(true, scratch);
        } else {
            scratch.release();
        }
        scratch = null;
        return out;
    }

    /** Frees what was written, for an encoder that failed half-way. */
    public void discard() {
        if (!finished) {
            finished = true;
            scratch.release();
            out.release();
        }
    }
}
