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

package dev.insync.replication.controller.log;

import dev.insync.replication.controller.record.MetadataRecord;

import java.util.List;

/**
 * The records of one controller operation, committed atomically at consecutive offsets from
 * {@code baseOffset}. Brokers see the batch as one {@code MetadataDelta} whose offset is
 * {@link #lastOffset()}.
 *
 * @param baseOffset offset of the first record
 * @param records    at least one record
 */
public record MetadataBatch(long baseOffset, List<MetadataRecord> records) {

    /** Bound on the records of one batch (one operation). */
    public static final int MAX_RECORDS = 1_000_000;

    /** Validates; immutable copy. */
    public MetadataBatch {
        if (baseOffset < 0) {
            throw new IllegalArgumentException("Negative base offset " + baseOffset);
        }
        if (records == null || records.isEmpty() || records.size() > MAX_RECORDS) {
            throw new IllegalArgumentException("A metadata batch at offset " + baseOffset + " needs 1 to " + MAX_RECORDS
                    + " records, got " + (records == null ? "none" : records.size()));
        }
        records = List.copyOf(records);
    }

    /** Offset of the last record. */
    public long lastOffset() {
        return baseOffset + records.size() - 1;
    }
}
