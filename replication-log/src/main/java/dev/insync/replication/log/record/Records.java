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

package dev.insync.replication.log.record;

import java.util.List;

/**
 * Whole v2 record batches as a read returns them (LOG-3): either bytes in memory
 * ({@link MemoryRecords}) or a slice of a segment file that stays on disk until it is sent
 * ({@code dev.insync.replication.log.segment.FileRecords}, NET-3). Kafka's {@code Records}.
 *
 * <p>A consumer inside the JVM (a fetcher's append, a test) takes {@link #toMemoryRecords()}; a
 * network server sends a file slice without copying it into the heap.
 */
public interface Records {

    /** Total bytes of all batches. */
    int sizeInBytes();

    /**
     * The batches as {@link MemoryRecords}: {@code this} for records already in memory (no copy);
     * for a file slice, one copy of its bytes into the heap, which fails (never returns other bytes)
     * if the segment was truncated or deleted since the read.
     *
     * @throws dev.insync.replication.log.ApiException NOT_LEADER_OR_FOLLOWER when the bytes read are no
     *         longer in the file (a retriable answer: the reader fetches again)
     */
    MemoryRecords toMemoryRecords();

    /** The batches in order (for a file slice, read through {@link #toMemoryRecords()}). */
    default List<RecordBatch> batches() {
        return toMemoryRecords().batches();
    }
}
