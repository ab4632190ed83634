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

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * NET-3: a read-only channel on a segment's {@code .log} file for sending its bytes (sendfile),
 * reference counted so that deleting or closing the segment never closes it under a send in
 * progress: the segment holds one reference, every open {@link FileRecords.Transfer} another, and
 * the channel closes with the last. A deleted file's bytes stay readable through a channel opened
 * before the deletion (the inode lives until its last descriptor closes), so a transfer that started
 * before retention removed its segment still sends exactly the bytes it read.
 *
 * <p>Separate from the segment's read-write {@link SegmentChannel}: that one is reopened when an
 * interrupted thread closes it, which would close a descriptor a native sendfile may be using. This
 * one is opened lazily (only segments that are sent from pay a descriptor) and only while the segment
 * is open: {@link #close()} comes before the segment's files are deleted, so the path always names
 * the segment's own file when it is opened. Thread-safe.
 */
final class SendChannel {

    /** One opened channel and its references. */
    static final class Handle {
        final FileChannel channel;
        private int refs; // guarded by the SendChannel

        private Handle(FileChannel channel) {
            this.channel = channel;
        }
    }

    private final Path file;
    private Handle current;
    private boolean closed;

    SendChannel(Path file) {
        this.file = file;
    }

    /**
     * A reference to the open channel, opening it first if needed (or again, if something closed it).
     *
     * @throws IOException if the segment is closed or deleted, or the file cannot be opened
     */
    synchronized Handle retain() throws IOException {
        if (closed) {
            throw new IOException(file + " is closed: its segment was deleted, or its log closed");
        }
        if (current == null || !current.channel.isOpen()) {
            if (current != null) {
                releaseLocked(current);
            }
            Handle h = new Handle(FileChannel.open(file, StandardOpenOption.READ));
            h.refs = 1; // the segment's own
            current = h;
        }
        current.refs++;
        return current;
    }

    /** Gives back a reference from {@link #retain()}. */
    synchronized void release(Handle handle) {
        releaseLocked(handle);
    }

    private void releaseLocked(Handle handle) {
        if (handle.refs <= 0) {
            throw new IllegalStateException("Send channel of " + file + " released more often than retained");
        }
        if (--handle.refs == 0) {
            try {
                handle.channel.close();
            } catch (IOException e) {
                // Nothing was written through it; closing a read-only descriptor cannot lose data.
            }
        }
    }

    /** No more references from now on; the channel closes when the open transfers end. Idempotent. */
    synchronized void close() {
        if (!closed) {
            closed = true;
            if (current != null) {
                releaseLocked(current);
                current = null;
            }
        }
    }

    /** Whether a channel is open now (for tests). */
    synchronized boolean isOpen() {
        return current != null && current.channel.isOpen();
    }
}
