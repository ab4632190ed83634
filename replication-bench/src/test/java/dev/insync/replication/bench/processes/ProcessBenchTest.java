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

import dev.insync.replication.bench.harness.BenchOptions;
import dev.insync.replication.bench.harness.Measurements;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The section driver: a fresh cluster per target and repeat, interleaved, metrics and same-repeat ratios. */
@Timeout(120)
class ProcessBenchTest {

    @TempDir
    Path dir;

    private BenchOptions options() {
        return new BenchOptions(dir.resolve("out"), 2, 50, 150, 30, 1000, 16 * 1024, 100, 0, 1_000,
                Set.of(ProcessBench.SECTION), 0);
    }

    @Test
    void everyRepeatStartsEachTargetInTurnAndReportsRatiosAgainstInsync() throws Exception {
        List<InMemoryBenchTarget> started = new ArrayList<>();
        List<ProcessBenchTargetFactory> available = List.of(InMemoryBenchTarget.factory("kafka", started),
                InMemoryBenchTarget.factory("insync", started));
        Measurements m = new Measurements();
        ProcessBenchSettings settings = new ProcessBenchSettings(List.of("insync", "kafka"), Map.of(),
                Duration.ofSeconds(10), Duration.ofSeconds(10));
        ProcessBench bench = new ProcessBench(options(), settings, m, s -> { }, available);

        bench.repeat(1, "[1/2] ", dir);
        bench.repeat(2, "[2/2] ", dir);

        assertThat(started).extracting(InMemoryBenchTarget::name).containsExactly("insync", "kafka", "insync", "kafka");
        assertThat(started).allSatisfy(t -> {
            assertThat(t.closed()).as("stopped after its repeat").isTrue();
            assertThat(t.topics()).containsKeys("bench-warmup", "bench-acks-all-p1", "bench-acks-1-p1",
                    "bench-acks-all-p12", "bench-acks-1-p12", "bench-latency", "bench-failover");
        });
        for (String target : List.of("insync", "kafka")) {
            String p = "process." + target + ".";
            for (String scenario : List.of("acks_all.p1", "acks_1.p1", "acks_all.p12", "acks_1.p12")) {
                // Measured in 150 ms windows: on a loaded machine one window may acknowledge nothing, so
                // this test checks that every scenario is measured per repeat, not how fast.
                assertThat(m.values(p + scenario + ".records_per_s")).hasSize(2).allSatisfy(v -> assertThat(v).isNotNegative());
                assertThat(m.values(p + scenario + ".server_cpu_s_per_million_records")).hasSize(2);
            }
            assertThat(m.values(p + "acks_all.latency.p50_us")).hasSize(2);
            assertThat(m.values(p + "failover.kill_to_first_ack_ms")).hasSize(2)
                    .allSatisfy(v -> assertThat(v).isGreaterThanOrEqualTo(InMemoryBenchTarget.OUTAGE_MS - 1.0));
        }
        assertThat(m.values("process.ratio.insync_over_kafka.acks_all.p1.records_per_s")).hasSize(2);
        assertThat(m.values("process.ratio.insync_over_kafka.failover.kill_to_first_ack_ms")).hasSize(2)
                .allSatisfy(v -> assertThat(v).isPositive());
        assertThat(m.notes()).containsEntry("processes.kafka", "in-memory target kafka");
    }

    @Test
    void failoverAloneRunsOnlyTheWarmUpAndTheFailover() throws Exception {
        List<InMemoryBenchTarget> started = new ArrayList<>();
        Measurements m = new Measurements();
        ProcessBenchSettings settings = new ProcessBenchSettings(List.of("insync", "kafka"), Map.of(),
                Duration.ofSeconds(10), Duration.ofSeconds(10)).withScenarios(Set.of("failover"));
        ProcessBench bench = new ProcessBench(options(), settings, m, s -> { },
                List.of(InMemoryBenchTarget.factory("kafka", started), InMemoryBenchTarget.factory("insync", started)));

        bench.repeat(1, "", dir);

        assertThat(started).hasSize(2).allSatisfy(t ->
                assertThat(t.topics()).containsOnlyKeys("bench-warmup", "bench-failover"));
        assertThat(m.values("process.ratio.insync_over_kafka.failover.kill_to_first_ack_ms")).hasSize(1);
        assertThat(m.metrics()).noneMatch(metric -> metric.contains("records_per_s") || metric.contains("latency"));
    }

    @Test
    void unknownOrNoScenariosAreRefused() {
        ProcessBenchSettings settings = ProcessBenchSettings.defaults();
        assertThat(ProcessBenchSettings.SCENARIOS).allMatch(settings::measures);
        assertThatThrownBy(() -> settings.withScenarios(Set.of("failover", "soak")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("soak");
        assertThatThrownBy(() -> settings.withScenarios(Set.of())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRequestedTargetThatIsNotThereIsNotedAndTheOthersRun() throws Exception {
        List<InMemoryBenchTarget> started = new ArrayList<>();
        Measurements m = new Measurements();
        ProcessBenchSettings settings = new ProcessBenchSettings(List.of("kafka", "insync"), Map.of(),
                Duration.ofSeconds(10), Duration.ofSeconds(10));
        ProcessBench bench = new ProcessBench(options(), settings, m, s -> { },
                List.of(InMemoryBenchTarget.factory("kafka", started)));

        bench.repeat(1, "", dir);

        assertThat(started).hasSize(1);
        assertThat(m.notes().get("processes.insync")).contains("not on the class path").contains("[kafka]");
        assertThat(m.metrics()).noneMatch(metric -> metric.startsWith("process.ratio."));
    }

    @Test
    void aTargetThatFailsToStartIsNotedAndTheRunGoesOn() throws Exception {
        Measurements m = new Measurements();
        List<InMemoryBenchTarget> started = new ArrayList<>();
        ProcessBenchTargetFactory broken = new ProcessBenchTargetFactory() {
            @Override
            public String name() {
                return "broken";
            }

            @Override
            public ProcessBenchTarget start(Path workDir, ProcessBenchSettings settings,
                                            java.util.function.Consumer<String> progress) {
                throw new IllegalStateException("no class path");
            }
        };
        ProcessBench bench = new ProcessBench(options(), ProcessBenchSettings.defaults(), m, s -> { },
                List.of(broken, InMemoryBenchTarget.factory("kafka", started)));

        bench.repeat(1, "", dir);

        assertThat(m.notes().get("processes.broken.r1")).contains("broken failed in repeat 1").contains("no class path");
        assertThat(m.values("process.kafka.acks_all.p1.records_per_s")).hasSize(1);
    }
}
