package dev.insync.replication.bench.harness;

import dev.insync.replication.testkit.cluster.InMemoryCluster;
import dev.insync.replication.testkit.cluster.ProduceOutcome;
import dev.insync.replication.testkit.cluster.TestProducer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Simulated seconds per wall second of the deterministic simulator under a simple workload: three
 * brokers, a topic of three partitions (RF 3, min ISR 2), one acks=all record every 10 ms of virtual
 * time to each partition, heartbeats, fetches and HW checkpoints as configured by default, for
 * {@link #VIRTUAL_SECONDS} virtual seconds after one of warm-up; then the same cluster idle for
 * {@link #IDLE_VIRTUAL_SECONDS} virtual seconds (the simulator's overhead without record traffic).
 */
final class SimulationSpeed {

    static final int VIRTUAL_SECONDS = 120;
    static final int IDLE_VIRTUAL_SECONDS = 600;
    private static final int STEP_MS = 10;

    private SimulationSpeed() {
    }

    static void measure(Measurements out, Consumer<String> progress) {
        try (InMemoryCluster cluster = InMemoryCluster.builder().brokers(3).seed(7)
                .config("min.insync.replicas", 2).build()) {
            cluster.createTopic("sim", List.of(List.of(1, 2, 3), List.of(2, 3, 1), List.of(3, 1, 2)));
            TestProducer producer = cluster.producer("sim-load");
            run(cluster, producer, 1_000);
            long virtual0 = cluster.nowMs();
            long wall0 = System.nanoTime();
            List<CompletableFuture<ProduceOutcome>> sends = run(cluster, producer, VIRTUAL_SECONDS * 1_000L);
            double wallSeconds = (System.nanoTime() - wall0) / 1e9;
            double virtualSeconds = (cluster.nowMs() - virtual0) / 1e3;
            long ok = sends.stream().filter(f -> f.isDone() && f.join().isSuccess()).count();
            out.add("simulation.virtual_s_per_wall_s", virtualSeconds / wallSeconds);
            out.add("simulation.acked_records", ok);
            progress.accept(String.format("simulation: %.0f virtual s in %.2f wall s", virtualSeconds, wallSeconds));
            // The same cluster with no load: heartbeats, parked fetches expiring, HW checkpoints.
            long idle0 = cluster.nowMs();
            long idleWall0 = System.nanoTime();
            cluster.runFor(IDLE_VIRTUAL_SECONDS * 1_000L);
            out.add("simulation.idle.virtual_s_per_wall_s",
                    (cluster.nowMs() - idle0) / 1e3 / ((System.nanoTime() - idleWall0) / 1e9));
        }
    }

    private static List<CompletableFuture<ProduceOutcome>> run(InMemoryCluster cluster, TestProducer producer, long ms) {
        List<CompletableFuture<ProduceOutcome>> sends = new ArrayList<>();
        for (long t = 0; t < ms; t += STEP_MS) {
            for (int p = 0; p < 3; p++) {
                sends.add(producer.send("sim", p, null, "v", -1, 30_000));
            }
            cluster.runFor(STEP_MS);
        }
        return sends;
    }
}
