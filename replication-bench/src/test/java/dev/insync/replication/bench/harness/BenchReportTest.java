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

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Smoke tests of the report: no cluster runs here, only the arithmetic and the files. */
class BenchReportTest {

    @Test
    void medianOfOddAndEvenRepeats() {
        Measurements m = new Measurements();
        m.add("a", 3);
        m.add("a", 1);
        m.add("a", 2);
        m.add("b", 4);
        m.add("b", 1);
        assertThat(m.median("a")).isEqualTo(2.0);
        assertThat(m.median("b")).isEqualTo(2.5);
        assertThat(m.median("missing")).isNaN();
    }

    @Test
    void targetsAreJudgedOnMediansAndFilesAreWritten(@TempDir Path dir) throws Exception {
        Measurements m = new Measurements();
        m.add("insync.nofsync.acks_all.p1.batched.records_per_s", 600);
        m.add("insync.nofsync.acks_1.p1.batched.records_per_s", 1000);
        m.add("insync.nofsync.acks_all.latency.p50_us", 100);
        m.add("baseline.handoff_rtt.p50_us", 10);
        Histogram h = new Histogram(3_600_000_000L, 3);
        for (int i = 1; i <= 1000; i++) {
            h.recordValue(i * 1_000L);
        }
        m.histogram("insync acks=all", h);
        BenchOptions options = BenchOptions.defaults(dir);
        BenchReport report = new BenchReport(m, options, Map.of("cores", "2"));

        assertThat(report.targets()).anySatisfy(t -> {
            assertThat(t.name()).startsWith("acks=all >= 50% of acks=1 (1 partition)");
            assertThat(t.status()).isEqualTo("MET");
        }).anySatisfy(t -> {
            assertThat(t.name()).startsWith("acks=all p50 <= 3 x two hand-off");
            assertThat(t.status()).isEqualTo("MISSED");
        }).anySatisfy(t -> {
            assertThat(t.name()).startsWith("scale, one JVM: <= 10 KiB heap");
            assertThat(t.status()).isEqualTo("NOT MEASURED");
        });

        String text = report.write();
        assertThat(text).contains("insync.nofsync.acks_all.p1.batched.records_per_s");
        assertThat(Files.readString(dir.resolve("results.json")))
                .contains("\"insync.nofsync.acks_1.p1.batched.records_per_s\": {\"median\": 1000.00");
        assertThat(dir.resolve("latency.png")).isNotEmptyFile();
        assertThat(dir.resolve("latency.svg")).isNotEmptyFile();
        assertThat(dir.resolve("throughput.png")).isNotEmptyFile();
    }

    @Test
    void processTargetsCompareInsyncWithKafkaOnTheMediansOfTheSameRun(@TempDir Path dir) throws Exception {
        Measurements m = new Measurements();
        m.add("process.insync.acks_all.p1.records_per_s", 300_000);
        m.add("process.kafka.acks_all.p1.records_per_s", 90_000);
        m.add("process.insync.acks_all.latency.p50_us", 800);
        m.add("process.kafka.acks_all.latency.p50_us", 2_000);
        m.add("process.insync.failover.kill_to_first_ack_ms", 5_000);
        m.add("process.kafka.failover.kill_to_first_ack_ms", 9_000);
        m.add("process.ratio.insync_over_kafka.acks_all.p1.records_per_s", 3.33);
        BenchReport report = new BenchReport(m, BenchOptions.defaults(dir), Map.of("cores", "2"));

        assertThat(report.targets()).anySatisfy(t -> {
            assertThat(t.name()).isEqualTo("processes: Insync acks=all >= 3 x Kafka 4.4 (1 partition)");
            assertThat(t.status()).isEqualTo("MET");
        }).anySatisfy(t -> {
            assertThat(t.name()).isEqualTo("processes: Insync acks=all >= 3 x Kafka 4.4 (12 partitions)");
            assertThat(t.status()).isEqualTo("NOT MEASURED");
        }).anySatisfy(t -> {
            assertThat(t.name()).isEqualTo("processes: Insync acks=all p50 <= 1/3 of Kafka 4.4's");
            assertThat(t.status()).isEqualTo("MISSED");
        }).anySatisfy(t -> {
            assertThat(t.name()).startsWith("processes: failover");
            assertThat(t.status()).isEqualTo("MET");
        });
        report.write();
        assertThat(dir.resolve("throughput.png")).isNotEmptyFile();
        // Two targets measured: charted next to each other.
        for (String chart : List.of("side-by-side-throughput", "side-by-side-latency")) {
            assertThat(dir.resolve(chart + ".png")).isNotEmptyFile();
            assertThat(dir.resolve(chart + ".svg")).isNotEmptyFile();
        }
    }

    @Test
    void oneTargetAloneGetsNoSideBySideChart(@TempDir Path dir) throws Exception {
        Measurements m = new Measurements();
        m.add("process.insync.acks_all.p1.records_per_s", 300_000);
        m.add("process.insync.acks_all.latency.p50_us", 800);
        // A ratio names two targets but measures neither.
        m.add("process.ratio.insync_over_kafka.acks_all.p1.records_per_s", 3.33);
        new BenchReport(m, BenchOptions.defaults(dir), Map.of("cores", "2")).write();
        assertThat(dir.resolve("throughput.png")).isNotEmptyFile();
        assertThat(dir.resolve("side-by-side-throughput.png")).doesNotExist();
        assertThat(dir.resolve("side-by-side-latency.png")).doesNotExist();
    }
}
