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

import dev.insync.replication.bench.harness.JitWarmup;
import dev.insync.replication.testkit.process.ProcStat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * How much CPU the servers' JIT compilers use, read from the operating system, for a
 * {@link JitWarmup} of a target's processes (the same for every target).
 *
 * <p>Compiler CPU is the user plus system time of the threads HotSpot names {@code C1 CompilerThread*}
 * and {@code C2 CompilerThread*}, from {@code /proc/<pid>/task/<tid>/stat}; where that is not
 * readable (not Linux, or a target without processes of its own) it is NaN and the warm-up is the
 * fixed one.
 */
public final class ServerJit {

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
     * A warm-up of the target's servers: at least {@code minMs}, then until their compilers are quiet
     * ({@link JitWarmup}), at most {@code timeoutMs} longer.
     */
    public JitWarmup warmup(ProcessBenchTarget target, long minMs, long timeoutMs) {
        return new JitWarmup(() -> compilerCpuSeconds(target), target::serverCpuSeconds, System::nanoTime, minMs,
                timeoutMs);
    }
}
