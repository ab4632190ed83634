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

import dev.insync.replication.controller.ControllerConfig;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.checkpoint.PartitionMetadataFile;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** DeleteTopics end to end on the in-process cluster: the brokers' logs go, a name created again starts empty. */
class DeleteTopicTest {

    private static InMemoryCluster.Builder cluster() {
        return InMemoryCluster.builder().brokers(3).seed(11).config("min.insync.replicas", 2);
    }

    private static List<String> send(InMemoryCluster cluster, TestProducer producer, String prefix, int count) {
        return send(cluster, producer, prefix, count, 5_000);
    }

    /** Sends {@code prefix0..} to t-0 with acks=all, each waiting at most {@code timeoutMs}; all must succeed. */
    private static List<String> send(InMemoryCluster cluster, TestProducer producer, String prefix, int count,
                                     long timeoutMs) {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String value = prefix + i;
            ProduceOutcome outcome = cluster.await(producer.send("t", 0, null, value, -1, timeoutMs));
            assertThat(outcome.isSuccess()).as("send of %s: %s", value, outcome).isTrue();
            values.add(value);
        }
        return values;
    }

    /** Runs until t-0's ISR is whole again and broker 3's log ends at {@code logEndOffset}. */
    private static void awaitBroker3CaughtUp(InMemoryCluster cluster, long logEndOffset, long timeoutMs) {
        assertThat(cluster.runUntil(() -> cluster.admin().isr("t", 0).size() == 3
                && cluster.admin().logEndOffset(3, "t", 0) == logEndOffset, timeoutMs)).isTrue();
    }

    private static List<String> values(InMemoryCluster cluster, int broker) {
        return cluster.admin().records(broker, "t", 0).stream().map(ConsumedRecord::value).toList();
    }

    private static UUID storedTopicId(InMemoryCluster cluster, int broker) {
        return PartitionMetadataFile.parse(cluster.admin().partitionFile(broker, "t", 0, PartitionMetadataFile.FILE_NAME)
                .lines().toList().get(1).substring("topic_id: ".length()));
    }

    @Test
    @DisplayName("a deleted topic's replicas and log directories are gone from every broker, and produce to it fails")
    void deleteRemovesEveryReplica() {
        try (InMemoryCluster cluster = cluster().build()) {
            cluster.createTopic("t", 1, 2, 3);
            TestProducer producer = cluster.producer("p");
            send(cluster, producer, "v", 5);
            UUID id = storedTopicId(cluster, 1);
            assertThat(storedTopicId(cluster, 2)).isEqualTo(id);
            assertThat(storedTopicId(cluster, 3)).isEqualTo(id);

            cluster.deleteTopic("t");

            for (int broker = 1; broker <= 3; broker++) {
                assertThat(cluster.admin().logOf(broker, "t", 0)).as("log on broker %d", broker).isEmpty();
                assertThat(Files.exists(cluster.admin().logDir(broker).resolve("t-0"))).as("directory on broker %d", broker)
                        .isFalse();
            }
            assertThat(cluster.controller().partition(new TopicPartition("t", 0))).isEmpty();
            ProduceOutcome outcome = cluster.await(producer.send("t", 0, null, "late", -1, 2_000));
            assertThat(outcome.isSuccess()).isFalse();
            assertThat(outcome.error()).isIn(Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.NOT_LEADER_OR_FOLLOWER,
                    Errors.REQUEST_TIMED_OUT);
        }
    }

    @Test
    @DisplayName("INV-3 a broker down while its topic was deleted and created again deletes the old log (other topic id) and copies only the new one")
    void recreatedWhileABrokerWasDown() {
        try (InMemoryCluster cluster = cluster().build()) {
            cluster.createTopic("t", 1, 2, 3);
            TestProducer producer = cluster.producer("p");
            // More records in the old topic than the new one will get: a log kept by offset and epoch alone would
            // keep old records below the new leader's end (same epoch 0, same offsets).
            send(cluster, producer, "old-", 20);
            UUID oldId = storedTopicId(cluster, 3);
            cluster.kill(3);
            // Fenced first, so the new topic's ISR is the live brokers and acks=all does not wait for broker 3.
            assertThat(cluster.runUntil(() -> cluster.controller().broker(3).map(r -> r.fenced()).orElse(false), 30_000))
                    .isTrue();

            cluster.deleteTopic("t");
            cluster.createTopic("t", 1, 2, 3);
            List<String> fresh = send(cluster, producer, "new-", 5);
            UUID newId = storedTopicId(cluster, 1);
            assertThat(newId).isNotEqualTo(oldId);

            cluster.restart(3);
            awaitBroker3CaughtUp(cluster, fresh.size(), 30_000);
            assertThat(values(cluster, 3)).isEqualTo(fresh).isEqualTo(values(cluster, 1));
            assertThat(storedTopicId(cluster, 3)).isEqualTo(newId);
        }
    }

    @Test
    @DisplayName("FET-2 a follower cut from the controller while its topic is deleted and created again is refused by the new topic's leader (INCONSISTENT_TOPIC_ID): its old log takes none of the new records")
    void followerOfTheDeletedTopicIsRefused() {
        try (InMemoryCluster cluster = cluster().build()) {
            cluster.createTopic("t", 1, 2, 3);
            TestProducer producer = cluster.producer("p");
            List<String> old = send(cluster, producer, "old-", 20);
            // Broker 3 still fetches from broker 1 but hears of neither the deletion nor the new topic. Both
            // topics start in leader epoch 0, so epochs and offsets alone would let it fetch the new one.
            cluster.partitionFromController(3);
            cluster.await(cluster.controller().deleteTopic("t")); // not cluster.deleteTopic: broker 3 keeps its replica
            cluster.createTopic("t", 1, 2, 3);
            // acks=all waits until broker 3 leaves the ISR (fenced once its session expires).
            List<String> fresh = send(cluster, producer, "new-", 10, 120_000);
            assertThat(values(cluster, 3)).as("the deleted topic's replica on broker 3").isEqualTo(old);
            assertThat(values(cluster, 1)).isEqualTo(fresh);

            cluster.heal();
            awaitBroker3CaughtUp(cluster, fresh.size(), 60_000);
            assertThat(values(cluster, 3)).isEqualTo(fresh);
        }
    }

    @Test
    @DisplayName("a broker down while its topic was deleted deletes the stray log when it comes back")
    void deletedWhileABrokerWasDown() {
        try (InMemoryCluster cluster = cluster().build()) {
            cluster.createTopic("t", 1, 2, 3);
            send(cluster, cluster.producer("p"), "v", 3);
            cluster.kill(3);
            cluster.deleteTopic("t");
            assertThat(Files.exists(cluster.admin().logDir(3).resolve("t-0"))).as("kept while down").isTrue();
            cluster.restart(3);
            assertThat(cluster.runUntil(() -> !Files.exists(cluster.admin().logDir(3).resolve("t-0")), 30_000)).isTrue();
        }
    }

    @Test
    @DisplayName("CTL-5 a broker that comes back to an image without its deleted topic (the deltas are gone) deletes the stray log and keeps the rest")
    void deletedWhileABrokerWasDownAndOnlyAnImageIsLeft() {
        // One cached delta: a broker asking from before the last batch is answered with the image, which names no deletion.
        try (InMemoryCluster cluster = cluster().config(ControllerConfig.METADATA_DELTA_CACHE_SIZE, 1).build()) {
            cluster.createTopic("t", 1, 2, 3);
            cluster.createTopic("kept", 1, 2, 3);
            TestProducer producer = cluster.producer("p");
            send(cluster, producer, "v", 3);
            assertThat(cluster.await(producer.send("kept", 0, null, "k", -1, 5_000)).isSuccess()).isTrue();
            cluster.kill(3);
            cluster.deleteTopic("t");
            cluster.createTopic("later", 1, 2); // more batches after the deletion, so it is no longer cached
            assertThat(Files.exists(cluster.admin().logDir(3).resolve("t-0"))).as("kept while down").isTrue();

            cluster.restart(3);
            assertThat(cluster.runUntil(() -> !Files.exists(cluster.admin().logDir(3).resolve("t-0"))
                    && cluster.admin().isr("kept", 0).size() == 3, 30_000)).isTrue();
            assertThat(cluster.admin().records(3, "kept", 0).stream().map(ConsumedRecord::value).toList())
                    .containsExactly("k");
        }
    }
}
