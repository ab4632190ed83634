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

import dev.insync.replication.broker.BrokerConfig;
import dev.insync.replication.broker.InsyncBroker;
import dev.insync.replication.controller.ratis.RatisControllerNode;
import dev.insync.replication.core.metadata.BrokerRegistration;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.core.time.ThreadScheduler;
import dev.insync.replication.core.time.Time;
import dev.insync.replication.log.FileSync;
import dev.insync.replication.netty.client.NettyControllerApi;
import dev.insync.replication.netty.client.NettyReplicaTransport;
import dev.insync.replication.netty.client.NetworkClient;
import dev.insync.replication.netty.server.ControllerApiHandlers;
import dev.insync.replication.netty.server.NettyServer;
import dev.insync.replication.netty.server.ServedApis;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * One Insync server process, assembled from Kafka-named properties: what {@code insync broker
 * --config FILE} runs, and what a test or an embedder starts in a JVM. {@code process.roles} says
 * what it runs:
 * <ul>
 *   <li>{@code broker}: an {@link InsyncBroker} bound to TCP: a {@link NettyServer} on
 *       {@code listeners} serving its Fetch, Produce and Metadata once it can serve, a
 *       {@link NettyReplicaTransport} for its fetchers, and one {@link NettyControllerApi} per
 *       controller node of {@code insync.controller.endpoints}. The broker registers its
 *       {@code advertised.listeners} (default: {@code listeners} as bound) and every broker learns
 *       the others' from metadata (LDR-4): fetchers dial a leader at the endpoint its current
 *       registration carries, and Metadata answers list those endpoints, so no process needs an
 *       address table. The deprecated {@code insync.broker.addresses}, where it has an entry, still
 *       wins over metadata;</li>
 *   <li>{@code controller}: a {@link RatisControllerNode} (a {@code QuorumController} on a Ratis
 *       metadata log, its peers in {@code controller.quorum.voters}) whose apis the same listener
 *       serves ({@link ControllerApiHandlers});</li>
 *   <li>{@code broker,controller}: both, on one listener (their api keys differ).</li>
 * </ul>
 * Every connection this process opens to node {@code n} goes to {@code insync.connect.overrides}'
 * entry for {@code n} when there is one (a test harness's proxy), else to the addresses above.
 *
 * <pre>{@code
 * InsyncServer server = InsyncServer.builder(props).build();
 * server.start().get(30, SECONDS);              // listening; the broker (if any) serves
 * System.out.println(server.readinessLine());   // insync: ready node.id=1 roles=broker listeners=PLAINTEXT://...
 * ...
 * server.controlledShutdown();                  // LDR-4, then a clean stop with .kafka_cleanshutdown
 * }</pre>
 *
 * <p>One object is one process life: it starts once. {@link #close()} stops without controlled
 * shutdown (no marker); {@link #halt()} stops as {@code kill -9} leaves the broker's files.
 */
public final class InsyncServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(InsyncServer.class);

    /** Event loop threads of the process's client side (fetchers and controller connections). */
    static final int CLIENT_THREADS = 2;
    /** How often readiness checks whether the broker is unfenced yet. */
    static final long UNFENCED_CHECK_INTERVAL_MS = 20L;
    /** Bound of each wait while stopping. */
    static final long CLOSE_TIMEOUT_MS = 10_000L;

    private final ServerConfig config;
    private final Function<Path, FileSync> fileSyncs;
    private final Object lock = new Object();
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();

    // Guarded by lock.
    private boolean started;
    private boolean stopping;
    // Set by start().
    private volatile ThreadScheduler networkScheduler;
    private volatile NetworkClient client;
    private volatile RatisControllerNode controllerNode;
    private volatile NettyServer server;
    private volatile Listener boundListener;
    private volatile NettyReplicaTransport transport;
    private final List<NettyControllerApi> controllerApis = new CopyOnWriteArrayList<>();
    /** Assembling and stopping exclude each other: a SIGTERM during start stops what start built, all of it. */
    private final Object assembly = new Object();
    private volatile InsyncBroker broker;

    private InsyncServer(Builder b) {
        this.config = b.config;
        this.fileSyncs = b.fileSyncs;
    }

    /**
     * A builder from Kafka-named properties (see {@link ServerConfig#fromProperties}).
     *
     * @throws IllegalArgumentException naming a missing or bad property
     */
    public static Builder builder(Map<String, ?> properties) {
        return new Builder(ServerConfig.fromProperties(properties));
    }

    /** A builder from parsed settings. */
    public static Builder builder(ServerConfig config) {
        return new Builder(Objects.requireNonNull(config, "config"));
    }

    /**
     * Starts every role: the controller node first (it must answer the brokers, its own too), then
     * the listener, then the broker.
     *
     * @return completes when the process is ready: the listener is bound and, with the broker role,
     *         the broker serves (registered, initial metadata load applied) and its applied metadata
     *         shows it unfenced; exceptionally if the broker stops or fails first
     * @throws IllegalStateException if started before
     * @throws UncheckedIOException  if the controller's metadata log cannot start
     * @throws RuntimeException      if the listener cannot bind or a log directory does not open;
     *                               nothing stays running then
     */
    public CompletableFuture<Void> start() {
        synchronized (lock) {
            if (started) {
                throw new IllegalStateException("Server " + config.nodeId() + " was started before; a restart is a new InsyncServer");
            }
            started = true;
        }
        try {
            synchronized (assembly) {
                assemble();
            }
        } catch (RuntimeException e) {
            synchronized (lock) {
                stopping = true;
            }
            stopEverything(Mode.CLOSE);
            ready.completeExceptionally(e);
            stopped.complete(null);
            throw e;
        }
        return ready;
    }

    private void assemble() {
        int id = config.nodeId();
        networkScheduler = new ThreadScheduler(Time.SYSTEM, "node-" + id + "-network", 1, CLOSE_TIMEOUT_MS);
        client = new NetworkClient("node-" + id + "-client", config.network(), config.ssl(), networkScheduler,
                CLIENT_THREADS, new Random());
        ServedApis.Builder apis = ServedApis.builder();
        if (config.has(ProcessRole.CONTROLLER)) {
            try {
                controllerNode = RatisControllerNode.start(config.controller().orElseThrow());
            } catch (IOException e) {
                throw new UncheckedIOException("Controller node " + id + " cannot start its metadata log in "
                        + config.controller().orElseThrow().metadataLogDir() + ": " + e.getMessage(), e);
            }
            ControllerApiHandlers.register(apis, controllerNode.controllerApi());
        }
        BrokerApiGate gate = null;
        if (config.has(ProcessRole.BROKER)) {
            gate = new BrokerApiGate(id, this::advertisedAddress);
            gate.register(apis);
        }
        NettyServer.Builder sb = NettyServer.builder().name("node-" + id)
                .bindAddress(new InetSocketAddress(config.listener().host(), config.listener().port()))
                .config(config.network()).apis(apis.build()).scheduler(networkScheduler)
                .principals(config.principals());
        config.ssl().ifPresent(sb::ssl);
        server = sb.build();
        InetSocketAddress bound = server.start();
        boundListener = config.listener().withPort(bound.getPort());
        if (gate == null) {
            LOG.info("Node {} ready: roles {}, listener {}", id, config.rolesString(), boundListener);
            ready.complete(null);
            return;
        }
        BrokerConfig brokerConfig = config.broker().orElseThrow();
        transport = new NettyReplicaTransport(id, brokerConfig.replication().numReplicaFetchers(),
                brokerId -> dialAddressOfBroker(brokerId).map(InsyncServer::resolved), client);
        Map<Integer, NettyControllerApi> endpoints = new TreeMap<>();
        for (int controllerId : config.controllerEndpoints().asMap().keySet()) {
            NettyControllerApi api = new NettyControllerApi(controllerId,
                    () -> config.dialAddressOfController(controllerId).map(InsyncServer::resolved), client, "broker-" + id);
            endpoints.put(controllerId, api);
            controllerApis.add(api);
        }
        Listener advertised = config.advertised(boundListener);
        if (!config.brokerAddresses().isEmpty()) {
            LOG.warn("Node {}: {} is deprecated: brokers register their {} (here {}) and find each other in metadata;"
                    + " its entries still win over the registered endpoints", id, ServerConfig.BROKER_ADDRESSES,
                    ServerConfig.ADVERTISED_LISTENERS, advertised);
        }
        broker = InsyncBroker.builder(brokerConfig).transport(transport).controllerEndpoints(endpoints)
                .advertisedEndpoints(List.of(advertised.endpoint()))
                .requestServer(gate).fileSync(fileSyncs).build();
        InsyncBroker b = broker;
        b.stopped().whenComplete((v, e) -> onBrokerStopped(b));
        b.start().whenComplete((v, e) -> {
            if (e == null) {
                awaitUnfenced(b);
            } else {
                ready.completeExceptionally(e);
            }
        });
    }

    /**
     * LDR-4: the broker serves once its initial load is applied and then asks to be unfenced; the
     * process is ready when its own applied metadata shows it unfenced, so that a harness that waits
     * for every readiness line finds every broker active (a topic created then has every replica
     * eligible). Checked every {@value #UNFENCED_CHECK_INTERVAL_MS} ms until then or until it stops.
     */
    private void awaitUnfenced(InsyncBroker b) {
        int id = config.nodeId();
        Scheduler.Cancellable[] task = new Scheduler.Cancellable[1];
        Runnable check = () -> {
            boolean unfenced = b.metadataView().broker(id).map(r -> !r.fenced()).orElse(false);
            if (unfenced || ready.isDone()) {
                if (unfenced && ready.complete(null)) {
                    LOG.info("Node {} ready: roles {}, listener {}", id, config.rolesString(), boundListener);
                }
                synchronized (task) {
                    if (task[0] != null) {
                        task[0].cancel();
                    }
                }
            }
        };
        synchronized (task) {
            task[0] = networkScheduler.schedulePeriodically(networkScheduler.newSerialExecutor("node-" + id + "-ready"),
                    check, 0, UNFENCED_CHECK_INTERVAL_MS);
        }
    }

    /**
     * Where this process dials broker {@code brokerId}, asked on every connection attempt: its
     * {@code insync.connect.overrides} entry, else its {@code insync.broker.addresses} entry, else
     * (LDR-4) the endpoint its current registration advertised, as this broker's applied metadata
     * shows it, so a broker restarted on another port is reached there once it re-registered.
     */
    private Optional<InetSocketAddress> dialAddressOfBroker(int brokerId) {
        Optional<InetSocketAddress> configured = config.dialAddressOfBroker(brokerId);
        if (configured.isPresent()) {
            return configured;
        }
        InsyncBroker b = broker;
        return b == null ? Optional.empty() : b.metadataView().broker(brokerId).flatMap(this::registeredAddress);
    }

    /**
     * Where clients reach a broker, for Metadata answers: its {@code insync.broker.addresses} entry
     * if it has one, else the endpoint it registered (LDR-4); empty for a broker that registered none.
     */
    private Optional<InetSocketAddress> advertisedAddress(BrokerRegistration registration) {
        Optional<InetSocketAddress> configured = config.brokerAddresses().address(registration.brokerId());
        return configured.isPresent() ? configured : registeredAddress(registration);
    }

    /** The registration's endpoint on this process's listener (the same name), else its first. */
    private Optional<InetSocketAddress> registeredAddress(BrokerRegistration registration) {
        return registration.endpoint(config.listener().securityProtocol())
                .map(e -> InetSocketAddress.createUnresolved(e.host(), e.port()));
    }

    /** A fresh resolution on every connection attempt (a name may move). */
    private static InetSocketAddress resolved(InetSocketAddress a) {
        return new InetSocketAddress(a.getHostString(), a.getPort());
    }

    /** The broker stopped: if nobody here asked for it (no log directory left), the process stops, failed. */
    private void onBrokerStopped(InsyncBroker b) {
        synchronized (lock) {
            if (stopping) {
                return;
            }
            stopping = true;
        }
        LOG.error("Node {}: the broker stopped by itself ({}); stopping the process", config.nodeId(), b.state());
        Thread t = new Thread(() -> {
            stopEverything(Mode.CLOSE);
            ready.completeExceptionally(new IllegalStateException("Broker " + config.nodeId() + " stopped"));
            stopped.completeExceptionally(new IllegalStateException("Broker " + config.nodeId()
                    + " stopped by itself (" + b.state() + ")"));
        }, "node-" + config.nodeId() + "-stop");
        t.setDaemon(true);
        t.start();
    }

    private enum Mode { CONTROLLED, CLOSE, HALT }

    /**
     * Controlled shutdown (LDR-4): the broker asks the controller to move its leadership and ISR
     * membership away and, once told it may, stops cleanly with {@code .kafka_cleanshutdown} in
     * every healthy log directory; then the listener, the clients and the controller node stop. Waits
     * at most {@code insync.controlled.shutdown.timeout.ms} for the controller, then stops without
     * the marker. Idempotent; blocks until stopped.
     *
     * @return whether it stopped cleanly (true too for a process without the broker role)
     */
    public boolean controlledShutdown() {
        return stop(Mode.CONTROLLED);
    }

    /** Stops without controlled shutdown and without the clean-shutdown marker. Idempotent; blocks until stopped. */
    @Override
    public void close() {
        stop(Mode.CLOSE);
    }

    /**
     * Stops as {@code kill -9} leaves the broker: nothing more is written to its log directories;
     * the sockets close. The controller node closes (its Raft log is fsynced as it goes). For
     * in-JVM tests; a real process is killed with a signal.
     */
    public void halt() {
        stop(Mode.HALT);
    }

    private boolean stop(Mode mode) {
        synchronized (lock) {
            if (stopping) {
                // Someone else stops it: wait, bounded.
                awaitQuietly(stopped, CLOSE_TIMEOUT_MS * 3);
                return false;
            }
            stopping = true;
        }
        boolean clean = stopEverything(mode);
        ready.completeExceptionally(new IllegalStateException("Server " + config.nodeId() + " stopped"));
        stopped.complete(null);
        return clean;
    }

    private boolean stopEverything(Mode mode) {
        synchronized (assembly) {
            return stopAssembled(mode);
        }
    }

    private boolean stopAssembled(Mode mode) {
        boolean clean = true;
        InsyncBroker b = broker;
        if (b != null) {
            switch (mode) {
                case CONTROLLED -> {
                    try {
                        b.controlledShutdown().get(config.controlledShutdownTimeoutMs(), TimeUnit.MILLISECONDS);
                    } catch (TimeoutException e) {
                        LOG.warn("Node {}: no controlled shutdown within {} ms ({}); stopping without it",
                                config.nodeId(), config.controlledShutdownTimeoutMs(), ServerConfig.CONTROLLED_SHUTDOWN_TIMEOUT_MS);
                        clean = false;
                        b.close();
                    } catch (ExecutionException e) {
                        LOG.warn("Node {}: controlled shutdown failed: {}", config.nodeId(), e.getCause().toString());
                        clean = false;
                        b.close();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        clean = false;
                        b.close();
                    }
                }
                case CLOSE -> b.close();
                case HALT -> b.halt();
            }
        }
        closeQuietly(server);
        closeQuietly(transport);
        controllerApis.forEach(InsyncServer::closeQuietly);
        closeQuietly(client);
        closeQuietly(controllerNode);
        closeQuietly(networkScheduler);
        LOG.info("Node {} stopped ({})", config.nodeId(), mode == Mode.CONTROLLED ? (clean ? "clean" : "not clean")
                : mode.name().toLowerCase(java.util.Locale.ROOT));
        return clean;
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            LOG.warn("Closing {} failed: {}", c, e.toString());
        }
    }

    private static void awaitQuietly(CompletableFuture<?> f, long timeoutMs) {
        try {
            f.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // The caller only waits; the outcome is the stopper's.
        }
    }

    // ================================================================================ views

    /** The readiness line {@code insync broker} prints, e.g. {@code insync: ready node.id=1 roles=broker listeners=PLAINTEXT://127.0.0.1:41000}. */
    public String readinessLine() {
        Listener l = boundListener;
        if (l == null) {
            throw new IllegalStateException("Server " + config.nodeId() + " is not listening");
        }
        return "insync: ready node.id=" + config.nodeId() + " roles=" + config.rolesString() + " listeners=" + l;
    }

    /** Completes when ready (see {@link #start()}). */
    public CompletableFuture<Void> ready() {
        return ready;
    }

    /** Completes when stopped; exceptionally if the broker stopped by itself (e.g. no log directory left). */
    public CompletableFuture<Void> stopped() {
        return stopped;
    }

    /** Its settings. */
    public ServerConfig config() {
        return config;
    }

    /** {@code node.id}. */
    public int nodeId() {
        return config.nodeId();
    }

    /** The listener as bound (the real port when 0 was asked). @throws IllegalStateException before it listens */
    public Listener listener() {
        Listener l = boundListener;
        if (l == null) {
            throw new IllegalStateException("Server " + config.nodeId() + " is not listening");
        }
        return l;
    }

    /** The listener's counters (connections, malformed frames, file regions written, ...). @throws IllegalStateException before start */
    public dev.insync.replication.netty.server.ServerMetrics serverMetrics() {
        NettyServer s = server;
        if (s == null) {
            throw new IllegalStateException("Server " + config.nodeId() + " is not started");
        }
        return s.metrics();
    }

    /** The broker, with the broker role once started. */
    public Optional<InsyncBroker> broker() {
        return Optional.ofNullable(broker);
    }

    /** The controller node, with the controller role once started. */
    public Optional<RatisControllerNode> controllerNode() {
        return Optional.ofNullable(controllerNode);
    }

    @Override
    public String toString() {
        return "InsyncServer(" + config.nodeId() + ", " + config.rolesString() + ")";
    }

    /** Settings of one server beyond its properties. */
    public static final class Builder {
        private final ServerConfig config;
        private Function<Path, FileSync> fileSyncs = dir -> FileSync.durable();

        private Builder(ServerConfig config) {
            this.config = config;
        }

        /** The broker's durability per log directory (default durable; tests may skip fsync). */
        public Builder fileSync(Function<Path, FileSync> perDirectory) {
            this.fileSyncs = Objects.requireNonNull(perDirectory, "fileSync");
            return this;
        }

        /** The server, not started. */
        public InsyncServer build() {
            return new InsyncServer(this);
        }
    }
}
