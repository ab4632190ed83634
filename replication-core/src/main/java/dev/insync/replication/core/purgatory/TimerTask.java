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

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Work that a {@link Timer} runs once after {@link #delayMs()}. A task sits in at most one timer
 * bucket at a time; {@link #cancel()} unlinks it in O(1).
 */
public abstract class TimerTask implements Runnable {

    private final long delayMs;
    private static final VarHandle ENTRY;

    static {
        try {
            ENTRY = MethodHandles.lookup().findVarHandle(TimerTask.class, "entry", TimerTaskEntry.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The entry that currently represents this task in a timer; null when not scheduled. A field
     * with a VarHandle rather than an AtomicReference: one object (and cache miss) less per parked
     * operation, which counts with a million of them.
     */
    private volatile TimerTaskEntry entry;

    /**
     * @param delayMs how long after {@link Timer#add} the task runs; must be non-negative
     */
    protected TimerTask(long delayMs) {
        if (delayMs < 0) {
            throw new IllegalArgumentException("timer task delay must be >= 0 ms, got " + delayMs);
        }
        this.delayMs = delayMs;
    }

    /** The delay, counted from the moment the task is added to a timer. */
    public final long delayMs() {
        return delayMs;
    }

    /**
     * Removes the task from its timer so it will not run; idempotent, callable from any thread. A
     * task that the timer already picked up to run may still run once.
     */
    public final void cancel() {
        TimerTaskEntry old = (TimerTaskEntry) ENTRY.getAndSet(this, (TimerTaskEntry) null);
        if (old != null) {
            old.remove();
        }
    }

    /** Binds this task to a new timer entry, unlinking the previous one (re-adding a task). */
    final void bind(TimerTaskEntry newEntry) {
        TimerTaskEntry old = (TimerTaskEntry) ENTRY.getAndSet(this, newEntry);
        if (old != null && old != newEntry) {
            old.remove();
        }
    }

    /** True if {@code candidate} is no longer the entry this task is scheduled under. */
    final boolean isDetachedFrom(TimerTaskEntry candidate) {
        return entry != candidate;
    }
}
