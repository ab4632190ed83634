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

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The JVMs one run starts, and the guarantee that none outlives it. Each process started here is
 * recorded in a PID file ({@code <pid>.pid} in the PID directory, with its start time and its owner's)
 * while it lives, and is killed ({@code kill -9}, by PID):
 * <ul>
 *   <li>by {@link #close()};</li>
 *   <li>by a shutdown hook when this JVM exits without closing the group (a failed or timed-out test);</li>
 *   <li>when this JVM was itself killed with {@code kill -9} (no hook runs): by the next
 *       {@link #open} on the same PID directory, which kills every recorded process whose owner JVM
 *       is gone and which is still the same process (same PID and start time), then deletes its file.
 *       Processes of a run still going on (owner alive) are left alone, so concurrent runs can share
 *       the directory.</li>
 * </ul>
 * A name may be started again once its previous process has exited (a restart); {@link #process}
 * returns the latest. Thread-safe.
 */
public final class ProcessGroup implements AutoCloseable {

    /** How long {@link #close()} and the shutdown hook wait, in all, for killed processes to be gone. */
    private static final long REAP_WAIT_MS = JvmProcess.KILL_WAIT.toMillis();

    private final Path logDir;
    private final Path pidDir;
    private final List<Long> reapedLeftovers;
    private final Map<String, JvmProcess> byName = new LinkedHashMap<>();
    private final List<JvmProcess> started = new ArrayList<>();
    private final Thread shutdownHook;
    private boolean closed;

    private ProcessGroup(Path logDir, Path pidDir, List<Long> reapedLeftovers) {
        this.logDir = logDir;
        this.pidDir = pidDir;
        this.reapedLeftovers = List.copyOf(reapedLeftovers);
        this.shutdownHook = new Thread(this::killAll, "process-group-reaper");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /** A group logging into {@code logDir}, with its PID files in {@link #defaultPidDir()}. */
    public static ProcessGroup open(Path logDir) throws IOException {
        return open(logDir, defaultPidDir());
    }

    /**
     * A group logging into {@code logDir} ({@code <name>.log} per process) with its PID files in
     * {@code pidDir}; first reaps the leftovers of dead runs recorded there ({@link #reapLeftovers}).
     */
    public static ProcessGroup open(Path logDir, Path pidDir) throws IOException {
        Files.createDirectories(logDir);
        Files.createDirectories(pidDir);
        return new ProcessGroup(logDir, pidDir, reapLeftovers(pidDir));
    }

    /** The machine-wide PID directory every run shares by default: {@code <java.io.tmpdir>/insync-process-pids}. */
    public static Path defaultPidDir() {
        return Path.of(System.getProperty("java.io.tmpdir"), "insync-process-pids");
    }

    /**
     * Kills ({@code kill -9}) every process recorded in {@code pidDir} whose owner JVM is gone and
     * which is still the recorded process, waits for each to be gone, and deletes their PID files
     * (also those of processes already gone). Files of live owners and files that are not PID files
     * are left as they are. Returns the PIDs killed.
     */
    public static List<Long> reapLeftovers(Path pidDir) throws IOException {
        List<Long> killed = new ArrayList<>();
        if (!Files.isDirectory(pidDir)) {
            return killed;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(pidDir, "*" + PidFile.SUFFIX)) {
            for (Path file : files) {
                PidFile record;
                try {
                    record = PidFile.read(file);
                } catch (IOException e) {
                    continue; // not ours to judge: changes nothing
                }
                if (record.ownerAlive()) {
                    continue;
                }
                Optional<ProcessHandle> leftover = record.liveProcess();
                if (leftover.isPresent()) {
                    leftover.get().destroyForcibly();
                    try {
                        leftover.get().onExit().get(REAP_WAIT_MS, TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IOException("Interrupted while reaping leftover pid " + record.pid() + " of " + file, e);
                    } catch (Exception e) {
                        throw new IOException("Leftover pid " + record.pid() + " (" + file + ") survived kill -9", e);
                    }
                    killed.add(record.pid());
                }
                Files.deleteIfExists(file);
            }
        }
        return killed;
    }

    /** The leftovers of dead runs that {@link #open} killed before this group started anything. */
    public List<Long> reapedLeftovers() {
        return reapedLeftovers;
    }

    /** Where the processes' output goes. */
    public Path logDir() {
        return logDir;
    }

    /** Where the PID files go. */
    public Path pidDir() {
        return pidDir;
    }

    /**
     * Starts {@code spec} as a child process, output appended to {@code <logDir>/<name>.log}, and
     * records it in a PID file that is deleted when the process exits. Does not wait for readiness
     * ({@link JvmProcess#awaitReady}).
     *
     * @throws IllegalStateException if the group is closed or a process of that name is alive
     */
    public synchronized JvmProcess start(JvmSpec spec) throws IOException {
        if (closed) {
            throw new IllegalStateException("Process group " + logDir + " is closed; cannot start " + spec.name());
        }
        JvmProcess previous = byName.get(spec.name());
        if (previous != null && previous.isAlive()) {
            throw new IllegalStateException("A process named " + spec.name() + " is already running: " + previous);
        }
        Path log = logDir.resolve(spec.name() + ".log");
        Process process = new ProcessBuilder(spec.command())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(nullDevice()))
                .start();
        JvmProcess jvm = new JvmProcess(spec, process, log);
        try {
            PidFile.of(process.toHandle(), spec.name()).write(pidDir);
        } catch (IOException | RuntimeException e) {
            jvm.kill();
            throw new IOException("Cannot record the PID of " + jvm + " in " + pidDir + "; killed it", e);
        }
        Path pidFile = PidFile.path(pidDir, process.pid());
        process.onExit().thenRun(() -> deleteQuietly(pidFile));
        byName.put(spec.name(), jvm);
        started.add(jvm);
        return jvm;
    }

    /** The latest process started under {@code name}, if any. */
    public synchronized Optional<JvmProcess> process(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    /** The latest process started under {@code name}. */
    public JvmProcess get(String name) {
        return process(name).orElseThrow(() -> new IllegalArgumentException("No process named " + name + " in " + logDir));
    }

    /** The latest process of every name, in the order first started. */
    public synchronized List<JvmProcess> processes() {
        return List.copyOf(byName.values());
    }

    /**
     * CPU seconds used so far by the processes alive now (see {@link JvmProcess#cpuSeconds()}).
     * A process that exits between two readings drops out of the sum.
     */
    public double cpuSecondsOfLiveProcesses() {
        double sum = 0;
        for (JvmProcess p : processes()) {
            if (p.isAlive()) {
                try {
                    sum += p.cpuSeconds();
                } catch (UncheckedIOException e) {
                    // exited between isAlive and the read: it no longer counts
                }
            }
        }
        return sum;
    }

    /** Kills every live process it started ({@code kill -9}), waits for them, deletes the PID files. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook is running or has run
        }
        killAll();
    }

    private void killAll() {
        List<JvmProcess> all;
        synchronized (this) {
            closed = true;
            all = List.copyOf(started);
        }
        for (JvmProcess p : all) {
            p.sendKill();
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(REAP_WAIT_MS);
        for (JvmProcess p : all) {
            try {
                long leftMs = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
                p.awaitExit(Duration.ofMillis(leftMs));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            if (!p.isAlive()) {
                deleteQuietly(PidFile.path(pidDir, p.pid()));
            }
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // a stale PID file is harmless: the next open sees its process gone and deletes it
        }
    }

    private static File nullDevice() {
        return new File(System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
    }
}
