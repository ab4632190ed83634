package dev.insync.replication.cli;

import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.checkpoint.CleanShutdownFile;
import dev.insync.replication.server.ClusterLayout;
import dev.insync.replication.server.ServerTestClient;
import dev.insync.replication.testkit.process.JvmProcess;
import dev.insync.replication.testkit.process.JvmSpec;
import dev.insync.replication.testkit.process.ProcessGroup;
import dev.insync.replication.testkit.process.ReadinessProbe;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real processes: one controller and three brokers, each {@code insync broker --config FILE} in its
 * own JVM (the test JVM's class path), on 127.0.0.1 and free ports, reaped by PID when the group
 * closes.
 */
class BrokerProcessTest {

    private static final TopicPartition TP = new TopicPartition("payments", 0);
    private static final Duration READY = Duration.ofSeconds(90);
    private static final long WAIT_MS = 60_000;

    @TempDir
    Path root;

    private JvmProcess start(ProcessGroup group, String name, Map<String, String> props, int id) throws Exception {
        Path file = ClusterLayout.write(root.resolve(name + ".properties"), props);
        JvmProcess p = group.start(JvmSpec.of(name, System.getProperty("java.class.path"), InsyncCli.class.getName())
                .withJvmOptions("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")
                .withArguments("broker", "--config", file.toString()));
        p.awaitReady(ReadinessProbe.logContains("insync: ready node.id=" + id + " roles="), READY);
        return p;
    }

    @Test
    @DisplayName("LDR-4, CTL-3, INV-1 on processes: acks=all to RF 3 min ISR 2, kill -9 of the leader, every acknowledged"
            + " record is read from the new leader; SIGTERM is a controlled shutdown that exits 0 with .kafka_cleanshutdown")
    void killNineTheLeaderOfThreeBrokerProcesses() throws Exception {
        ClusterLayout layout = new ClusterLayout(root.resolve("data"), 1, 3);
        Map<Integer, JvmProcess> brokers = new TreeMap<>();
        try (ProcessGroup group = ProcessGroup.open(root.resolve("logs"));
             ServerTestClient client = new ServerTestClient()) {
            int controllerId = layout.controllerIds().get(0);
            JvmProcess controller = start(group, "controller-" + controllerId, layout.controller(controllerId), controllerId);
            for (int id : layout.brokerIds()) {
                brokers.put(id, start(group, "broker-" + id, layout.broker(id), id));
            }
            String ready = Files.readString(brokers.get(1).logFile(), StandardCharsets.UTF_8);
            assertThat(ready).contains("insync: ready node.id=1 roles=broker listeners=PLAINTEXT://127.0.0.1:"
                    + layout.brokerListener(1).getPort() + "\n");

            client.createTopic(layout.controllerListeners(), CreateTopicRequest.withAssignment(TP.topic(),
                    List.of(List.of(1, 2, 3)), Map.of("min.insync.replicas", "2")));
            int leader = awaitLeader(client, layout, 2, Set.of(1, 2, 3));
            List<String> acknowledged = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                String value = "p-" + i;
                ProduceResult r = client.produce(layout.brokerListener(leader), TP, -1, List.of(value));
                assertThat(r.error()).as("acks=all produce of %s", value).isEqualTo(Errors.NONE);
                acknowledged.add(value);
            }
            ServerTestClient.await("ISR [1, 2, 3]", WAIT_MS, () -> client.partition(layout.brokerListener(leader), TP)
                    .map(p -> Set.copyOf(p.isr()).equals(Set.of(1, 2, 3))).orElse(false));

            assertThat(brokers.get(leader).kill()).isEqualTo(137); // kill -9, by PID
            int asked = leader == 1 ? 2 : 1;
            int newLeader = awaitLeader(client, layout, asked, otherThan(layout, leader));
            ServerTestClient.await("every acknowledged record readable from broker " + newLeader, WAIT_MS, () -> {
                try {
                    return client.consumeAll(layout.brokerListener(newLeader), TP).size() >= acknowledged.size();
                } catch (Exception e) {
                    return false;
                }
            });
            assertThat(client.consumeAll(layout.brokerListener(newLeader), TP)).containsExactlyElementsOf(acknowledged);

            // LDR-4: SIGTERM on the new leader: leadership moves to the last live replica, then a clean stop, exit 0.
            JvmProcess stopping = brokers.get(newLeader);
            stopping.terminate();
            OptionalInt exit = stopping.awaitExit(Duration.ofSeconds(40));
            assertThat(exit).as("exit code of broker %d after SIGTERM; log:%n%s", newLeader, stopping.logTail())
                    .hasValue(0);
            assertThat(Files.exists(layout.brokerLogDir(newLeader).resolve(CleanShutdownFile.FILE_NAME))).isTrue();
            controller.terminate();
            assertThat(controller.awaitExit(Duration.ofSeconds(30))).hasValue(0);
        }
    }

    private static Set<Integer> otherThan(ClusterLayout layout, int id) {
        Set<Integer> s = new java.util.HashSet<>(layout.brokerIds());
        s.remove(id);
        return s;
    }

    private static int awaitLeader(ServerTestClient client, ClusterLayout layout, int askId, Set<Integer> candidates) {
        int[] leader = {-1};
        ServerTestClient.await("a leader among " + candidates + " known to broker " + askId, WAIT_MS, () -> {
            leader[0] = client.partition(layout.brokerListener(askId), TP).map(PartitionRegistration::leader).orElse(-1);
            return candidates.contains(leader[0]) && client.partition(layout.brokerListener(leader[0]), TP)
                    .map(p -> p.leader() == leader[0]).orElse(false);
        });
        return leader[0];
    }
}
