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

package dev.insync.replication.netty.controller;

import dev.insync.replication.controller.ControllerConfig;
import dev.insync.replication.controller.QuorumController;
import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.controller.api.NotControllerException;
import dev.insync.replication.controller.api.RegisterBrokerRequest;
import dev.insync.replication.controller.api.TopicDescription;
import dev.insync.replication.controller.channel.QuorumControllerChannel;
import dev.insync.replication.controller.log.InMemoryMetadataLog;
import dev.insync.replication.core.broker.BrokerLifecycleManager;
import dev.insync.replication.core.config.ReplicationConfig;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.metadata.follower.MetadataFetchRequest;
import dev.insync.replication.core.metadata.follower.MetadataFetchResponse;
import dev.insync.replication.core.metadata.follower.MetadataFollower;
import dev.insync.replication.core.metrics.InMemoryReplicationMetrics;
import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.core.server.ReplicaManager;
import dev.insync.replication.core.time.ThreadScheduler;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.LogDirectory;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.netty.client.NettyControllerApi;
import dev.insync.replication.netty.client.NetworkClient;
import dev.insync.replication.netty.config.NetworkConfig;
import dev.insync.replication.netty.server.ControllerApiHandlers;
import dev.insync.replication.netty.server.NettyServer;
import dev.insync.replication.netty.server.ServedApis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The controller over Netty on loopback: two {@link QuorumController} nodes on one
 * {@link InMemoryMetadataLog} (node 1 active, node 0 not), each behind a {@link NettyServer} with
 * {@link ControllerApiHandlers}; two brokers made of core's real parts (ReplicaManager with a log
 * directory, BrokerLifecycleManager, the ReplicaManager's AlterPartitionManager, MetadataFollower)
 * reach them through a {@link QuorumControllerChannel} over {@link NettyControllerApi} endpoints.
 * Real time and threads; every wait is on a condition with a deadline.
 */
class ControllerOverNettyTest {

    private static final long WAIT_MS = 30_000;
    private static final TopicPartition T0 = new TopicPartition("t", 0);

    @TempDir
    Path tmp;

    private final NetworkConfig network = NetworkConfig.builder().numNetworkThreads(1).numIoThreads(1)
            .requestTimeoutMs(10_000).build();
    private final ThreadScheduler scheduler = new ThreadScheduler();
    private final InMemoryMetadataLog metadataLog = new InMemoryMetadataLog();
    private final Map<Integer, QuorumController> controllers = new TreeMap<>();
    private final Map<Integer, NettyServer> servers = new TreeMap<>();
    private final Map<Integer, InetSocketAddress> addresses = new TreeMap<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private NetworkClient client;

    @AfterEach
    void stop() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
        servers.values().forEach(NettyServer::close);
        controllers.values().forEach(QuorumController::close);
        if (client != null) {
            client.close();
        }
        scheduler.close();
    }

    private void startControllers(int active) {
        ControllerConfig config = ControllerConfig.fromProperties(Map.of("broker.session.timeout.ms", 9000));
        for (int node = 0; node <= 1; node++) {
            QuorumController c = new QuorumController(node, metadataLog.forNode(node), scheduler, config);
            c.start();
            controllers.put(node, c);
            NettyServer server = NettyServer.builder().name("controller-" + node)
                    .bindAddress(new InetSocketAddress("127.0.0.1", 0)).config(network).scheduler(scheduler)
                    .apis(ControllerApiHandlers.register(ServedApis.builder(), c).build()).build();
            servers.put(node, server);
            addresses.put(node, server.start());
        }
        metadataLog.elect(active);
        await("node " + active + " active", () -> controllers.get(active).isActive());
        client = new NetworkClient("brokers", network, Optional.empty(), scheduler, 1, new Random(1));
    }

    private NettyControllerApi api(int node, String clientId) {
        NettyControllerApi api = new NettyControllerApi(node, () -> Optional.ofNullable(addresses.get(node)), client,
                clientId);
        closeables.add(api);
        return api;
    }

    /** One broker: core's real parts, reaching the controllers only over the network. */
    private final class Broker implements AutoCloseable {
        final int id;
        final QuorumControllerChannel channel;
        final ReplicaManager rm;
        final MetadataFollower metadata;
        final BrokerLifecycleManager lifecycle;

        Broker(int id) {
            this.id = id;
            Map<Integer, NettyControllerApi> endpoints = new TreeMap<>();
            for (int node : controllers.keySet()) {
                endpoints.put(node, api(node, "broker-" + id));
            }
            channel = new QuorumControllerChannel(endpoints, scheduler, new QuorumControllerChannel.Settings(50, 400,
                    5_000, 5));
            AtomicReference<BrokerLifecycleManager> self = new AtomicReference<>();
            ReplicationConfig config = ReplicationConfig.builder().replicaLagTimeMaxMs(1_000).build();
            LogDirectory dir = LogDirectory.open(tmp.resolve("broker-" + id), config.logConfig());
            rm = ReplicaManager.builder(id).config(config).logDirectory(dir).scheduler(scheduler)
                    // No replica network here: a follower's fetches fail, so its leader shrinks the ISR (AlterPartition).
                    .transport((leader, request) -> CompletableFuture.failedFuture(new IOException("no replica network")))
                    .controller(channel)
                    .brokerEpoch(() -> self.get() == null ? -1L : self.get().brokerEpoch())
                    .metrics(new InMemoryReplicationMetrics()).build();
            rm.startup();
            metadata = new MetadataFollower(rm, channel, scheduler, new MetadataFollower.Settings(500, 100, 5_000, 1000));
            lifecycle = BrokerLifecycleManager.builder(id, channel, scheduler).heartbeatIntervalMs(200)
                    .registrationRetryBackoffMs(100).metadataOffset(metadata::appliedOffset).build();
            self.set(lifecycle);
            metadata.start(lifecycle.start());
        }

        Optional<Partition> partition(TopicPartition tp) {
            return rm.partition(tp);
        }

        @Override
        public void close() {
            lifecycle.close();
            metadata.close();
            rm.shutdown();
            channel.close();
        }
    }

    private Broker broker(int id) {
        Broker b = new Broker(id);
        closeables.add(b);
        return b;
    }

    private static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Not within " + WAIT_MS + " ms: " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    private static <T> T get(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(WAIT_MS, TimeUnit.MILLISECONDS);
    }

    @Test
    @DisplayName("CTL-4 CTL-5 LDR-4 ISR-5 brokers over Netty: register, unfence, heartbeat, AlterPartition and the metadata long poll, redirected from the node that is not active")
    void brokersReachTheControllerOverTheNetwork() throws Exception {
        startControllers(1);
        Broker b1 = broker(1);
        Broker b2 = broker(2);
        await("both brokers registered and unfenced", () -> !b1.lifecycle.isFenced() && !b2.lifecycle.isFenced()
                && b1.lifecycle.brokerEpoch() >= 0 && b2.lifecycle.brokerEpoch() >= 0);
        assertThat(b1.lifecycle.brokerEpoch()).isNotEqualTo(b2.lifecycle.brokerEpoch());
        // CTL-4: the channel starts at node 0, which answers NOT_CONTROLLER naming node 1.
        assertThat(b1.channel.knownActiveController()).hasValue(1);

        NettyControllerApi admin = api(1, "admin");
        List<PartitionRegistration> created = get(admin.createTopic(
                CreateTopicRequest.withAssignment("t", List.of(List.of(1, 2)), Map.of())));
        assertThat(created).singleElement().satisfies(p -> {
            assertThat(p.leader()).isEqualTo(1);
            assertThat(p.isr()).containsExactly(1, 2);
        });
        // CTL-5: the brokers learn the partition by their long polls; broker 1 leads it.
        await("broker 1 leads t-0", () -> b1.partition(T0).map(p -> p.leaderEpoch() == 0 && p.isr().size() == 2)
                .orElse(false));
        await("broker 2 follows t-0", () -> b2.partition(T0).isPresent());

        // ISR-5/ISR-6: broker 2 never fetches (no replica network), so broker 1's ReplicaManager shrinks the
        // ISR through its AlterPartitionManager, over the network, and the commit comes back as metadata.
        await("the shrink to ISR 1 committed and applied on broker 1", () -> b1.partition(T0)
                .map(p -> p.isr().equals(List.of(1)) && p.partitionEpoch() == 1).orElse(false));
        TopicDescription described = get(api(0, "admin-0").describeTopic("t")); // reads are served by any node
        assertThat(described.partitions()).singleElement().satisfies(p -> {
            assertThat(p.isr()).containsExactly(1);
            assertThat(p.partitionEpoch()).isEqualTo(1);
        });
        await("broker 2 applied it too", () -> b2.partition(T0).map(p -> p.partitionEpoch() == 1).orElse(false));
        await("both followed the log to its end", () -> b1.metadata.appliedOffset() == controllers.get(1).committedOffset()
                && b2.metadata.appliedOffset() == controllers.get(1).committedOffset());
        assertThat(b1.lifecycle.isFenced()).isFalse();
    }

    @Test
    @DisplayName("CTL-4 a write sent to a node that is not active fails NOT_CONTROLLER naming the active node; invalid input keeps its error")
    void notControllerCarriesTheHint() throws Exception {
        startControllers(1);
        NettyControllerApi standby = api(0, "test");
        assertThatThrownBy(() -> get(standby.registerBroker(new RegisterBrokerRequest(7, -1))))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(NotControllerException.class)
                .satisfies(e -> {
                    NotControllerException n = (NotControllerException) e;
                    assertThat(n.error()).isEqualTo(Errors.NOT_CONTROLLER);
                    assertThat(n.activeController()).hasValue(1);
                });
        // The active node answers; an unknown topic is the controller's own error, message included.
        assertThat(get(api(1, "test").registerBroker(new RegisterBrokerRequest(7, -1))).brokerEpoch()).isNotNegative();
        assertThatThrownBy(() -> get(api(1, "test-2").describeTopic("nope")))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(ApiException.class)
                .satisfies(e -> assertThat(((ApiException) e).error()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION))
                .hasMessageContaining("nope");
    }

    @Test
    @DisplayName("CTL-5 a parked metadata long poll holds no event loop or request thread: with one of each, other requests are served while it waits, and a commit answers it")
    void longPollHoldsNoThread() throws Exception {
        startControllers(1);
        long end = controllers.get(1).committedOffset();
        CompletableFuture<MetadataFetchResponse> poll = api(1, "poller").fetchMetadata(
                new MetadataFetchRequest(9, end, 20_000, 100)).toCompletableFuture();
        // Requests of other connections, on the same single network thread and single request thread.
        NettyControllerApi other = api(1, "other");
        for (int i = 0; i < 5; i++) {
            assertThat(get(other.fenceBroker(42 + i))).isFalse();
        }
        assertThat(poll).isNotDone();
        long epoch = get(other.registerBroker(new RegisterBrokerRequest(5, -1))).brokerEpoch();
        MetadataFetchResponse answer = poll.get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertThat(answer.afterOffset()).isEqualTo(end);
        assertThat(answer.deltas()).isNotEmpty();
        assertThat(answer.deltas().get(0).brokers()).anySatisfy(b -> {
            assertThat(b.brokerId()).isEqualTo(5);
            assertThat(b.brokerEpoch()).isEqualTo(epoch);
        });
    }
}
