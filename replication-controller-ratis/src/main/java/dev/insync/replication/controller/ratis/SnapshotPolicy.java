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

package dev.insync.replication.controller.ratis;

/**
 * When a controller node writes a state-machine snapshot of the metadata log (after which Ratis
 * purges the log entries it covers). A snapshot is due as soon as one bound is crossed since the
 * last one; bounds of 0 are off.
 *
 * @param maxRecordBytesBetweenSnapshots {@code metadata.log.max.record.bytes.between.snapshots} (Kafka's
 *                                       name and default, 20 MiB): encoded batch bytes committed since
 *                                       the last snapshot
 * @param maxSnapshotIntervalMs          {@code metadata.log.max.snapshot.interval.ms} (Kafka's name and
 *                                       default, one hour): time since the last snapshot, if anything
 *                                       was committed since
 * @param maxSnapshotIntervalRecords     {@code metadata.log.max.snapshot.interval.records} (ours, as
 *                                       {@code ControllerConfig}'s; default 100,000): records committed
 *                                       since the last snapshot
 */
public record SnapshotPolicy(long maxRecordBytesBetweenSnapshots, long maxSnapshotIntervalMs,
                             long maxSnapshotIntervalRecords) {

    public static final String MAX_RECORD_BYTES_BETWEEN_SNAPSHOTS = "metadata.log.max.record.bytes.between.snapshots";
    public static final String MAX_SNAPSHOT_INTERVAL_MS = "metadata.log.max.snapshot.interval.ms";
    public static final String MAX_SNAPSHOT_INTERVAL_RECORDS = "metadata.log.max.snapshot.interval.records";

    /** 20 MiB, one hour, 100,000 records. */
    public static final SnapshotPolicy DEFAULT = new SnapshotPolicy(20L * 1024 * 1024, 3_600_000L, 100_000L);

    /** Validates. */
    public SnapshotPolicy {
        if (maxRecordBytesBetweenSnapshots < 0) {
            throw new IllegalArgumentException(MAX_RECORD_BYTES_BETWEEN_SNAPSHOTS + " must be >= 0, got "
                    + maxRecordBytesBetweenSnapshots);
        }
        if (maxSnapshotIntervalMs < 0) {
            throw new IllegalArgumentException(MAX_SNAPSHOT_INTERVAL_MS + " must be >= 0, got " + maxSnapshotIntervalMs);
        }
        if (maxSnapshotIntervalRecords < 0) {
            throw new IllegalArgumentException(MAX_SNAPSHOT_INTERVAL_RECORDS + " must be >= 0, got "
                    + maxSnapshotIntervalRecords);
        }
    }

    /** Whether a snapshot is due after {@code records} records of {@code bytes} bytes in {@code elapsedMs}. */
    boolean isDue(long records, long bytes, long elapsedMs) {
        if (records == 0) {
            return false;
        }
        return (maxSnapshotIntervalRecords > 0 && records >= maxSnapshotIntervalRecords)
                || (maxRecordBytesBetweenSnapshots > 0 && bytes >= maxRecordBytesBetweenSnapshots)
                || (maxSnapshotIntervalMs > 0 && elapsedMs >= maxSnapshotIntervalMs);
    }
}
