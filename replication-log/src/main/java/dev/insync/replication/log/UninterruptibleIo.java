package dev.insync.replication.log;

import java.io.IOException;
import java.nio.channels.ClosedByInterruptException;

/**
 * Runs an operation on a short-lived file channel so that an interrupt of the calling thread does
 * not fail it (issue 9 item 8). Java closes a {@code FileChannel} when a thread blocked in (or
 * entering) an I/O call on it is interrupted, and the call fails with
 * {@link ClosedByInterruptException}; a log must not go offline for that. So the operation is run
 * again, up to {@link #MAX_ATTEMPTS} times, with the interrupt flag cleared (a channel used by an
 * interrupted thread is closed on its first call), and the flag is set again before returning, so
 * the caller still sees that it was interrupted. The operation must open its own channel and be
 * idempotent (whole positional writes, a whole-file rewrite, a force).
 *
 * <p>Not API: a helper for the log's own packages.
 */
public final class UninterruptibleIo {

    /** Attempts of one operation: the first, and retries after an interrupt closed its channel. */
    public static final int MAX_ATTEMPTS = 4;

    /** An I/O operation that opens the channels it uses. */
    @FunctionalInterface
    public interface Call<T> {
        T run() throws IOException;
    }

    /** An I/O operation without a result. */
    @FunctionalInterface
    public interface Action {
        void run() throws IOException;
    }

    private UninterruptibleIo() {
    }

    /** Runs {@code call}, retrying it while an interrupt closes its channel (see the class comment). */
    public static <T> T call(Call<T> call) throws IOException {
        boolean interrupted = false;
        try {
            for (int attempt = 1; ; attempt++) {
                try {
                    return call.run();
                } catch (ClosedByInterruptException e) {
                    // Clear the flag for the retry (a new channel would be closed at once), keep it for the caller.
                    interrupted |= Thread.interrupted();
                    if (attempt >= MAX_ATTEMPTS) {
                        throw e;
                    }
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** {@link #call} without a result. */
    public static void run(Action action) throws IOException {
        call(() -> {
            action.run();
            return null;
        });
    }
}
