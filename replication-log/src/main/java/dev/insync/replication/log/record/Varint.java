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

import java.nio.ByteBuffer;

/**
 * Zig-zag variable-length integers as used inside v2 records (LOG-1): the sign is folded into the
 * lowest bit, then 7 bits are written per byte, least significant group first, with the high bit
 * set on every byte but the last. An int takes at most 5 bytes, a long at most 10.
 */
final class Varint {

    static final int MAX_INT_BYTES = 5;
    static final int MAX_LONG_BYTES = 10;

    private Varint() {
    }

    /** Encoded size of {@code value} as a zig-zag varint. */
    static int sizeOfInt(int value) {
        int v = (value << 1) ^ (value >> 31);
        int bytes = 1;
        while ((v & 0xffffff80) != 0) {
            bytes++;
            v >>>= 7;
        }
        return bytes;
    }

    /** Encoded size of {@code value} as a zig-zag varlong. */
    static int sizeOfLong(long value) {
        long v = (value << 1) ^ (value >> 63);
        int bytes = 1;
        while ((v & 0xffffffffffffff80L) != 0L) {
            bytes++;
            v >>>= 7;
        }
        return bytes;
    }

    /** Writes {@code value} at the buffer's position, advancing it. */
    static void writeInt(int value, ByteBuffer out) {
        int v = (value << 1) ^ (value >> 31);
        while ((v & 0xffffff80) != 0) {
            out.put((byte) ((v & 0x7f) | 0x80));
            v >>>= 7;
        }
        out.put((byte) v);
    }

    /** Writes {@code value} at the buffer's position, advancing it. */
    static void writeLong(long value, ByteBuffer out) {
        long v = (value << 1) ^ (value >> 63);
        while ((v & 0xffffffffffffff80L) != 0L) {
            out.put((byte) ((v & 0x7f) | 0x80));
            v >>>= 7;
        }
        out.put((byte) v);
    }

    /**
     * A bounds-checked reader over {@code [pos, limit)} of a buffer using absolute indices, so a
     * walk over a batch never moves the batch buffer's own position. Every overrun or over-long
     * varint is a CORRUPT_MESSAGE naming what was being read and where.
     */
    static final class Cursor {
        private final ByteBuffer buf;
        private final long baseOffset;
        int pos;
        int limit;
        /** Index of the record being read, for error messages; -1 outside records. */
        int record = -1;

        /** Messages name the batch by {@code baseOffset}; nothing is allocated unless one is thrown. */
        Cursor(ByteBuffer buf, int pos, int limit, long baseOffset) {
            this.buf = buf;
            this.pos = pos;
            this.limit = limit;
            this.baseOffset = baseOffset;
        }

        int remaining() {
            return limit - pos;
        }

        byte readByte(String what) {
            if (pos >= limit) {
                throw corrupt("truncated while reading " + what);
            }
            return buf.get(pos++);
        }

        int readVarint(String what) {
            int raw = 0;
            for (int shift = 0, i = 0; i < MAX_INT_BYTES; i++, shift += 7) {
                byte b = readByte(what);
                raw |= (b & 0x7f) << shift;
                if ((b & 0x80) == 0) {
                    return (raw >>> 1) ^ -(raw & 1);
                }
            }
            throw corrupt("varint " + what + " longer than " + MAX_INT_BYTES + " bytes");
        }

        long readVarlong(String what) {
            long raw = 0;
            for (int shift = 0, i = 0; i < MAX_LONG_BYTES; i++, shift += 7) {
                byte b = readByte(what);
                raw |= (long) (b & 0x7f) << shift;
                if ((b & 0x80) == 0) {
                    return (raw >>> 1) ^ -(raw & 1);
                }
            }
            throw corrupt("varlong " + what + " longer than " + MAX_LONG_BYTES + " bytes");
        }

        /** Skips {@code n} bytes after checking they are there; returns the start index. */
        int skip(int n, String what) {
            if (n < 0 || n > limit - pos) {
                throw corrupt(what + " of " + n + " bytes exceeds the " + (limit - pos) + " bytes left");
            }
            int start = pos;
            pos += n;
            return start;
        }

        RuntimeException corrupt(String detail) {
            String which = record < 0 ? "" : " record " + record + " (offset " + (baseOffset + record) + "):";
            return Errors.CORRUPT_MESSAGE.exception("Record batch at offset " + baseOffset + ":" + which + " " + detail
                    + " at byte " + pos + " of the batch");
        }
    }
}
