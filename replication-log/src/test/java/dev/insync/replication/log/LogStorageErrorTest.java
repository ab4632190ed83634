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

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static dev.insync.replication.log.LogFixtures.TP;
import static dev.insync.replication.log.LogFixtures.batch;
import static dev.insync.replication.log.LogFixtures.smallConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LogStorageErrorTest {

    @TempDir
    Path tmp;

    @Test
    @DisplayName("An I/O failure opening a segment is KAFKA_STORAGE_ERROR naming the partition and the file")
    void ioFailureOnOpenIsStorageError() throws Exception {
        Path dir = tmp.resolve(TP.toString());
        Files.createDirectories(dir.resolve("00000000000000000000.log"));
        assertThatThrownBy(() -> Log.open(dir, TP, smallConfig(), 0, 0, () -> 0L))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR))
                .hasMessageContaining("topic-0").hasMessageContaining("00000000000000000000.log");
    }

    @Test
    @DisplayName("A log directory that cannot be created is KAFKA_STORAGE_ERROR naming it")
    void uncreatableDirectoryIsStorageError() throws Exception {
        Path blocker = tmp.resolve("blocker");
        Files.writeString(blocker, "a file, not a directory");
        Path dir = blocker.resolve(TP.toString());
        assertThatThrownBy(() -> Log.open(dir, TP, smallConfig(), 0, 0, () -> 0L))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR))
                .hasMessageContaining(dir.toString());
    }

    @Test
    @DisplayName("A closed log answers KAFKA_STORAGE_ERROR naming the partition, and close is idempotent")
    void closedLogIsStorageError() {
        Log log = Log.open(tmp.resolve(TP.toString()), TP, smallConfig(), 0, 0, () -> 0L);
        log.appendAsLeader(batch("a", 1), 0);
        log.close();
        log.close();
        assertThatThrownBy(() -> log.read(0, 100, 1))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR))
                .hasMessageContaining("topic-0");
        assertThatThrownBy(() -> log.appendAsLeader(batch("b", 1), 0))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR));
    }
}
