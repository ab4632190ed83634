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

package dev.insync.replication.controller.ratis;

import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.controller.api.RegisterBrokerRequest;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.core.metadata.follower.MetadataFetchRequest;
import dev.insync.replication.core.metadata.follower.MetadataFetchResponse;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Controllers restarted from their directories, a corrupt snapshot, and a lagging controller catching up from one. */
class RatisControllerRestartTest {

    @TempDir
    Path dir;

    private static <T> T await(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** Registers and unfences {@code brokers}, creates a topic with {@code partitions} partitions over them. */
    private static void populate(RatisControllerNode active, List<Integer> brokers, String topic, int partitions)
            throws Exception {
        for (int id : brokers) {
            long epoch = await(active.controllerApi().registerBroker(new RegisterBrokerRequest(id, -1))).brokerEpoch();
            await(active.controllerApi().brokerHeartbeat(new HeartbeatRequest(id, epoch, epoch, false)));
        }
        await(active.controllerApi().createTopic(CreateTopicRequest.withPlacement(topic, partitions, brokers.size(), Map.of())));
    }

    private static Path latestSnapshotFile(Path metadataLogDir) throws IOException {
        try (Stream<Path> files = Files.walk(metadataLogDir)) {
            return files.filter(f -> f.getFileName().toString().matches("snapshot\\.\\d+_\\d+"))
                    .max((a, b) -> Long.compare(index(a), index(b))).orElseThrow();
        }
    }

    private static long index(Path snapshot) {
        String name = snapshot.getFileName().toString();
        return Long.parseLong(name.substring(name.indexOf('_') + 1));
    }

    @Test
    @DisplayName("CTL-1 every controller of a 3-node quorum restarted from its metadata.log.dir (snapshot plus tail) has the same state")
    void ctl1QuorumRestartsWithTheSameState() throws Exception {
        Map<String, Object> props = Map.of("metadata.log.max.snapshot.interval.records", 10);
        String before;
        long end;
        RatisQuorum quorum = new RatisQuorum(dir, 3, props).startAll();
        try {
            RatisControllerNode active = quorum.awaitActive(15_000);
            populate(active, List.of(1, 2, 3), "a", 4);
            populate(active, List.of(4, 5), "b", 2);
            end = active.controller().committedOffset();
            quorum.awaitCommitted(end, 10_000);
            before = RatisQuorum.dump(active);
            for (RatisControllerNode n : quorum.nodes.values()) {
                assertThat(RatisQuorum.dump(n)).isEqualTo(before);
                assertThat(n.metadataLog().latestSnapshot()).isPresent();
            }
        } finally {
            quorum.close();
        }
        try (RatisQuorum restarted = quorum) {
            restarted.startAll();
            restarted.awaitActive(15_000);
            restarted.awaitCommitted(end, 10_000);
            for (RatisControllerNode n : restarted.nodes.values()) {
                assertThat(RatisQuorum.dump(n)).isEqualTo(before);
            }
        }
    }

    @Test
    @DisplayName("CTL-1 a corrupt snapshot stops the controller at start with an error naming the file, never a different state")
    void ctl1CorruptSnapshotIsAClearError() throws Exception {
        Map<String, Object> props = Map.of("metadata.log.max.snapshot.interval.records", 5);
        Path snapshot;
        try (RatisQuorum quorum = new RatisQuorum(dir, 1, props).startAll()) {
            RatisControllerNode node = quorum.awaitActive(15_000);
            populate(node, List.of(1, 2), "t", 3);
            RatisQuorum.awaitCondition(10_000, () -> node.metadataLog().latestSnapshot().isPresent(), "a snapshot");
            quorum.kill(1);
            snapshot = latestSnapshotFile(dir.resolve("node-1"));
            byte[] bytes = Files.readAllBytes(snapshot);
            bytes[bytes.length / 2] ^= 0x5A;
            Files.write(snapshot, bytes);
            Path file = snapshot;
            assertThatThrownBy(() -> quorum.start(1)).isInstanceOf(IOException.class)
                    .hasMessageContaining(file.toString()).hasMessageContaining("CRC");
            assertThat(quorum.nodes).isEmpty();
        }
    }

    @Test
    @DisplayName("CTL-4 CTL-5 a controller that missed purged log entries catches up from the leader's snapshot, and serves brokers behind it an image")
    void ctl4LaggingControllerInstallsSnapshot() throws Exception {
        Map<String, Object> props = new HashMap<>();
        props.put("metadata.log.max.snapshot.interval.records", 50);
        props.put("metadata.log.segment.bytes", 65536);
        try (RatisQuorum quorum = new RatisQuorum(dir, 3, props).startAll()) {
            RatisControllerNode active = quorum.awaitActive(15_000);
            int lagging = active.nodeId() == 3 ? 2 : 3;
            populate(active, List.of(1, 2, 3), "first", 3);
            quorum.awaitCommitted(active.controller().committedOffset(), 10_000);
            long laggingAt = quorum.node(lagging).controller().committedOffset();
            quorum.kill(lagging);
            // Enough records to roll several 64 KiB segments, each followed by a snapshot and a purge.
            List<Integer> brokers = List.of(1, 2, 3);
            for (int t = 0; t < 8; t++) {
                await(active.controllerApi().createTopic(CreateTopicRequest.withPlacement("bulk-" + t, 400, 3, Map.of())));
            }
            long end = active.controller().committedOffset();
            RatisQuorum.awaitCondition(10_000, () -> active.metadataLog().raftLogStartIndex() > laggingAt + 10,
                    "the leader's Raft log purged past what node " + lagging + " has");
            String expected = RatisQuorum.dump(active);

            RatisControllerNode restarted = quorum.start(lagging);
            // The leader reaches a restarted peer again once its gRPC channel to it leaves the reconnect
            // backoff it entered while the peer was down (gRPC's default, growing with the downtime); on a
            // loaded machine the downtime here is long, and 20 s was once not enough (no entry arrived).
            quorum.awaitCommitted(end, 60_000);
            assertThat(RatisQuorum.dump(restarted)).isEqualTo(expected);
            assertThat(restarted.metadataLog().latestSnapshot()).isPresent();
            assertThat(restarted.metadataLog().latestSnapshot().orElseThrow().lastOffset()).isGreaterThan(laggingAt);

            // CTL-5: a broker whose offset is below what this controller keeps gets the whole image.
            MetadataFetchResponse response = await(restarted.controllerApi()
                    .fetchMetadata(new MetadataFetchRequest(1, 0, 0, 100)));
            assertThat(response.image()).isPresent();
            assertThat(response.endOffset()).isGreaterThan(laggingAt);
            assertThat(response.image().orElseThrow().partitions()).hasSize(3 + 8 * 400);
            assertThat(brokers).allSatisfy(b -> assertThat(response.image().orElseThrow().brokers())
                    .anyMatch(r -> r.brokerId() == b));
        }
    }
}
