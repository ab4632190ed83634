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

package dev.insync.replication.cli.dump;

import dev.insync.replication.log.record.Record;
import dev.insync.replication.log.record.RecordBatch;

import java.util.List;

/**
 * Decodes a batch's records for deep iteration, through the library's own reader: uncompressed
 * batches as they are, gzip, snappy, lz4 and zstd ones decompressed (the CLI ships the three codec
 * libraries), each bounded by {@link RecordBatch#DEFAULT_MAX_DECOMPRESSED_BYTES} so a hostile
 * segment cannot exhaust the heap.
 */
final class RecordDecoder {

    private RecordDecoder() {
    }

    /**
     * The batch's records.
     *
     * @throws IllegalArgumentException naming the batch's offset when the records cannot be decoded
     *         (malformed bytes, an unknown codec, corrupt compressed data, beyond the bound)
     */
    static List<Record> records(RecordBatch batch) {
        try {
            return batch.records();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("Cannot decode the records of the batch at offset " + batch.baseOffset()
                    + ": " + e.getMessage(), e);
        }
    }
}
