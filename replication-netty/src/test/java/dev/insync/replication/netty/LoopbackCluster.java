package dev.insync.replication.netty;

import dev.insync.replication.core.config.ReplicationConfig;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.metrics.InMemoryReplicationMetrics;
import dev.insync.replication.core.server.ReplicaManager;
import dev.insync.replication.core.time.ThreadScheduler;
import dev.insync.replication.core.time.Time;
import dev.insync.replication.log.LogDirectory;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.netty.client.NettyReplicaTransport;
import dev.insync.replication.netty.client.NetworkClient;
import dev.insync.replication.netty.config.NetworkConfig;
import dev.insync.replication.netty.protocol.BrokerEndpoint;
import dev.insync.replication.netty.server.MetadataView;
import dev.insync.replication.netty.server.NettyServer;
import dev.insync.replication.netty.server.ReplicaApiHandlers;
import dev.insync.replication.netty.server.ReplicaService;
import dev.insync.replication.netty.server.ServedApis;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Brokers with real ReplicaManagers, log directories, NettyServers and NettyReplicaTransports on
 * loopback, and the hand-wired {@link InTestController}; each broker answers Metadata from the
 * controller's partitions and the live brokers' addresses (what a client sees). Real time: waits are
 * on conditions with a deadline.
 */
public final class LoopbackCluster implements AutoCloseable {

    public static final long WAIT_MS = 30_000;

    private final Path dir;
    private final ReplicationConfig config = ReplicationConfig.builder().replicaLagTimeMaxMs(30_000)
            .replicaFetchBackoffMs(100).build();
    private final NetworkConfig network = NetworkConfig.builder().numNetworkThreads(1).numIoThreads(2)
            .requestTimeoutMs(5_000).build();
    private final ExecutorService controllerThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "controller"));
    private final InTestController controller = new InTestController(controllerThread);
    private final Map<Integer, InetSocketAddress> addresses = new ConcurrentHashMap<>();
    private final Map<Integer, Broker> brokers = new TreeMap<>();
    private final Set<TopicPartition> topicPartitions = ConcurrentHashMap.newKeySet();

    /** One broker process's parts, in one JVM. */
    public final class Broker {
        public final int id;
        final ThreadScheduler scheduler;
        public final LogDirectory logDir;
        final NetworkClient client;
        final NettyReplicaTransport transport;
        public final ReplicaManager rm;
        NettyServer server;
        boolean closed;

        Broker(int id) {
            this.id = id;
            scheduler = new ThreadScheduler(Time.SYSTEM, "broker-" + id, 1, 5_000);
            logDir = LogDirectory.open(dir.resolve("broker-" + id), config.logConfig());
            client = new NetworkClient("broker-" + id + "-client", network, Optional.empty(), scheduler, 1, new Random(id));
            transport = new NettyReplicaTransport(id, config.numReplicaFetchers(),
                    brokerId -> Optional.ofNullable(addresses.get(brokerId)), client);
            rm = ReplicaManager.builder(id).config(config).logDirectory(logDir).scheduler(scheduler).transport(transport)
                    .controller(controller).brokerEpoch(() -> 1L).metrics(new InMemoryReplicationMetrics()).build();
            startServer();
        }

        /** Starts listening (again) on a new ephemeral port. */
        public void startServer() {
            MetadataView view = new MetadataView() {
                @Override
                public List<BrokerEndpoint> brokers() {
                    List<BrokerEndpoint> out = new ArrayList<>();
                    new TreeMap<>(addresses).forEach((b, a) -> out.add(new BrokerEndpoint(b, a.getHostString(), a.getPort())));
                    return out;
                }

                @Override
                public int controllerId() {
                    return -1;
                }

                @Override
                public Collection<String> topicNames() {
                    return topicPartitions.stream().map(TopicPartition::topic).distinct().sorted().toList();
                }

                @Override
                public List<PartitionRegistration> partitions(String topic) {
                    return topicPartitions.stream().filter(tp -> tp.topic().equals(topic))
                            .sorted(java.util.Comparator.comparingInt(TopicPartition::partition))
                            .map(controller::partition).filter(java.util.Objects::nonNull).toList();
                }
            };
            server = NettyServer.builder().name("broker-" + id).bindAddress(new InetSocketAddress("127.0.0.1", 0))
                    .config(network).scheduler(scheduler)
                    .apis(ReplicaApiHandlers.register(ServedApis.builder(), ReplicaService.of(rm), view).build())
                    .build();
            addresses.put(id, server.start());
        }

        /** Stops listening; the broker is gone from Metadata answers (its replica manager keeps running). */
        public void stopServer() {
            addresses.remove(id);
            server.close();
        }

        /** This broker's log of {@code tp}: LEO, or -1 without a log. */
        public long leo(TopicPartition tp) {
            return logDir.log(tp).map(l -> l.logEndOffset()).orElse(-1L);
        }

        public long hw(TopicPartition tp) {
            return logDir.log(tp).map(l -> l.highWatermark()).orElse(-1L);
        }

        /** Stops the whole broker (as a process that exits). */
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            addresses.remove(id);
            rm.shutdown();
            server.close();
            transport.close();
            client.close();
            scheduler.close();
        }
    }

    /** {@code count} brokers with ids 1..count, started and registered. */
    public LoopbackCluster(Path dir, int count) {
        this.dir = dir;
        for (int id = 1; id <= count; id++) {
            Broker b = new Broker(id);
            brokers.put(id, b);
            b.rm.startup();
            controller.addBroker(id, 1L, b.rm);
        }
    }

    public Broker broker(int id) {
        return brokers.get(id);
    }

    public InTestController controller() {
        return controller;
    }

    /** Publishes a partition (new or changed) to every broker and to Metadata answers. */
    public void setPartition(PartitionRegistration p) {
        topicPartitions.add(p.topicPartition());
        controller.setPartition(p);
    }

    /** {@code bootstrap.servers} for a client: every broker listening now. */
    public String bootstrapServers() {
        return String.join(",", new TreeMap<>(addresses).values().stream()
                .map(a -> a.getHostString() + ":" + a.getPort()).toList());
    }

    public static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Not within " + WAIT_MS + " ms: " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    @Override
    public void close() throws InterruptedException {
        brokers.values().forEach(Broker::close);
        controllerThread.shutdownNow();
        if (!controllerThread.awaitTermination(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("The in-test controller did not stop");
        }
    }
}
