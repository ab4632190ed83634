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

package dev.insync.replication.bench.processes;

/**
 * A producer of one {@link ProcessBenchTarget}, as the {@link ProcessWorkload} drives it: records
 * to a given partition, each acknowledged or failed through its {@link Completion}. Used from one
 * sending thread at a time; completions may run on the client's own threads.
 */
public interface BenchClient extends AutoCloseable {

    /** Called once per record: {@code error} is null when the record was acknowledged with the client's acks. */
    @FunctionalInterface
    interface Completion {
        void completed(Throwable error);
    }

    /**
     * Sends one record with a null key and {@code value} to {@code topic}'s {@code partition}. May
     * block while the client's own buffer or window is full (that is the back-pressure the
     * throughput measurement relies on), within a bound of the client's; an error it throws instead
     * of reporting through {@code completion} counts as a failed record.
     */
    void send(String topic, int partition, byte[] value, Completion completion);

    /** Closes within a few seconds, abandoning records not yet acknowledged. */
    @Override
    void close();
}
