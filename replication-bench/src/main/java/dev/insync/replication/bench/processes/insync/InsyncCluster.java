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

package dev.insync.replication.bench.processes.insync;

import dev.insync.replication.testkit.internal.Directories;

import dev.insync.replication.bench.processes.BenchClient;
import dev.insync.replication.bench.processes.BenchClientSettings;
import dev.insync.replication.bench.processes.ProcessBenchTarget;
import dev.insync.replication.cli.InsyncCli;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.netty.client.InsyncClient;
import dev.insync.replication.testkit.process.JvmProcess;
import dev.insync.replication.testkit.process.JvmSpec;
import dev.insync.replication.testkit.process.LoopbackPorts;
import dev.insync.replication.testkit.process.ProcessGroup;
import dev.insync.replication.testkit.process.ReadinessProbe;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Insync as separate JVMs on this machine: one controller node (node 0, the only Raft voter) and
 * three brokers (nodes 1-3), each {@code insync broker --config FILE} ({@link InsyncCli}) in its own
 * JVM, on free ports of 127.0.0.1, data under the run's directory. The processes run on a class path
 * given by the factory (by default the bench's own, so they run the code the bench was built from)
 * with the JVM options given (by default Kafka's processes' options, for fairness). A process is
 * ready when it prints its readiness line (docs/operations.md); a broker's line means it is
 * registered and serves. Every process belongs to a {@link ProcessGroup}: killed by PID on
 * {@link #close()}, on a failed start and on JVM exit, and reaped by the next run if this JVM was
 * killed. Topics are created at the controller through {@link InsyncClient} ({@code bootstrap.controllers}).
 */
final class InsyncCluster implements ProcessBenchTarget {

    static final int CONTROLLER_ID = 0;
    static final List<Integer> BROKER_IDS = List.of(1, 2, 3);
    static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    static final long POLL_MS = 100;
    /** The controller's placement refusal while a just-registered broker is still fenced (ReplicaPlacer's message). */
    static final String FENCED_PLACEMENT = "unfenced brokers";

    private final String description;
    private final int clientBufferBytes;
    private final ProcessGroup group;
    private final Path dataDir;
    private final Map<Integer, JvmProcess> brokers;
    private final String bootstrapServers;
    private final InsyncClient admin;

    private InsyncCluster(InsyncTargetFactory.Launch launch, ProcessGroup group, Path dataDir,
                          Map<Integer, JvmProcess> brokers, String bootstrapServers, InsyncClient admin) {
        this.description = launch.description();
        this.clientBufferBytes = launch.clientBufferBytes();
        this.group = group;
        this.dataDir = dataDir;
        this.brokers = brokers;
        this.bootstrapServers = bootstrapServers;
        this.admin = admin;
    }

    /**
     * Starts the cluster under {@code dir} and returns once every process printed its readiness
     * line, within {@code timeout}; on any failure every process started is killed before the
     * exception leaves.
     */
    static InsyncCluster start(InsyncTargetFactory.Launch launch, Path dir, Duration timeout,
                               java.util.function.Consumer<String> progress) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        ProcessGroup group = ProcessGroup.open(dir.resolve("logs"));
        if (!group.reapedLeftovers().isEmpty()) {
            progress.accept("killed leftover processes of a dead run: " + group.reapedLeftovers());
        }
        InsyncClient admin = null;
        try {
            Path config = Files.createDirectories(dir.resolve("config"));
            Path data = Files.createDirectories(dir.resolve("data"));
            List<Integer> ports = LoopbackPorts.free(2 + BROKER_IDS.size());
            Map<Integer, Integer> brokerPorts = new LinkedHashMap<>();
            for (int i = 0; i < BROKER_IDS.size(); i++) {
                brokerPorts.put(BROKER_IDS.get(i), ports.get(2 + i));
            }
            InsyncServerConfig.Layout layout = new InsyncServerConfig.Layout(CONTROLLER_ID, ports.get(0), ports.get(1),
                    brokerPorts);

            Map<String, Path> nodes = new LinkedHashMap<>();
            Map<String, Integer> nodeIds = new LinkedHashMap<>();
            String controller = "controller-" + CONTROLLER_ID;
            nodes.put(controller, config.resolve(controller + ".properties"));
            nodeIds.put(controller, CONTROLLER_ID);
            InsyncServerConfig.write(InsyncServerConfig.controller(layout, data.resolve(controller), launch.overrides()),
                    nodes.get(controller));
            for (int id : BROKER_IDS) {
                String broker = "broker-" + id;
                nodes.put(broker, config.resolve(broker + ".properties"));
                nodeIds.put(broker, id);
                InsyncServerConfig.write(InsyncServerConfig.broker(layout, id, data.resolve(broker), launch.retention(),
                        launch.overrides()),
                        nodes.get(broker));
            }

            progress.accept("starting 1 controller and " + BROKER_IDS.size() + " brokers (insync broker, one JVM each)");
            Map<String, JvmProcess> servers = new LinkedHashMap<>();
            for (Map.Entry<String, Path> node : nodes.entrySet()) {
                servers.put(node.getKey(), group.start(new JvmSpec(node.getKey(), launch.classPath(),
                        InsyncCli.class.getName(), launch.jvmOptions(),
                        List.of("broker", "--config", node.getValue().toString()))));
            }
            for (Map.Entry<String, JvmProcess> server : servers.entrySet()) {
                server.getValue().awaitReady(ReadinessProbe.logContains("insync: ready node.id="
                        + nodeIds.get(server.getKey()) + " roles="), remaining(deadline));
            }
            Map<Integer, JvmProcess> brokers = new LinkedHashMap<>();
            BROKER_IDS.forEach(id -> brokers.put(id, servers.get("broker-" + id)));
            admin = InsyncClient.builder(Map.of("bootstrap.servers", layout.bootstrapServers(),
                    "bootstrap.controllers", "127.0.0.1:" + layout.controllerPort(),
                    "client.id", "insync-bench-admin")).build();
            return new InsyncCluster(launch, group, data, brokers, layout.bootstrapServers(), admin);
        } catch (Exception | Error e) {
            if (admin != null) {
                admin.close();
            }
            group.close();
            throw e;
        }
    }

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    @Override
    public String name() {
        return InsyncTargetFactory.NAME;
    }

    @Override
    public String description() {
        return description;
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
        while (true) {
            try {
                admin.createTopic(topic, partitions, replicationFactor,
                        Map.of("min.insync.replicas", Integer.toString(minInsyncReplicas)))
                        .get(Math.max(1, remaining(deadline).toMillis()), TimeUnit.MILLISECONDS);
                break;
            } catch (ExecutionException e) {
                // A broker's readiness line comes with the heartbeat that unfences it: until the controller has
                // handled it, placement refuses (nothing created), so asking again is safe. Kafka's target waits
                // for unfenced brokers instead; Insync's Metadata does not say which are fenced.
                boolean fenced = e.getCause() instanceof ApiException a && a.getMessage() != null
                        && a.getMessage().contains(FENCED_PLACEMENT);
                if (!fenced || System.nanoTime() - deadline > 0) {
                    throw e;
                }
                Thread.sleep(POLL_MS);
            }
        }
        if (!awaitFullIsr(topic, remaining(deadline))) {
            throw new TimeoutException("Topic " + topic + " has partitions without a leader or a full ISR after "
                    + timeout.toSeconds() + " s");
        }
    }

    @Override
    public int leaderOf(String topic, int partition) throws Exception {
        PartitionRegistration p = describe(topic).get(partition);
        if (p.leader() == PartitionRegistration.NO_LEADER) {
            throw new IllegalStateException("No leader for " + topic + "-" + partition);
        }
        return p.leader();
    }

    @Override
    public boolean awaitFullIsr(String topic, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                List<PartitionRegistration> partitions = describe(topic);
                boolean full = !partitions.isEmpty() && partitions.stream().allMatch(p ->
                        p.leader() != PartitionRegistration.NO_LEADER && p.isr().size() == p.replicas().size());
                if (full) {
                    return true;
                }
            } catch (ExecutionException e) {
                // the topic's metadata has not reached the broker asked yet
            }
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            Thread.sleep(POLL_MS);
        }
    }

    private List<PartitionRegistration> describe(String topic) throws Exception {
        List<PartitionRegistration> partitions = new ArrayList<>(admin.describeTopic(topic)
                .get(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
        partitions.sort(Comparator.comparingInt(p -> p.topicPartition().partition()));
        return partitions;
    }

    @Override
    public void kill(int brokerId) {
        JvmProcess broker = brokers.get(brokerId);
        if (broker == null) {
            throw new IllegalArgumentException("No Insync broker " + brokerId + "; brokers are " + BROKER_IDS);
        }
        broker.kill();
    }

    @Override
    public double serverCpuSeconds() {
        return group.cpuSecondsOfLiveProcesses();
    }

    @Override
    public BenchClient client(BenchClientSettings settings) {
        return new InsyncBenchClient(bootstrapServers, settings, clientBufferBytes);
    }

    /** The broker processes, by id (for tests: a killed one is no longer alive). */
    Map<Integer, JvmProcess> brokerProcesses() {
        return Map.copyOf(brokers);
    }

    /** Every process this cluster started, controllers included. */
    List<JvmProcess> processes() {
        return group.processes();
    }

    @Override
    public void close() {
        try {
            admin.close();
        } finally {
            group.close();
            Directories.deleteRecursively(dataDir); // the processes' logs stay, next to it
        }
    }
}
