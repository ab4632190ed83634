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

import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.MemoryRecords;
import io.netty.buffer.ByteBuf;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Reads one frame's fields with every bound checked before anything is allocated (NET-1): a field
 * past the end, a negative or too large length, a count that cannot fit in the bytes left, or a
 * string that is not UTF-8 is a {@link MalformedFrameException} naming the field and its position.
 * Never reads beyond the frame it was given.
 */
public final class WireReader {

    private final ByteBuf buf;
    private final int start;

    /** Reads {@code buf} from its reader index to its writer index. */
    public WireReader(ByteBuf buf) {
        this.buf = buf;
        this.start = buf.readerIndex();
    }

    /** Bytes not read yet. */
    public int remaining() {
        return buf.readableBytes();
    }

    /** Position from the start of what this reader was given. */
    public int position() {
        return buf.readerIndex() - start;
    }

    private void need(int bytes, String field) {
        if (buf.readableBytes() < bytes) {
            throw malformed(field, "needs " + bytes + " bytes, " + buf.readableBytes() + " left");
        }
    }

    /** An exception naming {@code field} at the current position. */
    public MalformedFrameException malformed(String field, String problem) {
        return new MalformedFrameException("Malformed frame: " + field + " at byte " + position() + " " + problem);
    }

    public byte int8(String field) {
        need(1, field);
        return buf.readByte();
    }

    public short int16(String field) {
        need(2, field);
        return buf.readShort();
    }

    public int int32(String field) {
        need(4, field);
        return buf.readInt();
    }

    public long int64(String field) {
        need(8, field);
        return buf.readLong();
    }

    /** An int8 that must be 0 or 1. */
    public boolean bool(String field) {
        int pos = position();
        byte b = int8(field);
        if (b != 0 && b != 1) {
            throw new MalformedFrameException("Malformed frame: " + field + " at byte " + pos + " is " + b
                    + ", not 0 or 1");
        }
        return b == 1;
    }

    /** An int32 that must be at least {@code min}. */
    public int int32AtLeast(String field, int min) {
        int pos = position();
        int v = int32(field);
        if (v < min) {
            throw new MalformedFrameException("Malformed frame: " + field + " at byte " + pos + " is " + v
                    + ", below " + min);
        }
        return v;
    }

    /** A non-null string: int16 length (0..maxBytes) then UTF-8 bytes. */
    public String string(String field, int maxBytes) {
        String s = nullableString(field, maxBytes);
        if (s == null) {
            throw malformed(field, "is null where a string is required");
        }
        return s;
    }

    /** A string that may be null: int16 length -1 for null, else 0..maxBytes UTF-8 bytes. */
    public String nullableString(String field, int maxBytes) {
        int pos = position();
        short len = int16(field + " length");
        if (len == -1) {
            return null;
        }
        if (len < 0 || len > maxBytes) {
            throw new MalformedFrameException("Malformed frame: " + field + " at byte " + pos + " has length " + len
                    + ", outside 0.." + maxBytes);
        }
        need(len, field);
        ByteBuffer bytes = buf.nioBuffer(buf.readerIndex(), len);
        try {
            String s = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(bytes).toString();
            buf.skipBytes(len);
            return s;
        } catch (CharacterCodingException e) {
            throw new MalformedFrameException("Malformed frame: " + field + " at byte " + pos + " is not UTF-8", e);
        }
    }

    /**
     * An array's element count (int32, 0 or more) that must fit in the bytes left at
     * {@code minElementBytes} each, so no count can make a decoder allocate more than the frame holds.
     */
    public int arrayLength(String field, int minElementBytes) {
        int n = nullableArrayLength(field, minElementBytes);
        if (n < 0) {
            throw malformed(field, "is null where an array is required");
        }
        return n;
    }

    /** As {@link #arrayLength}, but -1 (a null array) is allowed and returned as -1. */
    public int nullableArrayLength(String field, int minElementBytes) {
        int pos = position();
        int n = int32(field + " count");
        if (n == -1) {
            return -1;
        }
        if (n < 0 || (long) n * Math.max(1, minElementBytes) > buf.readableBytes()) {
            throw new MalformedFrameException("Malformed frame: " + field + " at byte " + pos + " has count " + n
                    + ", impossible with " + buf.readableBytes() + " bytes left");
        }
        return n;
    }

    /** A topic name (string of at most {@link Limits#TOPIC_NAME_MAX_BYTES}) valid as a {@link TopicPartition} topic. */
    public String topic(String field) {
        int pos = position();
        String topic = string(field, Limits.TOPIC_NAME_MAX_BYTES);
        try {
            new TopicPartition(topic, 0);
        } catch (IllegalArgumentException e) {
            throw new MalformedFrameException("Malformed frame: " + field + " at byte " + pos + ": " + e.getMessage(), e);
        }
        return topic;
    }

    /** A partition index (int32, 0 or more). */
    public int partition(String field) {
        return int32AtLeast(field, 0);
    }

    /** An optional int32: int8 presence (0 or 1), then the value when present. */
    public java.util.OptionalInt optionalInt32(String field) {
        return bool(field + " present") ? java.util.OptionalInt.of(int32(field)) : java.util.OptionalInt.empty();
    }

    /** A UUID: its most significant int64, then its least significant. */
    public java.util.UUID uuid(String field) {
        return new java.util.UUID(int64(field), int64(field));
    }

    /** An optional UUID: int8 presence (0 or 1), then {@link #uuid} when present. */
    public java.util.Optional<java.util.UUID> optionalUuid(String field) {
        return bool(field + " present") ? java.util.Optional.of(uuid(field)) : java.util.Optional.empty();
    }

    /**
     * Record bytes: int32 length (0..bytes left) then the bytes, copied out of the frame so the frame
     * can be released. Batch framing and CRCs are the log's to check (LOG-5), not the wire's.
     */
    public MemoryRecords records(String field) {
        int pos = position();
        int len = int32(field + " length");
        if (len < 0 || len > buf.readableBytes()) {
            throw new MalformedFrameException("Malformed frame: " + field + " at byte " + pos + " has length " + len
                    + ", outside 0.." + buf.readableBytes());
        }
        if (len == 0) {
            return MemoryRecords.EMPTY;
        }
        ByteBuffer copy = ByteBuffer.allocate(len);
        buf.readBytes(copy);
        return MemoryRecords.readableRecords(copy.flip());
    }

    /** Fails unless every byte was read: trailing bytes are malformed, not ignored. */
    public void expectEnd(String what) {
        if (buf.isReadable()) {
            throw malformed(what, "ends with " + buf.readableBytes() + " unread bytes");
        }
    }
}
