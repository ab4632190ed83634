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

import java.util.concurrent.Executor;

/**
 * Runs work later or periodically, and hands out serial executors for active components. Every
 * task of one serial executor runs one at a time, in submission order. Production backs this with
 * threads; the simulator with one seeded event loop in virtual time.
 */
public interface Scheduler {

    /** A handle to cancel a scheduled task. */
    interface Cancellable {
        /** Cancels the task if it has not started; idempotent. */
        void cancel();
    }

    /** Runs {@code task} on {@code executor} once, after {@code delayMs}. */
    Cancellable schedule(Executor executor, Runnable task, long delayMs);

    /** Runs {@code task} on {@code executor} every {@code periodMs}, first after {@code initialDelayMs}. */
    Cancellable schedulePeriodically(Executor executor, Runnable task, long initialDelayMs, long periodMs);

    /**
     * A serial executor named {@code name} (in production its own thread with that name, e.g.
     * {@code ReplicaFetcherThread-0-1}).
     */
    Executor newSerialExecutor(String name);

    /** The clock this scheduler runs on. */
    Time time();
}
