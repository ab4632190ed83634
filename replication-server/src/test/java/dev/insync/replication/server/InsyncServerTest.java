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
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.FileSync;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** One {@link InsyncServer} at a time: roles, the serving gate, and where it dials. */
class InsyncServerTest {

    private static final long WAIT_MS = 30_000;
    private static final TopicPartition TP = new TopicPartition("events", 0);

    @TempDir
    Path root;

    private final List<InsyncServer> servers = new ArrayList<>();
    private final ServerTestClient client = new ServerTestClient();

    @AfterEach
    void closeAll() {
        client.close();
        servers.forEach(InsyncServer::close);
    }

    private InsyncServer start(Map<String, String> props) {
        InsyncServer s = InsyncServer.builder(props).fileSync(dir -> FileSync.withoutFsync()).build();
        servers.add(s);
        s.start();
        return s;
    }

    private static InetSocketAddress at(int port) {
        return new InetSocketAddress("127.0.0.1", port);
    }

    @Test
    @DisplayName("process.roles=broker,controller: one process, one listener, serves the controller's and the broker's apis")
    void combinedProcess() throws Exception {
        int port = ClusterLayout.freePort();
        Map<String, String> p = new HashMap<>();
        p.put("node.id", "1");
        p.put("process.roles", "broker,controller");
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + port);
        p.put("controller.quorum.voters", "1@127.0.0.1:" + ClusterLayout.freePort());
        p.put("metadata.log.dir", root.resolve("meta").toString());
        p.put("log.dirs", root.resolve("data").toString());
        p.put("insync.controller.endpoints", "1@127.0.0.1:" + port);
        p.put("controller.quorum.election.timeout.ms", "500");
        p.put("broker.heartbeat.interval.ms", "300");
        InsyncServer s = start(p);
        s.ready().get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertThat(s.readinessLine()).isEqualTo("insync: ready node.id=1 roles=broker,controller listeners=PLAINTEXT://127.0.0.1:" + port);
        ServerTestClient.awaitUnfenced(s, List.of(1), WAIT_MS);
        client.createTopic(Map.of(1, at(port)), CreateTopicRequest.withAssignment(TP.topic(), List.of(List.of(1)), Map.of()));
        ServerTestClient.await("broker 1 leads " + TP, WAIT_MS, () -> s.broker().orElseThrow().replicaManager().partition(TP)
                .map(x -> x.isLeader()).orElse(false));
        ProduceResult r = client.produce(at(port), TP, -1, List.of("x"));
        assertThat(r.error()).isEqualTo(Errors.NONE);
        assertThat(client.metadata(at(port)).controllerId()).isEqualTo(1);
        assertThat(client.metadata(at(port)).brokers()).extracting(b -> b.port()).containsExactly(port);
        ServerTestClient.await("x readable", WAIT_MS, () -> {
            try {
                return client.consumeAll(at(port), TP).equals(List.of("x"));
            } catch (Exception e) {
                return false;
            }
        });
        assertThat(s.controlledShutdown()).isTrue();
        assertThat(s.stopped()).isCompleted();
    }

    @Test
    @DisplayName("Before the broker serves (no controller answers), its listener answers every partition of Produce"
            + " and Fetch NOT_LEADER_OR_FOLLOWER (FOL-6, PRO-2), appends nothing, keeps the connection, and Metadata shows"
            + " an empty cluster")
    void notServingBeforeTheInitialLoad() throws Exception {
        int port = ClusterLayout.freePort();
        Map<String, String> p = new HashMap<>();
        p.put("node.id", "1");
        p.put("process.roles", "broker");
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + port);
        p.put("log.dirs", root.resolve("data").toString());
        p.put("insync.controller.endpoints", "101@127.0.0.1:" + ClusterLayout.freePort()); // nobody there
        InsyncServer s = start(p);
        assertThat(s.ready()).isNotDone();
        for (int i = 0; i < 2; i++) {
            assertThat(client.produce(at(port), TP, 1, List.of("early")).error()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
            assertThatThrownBy(() -> client.consumeAll(at(port), TP))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("NOT_LEADER_OR_FOLLOWER");
        }
        assertThat(s.broker().orElseThrow().log(TP)).isEmpty(); // nothing appended, no log made
        assertThat(s.serverMetrics().handlerFailures()).isZero();
        // Metadata answers from the broker's view, empty before the initial load, on the same connection.
        var metadata = client.metadata(at(port));
        assertThat(metadata.brokers()).isEmpty();
        assertThat(metadata.topics()).isEmpty();
        assertThat(metadata.controllerId()).isEqualTo(-1);
        s.close();
        assertThat(s.ready()).isCompletedExceptionally();
    }

    @Test
    @DisplayName("insync.connect.overrides is what a process dials, for broker→controller and broker→broker links:"
            + " with every table naming dead ports, acks=all replication over the overridden addresses works")
    void overridesAreDialled() throws Exception {
        ClusterLayout layout = new ClusterLayout(root, 1, 2);
        int controllerId = layout.controllerIds().get(0);
        InetSocketAddress controller = layout.controllerListeners().get(controllerId);
        start(layout.controller(controllerId)).ready().get(WAIT_MS, TimeUnit.MILLISECONDS);
        List<InsyncServer> brokers = new ArrayList<>();
        for (int id : layout.brokerIds()) {
            Map<String, String> p = layout.broker(id);
            int other = id == 1 ? 2 : 1;
            InetSocketAddress self = layout.brokerListener(id);
            // The tables are wrong for everyone but this broker itself; only the overrides are right.
            p.put("insync.controller.endpoints", controllerId + "@127.0.0.1:" + ClusterLayout.freePort());
            p.put("insync.broker.addresses", id + "@127.0.0.1:" + self.getPort() + "," + other + "@127.0.0.1:"
                    + ClusterLayout.freePort());
            p.put("insync.connect.overrides", controllerId + "@127.0.0.1:" + controller.getPort() + "," + other
                    + "@127.0.0.1:" + layout.brokerListener(other).getPort());
            brokers.add(start(p));
        }
        for (InsyncServer b : brokers) {
            b.ready().get(WAIT_MS, TimeUnit.MILLISECONDS); // registered through the override
        }
        ServerTestClient.awaitUnfenced(brokers.get(0), layout.brokerIds(), WAIT_MS);
        client.createTopic(layout.controllerListeners(), CreateTopicRequest.withAssignment(TP.topic(),
                List.of(List.of(1, 2)), Map.of("min.insync.replicas", "2")));
        ServerTestClient.await("broker 1 leads " + TP, WAIT_MS, () -> brokers.get(0).broker().orElseThrow()
                .replicaManager().partition(TP).map(x -> x.isLeader()).orElse(false));
        // Broker 2 follows (over its override of broker 1) and the leader counts it in sync: before
        // that, under load, the leader may answer NOT_ENOUGH_REPLICAS.
        ServerTestClient.await("broker 2 follows " + TP + " and broker 1's ISR is 1,2", WAIT_MS,
                () -> brokers.get(1).broker().orElseThrow().replicaManager().partition(TP).isPresent()
                        && brokers.get(0).broker().orElseThrow().replicaManager().partition(TP)
                        .map(x -> x.isr().size() == 2 && !x.isUnderMinIsr()).orElse(false));
        // acks=all with min ISR 2 completes only once broker 2 fetched over its override of broker 1.
        ProduceResult r = client.produce(layout.brokerListener(1), TP, -1, List.of("via-proxy-path"));
        assertThat(r.error()).isEqualTo(Errors.NONE);
        assertThat(brokers.get(1).broker().orElseThrow().log(TP).orElseThrow().logEndOffset()).isEqualTo(1);
    }
}
