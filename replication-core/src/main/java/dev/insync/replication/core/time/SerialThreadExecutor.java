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

package dev.insync.replication.core.time;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A serial executor backed by one daemon thread named exactly {@link #name()} (e.g.
 * {@code ReplicaFetcherThread-0-1}). Tasks run one at a time in submission order; a task that
 * throws is logged and does not stop later tasks. Handed out by {@link ThreadScheduler}.
 * Submitting after {@link #close()} throws {@link RejectedExecutionException}.
 */
public final class SerialThreadExecutor implements Executor, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SerialThreadExecutor.class);

    private final String name;
    private final ThreadPoolExecutor pool;
    private final long closeTimeoutMs;
    private final Runnable onClose;

    SerialThreadExecutor(String name, long closeTimeoutMs, Runnable onClose) {
        this.name = name;
        this.closeTimeoutMs = closeTimeoutMs;
        this.onClose = onClose;
        this.pool = new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    /** The name of this executor's thread. */
    public String name() {
        return name;
    }

    @Override
    public void execute(Runnable task) {
        if (pool.isShutdown()) {
            throw new RejectedExecutionException("Serial executor " + name + " is closed");
        }
        pool.execute(() -> {
            try {
                task.run();
            } catch (Throwable t) {
                // A failing task must not take the component's thread (and its later tasks) down with it.
                log.error("Uncaught exception in a task on {}", name, t);
            }
        });
    }

    /** Whether {@link #close()} has been called. */
    public boolean isClosed() {
        return pool.isShutdown();
    }

    /**
     * Stops accepting tasks and waits at most the close timeout for the queued ones to finish. The
     * thread is never interrupted: a task may be in the middle of log I/O, and an interrupt there
     * makes Java close the {@code FileChannel} under it ({@code ClosedByInterruptException}), which
     * takes the log offline (Kafka's replica fetchers are non-interruptible for the same reason). A
     * thread still busy after the timeout is logged and left to finish on its own (it is a daemon).
     * Idempotent; returns within about the close timeout.
     */
    @Override
    public void close() {
        pool.shutdown();
        try {
            if (!pool.awaitTermination(closeTimeoutMs, TimeUnit.MILLISECONDS)) {
                log.warn("Serial executor {} did not finish within {} ms; leaving it to finish (not interrupted)",
                        name, closeTimeoutMs);
            }
        } catch (InterruptedException e) {
            // The closing thread was interrupted, not the executor's: stop waiting, keep the flag.
            Thread.currentThread().interrupt();
        } finally {
            onClose.run();
        }
    }

    /**
     * Waits at most {@code timeoutMs} for the thread to end after {@link #close()} (e.g. one that
     * close left running).
     *
     * @return whether it has ended
     */
    public boolean awaitTermination(long timeoutMs) throws InterruptedException {
        return pool.awaitTermination(timeoutMs, TimeUnit.MILLISECONDS);
    }

    /** Whether the thread has ended after {@link #close()}. */
    public boolean isTerminated() {
        return pool.isTerminated();
    }

    @Override
    public String toString() {
        return "SerialThreadExecutor(" + name + ")";
    }
}
