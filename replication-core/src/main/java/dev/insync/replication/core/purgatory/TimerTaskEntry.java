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
