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

import java.util.concurrent.locks.Lock;

/**
 * One scheduling of a {@link TimerTask}: a node of a doubly linked {@link TimerTaskList}. Links
 * are guarded by the owning timer's lock.
 */
final class TimerTaskEntry {

    final TimerTask task;
    /** The earliest time the task may run. */
    final long deadlineMs;
    private final Lock timerLock;

    TimerTaskList list;
    TimerTaskEntry prev;
    TimerTaskEntry next;

    TimerTaskEntry(TimerTask task, long deadlineMs, Lock timerLock) {
        this.task = task;
        this.deadlineMs = deadlineMs;
        this.timerLock = timerLock;
    }

    /** A cancelled entry is one its task no longer points to (cancelled or re-added elsewhere). */
    boolean cancelled() {
        return task == null || task.isDetachedFrom(this);
    }

    /** Unlinks this entry from whatever bucket holds it; O(1). */
    void remove() {
        timerLock.lock();
        try {
            if (list != null) {
                list.remove(this);
            }
        } finally {
            timerLock.unlock();
        }
    }
}
