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

import dev.insync.replication.testkit.cluster.InMemoryCluster;
import dev.insync.replication.testkit.cluster.ProduceOutcome;
import dev.insync.replication.testkit.cluster.TestProducer;
import dev.insync.replication.testkit.simulation.Simulation;
import dev.insync.replication.testkit.simulation.SimulationResult;
import dev.insync.replication.testkit.simulation.SimulationSettings;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Simulated seconds per wall second of the deterministic simulator. First the {@code simulate}
 * workload itself (the measure): {@link #SIMULATE_SEEDS} seeds of {@link Simulation#run} with
 * the default settings (faults of every kind, producers with acks 1 and all, consumers, invariant
 * checks), on this thread. Then two extra readings: a heavier record load (three brokers, a topic of
 * three partitions, RF 3, min ISR 2, one acks=all record every 10 ms of virtual time to each
 * partition, for {@link #VIRTUAL_SECONDS} virtual seconds after one of warm-up), and the same
 * cluster idle for {@link #IDLE_VIRTUAL_SECONDS} virtual seconds (the simulator's own overhead).
 */
final class SimulationSpeed {

    static final int SIMULATE_SEEDS = 20;
    static final int VIRTUAL_SECONDS = 120;
    static final int IDLE_VIRTUAL_SECONDS = 600;
    private static final int STEP_MS = 10;

    private SimulationSpeed() {
    }

    static void measure(Measurements out, Consumer<String> progress) {
        measureSimulateWorkload(out, progress);
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
            out.add("simulation.load.virtual_s_per_wall_s", virtualSeconds / wallSeconds);
            out.add("simulation.load.acked_records", ok);
            progress.accept(String.format("simulation load: %.0f virtual s in %.2f wall s", virtualSeconds, wallSeconds));
            // The same cluster with no load: heartbeats, parked fetches expiring, HW checkpoints.
            long idle0 = cluster.nowMs();
            long idleWall0 = System.nanoTime();
            cluster.runFor(IDLE_VIRTUAL_SECONDS * 1_000L);
            out.add("simulation.idle.virtual_s_per_wall_s",
                    (cluster.nowMs() - idle0) / 1e3 / ((System.nanoTime() - idleWall0) / 1e9));
        }
    }

    /** The {@code simulate} command's workload: default settings, seeds 1..{@link #SIMULATE_SEEDS}. */
    private static void measureSimulateWorkload(Measurements out, Consumer<String> progress) {
        Simulation.run(0, SimulationSettings.DEFAULT); // warm-up: class loading and JIT
        long simulatedMs = 0;
        int violations = 0;
        long wall0 = System.nanoTime();
        for (long seed = 1; seed <= SIMULATE_SEEDS; seed++) {
            SimulationResult result = Simulation.run(seed, SimulationSettings.DEFAULT);
            simulatedMs += result.simulatedMs();
            violations += result.violations().size();
        }
        double wallSeconds = (System.nanoTime() - wall0) / 1e9;
        out.add("simulation.virtual_s_per_wall_s", simulatedMs / 1e3 / wallSeconds);
        out.add("simulation.violations", violations);
        progress.accept(String.format("simulation: seeds 1-%d, %.0f virtual s in %.2f wall s, %d violations",
                SIMULATE_SEEDS, simulatedMs / 1e3, wallSeconds, violations));
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
