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

/**
 * Runs {@link TimerTask}s once their delay has passed. Implementations fire a task no earlier than
 * its deadline ({@code now + delayMs} at {@link #add}) and at most one tick after it, and never
 * poll: they wake up only when some task is due.
 */
public interface Timer extends AutoCloseable {

    /**
     * Schedules {@code task} to run after its {@link TimerTask#delayMs()}. A task that is already
     * due runs right away on the timer's executor. Adding a task again replaces its earlier entry.
     *
     * @throws IllegalStateException if the timer is closed
     */
    void add(TimerTask task);

    /** The number of tasks waiting (added, neither run nor cancelled). */
    int size();

    /** Stops all future wake-ups; pending tasks never run. Idempotent. */
    @Override
    void close();
}
