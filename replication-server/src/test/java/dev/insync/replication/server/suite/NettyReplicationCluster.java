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

package dev.insync.replication.server.suite;

import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.controller.api.AlterTopicConfigRequest;
import dev.insync.replication.controller.ControllerConfig;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.core.time.ThreadScheduler;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.FileSync;
import dev.insync.replication.log.Log;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.Record;
import dev.insync.replication.log.record.RecordBatch;
import dev.insync.replication.log.record.SimpleRecord;
import dev.insync.replication.netty.client.ClientConnection;
import dev.insync.replication.netty.client.NettyControllerApi;
import dev.insync.replication.netty.client.NetworkClient;
import dev.insync.replication.netty.config.NetworkConfig;
import dev.insync.replication.netty.protocol.Apis;
import dev.insync.replication.netty.protocol.ProduceRequest;
import dev.insync.replication.server.ClusterLayout;
import dev.insync.replication.server.InsyncServer;
import dev.insync.replication.testkit.cluster.ProduceOutcome;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * {@link ReplicationCluster} on real servers: one Ratis controller node and three brokers, each an
 * {@link InsyncServer} built from the properties {@code insync broker --config} reads, in this JVM,
 * over loopback TCP, in real time. Every link a process dials (broker to broker, broker to
 * controller) and the suite's client links to brokers go through a {@link FreezableProxy} (named by
 * {@code insync.connect.overrides}), which is how {@link #pause} and {@link #cutFetches} act on a
 * real network. The suite's client speaks the wire protocol itself (one record per Produce, no
 * retries), as the testkit's TestProducer and TestConsumer do in memory.
 */
final class NettyReplicationCluster implements ReplicationCluster {

    /** Settings both clusters run with (the in-memory one takes them as they are). */
    static final Map<String, Object> COMMON_BROKER_PROPERTIES = Map.of(
            "broker.heartbeat.interval.ms", 300,
            "replica.fetch.wait.max.ms", 200,
            "replica.fetch.backoff.ms", 200,
            // A fetch lost to an in-memory cut is given up after wait + this (a frozen TCP link delivers it
            // on thaw instead): short, so that a healed follower fetches again within a second or five.
            "request.timeout.ms", 5_000,
            "replica.high.watermark.checkpoint.interval.ms", 500);
    /** The client-side bound beyond a request's own timeout (as TestProducer's slack). */
    private static final long CLIENT_SLACK_MS = 500;
    /** Bound of a start, a restart or an admin call. */
    private static final long START_TIMEOUT_MS = 30_000;
    private static final int CONTROLLER_ID = ClusterLayout.FIRST_CONTROLLER_ID;
    private static final int CLIENT = 0;

    private final ClusterLayout layout;
    private final Settings settings;
    private final Map<Integer, InsyncServer> servers = new TreeMap<>();
    /** (from, to) → the proxy of that link; from {@link #CLIENT} is the suite's client. */
    private final Map<List<Integer>, FreezableProxy> proxies = new LinkedHashMap<>();
    private final ThreadScheduler clientScheduler = new ThreadScheduler();
    private final NetworkClient client;
    private final Map<Integer, ClientConnection> connections = new TreeMap<>();
    private final NettyControllerApi admin;
    private final long startNanos = System.nanoTime();
    /** The leader {@link #describe} last named per partition, for the suite's client while the controller is down. */
    private final Map<TopicPartition, Integer> lastLeaders = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile boolean controllerHalted;

    NettyReplicationCluster(Settings settings, Path root) {
        this.settings = settings;
        this.layout = new ClusterLayout(root, 1, 3);
        this.client = new NetworkClient("suite-client", NetworkConfig.builder().requestTimeoutMs(10_000).build(),
                Optional.empty(), clientScheduler, 1, new Random(7));
        try {
            List<Integer> brokers = layout.brokerIds();
            for (int from : brokers) {
                for (int to : brokers) {
                    if (from != to) {
                        proxy(from, to, layout.brokerListener(to));
                    }
                }
                proxy(from, CONTROLLER_ID, layout.controllerListeners().get(CONTROLLER_ID));
                proxy(CLIENT, from, layout.brokerListener(from));
            }
            start(controllerProperties());
            for (int id : brokers) {
                start(brokerProperties(id));
            }
            for (InsyncServer s : servers.values()) {
                s.ready().get(START_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            }
            // Serving comes before unfencing (the controller unfences a broker caught up with metadata): a topic
            // created in between would leave the fenced broker out of its first ISR. InMemoryCluster waits too.
            brokers.forEach(this::awaitUnfenced);
        } catch (Exception e) {
            close();
            throw new IllegalStateException("The loopback cluster did not start", e);
        }
        InetSocketAddress controller = layout.controllerListeners().get(CONTROLLER_ID);
        this.admin = new NettyControllerApi(CONTROLLER_ID,
                () -> Optional.of(new InetSocketAddress(controller.getHostString(), controller.getPort())), client,
                "suite-admin");
    }

    private void proxy(int from, int to, InetSocketAddress target) throws IOException {
        proxies.put(List.of(from, to), new FreezableProxy(from + "-" + to, target));
    }

    private Map<String, String> brokerProperties(int id) {
        Map<String, String> p = new LinkedHashMap<>(layout.broker(id));
        p.put("replica.lag.time.max.ms", Long.toString(settings.replicaLagTimeMaxMs()));
        p.put("broker.session.timeout.ms", Long.toString(settings.sessionTimeoutMs()));
        COMMON_BROKER_PROPERTIES.forEach((k, v) -> p.put(k, v.toString()));
        // Every link this broker dials goes through its proxy.
        p.put("insync.connect.overrides", proxies.entrySet().stream().filter(e -> e.getKey().get(0) == id)
                .map(e -> e.getKey().get(1) + "@127.0.0.1:" + e.getValue().port()).collect(Collectors.joining(",")));
        return p;
    }

    private InsyncServer start(Map<String, String> props) {
        InsyncServer s = InsyncServer.builder(props).fileSync(dir -> FileSync.withoutFsync()).build();
        servers.put(s.nodeId(), s);
        s.start();
        return s;
    }

    private Map<String, String> controllerProperties() {
        Map<String, String> p = layout.controller(CONTROLLER_ID);
        p.put("broker.session.timeout.ms", Long.toString(settings.sessionTimeoutMs()));
        return p;
    }

    @Override
    public List<Integer> brokerIds() {
        return layout.brokerIds();
    }

    // ------------------------------------------------------------------------------------ admin

    @Override
    public void createTopic(String topic, List<Integer> replicas, Map<String, String> configs) {
        call(admin.createTopic(CreateTopicRequest.withAssignment(topic, List.of(List.copyOf(replicas)), configs)));
        TopicPartition tp = new TopicPartition(topic, 0);
        awaitCondition("a leader of " + tp + " acting as leader", START_TIMEOUT_MS, () -> {
            int leader = describe(tp).leader();
            return leader != PartitionRegistration.NO_LEADER
                    && partitionOn(leader, tp).map(Partition::isLeader).orElse(false);
        });
    }

    @Override
    public void setMinInsyncReplicas(String topic, int minInsyncReplicas) {
        call(admin.alterTopicConfig(new AlterTopicConfigRequest(topic, ControllerConfig.MIN_INSYNC_REPLICAS,
                Integer.toString(minInsyncReplicas))));
    }

    @Override
    public PartitionRegistration describe(TopicPartition tp) {
        if (controllerHalted) {
            throw new IllegalStateException("The controller is halted: no describe until restartController");
        }
        PartitionRegistration p = call(admin.describeTopic(tp.topic())).partitions().get(tp.partition());
        lastLeaders.put(tp, p.leader());
        return p;
    }

    /** The leader the suite's client sends to: the controller's now, or the last it named while it is down. */
    private int leaderForClient(TopicPartition tp) {
        return controllerHalted ? lastLeaders.getOrDefault(tp, PartitionRegistration.NO_LEADER) : describe(tp).leader();
    }

    private static <T> T call(java.util.concurrent.CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().get(START_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("Interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("Controller call failed: " + e, e);
        }
    }

    // ---------------------------------------------------------------------------------- clients

    private synchronized ClientConnection connectionTo(int brokerId) {
        FreezableProxy p = proxies.get(List.of(CLIENT, brokerId));
        return connections.computeIfAbsent(brokerId, id -> client.connection("suite-to-" + id,
                () -> Optional.of(new InetSocketAddress("127.0.0.1", p.port())), "suite-client"));
    }

    @Override
    public CompletableFuture<ProduceOutcome> produce(TopicPartition tp, String value, int acks, long timeoutMs) {
        int leader = leaderForClient(tp);
        if (leader == PartitionRegistration.NO_LEADER) {
            return CompletableFuture.completedFuture(ProduceOutcome.failed(Errors.NOT_LEADER_OR_FOLLOWER));
        }
        MemoryRecords records = MemoryRecords.withRecords(
                new SimpleRecord(System.currentTimeMillis(), null, value.getBytes(StandardCharsets.UTF_8)));
        ProduceRequest request = new ProduceRequest((short) acks, (int) timeoutMs, Map.of(tp, records));
        CompletableFuture<ProduceOutcome> outcome = connectionTo(leader)
                .send(Apis.PRODUCE, Apis.PRODUCE.maxVersion(), request)
                .thenApply(response -> {
                    if (response == null) { // acks=0: no answer
                        return new ProduceOutcome(Errors.NONE, -1L, -1);
                    }
                    ProduceResult r = response.partitions().get(tp);
                    return r.error() == Errors.NONE ? new ProduceOutcome(Errors.NONE, r.baseOffset(), r.leaderEpoch())
                            : ProduceOutcome.failed(r.error());
                });
        return outcome.completeOnTimeout(ProduceOutcome.failed(Errors.REQUEST_TIMED_OUT), timeoutMs + CLIENT_SLACK_MS,
                TimeUnit.MILLISECONDS).exceptionally(e -> ProduceOutcome.failed(Errors.NETWORK_EXCEPTION));
    }

    @Override
    public List<String> consume(TopicPartition tp, long fromOffset) {
        int leader = leaderForClient(tp);
        List<String> values = new ArrayList<>();
        long offset = fromOffset;
        while (true) {
            FetchRequest request = FetchRequest.consumer()
                    .partition(tp, FetchRequest.PartitionData.at(offset, 1024 * 1024)).build();
            FetchResponse response = call(connectionTo(leader).send(Apis.FETCH, Apis.FETCH.maxVersion(), request));
            FetchResponse.PartitionData data = response.partitionData(0);
            if (data.error() != Errors.NONE) {
                throw new AssertionError("Consumer fetch of " + tp + " at " + offset + " from broker " + leader + ": "
                        + data.error());
            }
            List<RecordBatch> batches = data.records().toMemoryRecords().batches();
            if (batches.isEmpty()) {
                return values;
            }
            for (RecordBatch batch : batches) {
                for (Record r : batch.records()) {
                    if (r.offset() >= offset) {
                        values.add(text(r.value()));
                    }
                }
                offset = batch.nextOffset();
            }
        }
    }

    static String text(ByteBuffer b) {
        ByteBuffer d = b.duplicate();
        byte[] bytes = new byte[d.remaining()];
        d.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    // ----------------------------------------------------------------------------- observations

    private Optional<InsyncServer> running(int brokerId) {
        InsyncServer s = servers.get(brokerId);
        return s == null || s.stopped().isDone() ? Optional.empty() : Optional.of(s);
    }

    @Override
    public Optional<Partition> partitionOn(int brokerId, TopicPartition tp) {
        return running(brokerId).flatMap(InsyncServer::broker).filter(b -> b.serving().isDone())
                .flatMap(b -> b.replicaManager().partition(tp));
    }

    @Override
    public Optional<Log> logOn(int brokerId, TopicPartition tp) {
        return running(brokerId).flatMap(InsyncServer::broker).filter(b -> b.serving().isDone()).flatMap(b -> b.log(tp));
    }

    @Override
    public int parkedFetches(int brokerId) {
        return running(brokerId).flatMap(InsyncServer::broker).filter(b -> b.serving().isDone())
                .map(b -> b.replicaManager().pendingFetchCount()).orElse(0);
    }

    @Override
    public Path logDir(int brokerId) {
        return layout.brokerLogDir(brokerId);
    }

    // ----------------------------------------------------------------------------------- faults

    @Override
    public void pause(int brokerId) {
        proxies.forEach((link, p) -> {
            if (link.contains(brokerId)) {
                p.freeze();
            }
        });
    }

    @Override
    public void resume(int brokerId) {
        proxies.forEach((link, p) -> {
            if (link.contains(brokerId)) {
                p.thaw();
            }
        });
    }

    private void forBrokerLinks(int brokerId, java.util.function.Consumer<FreezableProxy> action) {
        proxies.forEach((link, p) -> {
            boolean brokerToBroker = link.get(0) != CLIENT && link.get(1) != CONTROLLER_ID;
            if (brokerToBroker && link.contains(brokerId)) {
                action.accept(p);
            }
        });
    }

    @Override
    public void cutFetches(int brokerId) {
        forBrokerLinks(brokerId, FreezableProxy::freeze);
    }

    @Override
    public void healFetches(int brokerId) {
        forBrokerLinks(brokerId, FreezableProxy::thaw);
    }

    @Override
    public void isolate(int brokerId) {
        pause(brokerId); // over TCP a blackholed link holds its bytes, as a frozen one does; the broker runs on
    }

    @Override
    public void rejoin(int brokerId) {
        resume(brokerId);
    }

    @Override
    public void haltController() {
        controllerHalted = true;
        servers.get(CONTROLLER_ID).halt();
    }

    @Override
    public void restartController() {
        InsyncServer s = start(controllerProperties());
        try {
            s.ready().get(START_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("Interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("The controller did not serve again within " + START_TIMEOUT_MS + " ms", e);
        }
        controllerHalted = false;
        // Serving its listener comes before leading its (one-node) quorum: wait until it answers.
        lastLeaders.keySet().stream().findFirst().ifPresent(tp -> awaitCondition("the controller answering again",
                START_TIMEOUT_MS, () -> {
                    try {
                        describe(tp);
                        return true;
                    } catch (AssertionError e) {
                        return false;
                    }
                }));
    }

    @Override
    public void halt(int brokerId) {
        servers.get(brokerId).halt();
    }

    @Override
    public void restart(int brokerId) {
        if (!servers.get(brokerId).stopped().isDone()) {
            throw new IllegalStateException("Broker " + brokerId + " is running; stop it before a restart");
        }
        InsyncServer s = start(brokerProperties(brokerId));
        try {
            s.ready().get(START_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("Interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("Broker " + brokerId + " did not serve again within " + START_TIMEOUT_MS + " ms", e);
        }
        awaitUnfenced(brokerId);
    }

    private void awaitUnfenced(int brokerId) {
        awaitCondition("broker " + brokerId + " unfenced", START_TIMEOUT_MS, () -> running(brokerId)
                .flatMap(InsyncServer::broker).map(b -> !b.lifecycle().isFenced()).orElse(false));
    }

    @Override
    public boolean controlledShutdown(int brokerId) {
        return servers.get(brokerId).controlledShutdown();
    }

    // ------------------------------------------------------------------------------------- time

    @Override
    public long nowMs() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    @Override
    public void runFor(long ms) {
        // Observing that nothing happens for a while: real time has to pass.
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
    }

    @Override
    public void awaitCondition(String what, long boundMs, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(boundMs);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Not within " + boundMs + " ms: " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10)); // re-check; the servers run on their threads
        }
    }

    @Override
    public <T> T await(CompletableFuture<T> future, long boundMs) {
        try {
            return future.get(boundMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("Interrupted", e);
        } catch (ExecutionException e) {
            throw new AssertionError("Failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("Not completed within " + boundMs + " ms", e);
        }
    }

    @Override
    public void close() {
        // Thawed first: a frozen link would hold a closing broker's last requests.
        proxies.values().forEach(FreezableProxy::thaw);
        if (admin != null) {
            admin.close();
        }
        connections.values().forEach(ClientConnection::close);
        client.close();
        clientScheduler.close();
        // Brokers before the controller, as an operator stops them.
        servers.values().forEach(InsyncServer::close); // ids 1..3, then the controller (101)
        proxies.values().forEach(FreezableProxy::close);
    }

    @Override
    public String toString() {
        return "InsyncServers over loopback TCP (real time)";
    }
}
