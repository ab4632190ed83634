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
import dev.insync.replication.testkit.process.ProcessCluster.Flow;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.Reader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

import static dev.insync.replication.testkit.process.JvmProcessTest.eventually;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The harness itself, on stand-in nodes ({@link StandInNodeMain}: they read the generated file,
 * echo on their listener and print the readiness line): what each node is told, a proxy on every
 * directed link that its node dials, faults routed to the right proxy directions, process faults
 * by PID, and nothing left behind. The real broker process is exercised by the CLI's tests.
 */
@Timeout(120)
class ProcessClusterTest {

    @TempDir
    Path dir;

    @AfterEach
    void reapWhatAFailedTestLeft() throws IOException {
        ProcessGroup.reapLeftovers(dir.resolve("pids"));
    }

    private ProcessCluster start(int brokers, int controllers) throws Exception {
        return ProcessCluster.builder(dir.resolve("cluster"))
                .brokers(brokers).controllers(controllers)
                .classPath(ProcessTesting.testClassPath())
                .mainClass(StandInNodeMain.class.getName())
                .jvmOptions(ProcessTesting.SMALL_JVM)
                .pidDirectory(dir.resolve("pids"))
                .brokerProperty("replica.lag.time.max.ms", 5000)
                .start();
    }

    private static Properties config(ProcessCluster cluster, int id) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(cluster.node(id).configFile(), StandardCharsets.UTF_8)) {
            p.load(r);
        }
        return p;
    }

    private static Optional<String> echoThrough(InetSocketAddress address) {
        return ProcessTesting.ask(address.getPort(), "ping", 2_000);
    }

    @Test
    void everyNodeIsToldItsRoleItsPeersAndTheProxyOfEveryLinkItDials() throws Exception {
        try (ProcessCluster cluster = start(3, 3)) {
            assertThat(cluster.brokerIds()).containsExactly(1, 2, 3);
            assertThat(cluster.controllerIds()).containsExactly(1001, 1002, 1003);
            // broker -> broker both ways, broker -> controller, controller -> controller (Raft): 3*2 + 3*3 + 3*2
            assertThat(cluster.proxies()).hasSize(21);

            // Node ports lie below the ephemeral range, so no proxy or outgoing connection can take one.
            for (int id : List.of(1, 2, 3, 1001, 1002, 1003)) {
                assertThat(cluster.node(id).listenerPort()).isBetween(LoopbackPorts.LOWEST_STABLE_PORT,
                        LoopbackPorts.ephemeralLow() - 1);
            }
            Properties b1 = config(cluster, 1);
            assertThat(b1.getProperty("process.roles")).isEqualTo("broker");
            assertThat(b1.getProperty("replica.lag.time.max.ms")).isEqualTo("5000");
            // LDR-4: brokers learn each other's listeners from registrations; the proxies come in as overrides.
            assertThat(b1.getProperty("insync.broker.addresses")).isNull();
            assertThat(b1.getProperty("listeners")).isEqualTo("PLAINTEXT://127.0.0.1:" + cluster.node(1).listenerPort());
            assertThat(b1.getProperty("insync.connect.overrides")).isEqualTo(
                    "2@127.0.0.1:" + cluster.proxy(1, 2).address().getPort()
                            + ",3@127.0.0.1:" + cluster.proxy(1, 3).address().getPort()
                            + ",1001@127.0.0.1:" + cluster.proxy(1, 1001).address().getPort()
                            + ",1002@127.0.0.1:" + cluster.proxy(1, 1002).address().getPort()
                            + ",1003@127.0.0.1:" + cluster.proxy(1, 1003).address().getPort());
            assertThat(b1.getProperty("log.dirs")).startsWith(dir.toString());

            Properties c = config(cluster, 1002);
            assertThat(c.getProperty("process.roles")).isEqualTo("controller");
            // Its own real Raft port, which it binds; each peer through the proxy of the link it dials.
            assertThat(c.getProperty("controller.quorum.voters")).isEqualTo(
                    "1001@127.0.0.1:" + cluster.proxy(1002, 1001).address().getPort()
                            + ",1002@127.0.0.1:" + cluster.node(1002).raftPort()
                            + ",1003@127.0.0.1:" + cluster.proxy(1002, 1003).address().getPort());
            assertThat(cluster.proxy(1002, 1001).target().getPort()).isEqualTo(cluster.node(1001).raftPort());
            assertThat(cluster.proxy(1002, 1001).address().getPort()).isNotEqualTo(cluster.proxy(1003, 1001).address().getPort());
            assertThat(c.getProperty("replica.lag.time.max.ms")).isNull();
            assertThat(c.getProperty("insync.connect.overrides")).isNull();

            // the proxy 1->2 reaches node 2's real listener
            assertThat(cluster.proxy(1, 2).target().getPort()).isEqualTo(cluster.node(2).listenerPort());
            assertThat(echoThrough(cluster.proxy(1, 2).address())).contains("ping");
            assertThatThrownBy(() -> cluster.proxy(1001, 1)).isInstanceOf(IllegalArgumentException.class);
            // The stand-ins never claim to be active; a controller's output that does names it.
            assertThat(cluster.activeController()).isEmpty();
            java.nio.file.Files.writeString(cluster.process(1002).logFile(),
                    "INFO Controller node 1002 is the active controller in epoch 7 at offset 3\n",
                    java.nio.file.StandardOpenOption.APPEND);
            java.nio.file.Files.writeString(cluster.process(1001).logFile(),
                    "INFO Controller node 1001 is the active controller in epoch 6 at offset 1\n",
                    java.nio.file.StandardOpenOption.APPEND);
            assertThat(cluster.activeController()).hasValue(1002);
            // The quorum's links take faults like any other: both directions of both links between the two.
            cluster.blackhole(1001, 1002);
            assertThat(cluster.proxy(1001, 1002).isBlackholed(Direction.TO_SERVER)).isTrue();
            assertThat(cluster.proxy(1002, 1001).isBlackholed(Direction.TO_CLIENT)).isTrue();
            assertThat(cluster.proxy(1001, 1003).isBlackholed(Direction.TO_SERVER)).isFalse();
            cluster.heal();
            assertThat(cluster.proxy(1001, 1002).isBlackholed(Direction.TO_SERVER)).isFalse();
        }
    }

    @Test
    void aOneWayBlackholeCutsTheRequestsOfOneLinkAndTheResponsesOfTheOther() throws Exception {
        try (ProcessCluster cluster = start(2, 1)) {
            cluster.blackhole(1, 2, Flow.ONE_WAY);
            LinkProxy oneToTwo = cluster.proxy(1, 2);
            LinkProxy twoToOne = cluster.proxy(2, 1);
            assertThat(oneToTwo.isBlackholed(Direction.TO_SERVER)).isTrue();
            assertThat(oneToTwo.isBlackholed(Direction.TO_CLIENT)).isFalse();
            assertThat(twoToOne.isBlackholed(Direction.TO_CLIENT)).isTrue();
            assertThat(twoToOne.isBlackholed(Direction.TO_SERVER)).isFalse();
            assertThat(cluster.proxy(1, 1001).isBlackholed(Direction.TO_SERVER)).isFalse();
            assertThat(echoThrough(oneToTwo.address())).isEmpty();

            cluster.heal();
            assertThat(echoThrough(oneToTwo.address())).contains("ping");

            cluster.isolate(2);
            for (LinkProxy p : List.of(cluster.proxy(1, 2), cluster.proxy(2, 1), cluster.proxy(2, 1001))) {
                assertThat(p.isBlackholed(Direction.TO_SERVER)).isTrue();
                assertThat(p.isBlackholed(Direction.TO_CLIENT)).isTrue();
            }
            assertThat(cluster.proxy(1, 1001).isBlackholed(Direction.TO_SERVER)).isFalse();
            cluster.heal();

            cluster.reset(1, 1001);
            assertThat(cluster.proxy(1, 1001).isResetting()).isTrue();
            assertThat(cluster.proxy(2, 1001).isResetting()).isFalse();
            cluster.heal();

            cluster.delay(1, 2, 40);
            long start = System.nanoTime();
            assertThat(echoThrough(cluster.proxy(1, 2).address())).contains("ping");
            assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(80);
        }
    }

    @Test
    void processFaultsGoToTheNodesPidAndRestartWaitsForTheNewReadinessLine() throws Exception {
        try (ProcessCluster cluster = start(2, 1)) {
            cluster.pause(2);
            eventually(() -> cluster.process(2).isStopped());
            assertThat(cluster.process(1).isStopped()).isFalse();
            cluster.resume(2);
            eventually(() -> !cluster.process(2).isStopped());

            long oldPid = cluster.process(2).pid();
            assertThat(cluster.kill(2)).isEqualTo(137);
            assertThat(cluster.isRunning(2)).isFalse();
            assertThat(echoThrough(cluster.proxy(1, 2).address())).isEmpty(); // the proxy resets: node 2 is down

            JvmProcess again = cluster.restart(2);
            assertThat(again.pid()).isNotEqualTo(oldPid);
            assertThat(echoThrough(cluster.proxy(1, 2).address())).contains("ping");
            assertThat(Files.readString(again.logFile()).split("insync: ready node.id=2 ", -1)).hasSize(3);

            assertThat(cluster.controlledShutdown(1)).isEqualTo(143);
            assertThat(cluster.node(1).directory().resolve("stopped")).exists();
        }
    }

    @Test
    void closeReapsEveryNodeAndStopsEveryProxy() throws Exception {
        ProcessCluster cluster = start(2, 1);
        List<ProcessHandle> handles = List.of(cluster.process(1).pid(), cluster.process(2).pid(), cluster.process(1001).pid())
                .stream().map(pid -> ProcessHandle.of(pid).orElseThrow()).toList();
        cluster.pause(1); // a paused node is reaped too
        cluster.close();
        for (ProcessHandle h : handles) {
            assertThat(h.isAlive()).isFalse();
        }
        assertThat(Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .filter(t -> t.getName().startsWith("link-proxy-"))).isEmpty();
        try (var pidFiles = Files.list(dir.resolve("pids"))) {
            assertThat(pidFiles.toList()).isEmpty();
        }
        cluster.close(); // idempotent
    }
}
