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

package dev.insync.replication.log;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.ClosedByInterruptException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Runs file I/O so that an interrupt of the calling thread cannot fail it (issue 9 item 8).
 *
 * <p>Java closes a {@code FileChannel} when a thread blocked in (or entering) an I/O call on it is
 * interrupted, and the call fails with {@link ClosedByInterruptException}; a log must not go
 * offline for that. Retrying on the same thread is not enough: the interrupt that closed the
 * channel may be followed by another (a caller that interrupts in a loop), and each closes the next
 * channel too. So an operation whose first attempt was cut short by an interrupt runs again, once,
 * on a private thread of its own with channels of its own, which no interrupt of any caller can
 * reach; the caller waits for it without giving up on an interrupt, and its interrupt flag is set
 * again before returning, so it still learns it was interrupted. The operation must be idempotent
 * (whole positional writes, a whole-file rewrite, a force) and must open the channels it uses.
 * Only a real disk error fails it.
 *
 * <p>The wait is as long as the I/O itself: a disk that hangs hangs the caller, as the direct call
 * would. Threads are created only after an interrupt, are daemons, and end with the operation.
 *
 * <p>Not API: a helper for the log's own packages.
 */
public final class UninterruptibleIo {

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

    /**
     * Runs {@code call}; if an interrupt closed its channel, runs it again where interrupts cannot
     * reach ({@link #onPrivateThread}) and sets the caller's interrupt flag again.
     */
    public static <T> T call(Call<T> call) throws IOException {
        try {
            return call.run();
        } catch (ClosedByInterruptException e) {
            // The flag is set (that is what closed the channel); clear it for the wait, keep it for the caller.
            Thread.interrupted();
            try {
                return onPrivateThread("retry after " + e.getClass().getSimpleName(), call);
            } finally {
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

    /**
     * Runs {@code call} on a new daemon thread that nothing else knows (so nothing interrupts it)
     * and waits for it, ignoring interrupts of the caller meanwhile; an interrupt that arrives is
     * kept in the caller's flag. Exceptions of the call are rethrown as they were.
     */
    public static <T> T onPrivateThread(String what, Call<T> call) throws IOException {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread worker = new Thread(() -> {
            try {
                result.complete(call.run());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        }, "insync-uninterruptible-io");
        worker.setDaemon(true);
        worker.start();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return result.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof IOException io) {
                        throw io;
                    }
                    if (cause instanceof RuntimeException runtime) {
                        throw runtime;
                    }
                    if (cause instanceof Error error) {
                        throw error;
                    }
                    throw new UncheckedIOException(new IOException(what + " failed", cause));
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
