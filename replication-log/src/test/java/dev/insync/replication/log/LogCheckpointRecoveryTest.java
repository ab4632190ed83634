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

import dev.insync.replication.log.checkpoint.OffsetCheckpointFile;
import dev.insync.replication.log.epoch.EpochEndOffset;
import dev.insync.replication.log.epoch.EpochEntry;
import dev.insync.replication.log.epoch.LeaderEpochCache;
import dev.insync.replication.log.segment.LogSegment;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static dev.insync.replication.log.LogFixtures.batch;
import static dev.insync.replication.log.LogFixtures.readValues;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * LOG-7/LOG-8/LOG-10/HW-5: what recovery does with checkpoints that do not fit the files: a
 * missing or empty leader-epoch checkpoint is rebuilt from the batches, a lagging one catches up; a
 * log start, recovery point or HW above the recovered LEO is clamped (and the recovery point no
 * longer trusted), each logged naming the file; and a truncation below the recovery point
 * rewrites that checkpoint before the log takes a new append.
 */
class LogCheckpointRecoveryTest {

    private static final TopicPartition TP = new TopicPartition("ckpt", 0);
    private static final LogConfig CONFIG = LogConfig.defaults().withSegmentBytes(600).withSegmentIndexBytes(1024)
            .withIndexIntervalBytes(100);

    @TempDir
    Path root;

    private Path dataDir() {
        return root.resolve("data");
    }

    private Path logDir() {
        return dataDir().resolve(TP.toString());
    }

    private LogDirectory openDirectory() {
        return LogDirectory.open(dataDir(), CONFIG, () -> 0L, FileSync.withoutFsync());
    }

    /** 24 batches of two records in epochs 0, 2, 5 (8 batches each), several segments, cleanly closed. */
    private List<EpochEntry> writeEpochs() {
        try (LogDirectory dir = openDirectory()) {
            Log log = dir.getOrCreateLog(TP, CONFIG);
            int[] epochs = {0, 2, 5};
            for (int i = 0; i < 24; i++) {
                log.appendAsLeader(batch("e" + i, 2), epochs[i / 8]);
            }
            log.updateHighWatermark(log.logEndOffset());
            assertThat(log.segmentBaseOffsets()).hasSizeGreaterThan(2);
            List<EpochEntry> entries = log.leaderEpochCache().epochEntries();
            assertThat(entries).containsExactly(new EpochEntry(0, 0), new EpochEntry(2, 16), new EpochEntry(5, 32));
            dir.closeCleanly(1);
            return entries;
        }
    }

    private static Log onlyLog(LogDirectory dir) {
        return dir.log(TP).orElseThrow();
    }

    @Test
    @DisplayName("LOG-8 a missing leader-epoch-checkpoint is rebuilt from the batches' partitionLeaderEpoch, logged naming the file")
    void log8MissingEpochCheckpointIsRebuilt() throws IOException {
        List<EpochEntry> entries = writeEpochs();
        Path file = logDir().resolve(LeaderEpochCache.CHECKPOINT_FILE_NAME);
        Files.delete(file);
        try (LogDirectory dir = openDirectory()) {
            Log log = onlyLog(dir);
            assertThat(log.leaderEpochCache().epochEntries()).isEqualTo(entries);
            assertThat(log.endOffsetForEpoch(2)).isEqualTo(new EpochEndOffset(2, 32));
            assertThat(log.recoveryFindings()).singleElement().satisfies(f -> {
                assertThat(f.kind()).isEqualTo(RecoveryFinding.Kind.REBUILT_EPOCH_CACHE);
                assertThat(f.file()).isEqualTo(file);
                assertThat(f.reason()).contains("missing or empty");
            });
        }
        assertThat(Files.readAllLines(file)).containsExactly("0", "3", "0 0", "2 16", "5 32");
    }

    @Test
    @DisplayName("LOG-8 an empty leader-epoch-checkpoint (zero bytes, or zero entries) is rebuilt from the batches")
    void log8EmptyEpochCheckpointIsRebuilt() throws IOException {
        List<EpochEntry> entries = writeEpochs();
        Path file = logDir().resolve(LeaderEpochCache.CHECKPOINT_FILE_NAME);
        Files.write(file, new byte[0]);
        try (LogDirectory dir = openDirectory()) {
            assertThat(onlyLog(dir).leaderEpochCache().epochEntries()).isEqualTo(entries);
        }
        Files.writeString(file, "0\n0\n");
        try (LogDirectory dir = openDirectory()) {
            assertThat(onlyLog(dir).leaderEpochCache().epochEntries()).isEqualTo(entries);
        }
    }

    @Test
    @DisplayName("LOG-8 a leader-epoch-checkpoint behind the log gets the newer epochs of the rescanned batches, as in Kafka")
    void log8LaggingEpochCheckpointCatchesUp() throws IOException {
        writeEpochs();
        Path file = logDir().resolve(LeaderEpochCache.CHECKPOINT_FILE_NAME);
        Files.writeString(file, "0\n1\n0 0\n");
        // Recovery point 0: every segment is rescanned.
        new OffsetCheckpointFile(dataDir().resolve(OffsetCheckpointFile.RECOVERY_POINT_OFFSET_CHECKPOINT))
                .write(Map.of(TP, 0L));
        try (LogDirectory dir = openDirectory()) {
            Log log = onlyLog(dir);
            assertThat(log.leaderEpochCache().epochEntries())
                    .containsExactly(new EpochEntry(0, 0), new EpochEntry(2, 16), new EpochEntry(5, 32));
            assertThat(log.recoveryFindings()).singleElement()
                    .satisfies(f -> assertThat(f.reason()).contains("lags the recovered batches"));
        }
    }

    @Test
    @DisplayName("LOG-8 LOG-7 a lagging leader-epoch-checkpoint whose latest epoch starts where newer batches start gives way to the batches' epoch, as Kafka's assign")
    void log8LatestEpochThatWroteNothingGivesWayToTheBatchesEpoch() throws IOException {
        writeEpochs();
        // Epoch 3 was assigned at offset 32 (a leadership that wrote nothing), then epoch 5's batches
        // were appended at 32 and the process died before the checkpoint was rewritten.
        Path file = logDir().resolve(LeaderEpochCache.CHECKPOINT_FILE_NAME);
        Files.writeString(file, "0\n3\n0 0\n2 16\n3 32\n");
        new OffsetCheckpointFile(dataDir().resolve(OffsetCheckpointFile.RECOVERY_POINT_OFFSET_CHECKPOINT))
                .write(Map.of(TP, 0L));
        try (LogDirectory dir = openDirectory()) {
            Log log = onlyLog(dir);
            assertThat(log.leaderEpochCache().epochEntries())
                    .containsExactly(new EpochEntry(0, 0), new EpochEntry(2, 16), new EpochEntry(5, 32));
            assertThat(log.endOffsetForEpoch(3)).isEqualTo(new EpochEndOffset(2, 32));
        }
        assertThat(Files.readAllLines(file)).containsExactly("0", "3", "0 0", "2 16", "5 32");
    }

    @Test
    @DisplayName("LOG-8 LOG-7 a rescan that starts inside a known epoch keeps that epoch's recorded start offset")
    void log8RescanInsideAKnownEpochKeepsItsStart() throws IOException {
        writeEpochs();
        long recoveryPoint;
        try (LogDirectory dir = openDirectory()) {
            recoveryPoint = onlyLog(dir).segmentBaseOffsets().stream().filter(b -> b > 16 && b < 32).findFirst()
                    .orElseThrow();
            dir.closeCleanly(1);
        }
        Path file = logDir().resolve(LeaderEpochCache.CHECKPOINT_FILE_NAME);
        Files.writeString(file, "0\n2\n0 0\n2 16\n");
        // The rescan starts at a segment inside epoch 2: its first batch is (epoch 2, recoveryPoint).
        new OffsetCheckpointFile(dataDir().resolve(OffsetCheckpointFile.RECOVERY_POINT_OFFSET_CHECKPOINT))
                .write(Map.of(TP, recoveryPoint));
        try (LogDirectory dir = openDirectory()) {
            assertThat(onlyLog(dir).leaderEpochCache().epochEntries())
                    .containsExactly(new EpochEntry(0, 0), new EpochEntry(2, 16), new EpochEntry(5, 32));
        }
    }

    @Test
    @DisplayName("LOG-10 LOG-7 a log-start-offset-checkpoint entry above the LEO is clamped to the LEO with a warning naming the file")
    void log10LogStartAboveTheLeoIsClampedNamingTheFile() throws IOException {
        writeEpochs();
        Path checkpoint = dataDir().resolve(OffsetCheckpointFile.LOG_START_OFFSET_CHECKPOINT);
        new OffsetCheckpointFile(checkpoint).write(Map.of(TP, 1_000L));
        try (LogDirectory dir = openDirectory()) {
            Log log = onlyLog(dir);
            assertThat(log.logEndOffset()).isEqualTo(48);
            assertThat(log.logStartOffset()).isEqualTo(48);
            assertThat(log.recoveryFindings()).singleElement().satisfies(f -> {
                assertThat(f.kind()).isEqualTo(RecoveryFinding.Kind.CLAMPED_LOG_START);
                assertThat(f.offset()).isEqualTo(48);
                assertThat(f.reason()).contains("log start offset 1000").contains(checkpoint.toString())
                        .contains("above the log end offset 48");
            });
            // The log stays usable from there on.
            log.appendAsLeader(batch("after", 1), 6);
            assertThat(readValues(log, 48)).containsExactly("after-0");
        }
    }

    @Test
    @DisplayName("LOG-7 a recovery-point-offset-checkpoint entry above the LEO trusts no segment: all are rescanned, naming the file")
    void log7RecoveryPointAboveTheLeoRescansEverything() throws IOException {
        writeEpochs();
        Path recoveryPoints = dataDir().resolve(OffsetCheckpointFile.RECOVERY_POINT_OFFSET_CHECKPOINT);
        new OffsetCheckpointFile(recoveryPoints).write(Map.of(TP, 5_000L));
        // A flipped record byte in the first segment: only a rescan can find it.
        Path first = LogSegment.logFile(logDir(), 0);
        byte[] bytes = Files.readAllBytes(first);
        bytes[75] ^= 0x33;
        Files.write(first, bytes);
        try (LogDirectory dir = openDirectory()) {
            Log log = onlyLog(dir);
            assertThat(log.recoveryFindings()).extracting(RecoveryFinding::kind)
                    .containsExactly(RecoveryFinding.Kind.RESCANNED_ALL, RecoveryFinding.Kind.TRUNCATED_TAIL);
            assertThat(log.recoveryFindings().get(0).reason()).contains("recovery point 5000")
                    .contains(recoveryPoints.toString());
            assertThat(log.logEndOffset()).isZero();
            assertThat(log.recoveryPoint()).isZero();
        }
    }

    @Test
    @DisplayName("HW-5 a replication-offset-checkpoint HW above the recovered LEO is clamped to the LEO")
    void hw5HighWatermarkAboveTheLeoIsClamped() throws IOException {
        writeEpochs();
        new OffsetCheckpointFile(dataDir().resolve(OffsetCheckpointFile.REPLICATION_OFFSET_CHECKPOINT))
                .write(Map.of(TP, 9_999L));
        try (LogDirectory dir = openDirectory()) {
            assertThat(onlyLog(dir).highWatermark()).isEqualTo(48);
        }
    }

    @Test
    @DisplayName("LOG-7 a truncation below the recovery point rewrites recovery-point-offset-checkpoint before any new append")
    void log7TruncationBelowTheRecoveryPointIsCheckpointedAtOnce() {
        Path recoveryPoints = dataDir().resolve(OffsetCheckpointFile.RECOVERY_POINT_OFFSET_CHECKPOINT);
        try (LogDirectory dir = openDirectory()) {
            Log log = dir.getOrCreateLog(TP, CONFIG);
            for (int i = 0; i < 10; i++) {
                log.appendAsLeader(batch("t" + i, 2), 0);
            }
            log.flush();
            dir.checkpointRecoveryPointsAndLogStartOffsets();
            assertThat(new OffsetCheckpointFile(recoveryPoints).read()).containsEntry(TP, 20L);
            log.truncateTo(8);
            // Without this, a crash after new (unflushed) appends at 8.. would find a checkpoint that
            // calls them flushed, and recovery would trust them.
            assertThat(new OffsetCheckpointFile(recoveryPoints).read()).containsEntry(TP, 8L);
            log.truncateTo(9); // not below the recovery point (8): nothing to rewrite
            assertThat(log.recoveryPoint()).isEqualTo(8);
        }
    }
}
