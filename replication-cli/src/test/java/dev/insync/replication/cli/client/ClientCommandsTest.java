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

package dev.insync.replication.cli.client;

import dev.insync.replication.cli.InsyncCli;
import dev.insync.replication.log.FileSync;
import dev.insync.replication.server.ClusterLayout;
import dev.insync.replication.server.InsyncServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code insync topics}, {@code produce} and {@code consume} against a controller and three brokers
 * over loopback ({@link InsyncServer}s in this JVM, built from the properties a process reads).
 */
class ClientCommandsTest {

    private static final long WAIT_MS = 30_000;

    @TempDir
    Path root;

    private final Map<Integer, InsyncServer> servers = new TreeMap<>();

    @AfterEach
    void stop() {
        servers.values().forEach(InsyncServer::close);
    }

    record Run(int exitCode, String out, String err) {
    }

    static Run run(CommandLine cmd, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        int code = cmd.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    static Run run(String... args) {
        return run(InsyncCli.commandLine(), args);
    }

    private ClusterLayout startCluster() throws Exception {
        ClusterLayout layout = new ClusterLayout(root, 1, 3);
        List<InsyncServer> started = new ArrayList<>();
        for (int id : layout.controllerIds()) {
            started.add(start(layout.controller(id)));
        }
        for (int id : layout.brokerIds()) {
            started.add(start(layout.broker(id)));
        }
        for (InsyncServer s : started) {
            s.ready().get(WAIT_MS, TimeUnit.MILLISECONDS);
        }
        // Ready means serving; the controller unfences a broker at its next heartbeat, and a topic of RF 3
        // needs all three unfenced (creation was refused under load otherwise).
        for (InsyncServer s : started) {
            s.broker().ifPresent(b -> dev.insync.replication.server.ServerTestClient.await("broker " + s.nodeId()
                    + " unfenced", WAIT_MS, () -> !b.lifecycle().isFenced()));
        }
        return layout;
    }

    private InsyncServer start(Map<String, String> props) throws Exception {
        InsyncServer s = InsyncServer.builder(props).fileSync(dir -> FileSync.withoutFsync()).build();
        servers.put(s.nodeId(), s);
        s.start();
        return s;
    }

    private static String addresses(java.util.Collection<InetSocketAddress> as) {
        return as.stream().map(a -> a.getHostString() + ":" + a.getPort()).collect(Collectors.joining(","));
    }

    private static Run awaitDescribe(String bootstrap, String pattern) {
        return awaitDescribe(bootstrap, "orders", r -> r.exitCode() == 0 && Pattern.compile(pattern).matcher(r.out()).find(),
                "matched " + pattern);
    }

    /** Describes {@code topic} at the brokers until {@code done} holds, at most {@code WAIT_MS}. */
    private static Run awaitDescribe(String bootstrap, String topic, Predicate<Run> done, String what) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        Run last;
        do {
            last = run("topics", "--bootstrap-server", bootstrap, "--describe", "--topic", topic);
            if (done.test(last)) {
                return last;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        } while (System.nanoTime() < deadline);
        throw new AssertionError("describe of " + topic + " never " + what + ": " + last);
    }

    @Test
    @DisplayName("PRO-3 INV-1 topics --create (RF 3, min ISR 2) at the controller, --describe in Kafka's lines, produce acks=all, the leader halted, produce from stdin to the new leader, consume --from-beginning reads every acknowledged record")
    void createDescribeProduceFailoverConsume() throws Exception {
        ClusterLayout layout = startCluster();
        String controller = addresses(layout.controllerListeners().values());
        String brokers = addresses(layout.brokerIds().stream().map(layout::brokerListener).toList());

        Run created = run("topics", "--bootstrap-controller", controller, "--create", "--topic", "orders",
                "--partitions", "1", "--replication-factor", "3", "--config", "min.insync.replicas=2");
        assertThat(created.exitCode()).as(created.toString()).isZero();
        assertThat(created.out()).startsWith("Created topic orders.");

        Run described = awaitDescribe(brokers, "Isr: 1,2,3");
        assertThat(described.out()).startsWith("Topic: orders\tPartitionCount: 1\tReplicationFactor: 3\tConfigs: \n"
                + "\tTopic: orders\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2,3\tElr: \tLastKnownElr: ");
        Run viaController = run("topics", "--bootstrap-controller", controller, "--describe", "--topic", "orders");
        assertThat(viaController.out()).startsWith("Topic: orders\tPartitionCount: 1\tReplicationFactor: 3\t"
                + "Configs: min.insync.replicas=2\n");

        Run produced = run("produce", "--bootstrap-server", brokers, "--topic", "orders", "--acks", "all",
                "--count", "20", "--print-offsets");
        assertThat(produced.exitCode()).as(produced.toString()).isZero();
        assertThat(produced.out()).contains("orders-0@0 leaderEpoch=0").contains("orders-0@19 leaderEpoch=0")
                .contains("Acknowledged 20 of 20 records to orders-0 (acks=all)");

        servers.get(1).halt(); // kill -9 of the leader
        Run moved = awaitDescribe(brokers, "Leader: [23]");
        assertThat(moved.out()).doesNotContain("Leader: 1\t");
        CommandLine stdinProducer = new CommandLine(new ProduceCommand(
                new ByteArrayInputStream("after-1\nafter-2\n".getBytes(StandardCharsets.UTF_8))));
        Run fromStdin = run(stdinProducer, "--bootstrap-server", brokers, "--topic", "orders", "--acks", "all");
        assertThat(fromStdin.exitCode()).as(fromStdin.toString()).isZero();
        assertThat(fromStdin.out()).contains("Acknowledged 2 of 2 records");

        Run consumed = run("consume", "--bootstrap-server", brokers, "--topic", "orders", "--from-beginning",
                "--max-records", "22", "--idle-timeout-ms", "20000");
        assertThat(consumed.exitCode()).as(consumed.toString()).isZero();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            expected.add("record-" + i);
        }
        expected.add("after-1");
        expected.add("after-2");
        assertThat(consumed.out().lines().toList()).isEqualTo(expected);
        assertThat(consumed.err()).contains("Processed a total of 22 messages");

        Matcher m = Pattern.compile("Leader: (\\d)").matcher(moved.out());
        assertThat(m.find()).isTrue();
    }

    private static Run awaitDescribeExit(String brokers, String topic, int exitCode) {
        return awaitDescribe(brokers, topic, r -> r.exitCode() == exitCode, "exited " + exitCode);
    }

    @Test
    @DisplayName("topics --delete at the controller: the brokers forget the topic, a second delete is a failure (exit 1) naming it")
    void deleteTopic() throws Exception {
        ClusterLayout layout = startCluster();
        String controller = addresses(layout.controllerListeners().values());
        String brokers = addresses(layout.brokerIds().stream().map(layout::brokerListener).toList());
        Run created = run("topics", "--bootstrap-controller", controller, "--create", "--topic", "gone",
                "--partitions", "2", "--replication-factor", "3");
        assertThat(created.exitCode()).as(created.toString()).isZero();
        assertThat(awaitDescribeExit(brokers, "gone", 0).out()).contains("Topic: gone\tPartition: 1");

        Run deleted = run("topics", "--bootstrap-controller", controller, "--delete", "--topic", "gone");
        assertThat(deleted.exitCode()).as(deleted.toString()).isZero();
        assertThat(deleted.out()).startsWith("Deleted topic gone.");
        Run described = awaitDescribeExit(brokers, "gone", 1);
        assertThat(described.err()).contains("gone");
        Run again = run("topics", "--bootstrap-controller", controller, "--delete", "--topic", "gone");
        assertThat(again.exitCode()).isEqualTo(1);
        assertThat(again.err()).contains("gone");
        Run bare = run("topics", "--bootstrap-controller", controller, "--delete");
        assertThat(bare.exitCode()).isEqualTo(2);
    }

    @Test
    @DisplayName("an unknown topic is a failure (exit 1) for describe, produce and consume, with the topic named")
    void unknownTopic() throws Exception {
        ClusterLayout layout = startCluster();
        String brokers = addresses(List.of(layout.brokerListener(1)));
        Run d = run("topics", "--bootstrap-server", brokers, "--describe", "--topic", "nope");
        assertThat(d.exitCode()).isEqualTo(1);
        assertThat(d.err()).contains("nope");
        Run p = run("produce", "--bootstrap-server", brokers, "--topic", "nope", "--count", "1");
        assertThat(p.exitCode()).isEqualTo(1);
        assertThat(p.err()).contains("nope");
        Run c = run("consume", "--bootstrap-server", brokers, "--topic", "nope", "--from-beginning");
        assertThat(c.exitCode()).isEqualTo(1);
        assertThat(c.err()).contains("nope");
    }
}
