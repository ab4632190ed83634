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

package dev.insync.replication.netty.client;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The producer's {@code buffer.memory}: how many bytes of records may be sent and still wait for
 * their outcome. A send reserves its record's bytes and, when they are not free, waits for them at
 * most {@code max.block.ms}, as Kafka's producer waits in its {@code BufferPool}; a batch gives its
 * records' bytes back in one call as its records get their outcome (just before their futures
 * complete, so a callback that sends the next record finds the room), and a waiting sender is woken
 * once per batch, not once per record.
 *
 * <p>Waiters are served first come, first served: a waiter is given room only when every one that
 * waits longer has it, and a waiter that got room (or gave up) passes what is left to the next one,
 * so one large record cannot be starved by a stream of small ones.
 */
final class BufferMemory {

    /** What {@link #reserve} did. */
    enum Reservation {
        /** The bytes are the caller's until it {@link #release releases} them. */
        RESERVED,
        /** Not reserved: no room came within the wait. */
        TIMED_OUT,
        /** Not reserved: the thread was interrupted while it waited (its interrupt flag is set again). */
        INTERRUPTED,
        /** Not reserved: the buffer is closed. */
        CLOSED
    }

    private final long totalBytes;
    private final ReentrantLock lock = new ReentrantLock();
    /** One condition per waiting thread, oldest first. */
    private final ArrayDeque<Condition> waiters = new ArrayDeque<>();
    private long availableBytes;
    private boolean closed;

    BufferMemory(long totalBytes) {
        if (totalBytes < 1) {
            throw new IllegalArgumentException("buffer.memory must be positive, not " + totalBytes);
        }
        this.totalBytes = totalBytes;
        this.availableBytes = totalBytes;
    }

    /** The bound: {@code buffer.memory}. */
    long totalBytes() {
        return totalBytes;
    }

    /**
     * Takes {@code bytes} (at most {@link #totalBytes()}), waiting up to {@code maxWaitMs} for them
     * behind the threads that wait already; {@code maxWaitMs} 0 never waits.
     */
    Reservation reserve(int bytes, long maxWaitMs) {
        if (bytes < 0 || bytes > totalBytes) {
            throw new IllegalArgumentException("Cannot reserve " + bytes + " of " + totalBytes + " bytes");
        }
        lock.lock();
        try {
            if (closed) {
                return Reservation.CLOSED;
            }
            if (waiters.isEmpty() && availableBytes >= bytes) {
                availableBytes -= bytes;
                return Reservation.RESERVED;
            }
            if (maxWaitMs <= 0) {
                return Reservation.TIMED_OUT;
            }
            return awaitRoom(bytes, TimeUnit.MILLISECONDS.toNanos(maxWaitMs));
        } finally {
            lock.unlock();
        }
    }

    private Reservation awaitRoom(int bytes, long waitNanos) {
        Condition turn = lock.newCondition();
        waiters.addLast(turn);
        long leftNanos = waitNanos;
        try {
            while (!closed && (waiters.peekFirst() != turn || availableBytes < bytes)) {
                if (leftNanos <= 0) {
                    return Reservation.TIMED_OUT;
                }
                leftNanos = turn.awaitNanos(leftNanos);
            }
            if (closed) {
                return Reservation.CLOSED;
            }
            availableBytes -= bytes;
            return Reservation.RESERVED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Reservation.INTERRUPTED;
        } finally {
            waiters.remove(turn);
            // Whatever is left may be enough for the next in line; it is the only one that can take it.
            signalFirstWaiter();
        }
    }

    /** Gives back bytes a {@link #reserve} took (several reservations at once is fine). */
    void release(long bytes) {
        if (bytes == 0) {
            return;
        }
        lock.lock();
        try {
            if (bytes < 0 || bytes > totalBytes - availableBytes) {
                throw new IllegalStateException("Cannot release " + bytes + " bytes with " + availableBytes + " of "
                        + totalBytes + " free (a release without its reservation)");
            }
            availableBytes += bytes;
            signalFirstWaiter();
        } finally {
            lock.unlock();
        }
    }

    /** From now on nothing is reserved; every waiting thread returns {@link Reservation#CLOSED}. */
    void close() {
        lock.lock();
        try {
            closed = true;
            waiters.forEach(Condition::signal);
        } finally {
            lock.unlock();
        }
    }

    /** Bytes free now. */
    long availableBytes() {
        lock.lock();
        try {
            return availableBytes;
        } finally {
            lock.unlock();
        }
    }

    /** Threads waiting for room now (tests wait for a sender to block). */
    int waitingThreads() {
        lock.lock();
        try {
            return waiters.size();
        } finally {
            lock.unlock();
        }
    }

    private void signalFirstWaiter() {
        Condition first = waiters.peekFirst();
        if (first != null) {
            first.signal();
        }
    }
}
