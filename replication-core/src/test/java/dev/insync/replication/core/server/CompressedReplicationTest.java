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

package dev.insync.replication.core.server;

import dev.insync.replication.core.config.ReplicationConfig;
import dev.insync.replication.core.partition.LocalLog;
import dev.insync.replication.core.produce.Acks;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.CompressionType;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.Record;
import dev.insync.replication.log.record.RecordBatch;
import dev.insync.replication.log.record.RecordBatchBuilder;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Compressed batches through three brokers (LOG-4, LOG-5, FOL-4, PRO-3): the leader validates and
 * stores the producer's compressed bytes, the followers fetch and append exactly those bytes, the
 * HW covers them, and a batch whose compressed data is corrupt is refused at produce time.
 */
class CompressedReplicationTest extends TestClusterCase {

    private static final TopicPartition TP = new TopicPartition("zipped", 0);

    private static MemoryRecords batch(CompressionType type, String prefix, int count) {
        RecordBatchBuilder builder = new RecordBatchBuilder(0).compression(type);
        for (int i = 0; i < count; i++) {
            builder.append(1_000L + i, null, (prefix + i + " " + "payload ".repeat(20)).getBytes(StandardCharsets.UTF_8));
        }
        return builder.build();
    }

    private static LocalLog log(TestCluster cluster, int broker) {
        return cluster.managers.get(broker).partition(TP).orElseThrow().localLog();
    }

    private static ByteBuffer stored(LocalLog log) {
        return log.read(0, Integer.MAX_VALUE, log.logEndOffset()).records().buffer();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = CompressionType.class, names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
    @DisplayName("FOL-4 PRO-3 LOG-5 a compressed batch replicates to every follower byte for byte and commits; a corrupt one is CORRUPT_MESSAGE")
    void fol4CompressedBatchReplicates(CompressionType type) {
        cluster = new TestCluster(tmp, ReplicationConfig.builder().replicaLagTimeMaxMs(5000).build());
        for (int b = 1; b <= 3; b++) {
            cluster.start(b);
        }
        cluster.setPartition(TP, List.of(1, 2, 3), List.of(1, 2, 3), 1, 0, 0);
        cluster.run(0);

        CompletableFuture<Map<TopicPartition, ProduceResult>> first =
                cluster.managers.get(1).produce(Map.of(TP, batch(type, "a", 30)), Acks.ALL, 30_000);
        cluster.run(0);
        CompletableFuture<Map<TopicPartition, ProduceResult>> second =
                cluster.managers.get(1).produce(Map.of(TP, batch(type, "b", 5)), Acks.ALL, 30_000);
        cluster.run(0);
        assertThat(first.join().get(TP)).isEqualTo(new ProduceResult(Errors.NONE, 0, -1, 0));
        assertThat(second.join().get(TP)).isEqualTo(new ProduceResult(Errors.NONE, 30, -1, 0));
        cluster.run(1000);

        ByteBuffer leaderBytes = stored(log(cluster, 1));
        List<RecordBatch> batches = MemoryRecords.readableRecords(leaderBytes.duplicate()).batches();
        assertThat(batches).extracting(RecordBatch::compressionType).containsExactly(type, type);
        for (int b = 1; b <= 3; b++) {
            LocalLog log = log(cluster, b);
            assertThat(log.logEndOffset()).as("LEO of broker %d", b).isEqualTo(35);
            assertThat(log.highWatermark()).as("HW of broker %d", b).isEqualTo(35);
            assertThat(stored(log)).as("broker %d holds the leader's compressed bytes", b).isEqualTo(leaderBytes);
        }
        List<String> values = new ArrayList<>();
        for (RecordBatch batch : MemoryRecords.readableRecords(stored(log(cluster, 3))).batches()) {
            for (Record r : batch.records()) {
                byte[] v = new byte[r.value().remaining()];
                r.value().duplicate().get(v);
                values.add(r.offset() + ":" + new String(v, StandardCharsets.UTF_8).split(" ")[0]);
            }
        }
        assertThat(values).hasSize(35).startsWith("0:a0", "1:a1").endsWith("34:b4");

        // LOG-5: compressed data that does not decompress is refused by the leader; nothing is written.
        ByteBuffer corrupt = ByteBuffer.allocate(batch(type, "c", 3).sizeInBytes());
        corrupt.put(batch(type, "c", 3).buffer()).flip();
        corrupt.put(RecordBatch.HEADER_SIZE, (byte) (corrupt.get(RecordBatch.HEADER_SIZE) ^ 0x7f)); // the stream's first byte
        corrupt.putInt(17, (int) crc(corrupt));
        CompletableFuture<Map<TopicPartition, ProduceResult>> refused =
                cluster.managers.get(1).produce(Map.of(TP, MemoryRecords.readableRecords(corrupt)), Acks.ALL, 30_000);
        cluster.run(0);
        assertThat(refused.join().get(TP).error()).isEqualTo(Errors.CORRUPT_MESSAGE);
        assertThat(log(cluster, 1).logEndOffset()).isEqualTo(35);
    }

    private static long crc(ByteBuffer batch) {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(batch.duplicate().position(21));
        return crc.getValue();
    }
}
