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

package dev.insync.replication.bench.processes;

import dev.insync.replication.testkit.process.ProcStat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * Whether the servers' JIT compilers are still at work, read from the operating system.
 *
 * <p>A fixed warm-up is not enough on a small machine: with three broker JVMs on two cores, the C2
 * compiler threads still took more than half of the brokers' CPU 15 s into an acks=all load of 12
 * partitions, so a window measured then was the compiler's, not the system's. The warm-up therefore
 * goes on until, over a window of {@link #WINDOW_MS}, the brokers' compiler threads used less than
 * {@link #QUIET_SHARE} of the servers' CPU (bounded), for every target alike.
 *
 * <p>Compiler CPU is the user plus system time of the threads HotSpot names {@code C1 CompilerThread*}
 * and {@code C2 CompilerThread*}, from {@code /proc/<pid>/task/<tid>/stat}; where that is not
 * readable (not Linux, or a target without processes of its own) it is NaN and the warm-up is the
 * fixed one.
 */
public final class ServerJit {

    /** Length of one reading of the compilers' share. */
    static final long WINDOW_MS = 1_000;
    /** Below this share of the servers' CPU in a window, the compilers count as quiet. */
    static final double QUIET_SHARE = 0.01;

    private final Path procRoot;
    /** Each compiler thread's CPU seconds at the previous reading, by thread id; null before the first. */
    private Map<Long, Double> lastByThread;
    private double total;

    /** Reading {@code /proc}. */
    public ServerJit() {
        this(Path.of("/proc"));
    }

    /** Reading {@code procRoot} laid out as {@code /proc} (tests). */
    ServerJit(Path procRoot) {
        this.procRoot = procRoot;
    }

    /** CPU seconds the compiler threads of the target's live brokers used since the first reading; NaN if not readable. */
    public double compilerCpuSeconds(ProcessBenchTarget target) {
        try {
            return compilerCpuSeconds(target.brokerPids().values());
        } catch (UnsupportedOperationException e) {
            return Double.NaN;
        }
    }

    /**
     * CPU seconds the compiler threads of these processes used since this object first read them
     * (0 at the first reading); NaN if not readable.
     *
     * <p>HotSpot starts and ends compiler threads as the queue grows and shrinks
     * ({@code UseDynamicNumberOfCompilerThreads}), and an ended thread's time leaves {@code /proc}, so
     * a plain sum could fall. The total is therefore kept here from each thread's own increase (a new
     * thread counts from zero, as it began after the previous reading); what an ending thread used
     * since the previous reading is lost, which is little: threads end after they have been idle.
     */
    synchronized double compilerCpuSeconds(Collection<Long> pids) {
        if (pids.isEmpty()) {
            return Double.NaN;
        }
        Map<Long, Double> now = new HashMap<>();
        for (long pid : pids) {
            try {
                for (ProcStat thread : ProcStat.threads(procRoot, pid)) {
                    if (thread.command().startsWith("C1 CompilerThre") || thread.command().startsWith("C2 CompilerThre")) {
                        now.put(thread.pid(), thread.cpuSeconds());
                    }
                }
            } catch (NoSuchFileException e) {
                return Double.NaN; // no /proc, or the process has ended
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot read the threads of process " + pid + " under " + procRoot, e);
            }
        }
        if (lastByThread != null) {
            for (Map.Entry<Long, Double> thread : now.entrySet()) {
                double before = lastByThread.getOrDefault(thread.getKey(), 0.0);
                // Lower than before: the id was reused by a thread that began after the previous reading.
                total += thread.getValue() >= before ? thread.getValue() - before : thread.getValue();
            }
        }
        lastByThread = now;
        return total;
    }

    /**
     * A warm-up that lasts at least {@code minMs} and then until the compilers are quiet over one
     * window, at most {@code timeout} longer; {@link #settled()} is polled by whoever keeps the load
     * running.
     */
    public Watch watch(ProcessBenchTarget target, long minMs, Duration timeout) {
        return new Watch(() -> compilerCpuSeconds(target), target::serverCpuSeconds, System::nanoTime, minMs,
                timeout.toMillis());
    }

    /** The state of one warm-up (not thread-safe: one thread polls it). */
    public static final class Watch {
        private final DoubleSupplier compilerCpu;
        private final DoubleSupplier serverCpu;
        private final LongSupplier nanoTime;
        private final long startNs;
        private final long minMs;
        private final long timeoutMs;
        private long windowStartNs;
        private double compilerAtWindowStart = Double.NaN;
        private double serverAtWindowStart = Double.NaN;
        private double lastShare = Double.NaN;
        private long settledAfterMs = -1;
        private boolean settled;
        private boolean quiet;

        Watch(DoubleSupplier compilerCpu, DoubleSupplier serverCpu, LongSupplier nanoTime, long minMs, long timeoutMs) {
            if (minMs < 0 || timeoutMs < 0) {
                throw new IllegalArgumentException("Warm-up bounds must be >= 0: min " + minMs + " ms, timeout "
                        + timeoutMs + " ms");
            }
            this.compilerCpu = compilerCpu;
            this.serverCpu = serverCpu;
            this.nanoTime = nanoTime;
            this.minMs = minMs;
            this.timeoutMs = timeoutMs;
            this.startNs = nanoTime.getAsLong();
        }

        /** Whether the warm-up is over: quiet compilers, no reading, or the bound reached. */
        public boolean settled() {
            if (!settled && decide()) {
                settled = true;
                settledAfterMs = (nanoTime.getAsLong() - startNs) / 1_000_000;
            }
            return settled;
        }

        private boolean decide() {
            long now = nanoTime.getAsLong();
            long elapsedMs = (now - startNs) / 1_000_000;
            if (elapsedMs < minMs) {
                return false;
            }
            if (timeoutMs == 0 || elapsedMs >= minMs + timeoutMs) {
                return true;
            }
            if (Double.isNaN(compilerAtWindowStart)) {
                return startWindow(now);
            }
            if ((now - windowStartNs) / 1_000_000 < WINDOW_MS) {
                return false;
            }
            double compiler = compilerCpu.getAsDouble() - compilerAtWindowStart;
            double server = serverCpu.getAsDouble() - serverAtWindowStart;
            lastShare = server > 0 ? compiler / server : 0;
            if (lastShare < QUIET_SHARE) {
                quiet = true;
                return true;
            }
            return startWindow(now);
        }

        private boolean startWindow(long now) {
            compilerAtWindowStart = compilerCpu.getAsDouble();
            if (Double.isNaN(compilerAtWindowStart)) {
                return true; // nothing to read: the fixed warm-up is all there is
            }
            serverAtWindowStart = serverCpu.getAsDouble();
            windowStartNs = now;
            return false;
        }

        /** How long the warm-up lasted, in milliseconds: from its start until it settled (or until now, if it has not). */
        public long durationMs() {
            return settled ? settledAfterMs : (nanoTime.getAsLong() - startNs) / 1_000_000;
        }

        /** Whether it ended because the compilers were quiet (not because of the bound or no reading). */
        public boolean quiet() {
            return quiet;
        }

        /** The compilers' share of the servers' CPU in the last full window read; NaN before one. */
        public double lastShare() {
            return lastShare;
        }
    }
}
