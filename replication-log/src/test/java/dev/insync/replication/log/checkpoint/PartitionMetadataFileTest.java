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

import dev.insync.replication.log.FileSync;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PartitionMetadataFileTest {

    @TempDir
    Path dir;

    private PartitionMetadataFile file() {
        return new PartitionMetadataFile(dir, FileSync.durable());
    }

    @Test
    @DisplayName("partition.metadata holds Kafka's two lines, the id as Kafka's Uuid prints it, and reads back")
    void kafkasFormat() throws IOException {
        UUID id = new UUID(0x1234_5678_9abc_def0L, 0x0fed_cba9_8765_4321L);
        file().write(id);
        String expected = "version: 0\ntopic_id: " + new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits()) + "\n";
        assertThat(Files.readString(dir.resolve("partition.metadata"))).isEqualTo(expected);
        assertThat(file().read()).contains(id);
        assertThat(AtomicFileWrite.tempFileFor(file().file())).doesNotExist();
    }

    @Test
    @DisplayName("format and parse agree with Kafka's Uuid on random ids")
    void sameTextAsKafka() {
        Random random = new Random(20261207);
        for (int i = 0; i < 1_000; i++) {
            UUID id = new UUID(random.nextLong(), random.nextLong());
            String kafka = new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits()).toString();
            assertThat(PartitionMetadataFile.format(id)).isEqualTo(kafka);
            assertThat(PartitionMetadataFile.parse(kafka)).isEqualTo(id);
            Uuid back = Uuid.fromString(PartitionMetadataFile.format(id));
            assertThat(new UUID(back.getMostSignificantBits(), back.getLeastSignificantBits())).isEqualTo(id);
        }
    }

    @Test
    @DisplayName("a log written before topic ids has no file: it reads empty")
    void missing() {
        assertThat(file().read()).isEqualTo(Optional.empty());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "version: 0\n", "version: 1\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA\n",
            "version: 0\ntopic: AAAAAAAAAAAAAAAAAAAAAA\n", "version: 0\ntopic_id: AAAA\n",
            "version: 0\ntopic_id: !!!!!!!!!!!!!!!!!!!!!!\n", "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA\nextra\n"})
    @DisplayName("anything but the exact format is refused, naming the file")
    void corrupt(String content) throws IOException {
        Files.writeString(dir.resolve(PartitionMetadataFile.FILE_NAME), content);
        assertThatThrownBy(() -> file().read()).isInstanceOf(CorruptCheckpointException.class)
                .hasMessageContaining(PartitionMetadataFile.FILE_NAME);
    }
}
