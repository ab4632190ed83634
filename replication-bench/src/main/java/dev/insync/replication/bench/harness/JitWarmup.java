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

package dev.insync.replication.bench.harness;

import com.sun.management.OperatingSystemMXBean;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * A warm-up that lasts until the JIT compilers of the measured system are quiet.
 *
 * <p>A fixed warm-up is not enough on a small machine: with three broker JVMs on two cores, the C2
 * compiler threads still took more than half of the brokers' CPU 15 s into an acks=all load of 12
 * partitions, so a window measured then was the compiler's, not the system's. So a warm-up lasts at
 * least its minimum and then until, over {@link #QUIET_WINDOWS} windows of {@link #WINDOW_MS} in a
 * row, the compilers used less than {@link #QUIET_SHARE} of the system's CPU, at most a timeout
 * longer (one quiet window was not enough: on a loaded machine, compilation comes in bursts, and the
 * window measured after a single quiet second still had 5-9 % of compiler time); whoever keeps the load
 * running polls {@link #settled()} (one thread: not thread-safe).
 */
public final class JitWarmup {

    /** Length of one reading of the compilers' share. */
    static final long WINDOW_MS = 1_000;
    /** Below this share of the system's CPU in a window, the compilers count as quiet. */
    static final double QUIET_SHARE = 0.01;
    /** Quiet windows in a row that end the warm-up. */
    static final int QUIET_WINDOWS = 2;
    /** How often {@link #await()} asks {@link #settled()}. */
    static final long POLL_MS = 50;

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
    private int quietWindows;

    /**
     * @param compilerCpu CPU seconds the compilers used so far (NaN: not readable, the warm-up is the fixed one)
     * @param serverCpu   CPU seconds the measured system used so far
     * @param nanoTime    the clock
     * @param minMs       the warm-up's shortest length
     * @param timeoutMs   how much longer than {@code minMs} it may wait for quiet compilers (0: fixed warm-up)
     */
    public JitWarmup(DoubleSupplier compilerCpu, DoubleSupplier serverCpu, LongSupplier nanoTime, long minMs, long timeoutMs) {
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

    /** Sleeps in steps of {@link #POLL_MS} until {@link #settled()}, for a load that runs on other threads. */
    public void await() throws InterruptedException {
        while (!settled()) {
            Thread.sleep(POLL_MS);
        }
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
        quietWindows = lastShare < QUIET_SHARE ? quietWindows + 1 : 0;
        if (quietWindows == QUIET_WINDOWS) {
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

    /**
     * A warm-up of this JVM (the in-process cluster and its load): compilation time as the JVM
     * accounts it, against this process's CPU time.
     */
    public static JitWarmup thisJvm(long minMs, long timeoutMs) {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean timed = jit != null && jit.isCompilationTimeMonitoringSupported();
        OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        return new JitWarmup(() -> timed ? jit.getTotalCompilationTime() / 1e3 : Double.NaN,
                () -> os.getProcessCpuTime() / 1e9, System::nanoTime, minMs, timeoutMs);
    }
}
