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

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One JVM started by a {@link ProcessGroup}, and the faults a process suffers: {@link #kill()}
 * ({@code kill -9}), {@link #terminate()} (SIGTERM: the JVM runs its shutdown hooks),
 * {@link #pause()} / {@link #resume()} (SIGSTOP / SIGCONT). Every signal goes to this process's PID,
 * never to a name. Its standard output and error go, appended, to {@link #logFile()}.
 * Signals and {@link #cpuSeconds()} need Linux ({@code kill(1)} and {@code /proc}).
 */
public final class JvmProcess {

    /** How long {@link #kill()} waits for the killed process to be gone. */
    public static final Duration KILL_WAIT = Duration.ofSeconds(10);
    /** Pause between two readiness checks. */
    static final long PROBE_INTERVAL_MS = 50;
    /** Bound of one {@code kill -SIG} command. */
    private static final long SIGNAL_COMMAND_TIMEOUT_MS = 5_000;
    /** Lines of captured output quoted when a process fails to become ready. */
    private static final int LOG_TAIL_LINES = 30;

    private final JvmSpec spec;
    private final Process process;
    private final Path logFile;

    JvmProcess(JvmSpec spec, Process process, Path logFile) {
        this.spec = spec;
        this.process = process;
        this.logFile = logFile;
    }

    /** The spec it was started from. */
    public JvmSpec spec() {
        return spec;
    }

    /** Its {@link JvmSpec#name()}. */
    public String name() {
        return spec.name();
    }

    /** Its operating-system process id. */
    public long pid() {
        return process.pid();
    }

    /** Where its standard output and error are captured (appended across restarts under the same name). */
    public Path logFile() {
        return logFile;
    }

    /** Whether it is still running (a paused process is alive). */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** Its exit code once it has exited: 137 after {@link #kill()}, 143 after {@link #terminate()} by default. */
    public OptionalInt exitCode() {
        return process.isAlive() ? OptionalInt.empty() : OptionalInt.of(process.exitValue());
    }

    /**
     * Waits until {@code probe} passes, checking every {@value #PROBE_INTERVAL_MS} ms for at most
     * {@code timeout}. Throws {@link ProcessNotReadyException} (with the tail of the log) if the
     * process exits first or the bound runs out; the process is left as it is.
     */
    public void awaitReady(ReadinessProbe probe, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new ProcessNotReadyException(this + " exited with code " + process.exitValue()
                        + " before it was ready; last output:\n" + logTail());
            }
            boolean ready;
            try {
                ready = probe.isReady(this);
            } catch (IOException | RuntimeException e) {
                ready = false;
            }
            if (ready) {
                return;
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new ProcessNotReadyException(this + " not ready after " + timeout.toMillis() + " ms; last output:\n"
                        + logTail());
            }
            Thread.sleep(PROBE_INTERVAL_MS);
        }
    }

    /** Waits at most {@code timeout} for the process to exit; its exit code, or empty if it is still running. */
    public OptionalInt awaitExit(Duration timeout) throws InterruptedException {
        if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            return OptionalInt.of(process.exitValue());
        }
        return OptionalInt.empty();
    }

    /**
     * {@code kill -9}: ends the process at once (no shutdown hooks, no flush) and waits until it is
     * gone, at most {@link #KILL_WAIT}. Works on a paused process too. Returns the exit code.
     *
     * @throws IllegalStateException if the process is still there after {@link #KILL_WAIT}
     */
    public int kill() {
        sendKill();
        try {
            return process.onExit().get(KILL_WAIT.toMillis(), TimeUnit.MILLISECONDS).exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for " + this + " to die", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(this + " still alive " + KILL_WAIT.toMillis() + " ms after kill -9", e);
        }
    }

    /** Sends SIGKILL to this process (the {@link Process}, not a PID that could have been reused) without waiting. */
    void sendKill() {
        process.destroyForcibly();
    }

    /** SIGTERM: asks the JVM to shut down (it runs its shutdown hooks); returns at once, see {@link #awaitExit}. */
    public void terminate() {
        if (!ProcessHandle.of(pid()).map(ProcessHandle::supportsNormalTermination).orElse(true)) {
            throw new UnsupportedOperationException("No SIGTERM on this platform for " + this);
        }
        process.destroy(); // SIGTERM on Unix
    }

    /** SIGSTOP: freezes the process; its sockets stay open, nothing it runs makes progress. */
    public void pause() {
        signal("STOP");
    }

    /** SIGCONT: lets a paused process run again. */
    public void resume() {
        signal("CONT");
    }

    /** Whether the process is stopped by a signal ({@code /proc}'s state {@code T}). */
    public boolean isStopped() {
        try {
            return ProcStat.read(pid()).stopped();
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * CPU time the process has used, user plus system, in seconds ({@code utime + stime} of
     * {@code /proc/<pid>/stat}), with the resolution of a clock tick (10 ms).
     *
     * @throws UncheckedIOException if the process is gone
     */
    public double cpuSeconds() {
        try {
            return ProcStat.read(pid()).cpuSeconds();
        } catch (IOException e) {
            throw new UncheckedIOException("No CPU time for " + this + " (gone, or no /proc)", e);
        }
    }

    /** The last lines of the captured output (for error messages). */
    public String logTail() {
        try {
            List<String> lines = new String(Files.readAllBytes(logFile), StandardCharsets.UTF_8).lines().toList();
            return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }

    /** Sends {@code kill -<signal>} to this process's PID and checks that it was delivered. */
    private void signal(String signal) {
        if (!process.isAlive()) {
            throw new IllegalStateException("Cannot send SIG" + signal + " to " + this + ": it has exited");
        }
        ProcessBuilder kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid()))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        try {
            Process p = kill.start();
            if (!p.waitFor(SIGNAL_COMMAND_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("kill -" + signal + " " + pid() + " did not finish");
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid() + " failed with exit code " + p.exitValue());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot run kill -" + signal + " for " + this, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted sending SIG" + signal + " to " + this, e);
        }
    }

    @Override
    public String toString() {
        return "process " + spec.name() + " (pid " + pid() + ")";
    }
}
