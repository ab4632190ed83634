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

package dev.insync.replication.cli.chaos;

import dev.insync.replication.testkit.history.History;
import dev.insync.replication.testkit.history.HistoryEvent;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;

/**
 * The history of one chaos run, recorded from the clients' side on the wall clock: times are
 * milliseconds since the run started (monotonic), and an event's time is taken under the same lock
 * that appends it, so the file's order is the order of its times. Thread-safe.
 */
final class ChaosRecorder {

    private final long startNanos = System.nanoTime();
    private final History history = new History();
    private final AtomicLong ids = new AtomicLong();

    /** Milliseconds since the run started. */
    long now() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    /** A fresh id for a produce call or a poll. */
    long nextId() {
        return ids.incrementAndGet();
    }

    /** Appends the event made for the current time; returns that time. */
    synchronized long add(LongFunction<HistoryEvent> event) {
        long t = now();
        history.add(event.apply(t));
        return t;
    }

    /** Appends the events made for the current time, one instant (consecutive, one time); returns that time. */
    synchronized long addAll(LongFunction<List<HistoryEvent>> events) {
        long t = now();
        events.apply(t).forEach(history::add);
        return t;
    }

    History history() {
        return history;
    }
}
