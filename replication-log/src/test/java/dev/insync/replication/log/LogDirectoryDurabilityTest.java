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

package dev.insync.replication.log;

import dev.insync.replication.log.record.MemoryRecords;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;

import static dev.insync.replication.log.LogFixtures.batch;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * LOG-11 / issue 9 item 7: durability is a setting of each log directory ({@link FileSync}), not
 * of the JVM. Counted through the {@link StorageFaults} seam, which sees every force of the
 * directory's files and whether it reaches the disk.
 */
class LogDirectoryDurabilityTest {

    private static final TopicPartition TP = new TopicPartition("durable", 0);
    private static final LogConfig CONFIG = LogConfig.defaults().withSegmentBytes(500).withSegmentIndexBytes(1024)
            .withIndexIntervalBytes(100);

    @TempDir
    Path root;

    /** The same work on any directory: appends that roll, a new epoch, flushes, every checkpoint, a clean close. */
    private static void workload(LogDirectory dir) {
        Log log = dir.getOrCreateLog(TP, CONFIG);
        assertThat(log.fileSync()).isSameAs(dir.fileSync());
        for (int i = 0; i < 12; i++) {
            MemoryRecords records = batch("d" + i, 3);
            log.appendAsLeader(records, i / 6);
            if (i % 4 == 3) {
                log.flush();
            }
        }
        log.updateHighWatermark(log.logEndOffset());
        dir.checkpointHighWatermarks();
        dir.checkpointRecoveryPointsAndLogStartOffsets();
        dir.closeCleanly(3);
    }

    private static Set<String> flushedFileNames(CountingFaults faults, StorageOperation.Kind kind) {
        return faults.operations().stream().filter(op -> op.kind() == kind)
                .map(op -> op.file().getFileName().toString().replaceAll("^\\d{20}", ""))
                .collect(Collectors.toSet());
    }

    @Test
    @DisplayName("LOG-11 durability is per log directory: a durable and a non-durable directory in one JVM force independently")
    void log11DurabilityIsPerDirectory() {
        CountingFaults durableOps = CountingFaults.counting();
        CountingFaults fastOps = CountingFaults.counting();
        CountingFaults laterOps = CountingFaults.counting();
        LogDirectory durable = LogDirectory.open(root.resolve("durable"), CONFIG, () -> 0L,
                FileSync.durable().withFaults(durableOps));
        LogDirectory fast = LogDirectory.open(root.resolve("fast"), CONFIG, () -> 0L,
                FileSync.withoutFsync().withFaults(fastOps));
        assertThat(durable.fileSync().isDurable()).isTrue();
        assertThat(fast.fileSync().isDurable()).isFalse();
        workload(fast);
        workload(durable);
        // Opened after a non-durable directory did all its work: still durable (the old switch was JVM-wide).
        LogDirectory later = LogDirectory.open(root.resolve("later"), CONFIG, () -> 0L,
                FileSync.durable().withFaults(laterOps));
        workload(later);

        for (StorageOperation.Kind kind : new StorageOperation.Kind[] {StorageOperation.Kind.FLUSH,
                StorageOperation.Kind.DIRECTORY_FSYNC}) {
            assertThat(durableOps.count(kind)).as("%s", kind).isPositive();
            assertThat(durableOps.durableCount(kind)).as("durable %s reach the disk", kind).isEqualTo(durableOps.count(kind));
            assertThat(laterOps.durableCount(kind)).as("later %s", kind).isEqualTo(durableOps.count(kind));
            assertThat(fastOps.count(kind)).as("the same work announces the same %s", kind).isEqualTo(durableOps.count(kind));
            assertThat(fastOps.durableCount(kind)).as("non-durable %s skip the disk", kind).isZero();
        }
        // Every kind of file the directory forces goes through its FileSync.
        assertThat(flushedFileNames(durableOps, StorageOperation.Kind.FLUSH)).contains(".log", ".index", ".timeindex",
                "leader-epoch-checkpoint.tmp", "replication-offset-checkpoint.tmp", "recovery-point-offset-checkpoint.tmp",
                "log-start-offset-checkpoint.tmp", ".kafka_cleanshutdown.tmp");
        assertThat(flushedFileNames(durableOps, StorageOperation.Kind.DIRECTORY_FSYNC)).contains("durable", TP.toString());
        assertThat(flushedFileNames(fastOps, StorageOperation.Kind.FLUSH))
                .isEqualTo(flushedFileNames(durableOps, StorageOperation.Kind.FLUSH));
    }

    @Test
    @DisplayName("LOG-11 a standalone log takes its durability from the FileSync it is opened with; the default is durable")
    void log11StandaloneLogDurability() {
        CountingFaults ops = CountingFaults.counting();
        try (Log log = Log.open(root.resolve("a").resolve(TP.toString()), TP, CONFIG, 0, 0, () -> 0L,
                FileSync.withoutFsync().withFaults(ops))) {
            log.appendAsLeader(batch("x", 1), 0);
            log.flush();
        }
        assertThat(ops.count(StorageOperation.Kind.FLUSH)).isPositive();
        assertThat(ops.durableCount(StorageOperation.Kind.FLUSH)).isZero();
        try (Log log = Log.open(root.resolve("b").resolve(TP.toString()), TP, CONFIG, 0, 0)) {
            assertThat(log.fileSync().isDurable()).isTrue();
        }
    }
}
