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

package dev.insync.replication.testkit.cluster;

import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.Log;
import dev.insync.replication.log.LogConfig;
import dev.insync.replication.log.LogDirectory;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Closing a real-time cluster must never interrupt a thread in the middle of log I/O: an interrupt
 * makes Java close the log's channel under it ({@code ClosedByInterruptException}), which the broker
 * takes for a disk failure and answers with {@code KAFKA_STORAGE_ERROR} (issue 9, item 8).
 */
class ClusterCloseTest {

    private static final int PARTITIONS = 6;
    private static final String VALUE = "x".repeat(2_048);

    @TempDir
    Path dataDir;

    @Test
    @DisplayName("§9 closing a real-time cluster during heavy replication takes nothing offline and every log reopens without truncation")
    void closeDuringHeavyReplication() throws Exception {
        PrintStream originalErr = System.err;
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        List<Partition> partitions = new ArrayList<>();
        Map<Log, Integer> logs = new LinkedHashMap<>();
        List<CompletableFuture<ProduceOutcome>> sent = new ArrayList<>();
        LogConfig logConfig;
        System.setErr(new PrintStream(new Tee(originalErr, errors), true, StandardCharsets.UTF_8));
        try {
            InMemoryCluster cluster = InMemoryCluster.builder().brokers(3).realTime().dataDir(dataDir)
                    .config("replica.fetch.wait.max.ms", 5)
                    .config("replica.fetch.max.bytes", 64 * 1024)
                    .config("segment.bytes", 256 * 1024)
                    .build();
            logConfig = cluster.config().logConfig();
            try {
                List<List<Integer>> assignment = new ArrayList<>();
                for (int p = 0; p < PARTITIONS; p++) {
                    assignment.add(List.of(1 + p % 3, 1 + (p + 1) % 3, 1 + (p + 2) % 3));
                }
                cluster.createTopic("load", assignment);
                List<TestProducer> producers = List.of(cluster.producer("p1"), cluster.producer("p2"),
                        cluster.producer("p3"));
                for (int i = 0; i < 6_000; i++) {
                    sent.add(producers.get(i % producers.size()).send("load", i % PARTITIONS, null, VALUE,
                            i % 2 == 0 ? 1 : -1, 30_000));
                }
                // Close while the followers are busy: a third of the records answered, the rest on the way, and
                // every follower has started fetching.
                boolean busy = cluster.runUntil(() -> sent.stream().filter(CompletableFuture::isDone).count() >= 2_000
                        && everyReplicaHasRecords(cluster), 60_000);
                assertThat(busy).isTrue();
                for (int broker : cluster.brokerIds()) {
                    for (int p = 0; p < PARTITIONS; p++) {
                        cluster.broker(broker).partition(new TopicPartition("load", p)).ifPresent(partitions::add);
                        cluster.broker(broker).log(new TopicPartition("load", p)).ifPresent(log -> logs.put(log, broker));
                    }
                }
            } finally {
                cluster.close();
            }
        } finally {
            System.setErr(originalErr);
        }

        assertThat(partitions).hasSize(3 * PARTITIONS);
        assertThat(partitions).as("no partition went offline").noneMatch(Partition::isOffline);
        assertThat(sent).filteredOn(CompletableFuture::isDone).extracting(CompletableFuture::join)
                .extracting(ProduceOutcome::error).doesNotContain(Errors.KAFKA_STORAGE_ERROR);
        String logged = errors.toString(StandardCharsets.UTF_8);
        assertThat(logged).doesNotContain("KAFKA_STORAGE_ERROR", "ClosedByInterrupt", "Storage failure", "offline",
                "marked failed", "interrupt");

        // Every log directory reopens clean: recovery finds nothing to cut, and the last HW checkpoint holds.
        for (int broker = 1; broker <= 3; broker++) {
            try (LogDirectory reopened = LogDirectory.open(dataDir.resolve("broker-" + broker), logConfig)) {
                for (Map.Entry<Log, Integer> e : logs.entrySet()) {
                    if (e.getValue() != broker) {
                        continue;
                    }
                    Log before = e.getKey();
                    Log after = reopened.log(before.topicPartition()).orElseThrow();
                    assertThat(after.logEndOffset()).as("LEO of %s on broker %d", before.topicPartition(), broker)
                            .isEqualTo(before.logEndOffset());
                    assertThat(after.highWatermark()).as("HW of %s on broker %d", before.topicPartition(), broker)
                            .isEqualTo(before.highWatermark());
                }
            }
        }
    }

    private static boolean everyReplicaHasRecords(InMemoryCluster cluster) {
        for (int broker : cluster.brokerIds()) {
            for (int p = 0; p < PARTITIONS; p++) {
                if (cluster.broker(broker).log(new TopicPartition("load", p)).map(Log::logEndOffset).orElse(0L) == 0) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Writes to both streams (the test still shows what the brokers logged). */
    private static final class Tee extends OutputStream {
        private final OutputStream a;
        private final OutputStream b;

        Tee(OutputStream a, OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public synchronized void write(int c) throws java.io.IOException {
            a.write(c);
            b.write(c);
        }

        @Override
        public synchronized void write(byte[] buf, int off, int len) throws java.io.IOException {
            a.write(buf, off, len);
            b.write(buf, off, len);
        }

        @Override
        public synchronized void flush() throws java.io.IOException {
            a.flush();
            b.flush();
        }
    }
}
