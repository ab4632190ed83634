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

package dev.insync.replication.core.purgatory;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A timing-wheel bucket: a circular doubly linked list of entries with a sentinel, so add and
 * remove are O(1). Its expiration is the start of the time span it covers; it is handed to the
 * timer's due queue whenever that expiration is newly set. Guarded by the owning timer's lock.
 */
final class TimerTaskList {

    private static final long UNSET = -1L;

    private final TimerTaskEntry root = new TimerTaskEntry(null, UNSET, null);
    private final AtomicInteger taskCounter;
    private long expirationMs = UNSET;
    /** Tie-breaker among buckets that expire together, so expiry order is deterministic. */
    private long queueSeq;

    TimerTaskList(AtomicInteger taskCounter) {
        this.taskCounter = taskCounter;
        root.next = root;
        root.prev = root;
    }

    long expirationMs() {
        return expirationMs;
    }

    long queueSeq() {
        return queueSeq;
    }

    void queueSeq(long seq) {
        this.queueSeq = seq;
    }

    /** Sets the expiration; true if it changed, meaning the bucket must be queued again. */
    boolean setExpiration(long newExpirationMs) {
        boolean changed = expirationMs != newExpirationMs;
        expirationMs = newExpirationMs;
        return changed;
    }

    void add(TimerTaskEntry entry) {
        if (entry.list != null) {
            entry.list.remove(entry);
        }
        TimerTaskEntry tail = root.prev;
        entry.next = root;
        entry.prev = tail;
        entry.list = this;
        tail.next = entry;
        root.prev = entry;
        taskCounter.incrementAndGet();
    }

    void remove(TimerTaskEntry entry) {
        if (entry.list != this) {
            return;
        }
        entry.next.prev = entry.prev;
        entry.prev.next = entry.next;
        entry.next = null;
        entry.prev = null;
        entry.list = null;
        taskCounter.decrementAndGet();
    }

    /** Empties the bucket in insertion order, handing each entry to {@code reinsert}. */
    void flush(Consumer<TimerTaskEntry> reinsert) {
        TimerTaskEntry head = root.next;
        while (head != root) {
            remove(head);
            reinsert.accept(head);
            head = root.next;
        }
        expirationMs = UNSET;
    }
}
