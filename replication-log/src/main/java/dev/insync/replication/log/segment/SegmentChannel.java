package dev.insync.replication.log.segment;

import dev.insync.replication.log.FileSync;
import dev.insync.replication.log.UninterruptibleIo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The {@code .log} file's channel, which an interrupt cannot break (issue 9 item 8).
 *
 * <p>Java closes a {@code FileChannel} for every thread when one thread is interrupted while in
 * (or entering) an I/O call on it: that thread gets {@link java.nio.channels.ClosedByInterruptException},
 * the others {@link ClosedChannelException}. Unhandled, one interrupted fetcher would leave the
 * segment unusable and its log offline with KAFKA_STORAGE_ERROR. Here an operation that fails
 * because the channel was closed by anything but {@link #close()} reopens the shared channel (for
 * the callers after it) and runs again, once, with a channel of its own on a private thread that
 * no interrupt can reach ({@link UninterruptibleIo#onPrivateThread}); the caller's interrupt flag
 * is cleared for the wait and set again before returning, so it still learns it was interrupted.
 * Every operation is positional and is retried whole (a write rewrites the same bytes at the same
 * position), so the retry is idempotent. Any other {@link IOException} is a real disk error and is
 * thrown as it is.
 *
 * <p>Thread-safe: reopening is serialized and replaces the channel once for all its users.
 */
final class SegmentChannel {

    private static final Logger LOG = LoggerFactory.getLogger(SegmentChannel.class);

    /** One positional operation on the current channel. */
    @FunctionalInterface
    private interface Op<T> {
        T run(FileChannel channel) throws IOException;
    }

    private final Path file;
    private volatile FileChannel channel;
    private volatile boolean closed;
    /** How many times an interrupt forced a reopen (only the first is logged at WARN). Guarded by this. */
    private long reopens;

    private SegmentChannel(Path file, FileChannel channel) {
        this.file = file;
        this.channel = channel;
    }

    /** Creates {@code file}, which must not exist. */
    static SegmentChannel create(Path file) throws IOException {
        return new SegmentChannel(file, FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE));
    }

    /** Opens the existing {@code file} for reading and writing. */
    static SegmentChannel open(Path file) throws IOException {
        return new SegmentChannel(file, FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE));
    }

    /** Reads exactly {@code dst.remaining()} bytes from {@code position}. */
    void readFully(ByteBuffer dst, long position) throws IOException {
        int start = dst.position();
        run(ch -> {
            dst.position(start);
            long pos = position;
            while (dst.hasRemaining()) {
                int n = ch.read(dst, pos);
                if (n < 0) {
                    throw new EOFException("Unexpected end of " + file + " at position " + pos + " while reading "
                            + dst.remaining() + " more bytes");
                }
                pos += n;
            }
            return null;
        });
    }

    /** Writes all of {@code src} (position to limit) at {@code position}; {@code src} itself is not moved. */
    void writeFully(ByteBuffer src, long position) throws IOException {
        run(ch -> {
            ByteBuffer bytes = src.duplicate();
            long pos = position;
            while (bytes.hasRemaining()) {
                pos += ch.write(bytes, pos);
            }
            return null;
        });
    }

    void truncate(long size) throws IOException {
        run(ch -> ch.truncate(size));
    }

    long size() throws IOException {
        return run(FileChannel::size);
    }

    /** LOG-11: forces the file through the directory's {@link FileSync}. */
    void force(FileSync fileSync) throws IOException {
        run(ch -> {
            fileSync.force(ch, file);
            return null;
        });
    }

    MappedByteBuffer mapReadOnly(long size) throws IOException {
        return run(ch -> ch.map(FileChannel.MapMode.READ_ONLY, 0, size));
    }

    /** Closes the channel for good; later operations fail with {@link ClosedChannelException}. */
    synchronized void close() throws IOException {
        closed = true;
        channel.close();
    }

    private <T> T run(Op<T> op) throws IOException {
        FileChannel current = channel;
        try {
            return op.run(current);
        } catch (ClosedChannelException e) {
            if (closed) {
                throw e;
            }
            boolean interrupted = Thread.interrupted();
            try {
                reopen(current, e);
                return UninterruptibleIo.onPrivateThread("retry of an operation on " + file, () -> {
                    try (FileChannel own = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                        return op.run(own);
                    }
                });
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    private synchronized void reopen(FileChannel dead, ClosedChannelException cause) throws IOException {
        if (closed) {
            throw cause;
        }
        if (channel == dead) {
            channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
            reopens++;
            // Once per segment at WARN: a caller interrupting in a loop must not flood the log.
            if (reopens == 1) {
                LOG.warn("Reopened {} after an interrupted thread closed its channel ({}); an I/O thread should be"
                        + " stopped, not interrupted", file, cause.getClass().getSimpleName());
            } else {
                LOG.debug("Reopened {} after an interrupt ({} times)", file, reopens);
            }
        }
    }
}
