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
 * The whole controller state as of {@code lastOffset}, as the records that rebuild it (CTL-1):
 * loading it and replaying the log after {@code lastOffset} gives exactly the live state. The
 * records are in the order {@code ControllerState.snapshot()} writes them (brokers, then each topic
 * with its configs and partitions); {@link MetadataSnapshotSerde} gives it a versioned,
 * checksummed encoding.
 *
 * @param lastOffset offset of the last record the snapshot includes, -1 for the empty state
 * @param records    the records that rebuild the state
 */
public record MetadataSnapshot(long lastOffset, List<MetadataRecord> records) {

    /** Validates; immutable copy. */
    public MetadataSnapshot {
        if (lastOffset < -1) {
            throw new IllegalArgumentException("Snapshot offset must be >= -1, got " + lastOffset);
        }
        records = List.copyOf(records);
    }
}
