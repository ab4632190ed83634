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

package dev.insync.replication.server;

import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.core.metadata.Endpoint;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.FileSync;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.netty.client.InsyncClient;
import dev.insync.replication.netty.client.RecordMetadata;
import dev.insync.replication.netty.protocol.BrokerEndpoint;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * LDR-4 over TCP in one JVM: brokers started without {@code insync.broker.addresses} register
 * their listeners and find each other (fetchers) and are found (clients' Metadata) through the
 * metadata; a broker restarted on another port is reached at the new one once it re-registered.
 */
class RegisteredEndpointsTest {

    private static final TopicPartition TP = new TopicPartition("moves", 0);
    private static final long WAIT_MS = 30_000;

    @TempDir
    Path root;

    private final Map<Integer, InsyncServer> servers = new TreeMap<>();
    private ServerTestClient client;

    @AfterEach
    void closeAll() {
        if (client != null) {
            client.close();
        }
        servers.values().forEach(InsyncServer::close);
    }

    private InsyncServer start(Map<String, String> props) throws Exception {
        InsyncServer s = InsyncServer.builder(props).fileSync(dir -> FileSync.withoutFsync()).build();
        servers.put(s.nodeId(), s);
        s.start();
        s.ready().get(WAIT_MS, TimeUnit.MILLISECONDS);
        return s;
    }

    @Test
    @DisplayName("LDR-4 brokers without insync.broker.addresses replicate through their registered endpoints; a leader"
            + " restarted on a new port is fetched from there, and a client bootstrapped from one broker reaches it")
    void brokersFindEachOtherThroughRegistrations() throws Exception {
        ClusterLayout layout = new ClusterLayout(root, 1, 3);
        for (int id : layout.controllerIds()) {
            start(layout.controller(id));
        }
        for (int id : layout.brokerIds()) {
            Map<String, String> props = layout.broker(id);
            assertThat(props).doesNotContainKeys(ServerConfig.BROKER_ADDRESSES, ServerConfig.CONNECT_OVERRIDES);
            start(props);
        }
        client = new ServerTestClient();
        ServerTestClient.awaitUnfenced(servers.get(1), layout.brokerIds(), WAIT_MS);
        // Every broker's metadata holds every registration with the endpoint it advertised.
        for (int id : layout.brokerIds()) {
            InetSocketAddress listener = layout.brokerListener(id);
            assertThat(servers.get(3).broker().orElseThrow().metadataView().broker(id).orElseThrow().endpoints())
                    .containsExactly(new Endpoint("PLAINTEXT", "PLAINTEXT", "127.0.0.1", listener.getPort()));
        }
        assertThat(client.metadata(layout.brokerListener(2)).brokers()).containsExactlyInAnyOrder(
                endpoint(layout, 1), endpoint(layout, 2), endpoint(layout, 3));

        client.createTopic(layout.controllerListeners(), CreateTopicRequest.withAssignment(TP.topic(),
                List.of(List.of(1, 2, 3)), Map.of("min.insync.replicas", "2")));
        assertThat(awaitLeader(layout, 2, Set.of(1))).isEqualTo(1);
        List<String> acknowledged = new ArrayList<>();
        produce(layout, 1, "a", 5, acknowledged);
        // The followers dialled broker 1 where its registration says: every log at LEO 5, ISR all three.
        awaitReplicated(layout, Set.of(1, 2, 3), 5);

        // Broker 1 stops (controlled: leadership moves to 2) and comes back on another port.
        assertThat(servers.get(1).controlledShutdown()).isTrue();
        assertThat(awaitLeader(layout, 2, Set.of(2, 3))).isEqualTo(2);
        InetSocketAddress moved = layout.rebindBroker(1);
        start(layout.broker(1));
        ServerTestClient.await("broker 1 registered at its new port, as broker 3 sees it", WAIT_MS, () ->
                servers.get(3).broker().orElseThrow().metadataView().broker(1)
                        .map(r -> r.endpoints().equals(List.of(new Endpoint("PLAINTEXT", "PLAINTEXT", "127.0.0.1",
                                moved.getPort())))).orElse(false));
        produce(layout, 2, "b", 5, acknowledged);
        // The restarted broker fetches again (from leader 2) and rejoins the ISR.
        awaitReplicated(layout, Set.of(1, 2, 3), 10);

        // Broker 2 stops: broker 1, first in assignment order, leads again, at its new port only.
        assertThat(servers.get(2).controlledShutdown()).isTrue();
        assertThat(awaitLeader(layout, 3, Set.of(1, 3))).isEqualTo(1);
        // acks=all with min ISR 2 completes only once broker 3 fetched from broker 1 at the new port.
        produce(layout, 1, "c", 5, acknowledged);
        awaitReplicated(layout, Set.of(1, 3), 15);

        // A client that knows only broker 3 learns broker 1's new address from Metadata and produces to it.
        assertThat(client.metadata(layout.brokerListener(3)).brokers()).contains(endpoint(layout, 1));
        try (InsyncClient insync = InsyncClient.builder(Map.of("bootstrap.servers",
                "127.0.0.1:" + layout.brokerListener(3).getPort(), "acks", "all")).build()) {
            RecordMetadata md = insync.send(TP, null, "d-0".getBytes(StandardCharsets.UTF_8))
                    .get(WAIT_MS, TimeUnit.MILLISECONDS);
            assertThat(md.offset()).isEqualTo(15);
            acknowledged.add("d-0");
        }
        assertThat(client.consumeAll(moved, TP)).containsExactlyElementsOf(acknowledged);
    }

    private static BrokerEndpoint endpoint(ClusterLayout layout, int id) {
        return new BrokerEndpoint(id, "127.0.0.1", layout.brokerListener(id).getPort());
    }

    private void produce(ClusterLayout layout, int leader, String prefix, int n, List<String> acknowledged)
            throws Exception {
        for (int i = 0; i < n; i++) {
            String value = prefix + "-" + i;
            ProduceResult r = client.produce(layout.brokerListener(leader), TP, -1, List.of(value));
            assertThat(r.error()).as("acks=all produce of %s to broker %d", value, leader).isEqualTo(Errors.NONE);
            acknowledged.add(value);
        }
    }

    /** Waits until every broker of {@code replicas} is at {@code leo} and the leader's ISR is exactly {@code replicas}. */
    private void awaitReplicated(ClusterLayout layout, Set<Integer> replicas, long leo) {
        ServerTestClient.await("replicas " + replicas + " at LEO " + leo + " and in the ISR", WAIT_MS, () ->
                replicas.stream().allMatch(id -> leo(id) == leo) && replicas.stream().anyMatch(id ->
                        client.partition(layout.brokerListener(id), TP)
                                .map(p -> new HashSet<>(p.isr()).equals(replicas)).orElse(false)));
    }

    private long leo(int id) {
        InsyncServer s = servers.get(id);
        return s.broker().flatMap(b -> {
            try {
                return b.log(TP).map(l -> l.logEndOffset());
            } catch (IllegalStateException e) {
                return java.util.Optional.empty();
            }
        }).orElse(-1L);
    }

    /** Waits until broker {@code askId}'s Metadata names a live leader in {@code candidates} that leads; returns it. */
    private int awaitLeader(ClusterLayout layout, int askId, Set<Integer> candidates) {
        int[] leader = {-1};
        ServerTestClient.await("a leader among " + candidates + " known to broker " + askId, WAIT_MS, () -> {
            leader[0] = client.partition(layout.brokerListener(askId), TP).map(PartitionRegistration::leader).orElse(-1);
            InsyncServer s = servers.get(leader[0]);
            return candidates.contains(leader[0]) && s != null && !s.stopped().isDone() && s.broker().orElseThrow()
                    .replicaManager().partition(TP).map(p -> p.isLeader()).orElse(false);
        });
        return leader[0];
    }
}
