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

package dev.insync.replication.bench.peers.kafka;

import dev.insync.replication.testkit.internal.Directories;

import dev.insync.replication.bench.harness.LogRetentionBound;
import dev.insync.replication.bench.processes.BenchClient;
import dev.insync.replication.bench.processes.BenchClientSettings;
import dev.insync.replication.bench.processes.ProcessBenchTarget;
import dev.insync.replication.bench.processes.ServerJvmOptions;
import dev.insync.replication.testkit.process.JvmProcess;
import dev.insync.replication.testkit.process.JvmSpec;
import dev.insync.replication.testkit.process.LoopbackPorts;
import dev.insync.replication.testkit.process.ProcessGroup;
import dev.insync.replication.testkit.process.ReadinessProbe;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Apache Kafka 4.4 in KRaft mode as separate JVMs on this machine: one controller (node 0, the only
 * voter of a static quorum) and three brokers (nodes 1-3), each {@code java -cp <Kafka's class path>
 * kafka.Kafka server.properties} with the heap and GC options of Kafka's own start script, on free
 * ports of 127.0.0.1, data under the run's directory. Storage is formatted first with Kafka's
 * {@code kafka.tools.StorageTool format} (one JVM per node, as {@code kafka-storage.sh} runs it).
 * Every process belongs to a {@link ProcessGroup}: killed by PID on {@link #close()}, on a failed
 * start and on JVM exit, and reaped by the next run if this JVM was killed.
 */
final class KafkaCluster implements ProcessBenchTarget {

    static final int CONTROLLER_ID = 0;
    static final List<Integer> BROKER_IDS = List.of(1, 2, 3);
    /** kafka-server-start.sh's heap and kafka-run-class.sh's performance options (Insync's processes get the same). */
    static final List<String> SERVER_JVM_OPTIONS = ServerJvmOptions.KAFKA_START_SCRIPT;
    /** The storage formatter runs for a second: a small, quickly started JVM. */
    static final List<String> TOOL_JVM_OPTIONS = List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
    static final Duration FORMAT_TIMEOUT = Duration.ofSeconds(90);
    static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);
    static final long POLL_MS = 100;

    private final String version;
    private final ProcessGroup group;
    private final Path dataDir;
    private final Map<Integer, JvmProcess> brokers;
    private final String bootstrapServers;
    private final Admin admin;
    /** The broker settings that are not Kafka's defaults, for the description. */
    private final Map<String, String> nonDefaults;

    private KafkaCluster(String version, ProcessGroup group, Path dataDir, Map<Integer, JvmProcess> brokers,
                         String bootstrapServers, Admin admin, Map<String, String> nonDefaults) {
        this.nonDefaults = Map.copyOf(nonDefaults);
        this.version = version;
        this.group = group;
        this.dataDir = dataDir;
        this.brokers = brokers;
        this.bootstrapServers = bootstrapServers;
        this.admin = admin;
    }

    /**
     * Formats and starts the cluster under {@code dir} and returns once all three brokers are
     * registered with the controller, within {@code timeout}; on any failure every process started
     * is killed before the exception leaves.
     */
    static KafkaCluster start(String classPath, String version, Path dir, Duration timeout,
                              Optional<LogRetentionBound> retention, Consumer<String> progress) throws Exception {
        Map<String, String> nonDefaults = KafkaServerConfig.nonDefaults(retention);
        long deadline = System.nanoTime() + timeout.toNanos();
        ProcessGroup group = ProcessGroup.open(dir.resolve("logs"));
        if (!group.reapedLeftovers().isEmpty()) {
            progress.accept("killed leftover processes of a dead run: " + group.reapedLeftovers());
        }
        Admin admin = null;
        try {
            Path config = Files.createDirectories(dir.resolve("config"));
            Path data = Files.createDirectories(dir.resolve("data"));
            Path log4j = config.resolve("log4j2.properties");
            KafkaServerConfig.writeLog4j(log4j);
            List<Integer> ports = LoopbackPorts.free(1 + BROKER_IDS.size());
            int controllerPort = ports.get(0);
            String voters = CONTROLLER_ID + "@127.0.0.1:" + controllerPort;

            Map<String, Path> nodes = new LinkedHashMap<>();
            Map<String, Integer> nodePorts = new LinkedHashMap<>();
            String controller = "controller-" + CONTROLLER_ID;
            nodes.put(controller, config.resolve(controller + ".properties"));
            nodePorts.put(controller, controllerPort);
            KafkaServerConfig.write(KafkaServerConfig.controller(CONTROLLER_ID, voters, controllerPort,
                    data.resolve(controller)), nodes.get(controller));
            for (int i = 0; i < BROKER_IDS.size(); i++) {
                String broker = "broker-" + BROKER_IDS.get(i);
                nodes.put(broker, config.resolve(broker + ".properties"));
                nodePorts.put(broker, ports.get(1 + i));
                KafkaServerConfig.write(KafkaServerConfig.broker(BROKER_IDS.get(i), voters, ports.get(1 + i),
                        data.resolve(broker), nonDefaults), nodes.get(broker));
            }
            String log4jOption = "-Dlog4j2.configurationFile=" + log4j;

            progress.accept("formatting storage (kafka.tools.StorageTool, 4 JVMs)");
            String clusterId = Uuid.randomUuid().toString();
            List<JvmProcess> formats = new ArrayList<>();
            for (Map.Entry<String, Path> node : nodes.entrySet()) {
                formats.add(group.start(new JvmSpec("format-" + node.getKey(), classPath, "kafka.tools.StorageTool",
                        with(TOOL_JVM_OPTIONS, log4jOption),
                        List.of("format", "--cluster-id", clusterId, "--config", node.getValue().toString()))));
            }
            for (JvmProcess format : formats) {
                OptionalInt code = format.awaitExit(FORMAT_TIMEOUT);
                if (code.isEmpty() || code.getAsInt() != 0) {
                    throw new IOException(format + " failed (" + (code.isEmpty() ? "timed out" : "exit code " + code.getAsInt())
                            + "); last output:\n" + format.logTail());
                }
            }

            progress.accept("starting 1 controller and " + BROKER_IDS.size() + " brokers (kafka.Kafka, one JVM each)");
            Map<String, JvmProcess> servers = new LinkedHashMap<>();
            for (Map.Entry<String, Path> node : nodes.entrySet()) {
                servers.put(node.getKey(), group.start(new JvmSpec(node.getKey(), classPath, "kafka.Kafka",
                        with(SERVER_JVM_OPTIONS, log4jOption), List.of(node.getValue().toString()))));
            }
            for (Map.Entry<String, JvmProcess> server : servers.entrySet()) {
                server.getValue().awaitReady(ReadinessProbe.tcpAccepts(
                        new InetSocketAddress("127.0.0.1", nodePorts.get(server.getKey()))), remaining(deadline));
            }
            Map<Integer, JvmProcess> brokers = new LinkedHashMap<>();
            BROKER_IDS.forEach(id -> brokers.put(id, servers.get("broker-" + id)));
            String bootstrap = BROKER_IDS.stream().map(id -> "127.0.0.1:" + nodePorts.get("broker-" + id))
                    .collect(Collectors.joining(","));
            admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                    AdminClientConfig.CLIENT_ID_CONFIG, "insync-bench-admin"));
            progress.accept("waiting for " + BROKER_IDS.size() + " registered brokers");
            awaitBrokers(admin, servers.values(), deadline);
            return new KafkaCluster(version, group, data, brokers, bootstrap, admin, nonDefaults);
        } catch (Exception | Error e) {
            if (admin != null) {
                admin.close(CLOSE_TIMEOUT);
            }
            group.close();
            throw e;
        }
    }

    /** Polls the cluster's metadata until every broker is registered and unfenced (describeCluster lists it). */
    private static void awaitBrokers(Admin admin, Iterable<JvmProcess> servers, long deadline) throws Exception {
        while (true) {
            for (JvmProcess server : servers) {
                if (!server.isAlive()) {
                    throw new IOException(server + " exited with " + server.exitCode() + " while the cluster started;"
                            + " last output:\n" + server.logTail());
                }
            }
            try {
                List<Integer> ids = admin.describeCluster().nodes().get(Math.max(1, remaining(deadline).toMillis()),
                        TimeUnit.MILLISECONDS).stream().map(Node::id).sorted().toList();
                if (ids.equals(BROKER_IDS)) {
                    return;
                }
            } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
                // not yet serving metadata
            }
            if (System.nanoTime() - deadline > 0) {
                throw new TimeoutException("Kafka's brokers " + BROKER_IDS + " not all registered in time");
            }
            Thread.sleep(POLL_MS);
        }
    }

    private static List<String> with(List<String> options, String extra) {
        return Stream.concat(options.stream(), Stream.of(extra)).toList();
    }

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    @Override
    public String name() {
        return KafkaTargetFactory.NAME;
    }

    @Override
    public String description() {
        return "Apache Kafka " + version + " (kafka_2.13), KRaft: 1 controller and " + BROKER_IDS.size()
                + " brokers, each its own JVM (" + String.join(" ", SERVER_JVM_OPTIONS) + ", as kafka-server-start.sh), "
                + "Kafka's defaults but " + new TreeMap<>(nonDefaults) + " (so no fsync per message,"
                + " broker.session.timeout.ms 9000, replica.lag.time.max.ms 30000, 3 network and 8 I/O threads);"
                + " client " + clientJar()
                + ", enable.idempotence=false, compression none";
    }

    /** The kafka-clients jar this JVM's producer comes from (its file name carries the version). */
    private static String clientJar() {
        try {
            return Path.of(Admin.class.getProtectionDomain().getCodeSource().getLocation().toURI()).getFileName().toString();
        } catch (java.net.URISyntaxException | RuntimeException e) {
            return "kafka-clients (version unknown)";
        }
    }

    @Override
    public String bootstrapServers() {
        return bootstrapServers;
    }

    @Override
    public List<Integer> brokerIds() {
        return BROKER_IDS;
    }

    @Override
    public Map<Integer, Long> brokerPids() {
        return ProcessBenchTarget.livePids(brokers);
    }

    @Override
    public void createTopic(String topic, int partitions, int replicationFactor, int minInsyncReplicas, Duration timeout)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        NewTopic t = new NewTopic(topic, partitions, (short) replicationFactor)
                .configs(Map.of("min.insync.replicas", Integer.toString(minInsyncReplicas)));
        admin.createTopics(List.of(t)).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (!awaitFullIsr(topic, remaining(deadline))) {
            throw new TimeoutException("Topic " + topic + " has partitions without a leader or a full ISR after "
                    + timeout.toSeconds() + " s");
        }
    }

    @Override
    public int leaderOf(String topic, int partition) throws Exception {
        TopicPartitionInfo info = describe(topic).partitions().get(partition);
        if (info.leader() == null) {
            throw new IllegalStateException("No leader for " + topic + "-" + partition);
        }
        return info.leader().id();
    }

    @Override
    public boolean awaitFullIsr(String topic, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                boolean full = describe(topic).partitions().stream()
                        .allMatch(p -> p.leader() != null && p.isr().size() == p.replicas().size());
                if (full) {
                    return true;
                }
            } catch (java.util.concurrent.ExecutionException e) {
                // the topic's metadata has not reached the broker asked yet
            }
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            Thread.sleep(POLL_MS);
        }
    }

    private TopicDescription describe(String topic) throws Exception {
        return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
    }

    @Override
    public void kill(int brokerId) {
        JvmProcess broker = brokers.get(brokerId);
        if (broker == null) {
            throw new IllegalArgumentException("No Kafka broker " + brokerId + "; brokers are " + BROKER_IDS);
        }
        broker.kill();
    }

    @Override
    public double serverCpuSeconds() {
        return group.cpuSecondsOfLiveProcesses();
    }

    @Override
    public BenchClient client(BenchClientSettings settings) {
        return new KafkaBenchClient(bootstrapServers, settings);
    }

    @Override
    public void close() {
        try {
            admin.close(CLOSE_TIMEOUT);
        } finally {
            group.close();
            Directories.deleteRecursively(dataDir); // the processes' logs stay, next to it
        }
    }
}
