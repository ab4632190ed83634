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

package dev.insync.replication.testkit.process;

import dev.insync.replication.testkit.process.LinkProxy.Direction;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.IntFunction;
import java.util.stream.Collectors;

/**
 * Controllers and brokers of Insync as separate JVMs on 127.0.0.1, each started as
 * {@code insync broker --config FILE} (main class {@value #CLI_MAIN_CLASS}), with a
 * {@link LinkProxy} on every directed link between them so that a test can partition, reset and
 * slow any link, and the process faults of {@link JvmProcess}: {@link #pause} (SIGSTOP),
 * {@link #resume} (SIGCONT), {@link #kill} ({@code kill -9}), {@link #controlledShutdown} (SIGTERM)
 * and {@link #restart}. JUnit-friendly: one cluster per test, closed in {@code @AfterEach} or a
 * try-with-resources; every process is reaped by PID when it closes, by the shutdown hook when the
 * test JVM exits, and by the next cluster when the test JVM was itself killed
 * ({@link ProcessGroup}).
 *
 * <p>Node ids: brokers {@code 1..brokers}, controllers {@value #FIRST_CONTROLLER_ID} on (one id
 * space, as in KRaft). Links: broker→broker (a follower dials its leader) and broker→controller
 * (registration, heartbeats, AlterPartition, metadata fetch) each have a proxy, configured through
 * {@code insync.connect.overrides}: the broker dials the proxy instead of the node. Brokers register
 * their real listener (LDR-4: {@code listeners}, which metadata hands to every client), so clients
 * reach them directly; no process is given an address table of brokers. Controller→controller
 * (the quorum's Raft traffic) has a proxy per directed link too: each controller's
 * {@code controller.quorum.voters} names its own real Raft port (which it binds) and, for every
 * peer, the proxy of the link it dials to that peer. Ratis dials a peer at the address it was
 * started with, even after adopting a configuration entry that another node wrote with its own
 * addresses, so the quorum can be partitioned link by link (the active controller cut from its
 * peers while the brokers still reach it, for instance).
 *
 * <p>Directions are about bytes: {@link #blackhole(int, int, Flow)} with {@link Flow#ONE_WAY} drops
 * every byte going from the first node to the second, on every link between them (requests on
 * the link the first dials, responses on the link the second dials).
 */
public final class ProcessCluster implements AutoCloseable {

    /** The CLI entry point every node runs. */
    public static final String CLI_MAIN_CLASS = "dev.insync.replication.cli.InsyncCli";
    /** The line prefix {@code insync broker} prints once the node serves, followed by its node id. */
    public static final String READY_LINE = "insync: ready node.id=";
    /** The first controller's node id. */
    public static final int FIRST_CONTROLLER_ID = 1001;

    /** Which way a network fault applies between two nodes. */
    public enum Flow {
        /** Bytes from the first node to the second only. */
        ONE_WAY,
        /** Bytes both ways. */
        BOTH_WAYS
    }

    /** What a node runs. */
    public enum Role {
        BROKER("broker"),
        CONTROLLER("controller");

        private final String property;

        Role(String property) {
            this.property = property;
        }

        /** Its {@code process.roles} value. */
        public String property() {
            return property;
        }
    }

    /**
     * One node of the cluster: its id, role, where it listens and where its files are.
     *
     * @param raftPort the Ratis port of a controller, -1 for a broker
     */
    public record Node(int id, Role role, int listenerPort, int raftPort, Path directory) {
        /** Its process name in the {@link ProcessGroup}. */
        public String processName() {
            return role.property() + "-" + id;
        }

        /** Its listener on 127.0.0.1. */
        public InetSocketAddress listener() {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), listenerPort);
        }

        /** Its configuration file. */
        public Path configFile() {
            return directory.resolve("server.properties");
        }
    }

    private final Builder settings;
    private final ProcessGroup group;
    private final Map<Integer, Node> nodes;
    /** Proxies by (client node, server node). */
    private final Map<Link, LinkProxy> proxies;
    /** By PID: where the process's output starts in its log file, which restarts append to. */
    private final Map<Long, Long> logOffsets = new ConcurrentHashMap<>();

    /** A directed link: {@code client} dials {@code server}. */
    private record Link(int client, int server) {
        @Override
        public String toString() {
            return client + "->" + server;
        }
    }

    private ProcessCluster(Builder settings, ProcessGroup group, Map<Integer, Node> nodes, Map<Link, LinkProxy> proxies) {
        this.settings = settings;
        this.group = group;
        this.nodes = nodes;
        this.proxies = proxies;
    }

    /** A builder writing everything (data, logs, configuration) under {@code directory}. */
    public static Builder builder(Path directory) {
        return new Builder(directory);
    }

    // ------------------------------------------------------------------ what it is

    /** The broker ids, ascending. */
    public List<Integer> brokerIds() {
        return ids(Role.BROKER);
    }

    /** The controller ids, ascending. */
    public List<Integer> controllerIds() {
        return ids(Role.CONTROLLER);
    }

    private List<Integer> ids(Role role) {
        return nodes.values().stream().filter(n -> n.role() == role).map(Node::id).toList();
    }

    /** Node {@code id}. */
    public Node node(int id) {
        Node n = nodes.get(id);
        if (n == null) {
            throw new IllegalArgumentException("No node " + id + " in this cluster (nodes " + nodes.keySet() + ")");
        }
        return n;
    }

    /** The brokers' real listeners, {@code host:port,...}: what a client bootstraps from. */
    public String bootstrapServers() {
        return brokerIds().stream().map(id -> "127.0.0.1:" + node(id).listenerPort()).collect(Collectors.joining(","));
    }

    /** The latest process of node {@code id}. */
    public JvmProcess process(int id) {
        return group.get(node(id).processName());
    }

    /** Whether node {@code id}'s process runs (a paused process runs). */
    public boolean isRunning(int id) {
        return group.process(node(id).processName()).map(JvmProcess::isAlive).orElse(false);
    }

    /** The process group (its log directory holds {@code <role>-<id>.log} per node). */
    public ProcessGroup processGroup() {
        return group;
    }

    /** The proxy on the link {@code client} dials to reach {@code server}. */
    public LinkProxy proxy(int client, int server) {
        LinkProxy p = proxies.get(new Link(client, server));
        if (p == null) {
            throw new IllegalArgumentException("Node " + client + " dials no link to node " + server
                    + " (links: " + proxies.keySet() + ")");
        }
        return p;
    }

    /** Every proxy, by its name ({@code client->server}). */
    public Map<String, LinkProxy> proxies() {
        Map<String, LinkProxy> m = new TreeMap<>();
        proxies.forEach((l, p) -> m.put(l.toString(), p));
        return m;
    }

    /**
     * The active controller as the controllers' own output last said: the node of the highest epoch
     * in a {@value #ACTIVE_CONTROLLER_LINE} line ({@code QuorumController} logs it when it becomes
     * active). Empty before any did. Output only, so a controller that lost its quorum a moment ago
     * may still be named.
     */
    public java.util.OptionalInt activeController() {
        int best = -1;
        long bestEpoch = -1;
        for (int id : controllerIds()) {
            Path log = group.logDir().resolve(node(id).processName() + ".log");
            String text;
            try {
                text = Files.exists(log) ? new String(Files.readAllBytes(log), StandardCharsets.UTF_8) : "";
            } catch (IOException e) {
                continue;
            }
            java.util.regex.Matcher m = ACTIVE.matcher(text);
            while (m.find()) {
                long epoch = Long.parseLong(m.group(2));
                if (epoch > bestEpoch) {
                    bestEpoch = epoch;
                    best = Integer.parseInt(m.group(1));
                }
            }
        }
        return best < 0 ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(best);
    }

    /** What {@code QuorumController} logs when it becomes the active controller. */
    public static final String ACTIVE_CONTROLLER_LINE = "Controller node N is the active controller in epoch E";
    private static final java.util.regex.Pattern ACTIVE =
            java.util.regex.Pattern.compile("Controller node (\\d+) is the active controller in epoch (\\d+)");

    // ------------------------------------------------------------------ process faults

    /** SIGSTOP to node {@code id}: it freezes, its connections stay open. */
    public void pause(int id) {
        process(id).pause();
    }

    /** SIGCONT to node {@code id}. */
    public void resume(int id) {
        process(id).resume();
    }

    /** {@code kill -9} of node {@code id}, waiting until it is gone; its files stay. Returns the exit code. */
    public int kill(int id) {
        return process(id).kill();
    }

    /**
     * SIGTERM to node {@code id}: a broker moves its leadership away and stops cleanly (LDR-4).
     * Waits at most the builder's {@code shutdownTimeout} for the process to exit and returns its
     * exit code.
     *
     * @throws IllegalStateException if it is still running then (it is left running)
     */
    public int controlledShutdown(int id) throws InterruptedException {
        JvmProcess p = process(id);
        if (p.isStopped()) {
            p.resume(); // a stopped JVM cannot act on SIGTERM
        }
        p.terminate();
        OptionalInt code = p.awaitExit(settings.shutdownTimeout);
        if (code.isEmpty()) {
            throw new IllegalStateException(p + " still running " + settings.shutdownTimeout.toMillis()
                    + " ms after SIGTERM; last output:\n" + p.logTail());
        }
        return code.getAsInt();
    }

    /**
     * Starts node {@code id} again with the same configuration and files (killing it first with
     * {@code kill -9} if it still runs) and waits until it is ready.
     */
    public JvmProcess restart(int id) throws IOException, InterruptedException {
        if (isRunning(id)) {
            kill(id);
        }
        JvmProcess p = launch(node(id));
        awaitReady(node(id), p);
        return p;
    }

    // ------------------------------------------------------------------ network faults

    /** Blackholes every byte between {@code a} and {@code b}, both ways. */
    public void blackhole(int a, int b) {
        blackhole(a, b, Flow.BOTH_WAYS);
    }

    /** Blackholes the bytes from {@code from} to {@code to} ({@link Flow#ONE_WAY}) or both ways. */
    public void blackhole(int from, int to, Flow flow) {
        forEachWay(from, to, flow, LinkProxy::blackhole);
    }

    /** Cuts node {@code id} from every node it has a link with, both ways. */
    public void isolate(int id) {
        for (int other : nodes.keySet()) {
            if (other != id && hasLink(id, other)) {
                blackhole(id, other);
            }
        }
    }

    /** Resets every connection between {@code a} and {@code b}, and every new one until {@link #heal()}. */
    public void reset(int a, int b) {
        for (LinkProxy p : linksBetween(a, b)) {
            p.reset();
        }
    }

    /** Adds {@code delayMs} to every byte between {@code a} and {@code b}, each way. */
    public void delay(int a, int b, long delayMs) {
        delay(a, b, delayMs, Flow.BOTH_WAYS);
    }

    /** Adds {@code delayMs} to the bytes from {@code from} to {@code to} ({@link Flow#ONE_WAY}) or both ways. */
    public void delay(int from, int to, long delayMs, Flow flow) {
        forEachWay(from, to, flow, (p, d) -> p.delay(d, delayMs));
    }

    /**
     * Lifts every network fault, then resets the connections that lost bytes to a blackhole (their
     * streams have holes: a real TCP connection would have ended by timeout). Process faults are
     * left as they are. Returns how many connections were reset.
     */
    public int heal() {
        int reset = 0;
        for (LinkProxy p : proxies.values()) {
            p.heal();
        }
        for (LinkProxy p : proxies.values()) {
            reset += p.resetDamaged();
        }
        return reset;
    }

    private boolean hasLink(int a, int b) {
        return proxies.containsKey(new Link(a, b)) || proxies.containsKey(new Link(b, a));
    }

    private List<LinkProxy> linksBetween(int a, int b) {
        node(a);
        node(b);
        List<LinkProxy> links = new ArrayList<>();
        LinkProxy ab = proxies.get(new Link(a, b));
        LinkProxy ba = proxies.get(new Link(b, a));
        if (ab != null) {
            links.add(ab);
        }
        if (ba != null) {
            links.add(ba);
        }
        if (links.isEmpty()) {
            throw new IllegalArgumentException("No proxied link between nodes " + a + " and " + b);
        }
        return links;
    }

    /** Applies {@code fault} to the proxy directions that carry bytes from {@code from} to {@code to} (and back for both ways). */
    private void forEachWay(int from, int to, Flow flow, BiConsumer<LinkProxy, Direction> fault) {
        linksBetween(from, to);
        LinkProxy dialledByFrom = proxies.get(new Link(from, to));
        LinkProxy dialledByTo = proxies.get(new Link(to, from));
        if (dialledByFrom != null) {
            fault.accept(dialledByFrom, Direction.TO_SERVER);
            if (flow == Flow.BOTH_WAYS) {
                fault.accept(dialledByFrom, Direction.TO_CLIENT);
            }
        }
        if (dialledByTo != null) {
            fault.accept(dialledByTo, Direction.TO_CLIENT);
            if (flow == Flow.BOTH_WAYS) {
                fault.accept(dialledByTo, Direction.TO_SERVER);
            }
        }
    }

    // ------------------------------------------------------------------ life cycle

    /** Kills every node ({@code kill -9}, by PID) and closes every proxy. Idempotent. */
    @Override
    public void close() {
        try {
            group.close();
        } finally {
            for (LinkProxy p : proxies.values()) {
                p.close();
            }
        }
    }

    private JvmProcess launch(Node node) throws IOException {
        Files.writeString(node.configFile(), configuration(node), StandardCharsets.UTF_8);
        JvmSpec spec = new JvmSpec(node.processName(), settings.classPath, settings.mainClass, settings.jvmOptions,
                List.of("broker", "--config", node.configFile().toString()));
        Path log = group.logDir().resolve(node.processName() + ".log");
        long offset = Files.exists(log) ? Files.size(log) : 0;
        JvmProcess p = group.start(spec);
        logOffsets.put(p.pid(), offset);
        return p;
    }

    private void awaitReady(Node node, JvmProcess p) throws IOException, InterruptedException {
        p.awaitReady(ReadinessProbe.logContainsAfter(READY_LINE + node.id() + " ", startOffset(p)),
                settings.readyTimeout);
    }

    private long startOffset(JvmProcess p) {
        return logOffsets.getOrDefault(p.pid(), 0L);
    }

    /** The properties file of {@code node}: the generated settings, then the builder's extra properties. */
    String configuration(Node node) {
        Map<String, String> props = new LinkedHashMap<>();
        props.put("node.id", Integer.toString(node.id()));
        props.put("process.roles", node.role().property());
        props.put("listeners", "PLAINTEXT://127.0.0.1:" + node.listenerPort());
        props.put("insync.controller.endpoints", table(controllerIds(), id -> node(id).listener()));
        if (node.role() == Role.BROKER) {
            props.put("log.dirs", node.directory().resolve("data").toString());
            List<Integer> dialled = proxies.keySet().stream().filter(l -> l.client() == node.id()).map(Link::server)
                    .sorted().toList();
            props.put("insync.connect.overrides", table(dialled, id -> proxies.get(new Link(node.id(), id)).address()));
            props.putAll(settings.brokerProperties);
        } else {
            // Its own Raft port, which it binds; each peer through the proxy of the link it dials.
            props.put("controller.quorum.voters", table(controllerIds(), id -> id == node.id()
                    ? new InetSocketAddress(InetAddress.getLoopbackAddress(), node.raftPort())
                    : proxies.get(new Link(node.id(), id)).address()));
            props.put("metadata.log.dir", node.directory().resolve("metadata").toString());
            props.putAll(settings.controllerProperties);
        }
        StringBuilder sb = new StringBuilder("# written by ProcessCluster for node " + node.id() + "\n");
        props.forEach((k, v) -> sb.append(k).append('=').append(v.replace("\\", "\\\\")).append('\n'));
        return sb.toString();
    }

    private static String table(List<Integer> ids, IntFunction<InetSocketAddress> address) {
        return ids.stream().map(id -> id + "@127.0.0.1:" + address.apply(id).getPort()).collect(Collectors.joining(","));
    }

    /** What to start: counts, properties, class path, bounds. */
    public static final class Builder {
        private final Path directory;
        private int brokers = 3;
        private int controllers = 1;
        private final Map<String, String> brokerProperties = new LinkedHashMap<>();
        private final Map<String, String> controllerProperties = new LinkedHashMap<>();
        private String classPath = System.getProperty("java.class.path");
        private String mainClass = CLI_MAIN_CLASS;
        private List<String> jvmOptions = List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
        private Duration readyTimeout = Duration.ofSeconds(60);
        private Duration shutdownTimeout = Duration.ofSeconds(45);
        private Path pidDirectory = ProcessGroup.defaultPidDir();

        private Builder(Path directory) {
            this.directory = Objects.requireNonNull(directory, "directory");
        }

        /** How many brokers (1 or more; default 3). */
        public Builder brokers(int count) {
            if (count < 1) {
                throw new IllegalArgumentException("A cluster needs at least one broker, not " + count);
            }
            this.brokers = count;
            return this;
        }

        /** How many controllers: 1 or 3 (default 1). */
        public Builder controllers(int count) {
            if (count != 1 && count != 3) {
                throw new IllegalArgumentException("Controllers: 1 or 3, not " + count);
            }
            this.controllers = count;
            return this;
        }

        /** A property every broker's file gets (after, so over, the generated ones). */
        public Builder brokerProperty(String name, Object value) {
            brokerProperties.put(name, String.valueOf(value));
            return this;
        }

        /** A property every controller's file gets (after, so over, the generated ones). */
        public Builder controllerProperty(String name, Object value) {
            controllerProperties.put(name, String.valueOf(value));
            return this;
        }

        /** A property every node's file gets. */
        public Builder property(String name, Object value) {
            return brokerProperty(name, value).controllerProperty(name, value);
        }

        /** The nodes' class path (default: this JVM's, which must hold the CLI). */
        public Builder classPath(String classPath) {
            this.classPath = Objects.requireNonNull(classPath, "classPath");
            return this;
        }

        /**
         * The main class each node runs with {@code broker --config FILE} (default
         * {@value #CLI_MAIN_CLASS}; a test of the harness itself may give a stand-in).
         */
        public Builder mainClass(String mainClass) {
            this.mainClass = Objects.requireNonNull(mainClass, "mainClass");
            return this;
        }

        /** Runs the nodes from the CLI's shaded jar ({@code replication-cli/target/insync.jar}). */
        public Builder jar(Path jar) {
            if (!Files.isRegularFile(jar)) {
                throw new IllegalArgumentException("No jar at " + jar);
            }
            return classPath(jar.toString());
        }

        /** The nodes' JVM options (default: a 256 MiB heap, serial GC, C1 only: small, quick JVMs). */
        public Builder jvmOptions(String... options) {
            this.jvmOptions = List.of(options);
            return this;
        }

        /** Appends to the nodes' JVM options, keeping those set so far (such as the defaults). */
        public Builder addJvmOptions(String... options) {
            List<String> all = new ArrayList<>(jvmOptions);
            all.addAll(List.of(options));
            this.jvmOptions = List.copyOf(all);
            return this;
        }

        /** How long a node may take to print its readiness line (default 60 s). */
        public Builder readyTimeout(Duration timeout) {
            this.readyTimeout = timeout;
            return this;
        }

        /** How long a controlled shutdown may take (default 45 s). */
        public Builder shutdownTimeout(Duration timeout) {
            this.shutdownTimeout = timeout;
            return this;
        }

        /** Where the PID files go (default {@link ProcessGroup#defaultPidDir()}). */
        public Builder pidDirectory(Path dir) {
            this.pidDirectory = dir;
            return this;
        }

        /**
         * Picks free ports, starts a proxy per link and every node (controllers first), and waits
         * until each is ready. On any failure everything started is reaped and the error thrown.
         */
        public ProcessCluster start() throws IOException, InterruptedException {
            Files.createDirectories(directory);
            // Below the ephemeral range: a proxy bound to port 0 or an outgoing connection never takes a
            // node's port, so a node restarted on it finds it free.
            List<Integer> ports = LoopbackPorts.freeBelowEphemeralRange(brokers + 2 * controllers);
            Map<Integer, Node> nodes = new LinkedHashMap<>();
            int next = 0;
            for (int i = 0; i < controllers; i++) {
                int id = FIRST_CONTROLLER_ID + i;
                nodes.put(id, new Node(id, Role.CONTROLLER, ports.get(next++), ports.get(next++),
                        directory.resolve("node-" + id)));
            }
            for (int id = 1; id <= brokers; id++) {
                nodes.put(id, new Node(id, Role.BROKER, ports.get(next++), -1, directory.resolve("node-" + id)));
            }
            for (Node n : nodes.values()) {
                Files.createDirectories(n.directory());
            }
            Map<Link, LinkProxy> proxies = new LinkedHashMap<>();
            ProcessGroup group = null;
            ProcessCluster cluster = null;
            try {
                for (Node client : nodes.values()) {
                    for (Node server : nodes.values()) {
                        if (server.id() == client.id()) {
                            continue;
                        }
                        Link link = new Link(client.id(), server.id());
                        if (client.role() == Role.BROKER) {
                            proxies.put(link, LinkProxy.start(link.toString(), server.listener()));
                        } else if (server.role() == Role.CONTROLLER) {
                            // Raft between controllers; a controller dials no broker.
                            proxies.put(link, LinkProxy.start(link.toString(), new InetSocketAddress(
                                    InetAddress.getLoopbackAddress(), server.raftPort())));
                        }
                    }
                }
                group = ProcessGroup.open(directory.resolve("logs"), pidDirectory);
                cluster = new ProcessCluster(this, group, nodes, proxies);
                Map<Node, JvmProcess> started = new LinkedHashMap<>();
                for (Node n : nodes.values()) {
                    started.put(n, cluster.launch(n));
                }
                for (Map.Entry<Node, JvmProcess> e : started.entrySet()) {
                    cluster.awaitReady(e.getKey(), e.getValue());
                }
                return cluster;
            } catch (IOException | InterruptedException | RuntimeException e) {
                if (cluster != null) {
                    cluster.close();
                } else {
                    if (group != null) {
                        group.close();
                    }
                    for (LinkProxy p : proxies.values()) {
                        p.close();
                    }
                }
                throw e;
            }
        }
    }
}
