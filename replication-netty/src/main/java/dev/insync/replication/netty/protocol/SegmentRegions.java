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

import dev.insync.replication.log.segment.FileRecords;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.FileRegion;
import io.netty.util.AbstractReferenceCounted;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * NET-3: a {@link FileRecords} slice as file regions, sent from the segment file to the socket
 * without passing through the heap: all bytes but the last as a {@link DefaultFileRegion} (native
 * sendfile on epoll, {@code FileChannel.transferTo} on NIO), then a one-byte guard.
 *
 * <p>The guard makes a truncation of the segment after the read safe (see {@link FileRecords}):
 * when its turn comes, every other byte of the slice has been handed to the socket; it reads the
 * last byte, then checks {@link FileRecords.Transfer#bytesUnchanged()}. Unchanged: every byte sent
 * was read before any truncation, so it sends the last one. Changed: it fails the write, which
 * closes the connection before the frame is complete, so the peer never decodes other bytes than
 * those read; its request fails and it fetches again. A deletion is no hazard: the transfer holds
 * the file open.
 */
final class SegmentRegions {

    private SegmentRegions() {
    }

    /**
     * The regions of {@code records}, holding its transfer open until both are released.
     *
     * @throws RecordsUnavailableException if the segment was deleted or truncated since the read
     */
    static List<FileRegion> of(FileRecords records) {
        FileRecords.Transfer transfer;
        try {
            transfer = records.openTransfer();
        } catch (IOException e) {
            throw new RecordsUnavailableException("Cannot send " + records + ": " + e.getMessage(), e);
        }
        SharedTransfer shared = new SharedTransfer(transfer);
        int bulk = transfer.size() - 1;
        if (bulk == 0) {
            shared.release();
            return List.of(new Guard(shared));
        }
        return List.of(new Bulk(shared, bulk), new Guard(shared));
    }

    /** The transfer, closed when both regions are released. */
    private static final class SharedTransfer {
        final FileRecords.Transfer transfer;
        final AtomicInteger regions = new AtomicInteger(2);

        SharedTransfer(FileRecords.Transfer transfer) {
            this.transfer = transfer;
        }

        void release() {
            if (regions.decrementAndGet() == 0) {
                transfer.close();
            }
        }
    }

    /** All bytes but the last, straight from the file. */
    private static final class Bulk extends DefaultFileRegion {
        private final SharedTransfer shared;

        Bulk(SharedTransfer shared, int count) {
            super(shared.transfer.channel(), shared.transfer.position(), count);
            this.shared = shared;
        }

        @Override
        protected void deallocate() {
            // Not super's: the channel is the segment's shared send channel, closed by its references.
            shared.release();
        }
    }

    /** The last byte, sent only if the file still held the slice's bytes after all others went. */
    static final class Guard extends AbstractReferenceCounted implements FileRegion {
        private final SharedTransfer shared;
        private ByteBuffer lastByte;
        private long transferred;

        Guard(SharedTransfer shared) {
            this.shared = shared;
        }

        @Override
        public long position() {
            return 0;
        }

        @Override
        @Deprecated
        public long transfered() {
            return transferred;
        }

        @Override
        public long transferred() {
            return transferred;
        }

        @Override
        public long count() {
            return 1;
        }

        @Override
        public long transferTo(WritableByteChannel target, long position) throws IOException {
            if (transferred >= 1) {
                return 0;
            }
            FileRecords.Transfer t = shared.transfer;
            if (lastByte == null) {
                ByteBuffer b = ByteBuffer.allocate(1);
                t.readFully(b, t.size() - 1);
                // Read first, check after: unchanged now means every byte of the slice was read before any truncation.
                if (!t.bytesUnchanged()) {
                    throw new SegmentChangedException("The segment under a fetch response was truncated while it was sent ("
                            + t.size() + " bytes at position " + t.position() + "); closing the connection so the"
                            + " incomplete frame is never read");
                }
                lastByte = b.flip();
            }
            int n = target.write(lastByte);
            transferred += n;
            return n;
        }

        @Override
        protected void deallocate() {
            shared.release();
        }

        @Override
        public FileRegion retain() {
            super.retain();
            return this;
        }

        @Override
        public FileRegion retain(int increment) {
            super.retain(increment);
            return this;
        }

        @Override
        public FileRegion touch() {
            return this;
        }

        @Override
        public FileRegion touch(Object hint) {
            return this;
        }
    }
}
