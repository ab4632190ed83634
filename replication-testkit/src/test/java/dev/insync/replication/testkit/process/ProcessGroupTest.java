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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static dev.insync.replication.testkit.process.JvmProcessTest.eventually;
import static dev.insync.replication.testkit.process.ProcessTesting.answersPing;
import static dev.insync.replication.testkit.process.ProcessTesting.port;
import static dev.insync.replication.testkit.process.ProcessTesting.portFileWritten;
import static dev.insync.replication.testkit.process.ProcessTesting.refused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every process a group starts is reaped by PID: on close, by the shutdown hook when the owner JVM
 * exits, and by the next open when the owner JVM was killed with {@code kill -9}; nothing of a live
 * run and nothing that merely reuses a PID is touched.
 */
@Timeout(90)
class ProcessGroupTest {

    private static final Duration READY = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    /** Even when a test fails halfway, the children of its owner JVMs do not outlive it. */
    @AfterEach
    void reapWhatAFailedTestLeft() throws IOException {
        ProcessGroup.reapLeftovers(pids());
    }

    private Path pids() {
        return dir.resolve("pids");
    }

    private List<Path> pidFiles() throws IOException {
        try (var files = Files.list(pids())) {
            return files.filter(f -> f.toString().endsWith(PidFile.SUFFIX)).toList();
        }
    }

    @Test
    void closeKillsEveryProcessAndDeletesThePidFiles() throws Exception {
        ProcessGroup group = ProcessGroup.open(dir.resolve("logs"), pids());
        JvmProcess a = group.start(ProcessTesting.echoServer("a", dir.resolve("port-a"), dir.resolve("hook-a")));
        JvmProcess b = group.start(ProcessTesting.echoServer("b", dir.resolve("port-b"), dir.resolve("hook-b")));
        a.awaitReady(answersPing(dir.resolve("port-a")), READY);
        b.awaitReady(answersPing(dir.resolve("port-b")), READY);
        assertThat(pidFiles()).hasSize(2);
        assertThat(group.processes()).containsExactly(a, b);

        group.close();

        assertThat(a.isAlive()).isFalse();
        assertThat(b.isAlive()).isFalse();
        assertThat(a.exitCode()).hasValue(137);
        assertThat(refused(port(dir.resolve("port-a")))).isTrue();
        assertThat(refused(port(dir.resolve("port-b")))).isTrue();
        assertThat(pidFiles()).isEmpty();
        group.close(); // idempotent
        assertThatThrownBy(() -> group.start(ProcessTesting.echoServer("c", dir.resolve("port-c"), dir.resolve("hook-c"))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    void aNameStartsAgainOnlyOnceItsProcessHasExited() throws Exception {
        try (ProcessGroup group = ProcessGroup.open(dir.resolve("logs"), pids())) {
            Path port = dir.resolve("port");
            JvmSpec spec = ProcessTesting.echoServer("node", port, dir.resolve("hook"));
            JvmProcess first = group.start(spec);
            first.awaitReady(portFileWritten(port), READY);
            assertThatThrownBy(() -> group.start(spec)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("already running");

            first.kill();
            Files.delete(port);
            JvmProcess second = group.start(spec);
            second.awaitReady(answersPing(port), READY);

            assertThat(second.pid()).isNotEqualTo(first.pid());
            assertThat(group.get("node")).isSameAs(second);
            assertThat(group.cpuSecondsOfLiveProcesses()).isPositive();
            // Both incarnations' output, appended to one file.
            assertThat(Files.readString(second.logFile()).split("echo server listening", -1)).hasSize(3);
        }
    }

    @Test
    void theShutdownHookReapsTheChildrenWhenTheOwnerJvmExits() throws Exception {
        try (ProcessGroup outer = ProcessGroup.open(dir.resolve("outer-logs"), dir.resolve("outer-pids"))) {
            Path childPid = dir.resolve("child-pid");
            JvmProcess owner = outer.start(owner("exit", childPid));

            assertThat(owner.awaitExit(READY)).as("owner returned from main").hasValue(0);

            long pid = Long.parseLong(Files.readString(childPid));
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).isIn(Optional.empty(), Optional.of(false));
            assertThat(refused(port(dir.resolve("child-port")))).isTrue();
            assertThat(pidFiles()).as("the hook deleted the child's PID file").isEmpty();
        }
    }

    @Test
    void leftoversOfAnOwnerKilledWithKillNineAreReapedByTheNextOpen() throws Exception {
        try (ProcessGroup outer = ProcessGroup.open(dir.resolve("outer-logs"), dir.resolve("outer-pids"))) {
            Path childPid = dir.resolve("child-pid");
            JvmProcess owner = outer.start(owner("wait", childPid));
            owner.awaitReady(p -> Files.exists(childPid), READY);
            long pid = Long.parseLong(Files.readString(childPid));

            owner.kill(); // no shutdown hook runs: the child survives its owner
            ProcessHandle child = ProcessHandle.of(pid).orElseThrow();
            assertThat(child.isAlive()).isTrue();
            assertThat(pidFiles()).hasSize(1);

            try (ProcessGroup next = ProcessGroup.open(dir.resolve("logs"), pids())) {
                assertThat(next.reapedLeftovers()).containsExactly(pid);
            }
            assertThat(child.isAlive()).isFalse();
            assertThat(refused(port(dir.resolve("child-port")))).isTrue();
            assertThat(pidFiles()).isEmpty();
        }
    }

    @Test
    void processesOfALiveOwnerAndReusedPidsAreLeftAlone() throws Exception {
        try (ProcessGroup running = ProcessGroup.open(dir.resolve("logs"), pids())) {
            Path port = dir.resolve("port");
            JvmProcess p = running.start(ProcessTesting.echoServer("mine", port, dir.resolve("hook")));
            p.awaitReady(portFileWritten(port), READY);

            // Another run opening the same directory meanwhile: this JVM (the owner) is alive.
            assertThat(ProcessGroup.reapLeftovers(pids())).isEmpty();
            assertThat(p.isAlive()).isTrue();

            // A record of a dead owner whose PID now belongs to another process (start time differs).
            Process gone = new ProcessBuilder("true").start();
            PidFile deadOwner = PidFile.of(gone.toHandle(), "x");
            eventually(() -> !gone.isAlive());
            Path other = pids().resolve("reused" + PidFile.SUFFIX);
            Files.writeString(other, "pid=" + p.pid() + "\nstartMs=1000\nownerPid=" + deadOwner.pid()
                    + "\nownerStartMs=" + deadOwner.startMs() + "\nname=old\n");
            Path junk = pids().resolve("junk" + PidFile.SUFFIX);
            Files.writeString(junk, "not a pid file");

            assertThat(ProcessGroup.reapLeftovers(pids())).isEmpty();
            assertThat(p.isAlive()).isTrue();
            assertThat(other).as("a dead owner's record is removed").doesNotExist();
            assertThat(junk).as("what is not a PID file is left as it is").exists();
            assertThat(ProcessTesting.ask(port(port), "ping", 5_000)).contains("pong");
        }
    }

    /** The owner JVM: needs the testkit's classes (ProcessGroup) and test classes on its class path. */
    private JvmSpec owner(String mode, Path childPid) {
        return JvmSpec.of("owner", ProcessTesting.testClassPath(), GroupOwnerMain.class.getName())
                .withJvmOptions(ProcessTesting.SMALL_JVM)
                .withArguments(mode, pids().toString(), dir.resolve("logs").toString(), childPid.toString(),
                        dir.resolve("child-port").toString(), dir.resolve("child-hook").toString());
    }
}
