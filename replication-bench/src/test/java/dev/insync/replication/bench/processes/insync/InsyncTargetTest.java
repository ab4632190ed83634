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

package dev.insync.replication.bench.processes.insync;

import dev.insync.replication.bench.harness.BenchOptions;
import dev.insync.replication.bench.harness.Measurements;
import dev.insync.replication.bench.processes.ProcessBench;
import dev.insync.replication.bench.processes.ProcessBenchSettings;
import dev.insync.replication.bench.processes.ProcessBenchTarget;
import dev.insync.replication.bench.processes.ProcessBenchTargetFactory;
import dev.insync.replication.bench.processes.ProcessScaleBench;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The insync target for real: a controller and three {@code insync broker} processes on loopback,
 * driven through the whole processes section once with short windows, small heaps and a short
 * session timeout (so the failover takes a few seconds). Every metric must come out and make
 * sense, and every process must be gone afterwards. The two tests run concurrently, each with its
 * own cluster and directory: they mostly wait on the processes and their windows, and check that
 * metrics are sensible, not how fast.
 */
@Execution(ExecutionMode.CONCURRENT)
class InsyncTargetTest {

    /** Small, quickly started JVMs: four of them share this machine with the build. */
    private static final List<String> SMALL_JVMS = List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            InsyncTargetFactory.LOG_LEVEL_OPTION);
    /** A killed leader is fenced after 3 s instead of 9 s; fewer threads than the defaults. */
    private static final Map<String, String> SHORT_TIMEOUTS = Map.of("broker.session.timeout.ms", "3000",
            "broker.heartbeat.interval.ms", "300", "controller.quorum.election.timeout.ms", "500",
            "num.network.threads", "1", "num.io.threads", "2");
    /**
     * 1 MiB of pending sends instead of Kafka's 32: with 32 MiB, InsyncClient's one sender thread takes
     * seconds per round through its backlog (docs/performance.md, the smoke run), longer than these windows.
     * This test checks that every metric is produced and sensible, not how fast.
     */
    private static final int CLIENT_BUFFER_BYTES = 1024 * 1024;
    private static final long WARMUP_MS = 1_000;
    private static final long MEASURE_MS = 1_000;
    private static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(45);
    /** Short: the test checks that the brokers' compiler threads are read, not that they go quiet. */
    private static final long JIT_QUIET_TIMEOUT_MS = 1_000;
    private static final ProcessBenchSettings SETTINGS = new ProcessBenchSettings(List.of("insync"), Map.of(),
            Duration.ofSeconds(120), FAILOVER_TIMEOUT);

    @TempDir
    Path dir;

    @Test
    @Timeout(300)
    void theSectionMeasuresInsyncProcessesAndReapsThem() throws Exception {
        List<InsyncCluster> started = new ArrayList<>();
        ProcessBenchTargetFactory recording = smallInsync(started);
        BenchOptions options = new BenchOptions(dir.resolve("out"), 1, WARMUP_MS, MEASURE_MS, 300, 100, 16 * 1024, 100, 0,
                1_000, Set.of(ProcessBench.SECTION), JIT_QUIET_TIMEOUT_MS);
        Measurements m = new Measurements();
        List<String> progress = new ArrayList<>();

        new ProcessBench(options, SETTINGS, m, progress::add, List.of(recording)).repeat(1, "", dir);

        assertThat(m.notes()).as("no failure noted; progress: %s", progress).doesNotContainKey("processes.insync.r1");
        assertThat(m.notes().get("processes.insync")).contains("insync broker --config").contains("-Xmx256m")
                .contains("broker.session.timeout.ms=3000")
                .contains("buffer.memory " + CLIENT_BUFFER_BYTES + " (Kafka's default is");
        String p = "process.insync.";
        assertThat(single(m, p + "cluster_start_s")).isPositive();
        for (String scenario : List.of("acks_all.p1", "acks_1.p1", "acks_all.p12", "acks_1.p12")) {
            assertThat(single(m, p + scenario + ".records_per_s")).as("%s records acknowledged per s; notes %s",
                    scenario, m.notes()).isPositive();
            assertThat(single(m, p + scenario + ".mb_per_s")).isPositive();
            assertThat(single(m, p + scenario + ".server_cpu_s_per_million_records")).as(scenario + " server CPU")
                    .isPositive().isFinite();
            // Read from the broker processes' compiler threads: a share of the window's server CPU.
            assertThat(single(m, p + scenario + ".server_jit_percent_of_cpu")).as(scenario + " JIT share")
                    .isBetween(0.0, 100.0);
            assertThat(single(m, p + scenario + ".warmup_s")).as(scenario + " warm-up")
                    .isBetween(WARMUP_MS / 1e3, (WARMUP_MS + JIT_QUIET_TIMEOUT_MS) / 1e3 + 1);
        }
        double p50 = single(m, p + "acks_all.latency.p50_us");
        double p99 = single(m, p + "acks_all.latency.p99_us");
        double p999 = single(m, p + "acks_all.latency.p999_us");
        double max = single(m, p + "acks_all.latency.max_us");
        assertThat(p50).as("acks=all p50 over loopback, in µs").isGreaterThan(1.0);
        assertThat(p99).isGreaterThanOrEqualTo(p50);
        assertThat(p999).isGreaterThanOrEqualTo(p99);
        assertThat(max).isGreaterThanOrEqualTo(p999);
        assertThat(m.histograms()).containsKey("insync processes acks=all");
        // Fenced after the 3 s session timeout at the earliest, within the bound the workload waits.
        assertThat(single(m, p + "failover.kill_to_first_ack_ms")).isBetween(1_000.0, (double) FAILOVER_TIMEOUT.toMillis());

        assertThat(started).hasSize(1);
        InsyncCluster cluster = started.get(0);
        assertThat(cluster.processes()).hasSize(4).allSatisfy(proc ->
                assertThat(proc.isAlive()).as("%s reaped", proc).isFalse());
        // kill -9 of the leader, and of the others on close: nothing stopped by itself.
        assertThat(cluster.brokerProcesses().values()).extracting(proc -> proc.exitCode().orElse(-1))
                .containsOnly(137);
        assertThat(Files.exists(dir.resolve("processes").resolve("insync-r1").resolve("data"))).isFalse();
    }

    @Test
    @Timeout(300)
    void theProcessScaleSectionReadsEachBrokersIdleCpuAndLiveHeapAndReapsThem() throws Exception {
        List<InsyncCluster> started = new ArrayList<>();
        ProcessBenchTargetFactory recording = smallInsync(started);
        int partitions = 60;
        BenchOptions options = new BenchOptions(dir.resolve("out"), 1, WARMUP_MS, MEASURE_MS, 300, 100, 16 * 1024, 100,
                partitions, 1_000, Set.of(ProcessScaleBench.SECTION), 0);
        Measurements m = new Measurements();
        List<String> progress = new ArrayList<>();

        new ProcessScaleBench(options, SETTINGS, m, progress::add, List.of(recording)).run(dir);

        assertThat(m.notes()).as("no failure noted; progress: %s", progress).doesNotContainKey("process-scale.insync");
        String p = "process.insync.scale.";
        assertThat(single(m, p + "partitions_per_broker")).isEqualTo(60.0);
        assertThat(single(m, p + "create_s")).isPositive();
        // Idle brokers still heartbeat and long-poll: some CPU, far less than a core.
        assertThat(single(m, p + "idle_cpu_percent_of_core_per_broker")).isPositive().isLessThan(100.0);
        assertThat(single(m, p + "empty_idle_cpu_percent_of_core_per_broker")).isPositive().isLessThan(100.0);
        assertThat(single(m, p + "idle_cpu_percent_of_core_all_brokers"))
                .isGreaterThanOrEqualTo(single(m, p + "idle_cpu_percent_of_core_per_broker"));
        // A replica is a log, its indexes, a partition and its fetch state: kilobytes, not bytes or megabytes.
        assertThat(single(m, p + "heap_per_replica_kib")).isBetween(0.1, 1024.0);
        assertThat(m.notes().get(p + "idle_cpu_by_broker")).contains("1=").contains("2=").contains("3=");
        assertThat(started).hasSize(1);
        assertThat(started.get(0).processes()).hasSize(4).allSatisfy(proc ->
                assertThat(proc.isAlive()).as("%s reaped", proc).isFalse());
    }

    private static double single(Measurements m, String metric) {
        assertThat(m.values(metric)).as(metric).hasSize(1);
        return m.values(metric).get(0);
    }

    /** The insync target on small JVMs with short timeouts, adding each cluster it starts to {@code started}. */
    private static ProcessBenchTargetFactory smallInsync(List<InsyncCluster> started) {
        return recording(new InsyncTargetFactory(SMALL_JVMS, SHORT_TIMEOUTS, CLIENT_BUFFER_BYTES), started);
    }

    private static ProcessBenchTargetFactory recording(InsyncTargetFactory factory, List<InsyncCluster> started) {
        return new ProcessBenchTargetFactory() {
            @Override
            public String name() {
                return factory.name();
            }

            @Override
            public ProcessBenchTarget start(Path workDir, ProcessBenchSettings settings, Consumer<String> progress)
                    throws Exception {
                ProcessBenchTarget t = factory.start(workDir, settings, progress);
                started.add((InsyncCluster) t);
                return t;
            }
        };
    }
}
