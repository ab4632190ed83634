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
import dev.insync.replication.log.checkpoint.CorruptCheckpointException;
import dev.insync.replication.log.checkpoint.OffsetCheckpointFile;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** LogDirectory behaviour that needs no partition logs: lock, checkpoints, clean-shutdown marker. */
class LogDirectoryTest {

    @TempDir
    Path root;

    private Path dir() {
        return root.resolve("data");
    }

    private LogDirectory open() {
        return LogDirectory.open(dir(), LogConfig.defaults());
    }

    @Test
    @DisplayName("LOG-9 a second open of a locked directory in this JVM fails naming the directory; close releases it")
    void lockRefusesSecondOpen() throws IOException {
        LogDirectory first = open();
        assertThat(dir().resolve(LogDirectory.LOCK_FILE_NAME)).exists();
        assertThatThrownBy(this::open)
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR))
                .hasMessageContaining(dir().toRealPath().toString()).hasMessageContaining("already open");
        // The refused open must not have dropped the first instance's lock.
        assertThatThrownBy(this::open).hasMessageContaining("already open");
        first.close();
        first.close(); // idempotent
        LogDirectory again = open();
        again.close();
    }

    @Test
    @DisplayName("LOG-9 HW-5 a corrupt replication-offset-checkpoint keeps the directory offline, naming file and line")
    void corruptCheckpointRefusesOpen() throws IOException {
        Files.createDirectories(dir());
        Path hwFile = dir().resolve(OffsetCheckpointFile.REPLICATION_OFFSET_CHECKPOINT);
        Files.writeString(hwFile, "0\n2\ntopic 0 5\ntopic zero 6\n");
        new CleanShutdownFile(dir().resolve(CleanShutdownFile.FILE_NAME)).write(3L);
        assertThatThrownBy(this::open)
                .isInstanceOfSatisfying(CorruptCheckpointException.class, e -> {
                    assertThat(e.error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
                    assertThat(e.lineNumber()).isEqualTo(4);
                })
                .hasMessageContaining(OffsetCheckpointFile.REPLICATION_OFFSET_CHECKPOINT).hasMessageContaining("line 4");
        // Refusing changed nothing: the marker is still there and the lock was released.
        assertThat(dir().resolve(CleanShutdownFile.FILE_NAME)).exists();
        Files.writeString(hwFile, "0\n1\ntopic 0 5\n");
        try (LogDirectory logDir = open()) {
            assertThat(logDir.previousCleanShutdownBrokerEpoch()).isEqualTo(OptionalLong.of(3L));
        }
    }

    @Test
    @DisplayName("LOG-9 a corrupt recovery-point or log-start checkpoint also refuses the open")
    void corruptOtherCheckpointsRefuseOpen() throws IOException {
        Files.createDirectories(dir());
        Path recovery = dir().resolve(OffsetCheckpointFile.RECOVERY_POINT_OFFSET_CHECKPOINT);
        Files.writeString(recovery, "1\n0\n");
        assertThatThrownBy(this::open).hasMessageContaining(recovery.getFileName().toString()).hasMessageContaining("line 1");
        Files.delete(recovery);
        Path logStart = dir().resolve(OffsetCheckpointFile.LOG_START_OFFSET_CHECKPOINT);
        Files.writeString(logStart, "0\n3\nt 0 1\n");
        assertThatThrownBy(this::open).hasMessageContaining(logStart.getFileName().toString()).hasMessageContaining("line 4");
    }

    @Test
    @DisplayName("LDR-5 closeCleanly leaves the marker; the next open reads its epoch and deletes it")
    void cleanShutdownMarkerRoundTrip() throws IOException {
        LogDirectory logDir = open();
        assertThat(logDir.previousCleanShutdownBrokerEpoch()).isEmpty();
        logDir.closeCleanly(17L);
        Path marker = dir().resolve(CleanShutdownFile.FILE_NAME);
        assertThat(Files.readString(marker)).isEqualTo("{\"version\":0,\"brokerEpoch\":17}");

        LogDirectory reopened = open();
        assertThat(reopened.previousCleanShutdownBrokerEpoch()).isEqualTo(OptionalLong.of(17L));
        assertThat(marker).doesNotExist();
        reopened.close(); // unclean: no marker

        try (LogDirectory third = open()) {
            assertThat(third.previousCleanShutdownBrokerEpoch()).isEmpty();
        }
    }

    @Test
    @DisplayName("LDR-5 a crash (nothing called) after a clean-start open counts as unclean")
    void crashAfterOpenIsUnclean() {
        LogDirectory logDir = open();
        logDir.closeCleanly(5L);
        LogDirectory crashed = open();
        assertThat(crashed.previousCleanShutdownBrokerEpoch()).hasValue(5L);
        // kill -9: nothing is written; only the in-JVM lock must be released for the next "process".
        crashed.close();
        try (LogDirectory restarted = open()) {
            assertThat(restarted.previousCleanShutdownBrokerEpoch()).isEmpty();
        }
    }

    @Test
    @DisplayName("LDR-5 an unreadable marker means an unclean stop and is removed")
    void unreadableMarkerIsUnclean() throws IOException {
        Files.createDirectories(dir());
        Path marker = dir().resolve(CleanShutdownFile.FILE_NAME);
        Files.writeString(marker, "{\"version\":0,\"brokerEpoch\":");
        try (LogDirectory logDir = open()) {
            assertThat(logDir.previousCleanShutdownBrokerEpoch()).isEmpty();
            assertThat(marker).doesNotExist();
        }
    }

    @Test
    @DisplayName("HW-5 LOG-9 checkpoints of an empty directory are written as empty files")
    void emptyCheckpoints() throws IOException {
        try (LogDirectory logDir = open()) {
            logDir.checkpointHighWatermarks();
            logDir.checkpointRecoveryPointsAndLogStartOffsets();
            assertThat(logDir.logs()).isEmpty();
            assertThat(logDir.checkpointedHighWatermark(new TopicPartition("t", 0))).isEmpty();
        }
        for (String name : new String[]{OffsetCheckpointFile.REPLICATION_OFFSET_CHECKPOINT,
                OffsetCheckpointFile.RECOVERY_POINT_OFFSET_CHECKPOINT, OffsetCheckpointFile.LOG_START_OFFSET_CHECKPOINT}) {
            assertThat(Files.readAllLines(dir().resolve(name))).as(name).containsExactly("0", "0");
        }
    }

    @Test
    @DisplayName("HW-5 LOG-9 the HW checkpoint is rewritten only when a HW changed since the last write")
    void hw5CheckpointRewrittenOnlyOnChange() throws IOException {
        Path file = dir().resolve(OffsetCheckpointFile.REPLICATION_OFFSET_CHECKPOINT);
        try (LogDirectory logDir = open()) {
            Log log = logDir.getOrCreateLog(new TopicPartition("t", 0), LogConfig.defaults());
            logDir.checkpointHighWatermarks();
            // Each write atomically replaces the file (a new inode), so an untouched file keeps its key.
            Object written = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
            logDir.checkpointHighWatermarks();
            assertThat(Files.readAttributes(file, BasicFileAttributes.class).fileKey()).isEqualTo(written);

            log.appendAsLeader(LogFixtures.batch("a", 2), 0);
            log.updateHighWatermark(2);
            logDir.checkpointHighWatermarks();
            assertThat(Files.readAttributes(file, BasicFileAttributes.class).fileKey()).isNotEqualTo(written);
            assertThat(Files.readAllLines(file)).containsExactly("0", "1", "t 0 2");

            // The same holds for the recovery-point checkpoint (LOG-9).
            Path recoveryPoints = dir().resolve(OffsetCheckpointFile.RECOVERY_POINT_OFFSET_CHECKPOINT);
            logDir.checkpointRecoveryPointsAndLogStartOffsets();
            Object first = Files.readAttributes(recoveryPoints, BasicFileAttributes.class).fileKey();
            logDir.checkpointRecoveryPointsAndLogStartOffsets();
            assertThat(Files.readAttributes(recoveryPoints, BasicFileAttributes.class).fileKey()).isEqualTo(first);
            log.flush();
            logDir.checkpointRecoveryPointsAndLogStartOffsets();
            assertThat(Files.readAllLines(recoveryPoints)).containsExactly("0", "1", "t 0 2");
        }
    }

    @Test
    @DisplayName("HW-5 the checkpointed HWs read at open are exposed per partition")
    void checkpointedHighWatermarksExposed() throws IOException {
        Files.createDirectories(dir());
        TopicPartition tp = new TopicPartition("gone", 2);
        new OffsetCheckpointFile(dir().resolve(OffsetCheckpointFile.REPLICATION_OFFSET_CHECKPOINT))
                .write(java.util.Map.of(tp, 42L));
        try (LogDirectory logDir = open()) {
            assertThat(logDir.checkpointedHighWatermark(tp)).hasValue(42L);
            assertThat(logDir.checkpointedHighWatermark(new TopicPartition("gone", 3))).isEmpty();
        }
    }

    @Test
    @DisplayName("LOG-9 open skips non-partition entries and finishes interrupted deletions")
    void skipsForeignEntries() throws IOException {
        Files.createDirectories(dir().resolve("not a partition"));
        Files.createDirectories(dir().resolve("orders-0.0123abcd-delete").resolve("inner"));
        Files.writeString(dir().resolve("orders-0.0123abcd-delete").resolve("inner").resolve("x.log"), "x");
        Files.writeString(dir().resolve("stray-file-1"), "x");
        try (LogDirectory logDir = open()) {
            assertThat(logDir.logs()).isEmpty();
        }
        assertThat(dir().resolve("orders-0.0123abcd-delete")).doesNotExist();
        assertThat(dir().resolve("not a partition")).exists();
    }

    @Test
    @DisplayName("LOG-9 a closed directory refuses further work, naming itself")
    void closedRefusesWork() {
        LogDirectory logDir = open();
        logDir.close();
        assertThatThrownBy(logDir::checkpointHighWatermarks).isInstanceOf(ApiException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> logDir.getOrCreateLog(new TopicPartition("t", 0), LogConfig.defaults()))
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> logDir.closeCleanly(1L)).hasMessageContaining("closed");
        assertThat(dir().resolve(CleanShutdownFile.FILE_NAME)).doesNotExist();
    }

    @Test
    @DisplayName("LOG-9 a directory locked by another process refuses to open, naming the directory")
    void lockRefusesOpenHeldByAnotherProcess() throws Exception {
        Files.createDirectories(dir());
        Path holder = root.resolve("LockHolder.java");
        // A JDK-only program (run by the source launcher) that locks the file and waits for stdin to close.
        Files.writeString(holder, """
                import java.nio.channels.FileChannel;
                import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
                import java.nio.file.StandardOpenOption;
                public class LockHolder {
                    public static void main(String[] args) throws Exception {
                        try (FileChannel ch = FileChannel.open(Path.of(args[0]), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                             var lock = ch.lock()) {
                            System.out.println("locked");
                            System.out.flush();
                            System.in.read();
                        }
                    }
                }
                """);
        Path javaBin = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(javaBin.toString(), holder.toString(),
                dir().resolve(LogDirectory.LOCK_FILE_NAME).toString()).redirectErrorStream(true).start();
        try {
            CompletableFuture<String> firstLine = CompletableFuture.supplyAsync(() -> {
                try {
                    return new BufferedReader(new InputStreamReader(child.getInputStream())).readLine();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            assertThat(firstLine.get(60, TimeUnit.SECONDS)).isEqualTo("locked");
            assertThatThrownBy(this::open)
                    .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR))
                    .hasMessageContaining(dir().toRealPath().toString()).hasMessageContaining("another process");
        } finally {
            child.getOutputStream().close();
            if (!child.waitFor(30, TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
        }
        // Once the other process is gone the directory opens.
        open().close();
    }
}
