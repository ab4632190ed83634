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

package dev.insync.replication.netty;

import dev.insync.replication.core.config.ReplicationConfig;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.metrics.InMemoryReplicationMetrics;
import dev.insync.replication.core.partition.ReplicaDescription;
import dev.insync.replication.core.produce.Acks;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.core.server.ReplicaManager;
import dev.insync.replication.core.time.ThreadScheduler;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.LogDirectory;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.epoch.EpochEntry;
import dev.insync.replication.log.record.Record;
import dev.insync.replication.log.record.RecordBatch;
import dev.insync.replication.netty.client.BrokerAddresses;
import dev.insync.replication.netty.client.ClientConnection;
import dev.insync.replication.netty.client.InsyncClient;
import dev.insync.replication.netty.client.NettyReplicaTransport;
import dev.insync.replication.netty.client.NetworkClient;
import dev.insync.replication.netty.config.NetworkConfig;
import dev.insync.replication.netty.protocol.Apis;
import dev.insync.replication.netty.protocol.BrokerEndpoint;
import dev.insync.replication.netty.protocol.MetadataRequest;
import dev.insync.replication.netty.protocol.MetadataResponse;
import dev.insync.replication.netty.protocol.ProduceRequest;
import dev.insync.replication.netty.server.MetadataView;
import dev.insync.replication.netty.server.NettyServer;
import dev.insync.replication.netty.server.ReplicaApiHandlers;
import dev.insync.replication.netty.server.ReplicaService;
import dev.insync.replication.netty.server.ServedApis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three real ReplicaManagers, each with real log directories, a NettyServer and a
 * NettyReplicaTransport, replicating over loopback TCP; a hand-wired in-test controller commits
 * ISR changes and publishes metadata. Real time: every wait is on a condition with a deadline.
 */
class NettyReplicationTest {

    private static final long WAIT_MS = 30_000;
    private static final TopicPartition REP0 = new TopicPartition("rep", 0);

    @TempDir
    Path tmp;

    private final ReplicationConfig config = ReplicationConfig.builder().replicaLagTimeMaxMs(30_000)
            .replicaFetchBackoffMs(100).build();
    private final NetworkConfig network = NetworkConfig.builder().numNetworkThreads(1).numIoThreads(2)
            .requestTimeoutMs(5_000).build();
    private final ExecutorService controllerThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "controller"));
    private final InTestController controller = new InTestController(controllerThread);
    private final Map<Integer, InetSocketAddress> addresses = new ConcurrentHashMap<>();
    private final Map<Integer, Broker> brokers = new TreeMap<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();

    /** One broker process's parts, in one JVM. */
    private final class Broker {
        final int id;
        final ThreadScheduler scheduler;
        final LogDirectory dir;
        final NetworkClient client;
        final NettyReplicaTransport transport;
        final ReplicaManager rm;
        NettyServer server;

        Broker(int id) {
            this.id = id;
            scheduler = new ThreadScheduler(dev.insync.replication.core.time.Time.SYSTEM, "broker-" + id, 1, 5_000);
            dir = LogDirectory.open(tmp.resolve("broker-" + id), config.logConfig());
            client = new NetworkClient("broker-" + id + "-client", network, Optional.empty(), scheduler, 1, new Random(id));
            transport = new NettyReplicaTransport(id, config.numReplicaFetchers(),
                    brokerId -> Optional.ofNullable(addresses.get(brokerId)), client);
            rm = ReplicaManager.builder(id).config(config).logDirectory(dir).scheduler(scheduler).transport(transport)
                    .controller(controller).brokerEpoch(() -> 1L).metrics(new InMemoryReplicationMetrics()).build();
            startServer();
        }

        void startServer() {
            MetadataView view = new MetadataView() {
                @Override
                public List<BrokerEndpoint> brokers() {
                    List<BrokerEndpoint> out = new ArrayList<>();
                    new TreeMap<>(addresses).forEach((b, a) -> out.add(new BrokerEndpoint(b, a.getHostString(), a.getPort())));
                    return out;
                }

                @Override
                public int controllerId() {
                    return 0;
                }

                @Override
                public Collection<String> topicNames() {
                    return List.of(REP0.topic());
                }

                @Override
                public List<PartitionRegistration> partitions(String topic) {
                    PartitionRegistration p = controller.partition(REP0);
                    return topic.equals(REP0.topic()) && p != null ? List.of(p) : List.of();
                }
            };
            server = NettyServer.builder().name("broker-" + id).bindAddress(new InetSocketAddress("127.0.0.1", 0))
                    .config(network).scheduler(scheduler)
                    .apis(ReplicaApiHandlers.register(ServedApis.builder(), ReplicaService.of(rm), view).build())
                    .build();
            addresses.put(id, server.start());
        }

        void close() {
            rm.shutdown();
            server.close();
            transport.close();
            client.close();
            scheduler.close();
        }
    }

    @AfterEach
    void stopAll() throws Exception {
        brokers.values().forEach(Broker::close);
        for (AutoCloseable c : closeables) {
            c.close();
        }
        controllerThread.shutdownNow();
        assertThat(controllerThread.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    private void startCluster() {
        for (int id = 1; id <= 3; id++) {
            Broker b = new Broker(id);
            brokers.put(id, b);
            b.rm.startup();
            controller.addBroker(id, 1L, b.rm);
        }
        controller.setPartition(new PartitionRegistration(REP0, List.of(1, 2, 3), List.of(1, 2, 3), List.of(), List.of(),
                1, 0, 0, false));
    }

    private ClientConnection clientTo(int brokerId) {
        NetworkClient client = new NetworkClient("test-producer", network, Optional.empty(),
                new ThreadScheduler(), 1, new Random(9));
        closeables.add(client);
        return client.connection("producer-to-" + brokerId, () -> Optional.ofNullable(addresses.get(brokerId)), "producer");
    }

    private static ProduceRequest produce(int acks, String... values) {
        dev.insync.replication.log.record.SimpleRecord[] records = new dev.insync.replication.log.record.SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new dev.insync.replication.log.record.SimpleRecord(1000L + i, null,
                    values[i].getBytes(StandardCharsets.UTF_8));
        }
        return new ProduceRequest((short) acks, 10_000,
                Map.of(REP0, dev.insync.replication.log.record.MemoryRecords.withRecords(records)));
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

    private long leo(int broker) {
        return brokers.get(broker).dir.log(REP0).map(l -> l.logEndOffset()).orElse(-1L);
    }

    private long hw(int broker) {
        return brokers.get(broker).dir.log(REP0).map(l -> l.highWatermark()).orElse(-1L);
    }

    private byte[] segment(int broker) throws Exception {
        return Files.readAllBytes(tmp.resolve("broker-" + broker).resolve("rep-0").resolve("00000000000000000000.log"));
    }

    private ProduceResult send(ClientConnection c, ProduceRequest request) throws Exception {
        return c.send(Apis.PRODUCE, (short) 0, request).get(WAIT_MS, TimeUnit.MILLISECONDS).partitions().get(REP0);
    }

    @Test
    @DisplayName("NET-2 NET-3 FET-4 PRO-3 three brokers replicate over Netty on loopback: acks=all, identical logs, one HW, records sent from the segment files, each answer corked")
    void replicateOverLoopback() throws Exception {
        startCluster();
        ClientConnection producer = clientTo(1);
        ProduceResult r = send(producer, produce(-1, "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9"));
        assertThat(r.error()).isEqualTo(Errors.NONE);
        assertThat(r.baseOffset()).isZero();
        assertThat(r.leaderEpoch()).isZero();
        assertThat(hw(1)).isEqualTo(10);
        await("followers at LEO 10 and HW 10", () -> leo(2) == 10 && leo(3) == 10 && hw(2) == 10 && hw(3) == 10);
        assertThat(segment(2)).isEqualTo(segment(1));
        assertThat(segment(3)).isEqualTo(segment(1));
        // One connection per (leader, fetcher): each follower has one fetcher for leader 1.
        assertThat(brokers.get(2).transport.connectionCount()).isEqualTo(1);
        assertThat(brokers.get(3).transport.connectionCount()).isEqualTo(1);
        assertThat(brokers.get(1).transport.connectionCount()).isZero();
        // NET-3: the followers' fetches were answered with the record bytes sent from the leader's segment
        // files (a sendfile region and its guard per answer with records), not copied into its heap.
        assertThat(brokers.get(1).server.metrics().fileRegionsWritten()).isGreaterThanOrEqualTo(4);
        assertThat(brokers.get(1).server.metrics().recordsUnavailable()).isZero();
        if (brokers.get(1).server.isEpoll()) {
            // Each such answer left corked and was uncorked after its flush: one segment, one wake-up of the follower.
            assertThat(brokers.get(1).server.metrics().corkedFlushes()).isGreaterThanOrEqualTo(2);
        }

        // A consumer reads below the HW over the same protocol.
        FetchResponse consumed = producer.send(Apis.FETCH, (short) 0, new FetchRequest(FetchRequest.CONSUMER_REPLICA_ID,
                -1, 0, 1, 1 << 20, Map.of(REP0, new FetchRequest.PartitionData(0, -1, 1 << 20, OptionalInt.empty(),
                OptionalInt.empty())))).get(WAIT_MS, TimeUnit.MILLISECONDS);
        List<String> values = new ArrayList<>();
        for (RecordBatch batch : consumed.partitions().get(REP0).records().batches()) {
            for (Record rec : batch.records()) {
                values.add(StandardCharsets.UTF_8.decode(rec.value()).toString());
            }
        }
        assertThat(values).containsExactly("a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9");
        assertThat(consumed.partitions().get(REP0).highWatermark()).isEqualTo(10);

        // Metadata describes the partition as the controller committed it.
        MetadataResponse md = producer.send(Apis.METADATA, (short) 0, MetadataRequest.of(List.of("rep", "nope")))
                .get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertThat(md.topics().get(0).partitions().get(0).isr()).containsExactly(1, 2, 3);
        assertThat(md.topics().get(0).partitions().get(0).leader()).isEqualTo(1);
        assertThat(md.topics().get(1).error()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(md.brokers()).extracting(BrokerEndpoint::brokerId).containsExactly(1, 2, 3);
    }

    @Test
    @DisplayName("NET-1 CHS-1 DescribeReplicas over the wire: the leader describes its replica with its maximal ISR, HW, LEO and epoch cache, each follower its own")
    void describeReplicasOverTheWire() throws Exception {
        startCluster();
        ProduceResult r = send(clientTo(1), produce(-1, "a0", "a1", "a2"));
        assertThat(r.error()).isEqualTo(Errors.NONE);
        await("followers at HW 3", () -> hw(2) == 3 && hw(3) == 3);
        try (InsyncClient client = InsyncClient.builder(Map.of("bootstrap.servers",
                "127.0.0.1:" + addresses.get(1).getPort())).build()) {
            assertThat(client.describeReplicas(1).get(WAIT_MS, TimeUnit.MILLISECONDS)).containsExactly(
                    new ReplicaDescription(REP0, true, 0, List.of(1, 2, 3), 3, 3, 0, List.of(new EpochEntry(0, 0))));
            for (int follower : List.of(2, 3)) {
                assertThat(client.describeReplicas(follower).get(WAIT_MS, TimeUnit.MILLISECONDS)).containsExactly(
                        new ReplicaDescription(REP0, false, 0, List.of(), 3, 3, 0, List.of(new EpochEntry(0, 0))));
            }
            assertThat(client.describeReplicas(7)).failsWithin(WAIT_MS, TimeUnit.MILLISECONDS)
                    .withThrowableThat().withMessageContaining("No broker names broker 7");
        }
    }

    @Test
    @DisplayName("NET-2 FOL-6 the leader's listener goes away and comes back on another port: fetchers fail, back off, reconnect and catch up")
    void lostLinkAndReconnect() throws Exception {
        startCluster();
        assertThat(send(clientTo(1), produce(-1, "b0", "b1")).error()).isEqualTo(Errors.NONE);
        Broker leader = brokers.get(1);
        int oldPort = addresses.get(1).getPort();
        leader.server.close();
        // Written on the leader while no follower can reach it (acks=1 completes on the local append).
        assertThat(leader.rm.produce(produce(1, "b2", "b3", "b4").partitions(), Acks.LEADER, 10_000).get(WAIT_MS,
                TimeUnit.MILLISECONDS).get(REP0).baseOffset()).isEqualTo(2);
        assertThat(leo(2)).isEqualTo(2);
        assertThat(leo(3)).isEqualTo(2);
        leader.startServer(); // a new ephemeral port, found through the address lookup on reconnect
        assertThat(addresses.get(1).getPort()).isNotEqualTo(oldPort);
        await("followers caught up after reconnecting", () -> leo(2) == 5 && leo(3) == 5 && hw(2) == 5 && hw(3) == 5);
        assertThat(segment(2)).isEqualTo(segment(1));
        assertThat(segment(3)).isEqualTo(segment(1));
        assertThat(send(clientTo(1), produce(-1, "b5")).baseOffset()).isEqualTo(5);
    }

    @Test
    @DisplayName("FOL-8 FET-3 LDR-2 a new leader over Netty: the old leader's unreplicated tail is truncated by divergingEpoch and it rejoins the ISR")
    void leaderChangeTruncatesOverTheWire() throws Exception {
        startCluster();
        assertThat(send(clientTo(1), produce(-1, "ok-1", "ok-2")).error()).isEqualTo(Errors.NONE);
        await("followers at 2", () -> hw(2) == 2 && hw(3) == 2);
        Broker old = brokers.get(1);
        old.server.close();
        addresses.remove(1);
        // lost-*: acknowledged with acks=1 on broker 1 only.
        assertThat(old.rm.produce(produce(1, "lost-1", "lost-2", "lost-3").partitions(), Acks.LEADER, 10_000)
                .get(WAIT_MS, TimeUnit.MILLISECONDS).get(REP0).error()).isEqualTo(Errors.NONE);
        assertThat(leo(1)).isEqualTo(5);
        // The controller elects broker 2 in epoch 1 (ISR 2,3); broker 1 becomes its follower.
        controller.setPartition(new PartitionRegistration(REP0, List.of(1, 2, 3), List.of(2, 3), List.of(), List.of(),
                2, 1, 1, false));
        ProduceResult fresh = send(clientTo(2), produce(-1, "new-1", "new-2", "new-3"));
        assertThat(fresh.error()).isEqualTo(Errors.NONE);
        assertThat(fresh.baseOffset()).isEqualTo(2);
        assertThat(fresh.leaderEpoch()).as("LOG-4: the epoch the new leader stamped, over the wire").isEqualTo(1);
        await("broker 1 truncated its tail and caught up with broker 2", () -> leo(1) == 5 && hw(1) == 5
                && java.util.Arrays.equals(segmentUnchecked(1), segmentUnchecked(2)));
        await("broker 1 back in the ISR", () -> controller.partition(REP0).isr().containsAll(List.of(1, 2, 3)));
        assertThat(brokers.get(1).dir.log(REP0).orElseThrow().leaderEpochCache().epochEntries())
                .containsExactly(new EpochEntry(0, 0), new EpochEntry(1, 2))
                .isEqualTo(brokers.get(2).dir.log(REP0).orElseThrow().leaderEpochCache().epochEntries());
    }

    private byte[] segmentUnchecked(int broker) {
        try {
            return segment(broker);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
