package dev.insync.replication.bench.harness;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
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
            assertThat(t.name()).startsWith("<= 30 KiB heap");
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
}
