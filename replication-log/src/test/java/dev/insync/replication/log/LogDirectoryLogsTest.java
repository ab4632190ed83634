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

import dev.insync.replication.log.checkpoint.CleanShutdownFile;
import dev.insync.replication.log.checkpoint.OffsetCheckpointFile;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** LogDirectory with real partition logs: HW-5 checkpoint and restore, recovery points, deletion. */
class LogDirectoryLogsTest {

    private static final TopicPartition T0 = new TopicPartition("orders", 0);
    private static final TopicPartition T1 = new TopicPartition("orders", 1);

    @TempDir
    Path root;

    private Path dir() {
        return root.resolve("data");
    }

    private LogDirectory open() {
        return LogDirectory.open(dir(), LogConfig.defaults());
    }

    private OffsetCheckpointFile checkpoint(String name) {
        return new OffsetCheckpointFile(dir().resolve(name));
    }

    /** A log whose start and end are both {@code offset}, without needing any records. */
    private static Log logStartingAt(LogDirectory logDir, TopicPartition tp, long offset) {
        Log log = logDir.getOrCreateLog(tp, LogConfig.defaults());
        log.truncateFullyAndStartAt(offset);
        return log;
    }

    @Test
    @DisplayName("HW-5 getOrCreateLog creates <topic>-<partition> once; a reopen finds it again")
    void createAndReopen() {
        try (LogDirectory logDir = open()) {
            Log log = logDir.getOrCreateLog(T0, LogConfig.defaults());
            assertThat(logDir.getOrCreateLog(T0, LogConfig.defaults())).isSameAs(log);
            assertThat(dir().resolve("orders-0")).isDirectory();
            assertThat(logDir.log(T0)).containsSame(log);
            assertThat(logDir.log(T1)).isEmpty();
        }
        try (LogDirectory logDir = open()) {
            assertThat(logDir.logs()).containsOnlyKeys(T0);
            assertThat(logDir.log(T0).orElseThrow().topicPartition()).isEqualTo(T0);
        }
    }

    @Test
    @DisplayName("HW-5 checkpointHighWatermarks writes every log's HW and a reopen restores it")
    void highWatermarkCheckpointRoundTrip() {
        try (LogDirectory logDir = open()) {
            Log log0 = logStartingAt(logDir, T0, 100);
            log0.updateHighWatermark(100);
            logStartingAt(logDir, T1, 7).updateHighWatermark(7);
            logDir.checkpointHighWatermarks();
            assertThat(checkpoint(OffsetCheckpointFile.REPLICATION_OFFSET_CHECKPOINT).read())
                    .isEqualTo(Map.of(T0, 100L, T1, 7L));
            logDir.checkpointRecoveryPointsAndLogStartOffsets();
        }
        try (LogDirectory logDir = open()) {
            assertThat(logDir.checkpointedHighWatermark(T0)).hasValue(100L);
            assertThat(logDir.log(T0).orElseThrow().highWatermark()).isEqualTo(100L);
            assertThat(logDir.log(T1).orElseThrow().highWatermark()).isEqualTo(7L);
        }
    }

    @Test
    @DisplayName("HW-5 a restored HW is clamped to [logStartOffset, LEO]")
    void restoredHighWatermarkIsClamped() {
        try (LogDirectory logDir = open()) {
            logStartingAt(logDir, T0, 100);
            logStartingAt(logDir, T1, 100);
            logDir.checkpointRecoveryPointsAndLogStartOffsets();
        }
        // Above the LEO for T0, below the log start for T1.
        checkpoint(OffsetCheckpointFile.REPLICATION_OFFSET_CHECKPOINT).write(Map.of(T0, 500L, T1, 3L));
        try (LogDirectory logDir = open()) {
            Log log0 = logDir.log(T0).orElseThrow();
            Log log1 = logDir.log(T1).orElseThrow();
            assertThat(log0.logEndOffset()).isEqualTo(100L);
            assertThat(log0.highWatermark()).isEqualTo(100L);
            assertThat(log1.logStartOffset()).isEqualTo(100L);
            assertThat(log1.highWatermark()).isEqualTo(100L);
            assertThat(logDir.checkpointedHighWatermark(T0)).hasValue(500L);
        }
    }

    @Test
    @DisplayName("LOG-9 log start offsets and recovery points are checkpointed and passed back to the logs")
    void logStartAndRecoveryPointCheckpoints() {
        try (LogDirectory logDir = open()) {
            Log log = logStartingAt(logDir, T0, 42);
            log.flush();
            logDir.checkpointRecoveryPointsAndLogStartOffsets();
            assertThat(checkpoint(OffsetCheckpointFile.LOG_START_OFFSET_CHECKPOINT).read()).isEqualTo(Map.of(T0, 42L));
            assertThat(checkpoint(OffsetCheckpointFile.RECOVERY_POINT_OFFSET_CHECKPOINT).read())
                    .isEqualTo(Map.of(T0, log.recoveryPoint()));
        }
        try (LogDirectory logDir = open()) {
            Log log = logDir.log(T0).orElseThrow();
            assertThat(log.logStartOffset()).isEqualTo(42L);
            assertThat(log.logEndOffset()).isEqualTo(42L);
        }
    }

    @Test
    @DisplayName("LDR-5 HW-5 closeCleanly flushes, writes every checkpoint, then the marker")
    void closeCleanlyWritesEverything() throws IOException {
        LogDirectory logDir = open();
        logStartingAt(logDir, T0, 10).updateHighWatermark(10);
        logDir.closeCleanly(9L);
        assertThat(checkpoint(OffsetCheckpointFile.REPLICATION_OFFSET_CHECKPOINT).read()).isEqualTo(Map.of(T0, 10L));
        assertThat(checkpoint(OffsetCheckpointFile.RECOVERY_POINT_OFFSET_CHECKPOINT).read()).isEqualTo(Map.of(T0, 10L));
        assertThat(checkpoint(OffsetCheckpointFile.LOG_START_OFFSET_CHECKPOINT).read()).isEqualTo(Map.of(T0, 10L));
        assertThat(Files.readString(dir().resolve(CleanShutdownFile.FILE_NAME))).contains("\"brokerEpoch\":9");
        try (LogDirectory reopened = open()) {
            assertThat(reopened.previousCleanShutdownBrokerEpoch()).hasValue(9L);
            assertThat(reopened.log(T0).orElseThrow().highWatermark()).isEqualTo(10L);
        }
    }

    @Test
    @DisplayName("HW-5 deleteLog removes the directory and the partition from every checkpoint")
    void deleteLog() {
        try (LogDirectory logDir = open()) {
            logStartingAt(logDir, T0, 5).updateHighWatermark(5);
            logStartingAt(logDir, T1, 6).updateHighWatermark(6);
            logDir.checkpointHighWatermarks();
            logDir.deleteLog(T0);
            logDir.deleteLog(T0); // nothing left: no-op
            assertThat(dir().resolve("orders-0")).doesNotExist();
            assertThat(logDir.logs()).containsOnlyKeys(T1);
            assertThat(checkpoint(OffsetCheckpointFile.REPLICATION_OFFSET_CHECKPOINT).read()).containsOnlyKeys(T1);
            assertThat(checkpoint(OffsetCheckpointFile.LOG_START_OFFSET_CHECKPOINT).read()).containsOnlyKeys(T1);
        }
        try (LogDirectory logDir = open()) {
            assertThat(logDir.logs()).containsOnlyKeys(T1);
        }
    }

    @Test
    @DisplayName("HW-5 LDR-5 after a kill -9 the HW comes back from the last checkpoint, the data and epochs stay")
    void crashRestoresCheckpointedHighWatermark() {
        LogDirectory logDir = open();
        Log log = logDir.getOrCreateLog(T0, LogConfig.defaults());
        log.assignEpochStartOffset(1, 0);
        log.appendAsLeader(LogFixtures.batch("a", 10), 1);
        log.updateHighWatermark(6);
        logDir.checkpointHighWatermarks();
        log.updateHighWatermark(10); // never checkpointed
        logDir.close(); // models kill -9: no flush, no checkpoint, no marker

        try (LogDirectory restarted = open()) {
            assertThat(restarted.previousCleanShutdownBrokerEpoch()).isEmpty();
            Log reopened = restarted.log(T0).orElseThrow();
            assertThat(reopened.logEndOffset()).isEqualTo(10L);
            assertThat(reopened.highWatermark()).isEqualTo(6L);
            assertThat(reopened.leaderEpochCache().epochEntries())
                    .containsExactly(new dev.insync.replication.log.epoch.EpochEntry(1, 0));
            assertThat(reopened.endOffsetForEpoch(0)).isEqualTo(new dev.insync.replication.log.epoch.EpochEndOffset(0, 0));
        }
    }

    @Test
    @DisplayName("HW-5 LOG-9 a clean stop checkpoints the recovery point at the LEO and the HW mid-log")
    void cleanStopRecoveryPointAtLeo() {
        LogDirectory logDir = open();
        Log log = logDir.getOrCreateLog(T0, LogConfig.defaults());
        log.appendAsLeader(LogFixtures.batch("a", 4), 0);
        log.appendAsLeader(LogFixtures.batch("b", 4), 0);
        log.updateHighWatermark(4);
        logDir.closeCleanly(2L);
        assertThat(checkpoint(OffsetCheckpointFile.RECOVERY_POINT_OFFSET_CHECKPOINT).read()).isEqualTo(Map.of(T0, 8L));
        assertThat(checkpoint(OffsetCheckpointFile.REPLICATION_OFFSET_CHECKPOINT).read()).isEqualTo(Map.of(T0, 4L));
        try (LogDirectory restarted = open()) {
            Log reopened = restarted.log(T0).orElseThrow();
            assertThat(reopened.highWatermark()).isEqualTo(4L);
            assertThat(reopened.logEndOffset()).isEqualTo(8L);
            assertThat(LogFixtures.readValues(reopened, 0)).hasSize(8);
        }
    }

    @Test
    @DisplayName("LOG-9 a corrupt leader-epoch-checkpoint of one log keeps the directory offline, naming file and line")
    void corruptEpochCheckpointRefusesOpen() throws IOException {
        try (LogDirectory logDir = open()) {
            logDir.getOrCreateLog(T0, LogConfig.defaults()).assignEpochStartOffset(3, 0);
        }
        Path epochFile = dir().resolve("orders-0").resolve(dev.insync.replication.log.epoch.LeaderEpochCache.CHECKPOINT_FILE_NAME);
        Files.writeString(epochFile, "0\n1\n3 zero\n");
        org.assertj.core.api.Assertions.assertThatThrownBy(this::open)
                .isInstanceOf(ApiException.class)
                .hasMessageContaining(epochFile.toString()).hasMessageContaining("line 3");
        // The lock was released: fixing the file lets the directory open.
        Files.writeString(epochFile, "0\n1\n3 0\n");
        try (LogDirectory logDir = open()) {
            assertThat(logDir.logs()).containsOnlyKeys(T0);
        }
    }
}
