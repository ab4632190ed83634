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

import dev.insync.replication.core.broker.BrokerLifecycleManager;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.log.Log;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.epoch.EpochEntry;
import dev.insync.replication.log.record.Record;
import dev.insync.replication.log.record.RecordBatch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An operator's view of an {@link InMemoryCluster}: each broker's HW, LEO, leader epoch and log
 * contents, the controller's ISR and partition epochs, and the checkpoint files on disk. Reading it
 * changes nothing.
 */
public final class ClusterAdmin {

    private final InMemoryCluster cluster;

    ClusterAdmin(InMemoryCluster cluster) {
        this.cluster = cluster;
    }

    /** The controller's registration of a partition. */
    public PartitionRegistration partition(String topic, int partition) {
        TopicPartition tp = new TopicPartition(topic, partition);
        return cluster.controller().partition(tp)
                .orElseThrow(() -> new IllegalArgumentException("Unknown partition " + tp));
    }

    /** The committed ISR as the controller holds it. */
    public List<Integer> isr(String topic, int partition) {
        return partition(topic, partition).isr();
    }

    /** Every partition epoch the partition went through, in order (0 first). */
    public List<Integer> partitionEpochs(String topic, int partition) {
        return cluster.controller().partitionEpochs(new TopicPartition(topic, partition));
    }

    /** The HW a running broker holds for the partition. */
    public long highWatermark(int brokerId, String topic, int partition) {
        return log(brokerId, topic, partition).highWatermark();
    }

    /** The LEO of a running broker's log. */
    public long logEndOffset(int brokerId, String topic, int partition) {
        return log(brokerId, topic, partition).logEndOffset();
    }

    /** The log of a running broker, if it has one for the partition. */
    public Optional<Log> logOf(int brokerId, String topic, int partition) {
        return logOf(brokerId, new TopicPartition(topic, partition));
    }

    /** The log of a running broker, if it has one for {@code tp}. */
    public Optional<Log> logOf(int brokerId, TopicPartition tp) {
        return cluster.broker(brokerId).log(tp);
    }

    /** The partition object of a running broker, if it hosts {@code tp}. */
    public Optional<Partition> partitionState(int brokerId, TopicPartition tp) {
        return cluster.broker(brokerId).partition(tp);
    }

    /** The partition object of a running broker, if it hosts it. */
    public Optional<Partition> partitionState(int brokerId, String topic, int partition) {
        return cluster.broker(brokerId).partition(new TopicPartition(topic, partition));
    }

    /** Every batch in a running broker's log, from its log start to its LEO. */
    public List<RecordBatch> batches(int brokerId, String topic, int partition) {
        Log log = log(brokerId, topic, partition);
        List<RecordBatch> out = new ArrayList<>();
        long offset = log.logStartOffset();
        long end = log.logEndOffset();
        while (offset < end) {
            long next = offset;
            for (RecordBatch batch : log.read(offset, 1024 * 1024, end).records().batches()) {
                out.add(batch);
                next = batch.nextOffset();
            }
            if (next == offset) {
                throw new IllegalStateException("No batch at offset " + offset + " of " + log.topicPartition()
                        + " on broker " + brokerId + " (LEO " + end + ")");
            }
            offset = next;
        }
        return out;
    }

    /** Every record in a running broker's log, from its log start to its LEO. */
    public List<ConsumedRecord> records(int brokerId, String topic, int partition) {
        List<ConsumedRecord> out = new ArrayList<>();
        for (RecordBatch batch : batches(brokerId, topic, partition)) {
            for (Record r : batch.records()) {
                out.add(ConsumedRecord.of(batch, r));
            }
        }
        return out;
    }

    /**
     * Whether the controller knows the broker's current incarnation as registered, unfenced and not
     * shutting down: the broker can stay in (or be elected from) an ISR right now.
     */
    public boolean activeAtController(int brokerId) {
        BrokerHandle b = cluster.broker(brokerId);
        long epoch = b.lifecycle().map(BrokerLifecycleManager::brokerEpoch).orElse(-1L);
        return epoch >= 0 && cluster.controller().broker(brokerId)
                .map(r -> r.brokerEpoch() == epoch && !r.fenced() && !r.inControlledShutdown()).orElse(false);
    }

    /** How many times a broker has started (a restart adds one); 0 before its first start. */
    public int incarnation(int brokerId) {
        return cluster.broker(brokerId).incarnation();
    }

    /** A running broker's leader-epoch cache entries for the partition, oldest first; empty if it is down. */
    public List<EpochEntry> epochEntries(int brokerId, String topic, int partition) {
        return cluster.broker(brokerId).log(new TopicPartition(topic, partition))
                .map(l -> l.leaderEpochCache().epochEntries()).orElse(List.of());
    }

    /** The text of a log-directory-level file of a broker (e.g. {@code replication-offset-checkpoint}); empty if absent. */
    public String logDirFile(int brokerId, String fileName) {
        return read(cluster.broker(brokerId).dataDir().resolve(fileName));
    }

    /** The text of a partition-level file of a broker (e.g. {@code leader-epoch-checkpoint}); empty if absent. */
    public String partitionFile(int brokerId, String topic, int partition, String fileName) {
        return read(cluster.broker(brokerId).dataDir().resolve(new TopicPartition(topic, partition).toString()).resolve(fileName));
    }

    /** The log directory of a broker. */
    public Path logDir(int brokerId) {
        return cluster.broker(brokerId).dataDir();
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + file, e);
        }
    }

    private Log log(int brokerId, String topic, int partition) {
        TopicPartition tp = new TopicPartition(topic, partition);
        return cluster.broker(brokerId).log(tp)
                .orElseThrow(() -> new IllegalStateException("Broker " + brokerId + " is not running or has no log for " + tp));
    }

}
