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

package dev.insync.replication.log.checkpoint;

import dev.insync.replication.log.Errors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CleanShutdownFileTest {

    @TempDir
    Path dir;

    private CleanShutdownFile marker() {
        return new CleanShutdownFile(dir.resolve(CleanShutdownFile.FILE_NAME));
    }

    @Test
    @DisplayName("LOG-9 LDR-5 the marker holds {\"version\":0,\"brokerEpoch\":E} and reads back")
    void roundTrip() throws IOException {
        CleanShutdownFile marker = marker();
        marker.write(42L);
        assertThat(Files.readString(marker.file())).isEqualTo("{\"version\":0,\"brokerEpoch\":42}");
        assertThat(marker.exists()).isTrue();
        assertThat(marker.read()).isEqualTo(OptionalLong.of(42L));
        assertThat(AtomicFileWrite.tempFileFor(marker.file())).doesNotExist();
    }

    @Test
    @DisplayName("LDR-5 a missing marker reads empty; delete removes it")
    void missingAndDelete() {
        CleanShutdownFile marker = marker();
        assertThat(marker.read()).isEmpty();
        marker.write(7L);
        marker.delete();
        assertThat(marker.exists()).isFalse();
        assertThat(marker.read()).isEmpty();
        marker.delete(); // idempotent
    }

    @Test
    @DisplayName("LOG-9 whitespace and field order are accepted")
    void lenientWhitespace() throws IOException {
        Files.writeString(dir.resolve(CleanShutdownFile.FILE_NAME), " {\n  \"brokerEpoch\" : -3 ,\n \"version\": 0 }\n");
        assertThat(marker().read()).isEqualTo(OptionalLong.of(-3L));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "{}", "{\"version\":1,\"brokerEpoch\":4}", "{\"version\":0}",
            "{\"version\":0,\"brokerEpoch\":4,\"x\":1}", "{\"version\":0,\"brokerEpoch\":\"4\"}",
            "{\"version\":0,\"brokerEpoch\":4", "{\"version\":0,\"brokerEpoch\":4} x",
            "{\"version\":0,\"version\":0,\"brokerEpoch\":4}", "{\"version\":0;\"brokerEpoch\":4}"})
    @DisplayName("LOG-9 a malformed marker is a corrupt-file error naming the file")
    void malformed(String content) throws IOException {
        Path file = dir.resolve(CleanShutdownFile.FILE_NAME);
        Files.writeString(file, content);
        assertThatThrownBy(() -> marker().read()).isInstanceOfSatisfying(CorruptCheckpointException.class, e -> {
            assertThat(e.error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
            assertThat(e.file()).isEqualTo(file);
        }).hasMessageContaining(file.toString()).hasMessageContaining("line");
    }
}
