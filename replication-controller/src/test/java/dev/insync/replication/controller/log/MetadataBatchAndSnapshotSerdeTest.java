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

import dev.insync.replication.controller.record.MetadataFormatException;
import dev.insync.replication.controller.record.MetadataRecord;
import dev.insync.replication.controller.record.RandomRecords;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

class MetadataBatchAndSnapshotSerdeTest {

    private static List<MetadataRecord> records(Random r) {
        List<MetadataRecord> records = new ArrayList<>();
        for (int i = 0, n = 1 + r.nextInt(20); i < n; i++) {
            records.add(RandomRecords.record(r));
        }
        return records;
    }

    @Test
    @DisplayName("CTL-2 property: a batch decodes to itself and its epoch; any changed byte or truncation is an error")
    void batches() {
        qt().withExamples(200).forAll(longs().all()).checkAssert(seed -> {
            Random r = new Random(seed);
            MetadataBatch batch = new MetadataBatch(r.nextInt(1_000_000), records(r));
            int epoch = r.nextInt(1000);
            byte[] bytes = MetadataBatchSerde.encode(epoch, batch);
            assertThat(MetadataBatchSerde.decode(bytes)).isEqualTo(new MetadataBatchSerde.EpochBatch(epoch, batch));
            byte[] corrupt = bytes.clone();
            int i = r.nextInt(bytes.length);
            corrupt[i] ^= (byte) (1 + r.nextInt(255));
            assertThatThrownBy(() -> MetadataBatchSerde.decode(corrupt)).isInstanceOf(MetadataFormatException.class);
            byte[] cut = Arrays.copyOf(bytes, r.nextInt(bytes.length));
            assertThatThrownBy(() -> MetadataBatchSerde.decode(cut)).isInstanceOf(MetadataFormatException.class);
        });
    }

    @Test
    @DisplayName("CTL-1 property: a snapshot decodes to itself; any changed byte or truncation is a clear error, never another state")
    void snapshots() {
        qt().withExamples(200).forAll(longs().all()).checkAssert(seed -> {
            Random r = new Random(seed);
            MetadataSnapshot snapshot = new MetadataSnapshot(r.nextInt(1_000_000) - 1, records(r));
            byte[] bytes = MetadataSnapshotSerde.encode(snapshot);
            assertThat(MetadataSnapshotSerde.decode(bytes, "s")).isEqualTo(snapshot);
            for (int i = 0; i < bytes.length; i += 1 + r.nextInt(7)) {
                byte[] corrupt = bytes.clone();
                corrupt[i] ^= (byte) (1 + r.nextInt(255));
                assertThatThrownBy(() -> MetadataSnapshotSerde.decode(corrupt, "snap-1"))
                        .isInstanceOf(MetadataFormatException.class).hasMessageContaining("snap-1");
            }
            byte[] cut = Arrays.copyOf(bytes, r.nextInt(bytes.length));
            assertThatThrownBy(() -> MetadataSnapshotSerde.decode(cut, "snap-2"))
                    .isInstanceOf(MetadataFormatException.class).hasMessageContaining("snap-2");
        });
    }

    @Test
    @DisplayName("a snapshot of another format or version is refused by name")
    void foreignSnapshot() {
        byte[] bytes = MetadataSnapshotSerde.encode(new MetadataSnapshot(-1, List.of()));
        byte[] otherVersion = bytes.clone();
        otherVersion[5] = 9;
        assertThatThrownBy(() -> MetadataSnapshotSerde.decode(otherVersion, "x")).hasMessageContaining("version 9");
        byte[] otherMagic = bytes.clone();
        otherMagic[0] = 'X';
        assertThatThrownBy(() -> MetadataSnapshotSerde.decode(otherMagic, "x")).hasMessageContaining("not an Insync metadata snapshot");
    }
}
