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

package dev.insync.replication.core.server;

import dev.insync.replication.core.partition.LocalLog;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.UncheckedIOException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Group commit of leader appends (LOG-11): one serial executor per broker forces the logs whose
 * leader appends made a flush due ({@code flush.messages} / {@code flush.ms}), so the thread that
 * appended (the broker's request thread) never waits for the disk and one force covers every
 * append that arrived meanwhile. A log is queued at most once: appends made while its flush waits
 * in the queue are covered by that flush. It leaves the queue just before it is flushed, so an
 * append made during the force queues the next flush. After each flush, or its failure, the
 * {@link Listener} is told, on the flusher's executor.
 */
final class LogFlusher {

    private static final Logger LOG = LoggerFactory.getLogger(LogFlusher.class);

    /** What the owner does after a flush. */
    interface Listener {
        /** {@code log} of {@code tp} was flushed: produces waiting for it may complete. */
        void onFlushed(TopicPartition tp, LocalLog log);

        /** Flushing {@code log} of {@code tp} failed (KAFKA_STORAGE_ERROR, §9). */
        void onFlushFailed(TopicPartition tp, LocalLog log, RuntimeException cause);
    }

    private final Executor executor;
    private final Listener listener;
    /** Logs with a flush in the executor's queue, by identity (a re-created partition gets a new log). */
    private final Set<LocalLog> queued = ConcurrentHashMap.newKeySet();
    private final AtomicLong flushes = new AtomicLong();

    /**
     * @param executor the serial executor the forces run on
     * @param listener told after each flush
     */
    LogFlusher(Executor executor, Listener listener) {
        this.executor = Objects.requireNonNull(executor, "executor");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /** Queues a flush of {@code log} unless one is queued already (which then covers this append too). */
    void requestFlush(TopicPartition tp, LocalLog log) {
        if (!queued.add(log)) {
            return;
        }
        try {
            executor.execute(() -> flush(tp, log));
        } catch (RejectedExecutionException e) {
            // The broker is stopping: its waiting produces are answered by the shutdown.
            queued.remove(log);
            LOG.debug("Flush of {} not queued: the flusher is closed", tp);
        }
    }

    private void flush(TopicPartition tp, LocalLog log) {
        queued.remove(log);
        try {
            long target = log.logEndOffset();
            if (log.recoveryPoint() < target) {
                log.flush(target);
                flushes.incrementAndGet();
            }
        } catch (ApiException | UncheckedIOException e) {
            listener.onFlushFailed(tp, log, e);
            return;
        }
        listener.onFlushed(tp, log);
    }

    /** How many flushes forced something (each covering every append queued before it ran). */
    long flushCount() {
        return flushes.get();
    }
}
