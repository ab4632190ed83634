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

package dev.insync.replication.log.segment;

import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.Records;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * NET-3: whole batches that a read found in a segment file, left there (Kafka's
 * {@code FileRecords} slice): a position and a length in the segment's {@code .log} file, bounded
 * by the read's LOG-3 rules (whole batches from the one holding the fetch offset, none at or above
 * the read's bound, at least one). Nothing is copied at the read; a network server sends the bytes
 * from the file to the socket ({@link #openTransfer()}), an in-JVM consumer copies them once
 * ({@link #toMemoryRecords()}).
 *
 * <p><b>Lifetime.</b> Holding a {@code FileRecords} holds no resource. Between the read and the
 * send the segment may be deleted (retention, a full truncation) or truncated (the broker became a
 * follower and cut its log). The sent bytes are never other bytes than those read:
 * <ul>
 *   <li>Deletion: an open {@link Transfer} keeps the file's channel open (reference counted), so a
 *       transfer opened before the deletion sends the bytes read; one opened after fails.</li>
 *   <li>Truncation changes bytes in place (later appends reuse the positions). Every segment counts
 *       its truncations, and a transfer compares that count with the one seen at the read:
 *       {@link Transfer#bytesUnchanged()} after reading the bytes says whether they were the ones read.
 *       The network server checks it after sending all but the last byte and fails the response
 *       (closing the connection, so the peer never reads the incomplete frame) if not; the fetcher
 *       then retries. {@link #toMemoryRecords()} checks it after its copy.</li>
 * </ul>
 */
public final class FileRecords implements Records {

    private final LogSegment segment;
    private final int position;
    private final int size;
    private final long truncationsAtRead;

    FileRecords(LogSegment segment, int position, int size, long truncationsAtRead) {
        if (position < 0 || size <= 0) {
            throw new IllegalArgumentException("Bad file slice at position " + position + ", " + size + " bytes of "
                    + segment.logFile());
        }
        this.segment = segment;
        this.position = position;
        this.size = size;
        this.truncationsAtRead = truncationsAtRead;
    }

    @Override
    public int sizeInBytes() {
        return size;
    }

    /** The segment file the bytes are in. */
    public Path file() {
        return segment.logFile();
    }

    /** Where in {@link #file()} the first batch starts. */
    public int position() {
        return position;
    }

    /**
     * Opens the bytes for sending: the file's channel stays open until {@link Transfer#close()}.
     *
     * @throws IOException if the segment was deleted or its log closed since the read, or was
     *                     truncated since (its bytes may be others now)
     */
    public Transfer openTransfer() throws IOException {
        SendChannel.Handle handle = segment.sendChannel().retain();
        Transfer t = new Transfer(handle);
        if (!t.bytesUnchanged()) {
            t.close();
            throw new IOException(segment.logFile() + " was truncated after the read of " + size + " bytes at position "
                    + position);
        }
        return t;
    }

    /**
     * One copy of the bytes into the heap, for consumers inside the JVM.
     *
     * @throws ApiException NOT_LEADER_OR_FOLLOWER if the segment was deleted, closed or truncated since
     *                      the read (the bytes read are gone; a fetch again reads what is there now)
     */
    @Override
    public MemoryRecords toMemoryRecords() {
        try (Transfer t = openTransfer()) {
            ByteBuffer copy = ByteBuffer.allocate(size);
            t.readFully(copy, 0);
            if (!t.bytesUnchanged()) {
                throw new IOException(segment.logFile() + " was truncated while " + size + " bytes at position "
                        + position + " were copied");
            }
            return MemoryRecords.readableRecords(copy.flip());
        } catch (IOException e) {
            throw new ApiException(Errors.NOT_LEADER_OR_FOLLOWER, "The " + size + " bytes read at position " + position
                    + " of " + segment.logFile() + " are no longer there: " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "FileRecords(" + segment.logFile().getFileName() + ", position " + position + ", " + size + " bytes)";
    }

    /**
     * The bytes open for sending: a channel, position and length for a {@code FileRegion}
     * (sendfile). Close it when the send is over, whether it succeeded or not; closing twice is
     * harmless. Not thread-safe (one send uses it).
     */
    public final class Transfer implements AutoCloseable {

        private final SendChannel.Handle handle;
        private boolean closed;

        private Transfer(SendChannel.Handle handle) {
            this.handle = handle;
        }

        /** The read-only channel of the segment file; do not close it (close the transfer). */
        public FileChannel channel() {
            return handle.channel;
        }

        /** The file position of the first byte. */
        public long position() {
            return position;
        }

        /** How many bytes. */
        public int size() {
            return size;
        }

        /**
         * Whether the file still holds the bytes the read found: no truncation of the segment since
         * then, and the channel was not closed under the transfer. Checked after reading bytes, a
         * true answer means those bytes were the ones read (a truncation counts before it changes the
         * file).
         */
        public boolean bytesUnchanged() {
            return !closed && handle.channel.isOpen() && segment.truncations() == truncationsAtRead;
        }

        /** Reads {@code dst.remaining()} bytes starting {@code offset} bytes into the slice (positional). */
        public void readFully(ByteBuffer dst, int offset) throws IOException {
            if (offset < 0 || (long) offset + dst.remaining() > size) {
                throw new IllegalArgumentException("Read of " + dst.remaining() + " bytes at " + offset
                        + " is outside the " + size + " bytes of " + FileRecords.this);
            }
            long pos = position + (long) offset;
            while (dst.hasRemaining()) {
                int n = handle.channel.read(dst, pos);
                if (n < 0) {
                    throw new EOFException("End of " + segment.logFile() + " at position " + pos + " inside "
                            + FileRecords.this);
                }
                pos += n;
            }
        }

        /** Releases the channel. Idempotent. */
        @Override
        public void close() {
            if (!closed) {
                closed = true;
                segment.sendChannel().release(handle);
            }
        }
    }
}
