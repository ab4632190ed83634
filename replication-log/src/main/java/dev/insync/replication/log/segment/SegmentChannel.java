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
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The {@code .log} file's channel, which an interrupt cannot break (issue 9 item 8), opened when
 * first used and closed again when the directory's {@link OpenFileBudget} needs the descriptor for
 * another segment while nobody is using this one; the next operation reopens it.
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
 * thrown as it is. The budget never closes a channel an operation is using (each operation counts
 * itself in and out), so it causes no such failure.
 *
 * <p>Thread-safe: opening, reopening and releasing are serialized on this object.
 */
final class SegmentChannel implements OpenFileBudget.Holder {

    private static final Logger LOG = LoggerFactory.getLogger(SegmentChannel.class);

    /** One positional operation on the current channel. */
    @FunctionalInterface
    private interface Op<T> {
        T run(FileChannel channel) throws IOException;
    }

    private final Path file;
    private final OpenFileBudget budget;
    /** Null while released (never opened, or closed by the budget). Guarded by this. */
    private FileChannel channel;
    /** Operations running on {@link #channel}. Guarded by this. */
    private int users;
    private volatile boolean closed;
    /** CLOCK mark: used since the budget's last pass over it. */
    private volatile boolean usedMark;
    /** How many times an interrupt forced a reopen (only the first is logged at WARN). Guarded by this. */
    private long reopens;

    private SegmentChannel(Path file, OpenFileBudget budget, FileChannel channel) {
        this.file = file;
        this.budget = budget;
        this.channel = channel;
        if (channel != null) {
            budget.acquired(this);
        }
    }

    /** Creates {@code file}, which must not exist; the new channel stays open for the first writes. */
    static SegmentChannel create(Path file, OpenFileBudget budget) throws IOException {
        return new SegmentChannel(file, budget, FileChannel.open(file, StandardOpenOption.CREATE_NEW,
                StandardOpenOption.READ, StandardOpenOption.WRITE));
    }

    /** The existing {@code file}, opened for reading and writing on first use; fails now if it is missing. */
    static SegmentChannel open(Path file, OpenFileBudget budget) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new NoSuchFileException(file.toString());
        }
        return new SegmentChannel(file, budget, null);
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
        if (closed) {
            return;
        }
        closed = true;
        FileChannel open = channel;
        channel = null;
        if (open != null) {
            budget.released();
            open.close();
        }
    }

    // ---- OpenFileBudget.Holder ----

    @Override
    public synchronized boolean isHeld() {
        return channel != null;
    }

    @Override
    public boolean takeUsedMark() {
        boolean used = usedMark;
        usedMark = false;
        return used;
    }

    @Override
    public synchronized boolean tryRelease() {
        if (users > 0 || channel == null) {
            return false;
        }
        FileChannel open = channel;
        channel = null;
        budget.released();
        try {
            open.close();
        } catch (IOException e) {
            LOG.debug("Closing idle {} failed: {}", file, e.toString());
        }
        return true;
    }

    // ---- running operations ----

    /** The open channel, opening it if needed; counts the caller in (see {@link #release()}). */
    private FileChannel acquire() throws IOException {
        FileChannel ch;
        boolean opened = false;
        synchronized (this) {
            if (closed) {
                throw new ClosedChannelException();
            }
            ch = channel;
            if (ch == null) {
                ch = UninterruptibleIo.call(() -> FileChannel.open(file, StandardOpenOption.READ,
                        StandardOpenOption.WRITE));
                channel = ch;
                opened = true;
            }
            users++;
        }
        usedMark = true;
        if (opened) {
            budget.acquired(this);
        }
        return ch;
    }

    /** Runs {@code body} while counted in as an operation on this channel (tests). */
    void runForTest(Runnable body) throws IOException {
        run(ch -> {
            body.run();
            return null;
        });
    }

    private synchronized void release() {
        users--;
    }

    private <T> T run(Op<T> op) throws IOException {
        FileChannel current = acquire();
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
        } finally {
            release();
            budget.operationEnded();
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
