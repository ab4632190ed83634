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

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Three brokers with {@link BenchOptions#scalePartitions()} partitions of replication factor 3 in
 * this JVM: the process CPU used while idle, the heap each replica costs after a full GC, and the
 * throughput with the load spread over every partition.
 *
 * <p>Idle means the steady state: creating thousands of partitions leaves the JIT compiler busy for
 * a while (the fetch paths that just became hot; measured at 3.5 % of a core over the first 15 s),
 * so the CPU window starts once compilation has quieted down ({@link #settle}), and the compiler's
 * share of the window is reported next to it.
 */
final class ScaleBench {

    /** Longest wait for the JIT compiler to quiet down before the idle window. */
    static final long SETTLE_MAX_MS = 30_000;
    /** The compiler counts as quiet when it compiled for less than 1 % of such a window. */
    static final long SETTLE_WINDOW_MS = 2_000;

    private final BenchOptions options;
    private final Measurements out;
    private final Consumer<String> progress;

    ScaleBench(BenchOptions options, Measurements out, Consumer<String> progress) {
        this.options = options;
        this.out = out;
        this.progress = progress;
    }

    /**
     * Brokers of tens of thousands of partitions run with fetch sessions (FET-7, the default; set here
     * so that the measurement does not depend on it): without them every idle fetch lists and the
     * leader reads every partition.
     */
    static final Map<String, Object> SCALE_CONFIG = Map.of("insync.fetch.sessions.enabled", true);

    void run() throws Exception {
        int partitions = options.scalePartitions();
        long heapBefore;
        try (BenchCluster empty = BenchCluster.start(0, false, SCALE_CONFIG)) {
            heapBefore = heapAfterFullGc();
        }
        long start = System.nanoTime();
        try (BenchCluster cluster = BenchCluster.start(partitions, false, SCALE_CONFIG)) {
            out.add("scale.create_s", (System.nanoTime() - start) / 1e9);
            long heapAfter = heapAfterFullGc();
            int replicas = partitions * 3;
            out.add("scale.heap_per_replica_kib", (heapAfter - heapBefore) / 1024.0 / replicas);
            out.add("scale.partitions", partitions);
            progress.accept("scale: " + partitions + " partitions up, waiting for the JIT compiler to quiet down");
            out.add("scale.idle_settle_s", settle(SETTLE_MAX_MS) / 1e3);
            progress.accept("scale: measuring idle CPU for " + options.idleMs() / 1000 + " s");
            IdleCpu idle = processCpuCores(options.idleMs());
            out.add("scale.idle_cpu_percent_of_core", idle.cores() * 100);
            out.add("scale.idle_jit_percent_of_core", idle.jitCores() * 100);
            progress.accept("scale: priming " + partitions + " partitions");
            // A follower's first append to a partition writes its leader-epoch checkpoint: a one-off
            // cost per partition that is start-up, not throughput. One acks=all record each first.
            BatchingProducer priming = cluster.producer(options.valueBytes(), options.batchBytes(), 1, -1,
                    Math.min(partitions, options.window()));
            priming.runRequests(partitions);
            noteFailures("scale.priming", priming);
            progress.accept("scale: load over " + partitions + " partitions");
            BatchingProducer load = cluster.producer(options.valueBytes(), options.batchBytes(), Integer.MAX_VALUE, -1,
                    options.window());
            BenchSuite.Rate rate = BenchSuite.measureRate(load, options.warmupMs(), options.jitQuietTimeoutMs(),
                    options.measureMs());
            out.add("scale.acks_all.records_per_s", rate.recordsPerSecond());
            out.add("scale.acks_all.mb_per_s", rate.bytesPerSecond() / 1e6);
            noteFailures("scale.acks_all", load);
        }
    }

    /** A failed request would otherwise only show as a lower rate (or none at all). */
    private void noteFailures(String prefix, BatchingProducer producer) {
        if (producer.failures() > 0) {
            out.note(prefix, producer.failures() + " requests failed, last " + producer.lastError());
        }
    }

    /**
     * Waits until the JIT compiler compiled for less than 1 % of a {@link #SETTLE_WINDOW_MS} window, at
     * most {@code maxMs}; returns the milliseconds waited. Without compilation-time monitoring it
     * waits {@code maxMs}.
     */
    static long settle(long maxMs) throws InterruptedException {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        long start = System.nanoTime();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            Thread.sleep(maxMs);
            return maxMs;
        }
        while ((System.nanoTime() - start) / 1_000_000 < maxMs) {
            long compiled0 = jit.getTotalCompilationTime();
            Thread.sleep(SETTLE_WINDOW_MS);
            if (jit.getTotalCompilationTime() - compiled0 < SETTLE_WINDOW_MS / 100) {
                break;
            }
        }
        return (System.nanoTime() - start) / 1_000_000;
    }

    /**
     * Cores used on average over an idle window: the whole process, and of that the JIT compiler
     * (its compilation time, -1 when the JVM does not monitor it).
     */
    record IdleCpu(double cores, double jitCores) {
    }

    /** Heap in use after two full collections (the second picks up what finalization freed). */
    static long heapAfterFullGc() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        memory.gc();
        memory.gc();
        return memory.getHeapMemoryUsage().getUsed();
    }

    /** Cores this process (and its JIT compiler) used on average over {@code ms} of wall time. */
    static IdleCpu processCpuCores(long ms) throws InterruptedException {
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean jitTimed = jit != null && jit.isCompilationTimeMonitoringSupported();
        long jit0 = jitTimed ? jit.getTotalCompilationTime() : 0;
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        Thread.sleep(ms);
        long cpu1 = os.getProcessCpuTime();
        long t1 = System.nanoTime();
        long jit1 = jitTimed ? jit.getTotalCompilationTime() : 0;
        double wallNs = t1 - t0;
        return new IdleCpu((cpu1 - cpu0) / wallNs, jitTimed ? (jit1 - jit0) * 1e6 / wallNs : -1);
    }
}
