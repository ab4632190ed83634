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

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * The growing destination of one decompression, bounded: at most {@code limit} decompressed bytes
 * are ever held, and a stream that would produce more fails with {@link LimitExceededException}
 * before the heap grows past the bound. The first {@code reserved} bytes of the array are left free
 * for the caller (the batch header in front of the records).
 */
final class DecompressionBuffer {

    /** The stream decompresses to more than the bound allows. */
    static final class LimitExceededException extends IOException {
        private final int limit;

        LimitExceededException(int limit) {
            super("decompresses to more than " + limit + " bytes");
            this.limit = limit;
        }

        /** The bound that was exceeded, in bytes. */
        int limit() {
            return limit;
        }
    }

    private static final int MIN_CAPACITY = 1024;
    private static final int READ_CHUNK = 16 * 1024;
    /** A stream that keeps returning 0 bytes is broken; this many in a row end the read. */
    private static final int MAX_EMPTY_READS = 1024;

    private final int reserved;
    private final int limit;
    private byte[] bytes;
    private int size;

    /**
     * @param reserved      free bytes kept at the front of {@link #array()}
     * @param limit         most decompressed bytes accepted
     * @param expectedBytes a first guess of the decompressed size (the buffer grows past it as needed)
     */
    DecompressionBuffer(int reserved, int limit, int expectedBytes) {
        if (reserved < 0 || limit < 0 || (long) reserved + limit > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("reserved " + reserved + " + limit " + limit + " do not fit an array");
        }
        this.reserved = reserved;
        this.limit = limit;
        int first = (int) Math.min(limit, Math.max(MIN_CAPACITY, (long) expectedBytes));
        this.bytes = new byte[reserved + first];
    }

    /** The bound, in decompressed bytes. */
    int limit() {
        return limit;
    }

    /** Index in {@link #array()} of the first decompressed byte (the reserved bytes come before it). */
    int start() {
        return reserved;
    }

    /** Decompressed bytes held so far. */
    int size() {
        return size;
    }

    /** The array: {@code reserved} free bytes, then {@link #size()} decompressed ones. */
    byte[] array() {
        return bytes;
    }

    /** Appends {@code length} decompressed bytes. */
    void write(byte[] src, int offset, int length) throws LimitExceededException {
        System.arraycopy(src, offset, bytes, reserve(length), length);
        size += length;
    }

    /**
     * Makes room for {@code length} more bytes and returns the array index to write them at; the
     * caller writes them into {@link #array()} and then calls {@link #advance(int)}.
     */
    int reserve(int length) throws LimitExceededException {
        if (length < 0 || length > limit - size) {
            throw new LimitExceededException(limit);
        }
        int needed = reserved + size + length;
        if (needed > bytes.length) {
            long grown = Math.max(needed, (long) bytes.length * 2);
            bytes = Arrays.copyOf(bytes, (int) Math.min(grown, (long) reserved + limit));
        }
        return reserved + size;
    }

    /** Counts {@code length} bytes written after {@link #reserve(int)}. */
    void advance(int length) {
        if (length < 0 || reserved + size + length > bytes.length) {
            throw new IllegalStateException("advance " + length + " past the reserved room");
        }
        size += length;
    }

    /** Reads {@code in} to its end. */
    void readFully(InputStream in) throws IOException {
        int emptyReads = 0;
        while (true) {
            if (size == limit) {
                if (in.read() != -1) {
                    throw new LimitExceededException(limit);
                }
                return;
            }
            int at = reserve(Math.min(READ_CHUNK, limit - size));
            int n = in.read(bytes, at, Math.min(READ_CHUNK, limit - size));
            if (n < 0) {
                return;
            }
            if (n == 0 && ++emptyReads > MAX_EMPTY_READS) {
                throw new IOException("the decompressing stream returned no data " + MAX_EMPTY_READS + " times in a row");
            }
            size += n;
        }
    }
}
