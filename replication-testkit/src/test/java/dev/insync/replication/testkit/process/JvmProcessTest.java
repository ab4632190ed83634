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

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.function.BooleanSupplier;

import static dev.insync.replication.testkit.process.ProcessTesting.answersPing;
import static dev.insync.replication.testkit.process.ProcessTesting.ask;
import static dev.insync.replication.testkit.process.ProcessTesting.port;
import static dev.insync.replication.testkit.process.ProcessTesting.refused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** One real child JVM per test (the echo server), signalled by PID and observed through its port. */
@Timeout(60)
class JvmProcessTest {

    private static final Duration READY = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private ProcessGroup group;
    private Path portFile;
    private Path hookFile;

    @BeforeEach
    void openGroup() throws IOException {
        group = ProcessGroup.open(dir.resolve("logs"), dir.resolve("pids"));
        portFile = dir.resolve("port");
        hookFile = dir.resolve("hook-ran");
    }

    @AfterEach
    void closeGroup() {
        group.close();
    }

    private JvmProcess startEchoServer() throws Exception {
        JvmProcess p = group.start(ProcessTesting.echoServer("echo", portFile, hookFile));
        p.awaitReady(answersPing(portFile), READY);
        return p;
    }

    @Test
    void startsAJvmCapturesItsOutputAndWaitsUntilItAnswers() throws Exception {
        JvmProcess p = startEchoServer();

        assertThat(p.isAlive()).isTrue();
        assertThat(p.exitCode()).isEmpty();
        assertThat(ask(port(portFile), "ping", 2_000)).contains("pong");
        assertThat(p.logFile()).isEqualTo(dir.resolve("logs").resolve("echo.log"));
        assertThat(Files.readString(p.logFile())).contains("echo server listening on " + port(portFile));
        assertThat(PidFile.read(PidFile.path(group.pidDir(), p.pid())).pid()).isEqualTo(p.pid());
    }

    @Test
    void killNineEndsItAtOnceWithoutItsShutdownHooks() throws Exception {
        JvmProcess p = startEchoServer();
        int port = port(portFile);

        assertThat(p.kill()).isEqualTo(137); // 128 + SIGKILL

        assertThat(p.isAlive()).isFalse();
        assertThat(refused(port)).isTrue();
        assertThat(hookFile).doesNotExist();
        eventually(() -> !Files.exists(PidFile.path(group.pidDir(), p.pid())));
    }

    @Test
    void sigtermRunsTheJvmsShutdownHooks() throws Exception {
        JvmProcess p = startEchoServer();

        p.terminate();

        assertThat(p.awaitExit(READY)).isEqualTo(OptionalInt.of(143)); // 128 + SIGTERM
        assertThat(hookFile).hasContent("shutdown hook ran");
    }

    @Test
    void sigstopSilencesThePortUntilSigcont() throws Exception {
        JvmProcess p = startEchoServer();
        int port = port(portFile);

        p.pause();
        eventually(p::isStopped);
        // The kernel still accepts the connection into the backlog; nobody answers.
        assertThat(ask(port, "ping", 500)).isEmpty();
        assertThat(p.isAlive()).isTrue();

        p.resume();
        eventually(() -> !p.isStopped());
        assertThat(ask(port, "ping", 5_000)).contains("pong");
    }

    @Test
    void aPausedProcessStillDiesOnKillNine() throws Exception {
        JvmProcess p = startEchoServer();
        p.pause();
        eventually(p::isStopped);

        assertThat(p.kill()).isEqualTo(137);
        assertThat(refused(port(portFile))).isTrue();
    }

    @Test
    void cpuSecondsComeFromProcAndGrowWithWork() throws Exception {
        JvmProcess p = startEchoServer();
        double before = p.cpuSeconds();

        assertThat(ask(port(portFile), "spin 300", 30_000)).contains("done");

        double after = p.cpuSeconds();
        assertThat(after - before).isGreaterThanOrEqualTo(0.29);
        // The JDK reads the same /proc fields: the two agree up to what the idle process used in between.
        double jdk = ProcessHandle.of(p.pid()).orElseThrow().info().totalCpuDuration().orElseThrow().toMillis() / 1e3;
        assertThat(jdk).isCloseTo(after, within(0.1));
    }

    @Test
    void aProcessThatExitsBeforeItIsReadyFailsWithItsOutput() throws Exception {
        JvmProcess p = group.start(JvmSpec.of("broken", ProcessTesting.testClassPath(), "no.such.Main")
                .withJvmOptions(ProcessTesting.SMALL_JVM));

        assertThatThrownBy(() -> p.awaitReady(answersPing(portFile), READY))
                .isInstanceOf(ProcessNotReadyException.class)
                .hasMessageContaining("broken (pid " + p.pid() + ") exited with code 1")
                .hasMessageContaining("no.such.Main");
    }

    @Test
    void readinessIsBounded() throws Exception {
        JvmProcess p = startEchoServer();
        long t0 = System.nanoTime();

        assertThatThrownBy(() -> p.awaitReady(process -> false, Duration.ofMillis(300)))
                .isInstanceOf(ProcessNotReadyException.class)
                .hasMessageContaining("not ready after 300 ms");
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isBetween(Duration.ofMillis(300), Duration.ofSeconds(10));
        assertThat(p.isAlive()).as("left as it is").isTrue();
    }

    @Test
    void signalsToAnExitedProcessAreRefused() throws Exception {
        JvmProcess p = startEchoServer();
        p.kill();

        assertThatThrownBy(p::pause).isInstanceOf(IllegalStateException.class).hasMessageContaining("has exited");
        assertThatThrownBy(p::cpuSeconds).hasMessageContaining("pid " + p.pid());
    }

    @Test
    void procStatFieldsAreCountedFromTheLastParenthesis() {
        ProcStat s = ProcStat.parse(42, "42 (java (x) y) T 1 42 42 0 -1 4194304 100 0 0 0 250 75 0 0 20 0 30 0 12345");

        assertThat(s.command()).isEqualTo("java (x) y");
        assertThat(s.state()).isEqualTo('T');
        assertThat(s.stopped()).isTrue();
        assertThat(s.cpuSeconds()).isEqualTo(3.25);
        assertThatThrownBy(() -> ProcStat.parse(7, "7 java S 1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/proc/7/stat");
    }

    @Test
    void threadsOfALiveProcessAreReadFromItsTaskDirectory() throws Exception {
        List<ProcStat> threads = ProcStat.threads(Path.of("/proc"), ProcessHandle.current().pid());

        assertThat(threads).extracting(ProcStat::command).as("this JVM's threads, names cut to 15 characters")
                .contains("java").anyMatch(name -> name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre"));
        assertThat(threads).allSatisfy(t -> assertThat(t.cpuSeconds()).isNotNegative());
        assertThatThrownBy(() -> ProcStat.threads(Path.of("/proc"), Long.MAX_VALUE)).isInstanceOf(IOException.class);
    }

    @Test
    void specNamesAreSafeFileNames() {
        assertThatThrownBy(() -> JvmSpec.of("../x", "cp", "Main")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'../x'");
        assertThat(JvmSpec.of("broker-1", "a.jar", "Main").withJvmOptions("-Xmx1g").withArguments("p").command())
                .endsWith("-Xmx1g", "-cp", "a.jar", "Main", "p");
    }

    @Test
    void loopbackPortsAreDistinctAndBindable() throws Exception {
        List<Integer> ports = LoopbackPorts.free(4);

        assertThat(ports).hasSize(4).doesNotHaveDuplicates().allSatisfy(p -> assertThat(p).isPositive());
        try (ServerSocket s = new ServerSocket(ports.get(0), 1, InetAddress.getLoopbackAddress())) {
            assertThat(s.getLocalPort()).isEqualTo(ports.get(0));
        }
        assertThatThrownBy(() -> LoopbackPorts.free(0)).isInstanceOf(IllegalArgumentException.class);
    }

    /** Polls {@code condition} for at most 10 s (a signal's effect is asynchronous). */
    static void eventually(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("condition within 10 s").isNegative();
            Thread.sleep(10);
        }
    }
}
