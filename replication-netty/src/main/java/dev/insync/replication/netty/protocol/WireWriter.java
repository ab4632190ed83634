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

package dev.insync.replication.netty.protocol;

import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.Records;
import dev.insync.replication.log.segment.FileRecords;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.FileRegion;
import io.netty.util.ReferenceCountUtil;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * Writes one frame. Fixed-size fields go into a scratch buffer; record bytes are never copied but
 * added as their own component after their length ({@link #records}), so a frame is a chain of
 * "fields, records, fields, records, ...". With file regions allowed (NET-3, a plaintext server's
 * fetch answers), records still in a segment file ({@link FileRecords}) become
 * {@link io.netty.channel.FileRegion}s in that chain and the frame is several messages
 * ({@link #finishFrame()}); otherwise such records are copied into the frame once. Encoders check
 * the same bounds decoders do, so a peer never receives a frame it must refuse.
 */
public final class WireWriter {

    private final ByteBufAllocator alloc;
    private final boolean fileRegions;
    /** Parts before {@link #out}: finished buffers and file regions, in order. */
    private final List<Object> parts = new ArrayList<>(0);
    private long partsBytes;
    private CompositeByteBuf out;
    private ByteBuf scratch;
    private boolean finished;

    /** A writer whose records are all in the frame's buffers. */
    public WireWriter(ByteBufAllocator alloc) {
        this(alloc, false);
    }

    /** @param fileRegions whether records in segment files may be sent as file regions (NET-3) */
    public WireWriter(ByteBufAllocator alloc, boolean fileRegions) {
        this.alloc = alloc;
        this.fileRegions = fileRegions;
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

    /** A UUID: its most significant int64, then its least significant. */
    public WireWriter uuid(java.util.UUID v) {
        return int64(v.getMostSignificantBits()).int64(v.getLeastSignificantBits());
    }

    /** An optional UUID: int8 presence (0 or 1), then {@link #uuid} when present. */
    public WireWriter optionalUuid(java.util.Optional<java.util.UUID> v) {
        bool(v.isPresent());
        if (v.isPresent()) {
            uuid(v.get());
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

    /**
     * int32 length, then the record bytes: records in memory as their own component (not copied);
     * records in a segment file as file regions (NET-3) if this writer allows them, else copied in
     * once.
     *
     * @throws RecordsUnavailableException if a file slice's segment was deleted or truncated since the read
     */
    public WireWriter records(Records records) {
        int size = records.sizeInBytes();
        int32(size);
        if (size == 0) {
            return this;
        }
        if (records instanceof FileRecords file && fileRegions) {
            cutScratch();
            List<FileRegion> regions = SegmentRegions.of(file);
            if (out.isReadable()) {
                parts.add(out);
                partsBytes += out.readableBytes();
            } else {
                out.release();
            }
            out = null; // never left released if what follows throws
            parts.addAll(regions);
            partsBytes += size;
            out = alloc.compositeBuffer(Integer.MAX_VALUE);
            return this;
        }
        MemoryRecords memory;
        try {
            memory = records.toMemoryRecords(); // no copy for MemoryRecords; one for a slice without file regions
        } catch (ApiException e) {
            throw new RecordsUnavailableException("Cannot copy " + records + ": " + e.getMessage(), e);
        }
        cutScratch();
        out.addComponent(true, Unpooled.wrappedBuffer(memory.buffer()));
        return this;
    }

    private void cutScratch() {
        if (scratch.isReadable()) {
            out.addComponent(true, scratch);
            scratch = alloc.buffer(256);
        }
    }

    /** Bytes written so far. */
    public long size() {
        return partsBytes + out.readableBytes() + scratch.readableBytes();
    }

    /**
     * The frame as one buffer; this writer must not be used afterwards.
     *
     * @throws IllegalStateException if file regions were written (use {@link #finishFrame()})
     */
    public ByteBuf finish() {
        if (!parts.isEmpty()) {
            throw new IllegalStateException("A frame with file regions is several messages: use finishFrame()");
        }
        closeOut();
        return out;
    }

    /** The frame as the messages to write in order; this writer must not be used afterwards. */
    public OutboundFrame finishFrame() {
        closeOut();
        List<Object> all = new ArrayList<>(parts.size() + 1);
        all.addAll(parts);
        if (out.isReadable() || all.isEmpty()) {
            all.add(out);
        } else {
            out.release();
        }
        long bytes = partsBytes + (all.get(all.size() - 1) == out ? out.readableBytes() : 0);
        parts.clear();
        return new OutboundFrame(all, bytes);
    }

    private void closeOut() {
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
    }

    /** Frees what was written, for an encoder that failed half-way. */
    public void discard() {
        if (!finished) {
            finished = true;
            scratch.release();
            if (out != null) {
                out.release();
            }
            parts.forEach(ReferenceCountUtil::safeRelease);
            parts.clear();
        }
    }
}
