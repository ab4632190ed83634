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

package dev.insync.replication.core.partition;

import dev.insync.replication.core.purgatory.Timer;
import dev.insync.replication.core.purgatory.TimerTask;

import java.util.ArrayList;
import java.util.List;

/** A purgatory timer that fires only when the test says time is up. */
final class HeldTimer implements Timer {

    private final List<TimerTask> tasks = new ArrayList<>();

    @Override
    public synchronized void add(TimerTask task) {
        tasks.add(task);
    }

    @Override
    public synchronized int size() {
        return tasks.size();
    }

    @Override
    public void close() {
    }

    /** Runs every held task (each expires its operation unless it already completed). */
    void expireAll() {
        List<TimerTask> due;
        synchronized (this) {
            due = new ArrayList<>(tasks);
            tasks.clear();
        }
        due.forEach(TimerTask::run);
    }
}
