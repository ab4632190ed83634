package dev.insync.replication.bench.harness;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Three brokers with {@link BenchOptions#scalePartitions()} partitions of replication factor 3 in
 * this JVM: the process CPU used while idle, the heap each replica costs after a full GC, and the
 * throughput with the load spread over every partition.
 */
final class ScaleBench {

    private final BenchOptions options;
    private final Measurements out;
    private final Consumer<String> progress;

    ScaleBench(BenchOptions options, Measurements out, Consumer<String> progress) {
        this.options = options;
        this.out = out;
        this.progress = progress;
    }

    void run() throws Exception {
        int partitions = options.scalePartitions();
        long heapBefore;
        try (BenchCluster empty = BenchCluster.start(0, false, Map.of())) {
            heapBefore = heapAfterFullGc();
        }
        long start = System.nanoTime();
        try (BenchCluster cluster = BenchCluster.start(partitions, false, Map.of())) {
            out.add("scale.create_s", (System.nanoTime() - start) / 1e9);
            progress.accept("scale: " + partitions + " partitions up, measuring idle CPU for " + options.idleMs() / 1000 + " s");
            long heapAfter = heapAfterFullGc();
            int replicas = partitions * 3;
            out.add("scale.heap_per_replica_kib", (heapAfter - heapBefore) / 1024.0 / replicas);
            out.add("scale.partitions", partitions);
            double cpu = processCpuCores(options.idleMs());
            out.add("scale.idle_cpu_percent_of_core", cpu * 100);
            progress.accept("scale: priming " + partitions + " partitions");
            // A follower's first append to a partition writes its leader-epoch checkpoint: a one-off
            // cost per partition that is start-up, not throughput. One acks=all record each first.
            cluster.producer(options.valueBytes(), options.batchBytes(), 1, -1, Math.min(partitions, options.window()))
                    .runRequests(partitions);
            progress.accept("scale: load over " + partitions + " partitions");
            BenchSuite.Rate rate = BenchSuite.measureRate(cluster.producer(options.valueBytes(), options.batchBytes(),
                    Integer.MAX_VALUE, -1, options.window()), options.warmupMs(), options.measureMs());
            out.add("scale.acks_all.records_per_s", rate.recordsPerSecond());
            out.add("scale.acks_all.mb_per_s", rate.bytesPerSecond() / 1e6);
        }
    }

    /** Heap in use after two full collections (the second picks up what finalization freed). */
    static long heapAfterFullGc() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        memory.gc();
        memory.gc();
        return memory.getHeapMemoryUsage().getUsed();
    }

    /** Cores this process used on average over {@code ms} of wall time. */
    static double processCpuCores(long ms) throws InterruptedException {
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        Thread.sleep(ms);
        long cpu1 = os.getProcessCpuTime();
        long t1 = System.nanoTime();
        return (double) (cpu1 - cpu0) / (t1 - t0);
    }
}
