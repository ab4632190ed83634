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

import dev.insync.replication.bench.processes.ProcessBench;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Writes a bench run's results next to each other in one directory: {@code results.txt} (every
 * metric's median and individual repeats, then the targets, met or missed),
 * {@code results.json} (the same numbers), and charts as PNG and SVG: {@code latency} (the latency
 * distributions by percentile), {@code throughput} (records/s per scenario) and, when the
 * {@code processes} section measured more than one target, {@code side-by-side-throughput} and
 * {@code side-by-side-latency} (each target's medians next to the others', per scenario).
 */
public final class BenchReport {

    private final Measurements m;
    private final BenchOptions options;
    private final Map<String, String> machine;

    /** @param machine free-form facts about where the run happened (cores, load, JVM) */
    public BenchReport(Measurements m, BenchOptions options, Map<String, String> machine) {
        this.m = m;
        this.options = options;
        this.machine = machine;
    }

    /** Writes every file into {@link BenchOptions#outDir()} and returns the text report. */
    public String write() throws IOException {
        Path dir = options.outDir();
        Files.createDirectories(dir);
        String text = text();
        Files.writeString(dir.resolve("results.txt"), text);
        Files.writeString(dir.resolve("results.json"), json());
        writeLatencyChart(dir);
        writeThroughputChart(dir);
        writeSideBySideCharts(m, dir);
        return text;
    }

    // ------------------------------------------------------------------------------ text

    /** The human-readable report. */
    public String text() {
        StringBuilder sb = new StringBuilder();
        sb.append("Insync bench\n");
        machine.forEach((k, v) -> sb.append(String.format(Locale.ROOT, "  %-14s %s%n", k, v)));
        sb.append(String.format(Locale.ROOT, "  %-14s %d repeat(s), median shown; %d-byte values, %d in flight, "
                        + "batches up to %d B, %d s windows%n%n", "method", options.repeats(), options.valueBytes(),
                options.window(), options.batchBytes(), options.measureMs() / 1000));
        sb.append(String.format(Locale.ROOT, "%-58s %14s   %s%n", "metric", "median", "repeats"));
        for (String metric : m.metrics()) {
            String repeats = m.values(metric).stream().map(BenchReport::num).collect(Collectors.joining(" "));
            sb.append(String.format(Locale.ROOT, "%-58s %14s   %s%n", metric, num(m.median(metric)), repeats));
        }
        if (!m.notes().isEmpty()) {
            sb.append("\nnotes\n");
            m.notes().forEach((k, v) -> sb.append("  ").append(k).append(": ").append(v).append('\n'));
        }
        sb.append("\ntargets\n");
        for (Target t : targets()) {
            sb.append(String.format(Locale.ROOT, "  [%s] %s: %s%n", t.status(), t.name(), t.detail()));
        }
        return sb.toString();
    }

    private static String num(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        if (Math.abs(v) >= 1000) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        return String.format(Locale.ROOT, "%.3g", v);
    }

    // --------------------------------------------------------------------------- targets

    /** One target of the issue, evaluated on the medians. */
    public record Target(String name, String status, String detail) {
    }

    /** The targets, evaluated on this run's medians; MISSING where a section did not run. */
    public List<Target> targets() {
        List<Target> t = new ArrayList<>();
        String n = BenchSuite.NO_FSYNC;
        atLeast(t, "acks=all >= 50% of acks=1 (1 partition)", "insync." + n + ".acks_all.p1.batched.records_per_s",
                "insync." + n + ".acks_1.p1.batched.records_per_s", 0.5);
        atLeast(t, "acks=all >= 50% of acks=1 (12 partitions)", "insync." + n + ".acks_all.p12.batched.records_per_s",
                "insync." + n + ".acks_1.p12.batched.records_per_s", 0.5);
        atMost(t, "acks=all p50 <= 3 x two hand-off round trips", "insync." + n + ".acks_all.latency.p50_us",
                "baseline.handoff_rtt.p50_us", 6.0);
        atMost(t, "acks=all p99 <= 10 x p50", "insync." + n + ".acks_all.latency.p99_us",
                "insync." + n + ".acks_all.latency.p50_us", 10.0);
        atLeast(t, "12-partition throughput >= 1-partition", "insync." + n + ".acks_all.p12.batched.records_per_s",
                "insync." + n + ".acks_all.p1.batched.records_per_s", 1.0);
        for (String transport : List.of("ratis", "ratis_grpc")) {
            for (String fs : List.of(BenchSuite.NO_FSYNC, BenchSuite.FSYNC)) {
                String peer = "peer." + transport + "." + fs;
                String which = transport + ", " + fs;
                atLeast(t, "batching client >= 10 x Ratis (" + which + ")",
                        "insync." + fs + ".acks_all.p1.batched.records_per_s", peer + ".records_per_s", 10.0);
                atLeast(t, "one record per request >= 2 x Ratis (" + which + ")",
                        "insync." + fs + ".acks_all.p1.single.records_per_s", peer + ".records_per_s", 2.0);
                atMost(t, "acks=all p50 <= 1/3 of Ratis p50 (" + which + ")",
                        "insync." + fs + ".acks_all.latency.p50_us", peer + ".latency.p50_us", 1.0 / 3);
            }
        }
        // Separate processes over TCP (the processes section): Insync's brokers against Apache Kafka 4.4's.
        String insync = "process." + ProcessBench.INSYNC + ".";
        String kafka = "process.kafka.";
        for (int partitions : new int[] {1, 12}) {
            String metric = "acks_all.p" + partitions + ".records_per_s";
            atLeast(t, "processes: Insync acks=all >= 3 x Kafka 4.4 (" + partitions + " partition" + (partitions > 1 ? "s" : "")
                    + ")", insync + metric, kafka + metric, 3.0);
        }
        atMost(t, "processes: Insync acks=all p50 <= 1/3 of Kafka 4.4's", insync + "acks_all.latency.p50_us",
                kafka + "acks_all.latency.p50_us", 1.0 / 3);
        atMost(t, "processes: failover after kill -9 of a leader no slower than Kafka 4.4's",
                insync + "failover.kill_to_first_ack_ms", kafka + "failover.kill_to_first_ack_ms", 1.0);
        // Scale (the aim: 30,000 partitions per broker): in one JVM, and across processes per broker.
        absolute(t, "scale, one JVM: idle < 5% of one core", "scale.idle_cpu_percent_of_core", 5.0, false);
        absolute(t, "scale, one JVM: <= 10 KiB heap per replica", "scale.heap_per_replica_kib", 10.0, false);
        String processScale = "process." + ProcessBench.INSYNC + ".scale.";
        absolute(t, "scale, processes: the busiest broker idle < 5% of one core",
                processScale + "idle_cpu_percent_of_core_per_broker", 5.0, false);
        absolute(t, "scale, processes: <= 10 KiB heap per replica", processScale + "heap_per_replica_kib", 10.0, false);
        absolute(t, "simulation >= 1000 simulated s per wall s", "simulation.virtual_s_per_wall_s", 1000.0, true);
        return t;
    }

    private void atLeast(List<Target> t, String name, String metric, String reference, double factor) {
        ratio(t, name, metric, reference, factor, true);
    }

    private void atMost(List<Target> t, String name, String metric, String reference, double factor) {
        ratio(t, name, metric, reference, factor, false);
    }

    private void ratio(List<Target> t, String name, String metric, String reference, double factor, boolean atLeast) {
        if (!m.has(metric) || !m.has(reference)) {
            t.add(new Target(name, "NOT MEASURED", "needs " + metric + " and " + reference));
            return;
        }
        double v = m.median(metric);
        double r = m.median(reference);
        double ratio = v / r;
        boolean met = atLeast ? ratio >= factor : ratio <= factor;
        t.add(new Target(name, met ? "MET" : "MISSED", String.format(Locale.ROOT, "%s / %s = %.3g (target %s %.3g)",
                num(v), num(r), ratio, atLeast ? ">=" : "<=", factor)));
    }

    private void absolute(List<Target> t, String name, String metric, double bound, boolean atLeast) {
        if (!m.has(metric)) {
            t.add(new Target(name, "NOT MEASURED", "needs " + metric));
            return;
        }
        double v = m.median(metric);
        boolean met = atLeast ? v >= bound : v <= bound;
        t.add(new Target(name, met ? "MET" : "MISSED", String.format(Locale.ROOT, "%s (target %s %s)",
                num(v), atLeast ? ">=" : "<=", num(bound))));
    }

    // ------------------------------------------------------------------------------ json

    /** Every metric with its median and repeats, the notes and the targets, as JSON. */
    public String json() {
        StringBuilder sb = new StringBuilder("{\n  \"machine\": {");
        sb.append(machine.entrySet().stream().map(e -> "\n    " + quote(e.getKey()) + ": " + quote(e.getValue()))
                .collect(Collectors.joining(",")));
        sb.append("\n  },\n  \"metrics\": {");
        List<String> rows = new ArrayList<>();
        for (String metric : m.metrics()) {
            String values = m.values(metric).stream().map(BenchReport::jsonNum).collect(Collectors.joining(", "));
            rows.add("\n    " + quote(metric) + ": {\"median\": " + jsonNum(m.median(metric)) + ", \"values\": [" + values + "]}");
        }
        sb.append(String.join(",", rows)).append("\n  },\n  \"notes\": {");
        sb.append(m.notes().entrySet().stream().map(e -> "\n    " + quote(e.getKey()) + ": " + quote(e.getValue()))
                .collect(Collectors.joining(",")));
        sb.append("\n  },\n  \"targets\": [");
        sb.append(targets().stream().map(t -> "\n    {\"name\": " + quote(t.name()) + ", \"status\": " + quote(t.status())
                + ", \"detail\": " + quote(t.detail()) + "}").collect(Collectors.joining(",")));
        sb.append("\n  ]\n}\n");
        return sb.toString();
    }

    private static String jsonNum(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.6g", v) : "null";
    }

    private static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }

    // ---------------------------------------------------------------------------- charts

    private void writeLatencyChart(Path dir) throws IOException {
        List<Map.Entry<String, Histogram>> histograms = m.orderedHistograms();
        if (histograms.isEmpty()) {
            return;
        }
        XYChart chart = new XYChartBuilder().width(900).height(520)
                .title("Latency by percentile (one request in flight)")
                .xAxisTitle("percentile (log scale of 1/(1-p): 90%, 99%, 99.9%, ...)")
                .yAxisTitle("latency (microseconds)").build();
        chart.getStyler().setXAxisLogarithmic(true);
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setMarkerSize(0);
        for (Map.Entry<String, Histogram> e : histograms) {
            List<Double> x = new ArrayList<>();
            List<Double> y = new ArrayList<>();
            for (HistogramIterationValue v : e.getValue().percentiles(5)) {
                double p = v.getPercentileLevelIteratedTo() / 100.0;
                if (p >= 1.0) {
                    break;
                }
                x.add(1.0 / (1.0 - p));
                y.add(Math.max(0.01, v.getValueIteratedTo() / 1e3));
            }
            if (x.size() > 1) {
                XYSeries series = chart.addSeries(e.getKey(), x, y);
                series.setMarker(SeriesMarkers.NONE);
            }
        }
        save(chart, dir, "latency");
    }

    private void writeThroughputChart(Path dir) throws IOException {
        List<String> names = new ArrayList<>();
        List<Double> values = new ArrayList<>();
        for (String metric : m.metrics()) {
            // The raw file-write baseline is 20-100x everything else and would flatten the chart; it is in the table.
            if (metric.endsWith(".records_per_s") && !metric.startsWith("simulation") && !metric.startsWith("baseline.")
                    && !metric.startsWith("process.ratio.") && m.median(metric) > 0) {
                names.add(metric.substring(0, metric.length() - ".records_per_s".length()));
                values.add(m.median(metric));
            }
        }
        if (names.isEmpty()) {
            return;
        }
        CategoryChart chart = new CategoryChartBuilder().width(1000).height(560)
                .title("Replicated throughput, median of " + options.repeats() + " (records/s, 100-byte records)")
                .xAxisTitle("scenario").yAxisTitle("records/s").build();
        chart.getStyler().setLegendVisible(false);
        chart.getStyler().setXAxisLabelRotation(60);
        chart.addSeries("records/s", names, values);
        save(chart, dir, "throughput");
    }

    /** The processes section's scenarios charted side by side: metric suffix after {@code process.<target>.}, label. */
    private static final List<Map.Entry<String, String>> SIDE_BY_SIDE_THROUGHPUT = List.of(
            Map.entry("acks_all.p1.records_per_s", "acks=all, 1 partition"),
            Map.entry("acks_1.p1.records_per_s", "acks=1, 1 partition"),
            Map.entry("acks_all.p12.records_per_s", "acks=all, 12 partitions"),
            Map.entry("acks_1.p12.records_per_s", "acks=1, 12 partitions"));
    /** p50 (the target's figure) and p99; p99.9, often 20-50x p50, would flatten them, and is in the table. */
    private static final List<Map.Entry<String, String>> SIDE_BY_SIDE_LATENCY = List.of(
            Map.entry("acks_all.latency.p50_us", "p50"),
            Map.entry("acks_all.latency.p99_us", "p99"));

    /**
     * The targets the processes section measured ({@code process.<target>.<metric>}, ratios aside) charted
     * next to each other: records/s per scenario, and acks=all latency with one record in flight. Nothing is
     * written unless at least two targets have a throughput figure. Medians, as in the tables.
     */
    static void writeSideBySideCharts(Measurements m, Path dir) throws IOException {
        List<String> targets = m.metrics().stream().filter(k -> k.startsWith("process.") && !k.startsWith("process.ratio."))
                .map(k -> k.substring("process.".length(), k.indexOf('.', "process.".length())))
                .distinct().filter(t -> SIDE_BY_SIDE_THROUGHPUT.stream().anyMatch(e -> has(m, t, e.getKey())))
                .toList();
        if (targets.size() < 2) {
            return;
        }
        CategoryChart throughput = new CategoryChartBuilder().width(900).height(520)
                .title("Separate processes on one machine: throughput, 100-byte records (median)")
                .xAxisTitle("scenario").yAxisTitle("thousand records/s").build();
        CategoryChart latency = new CategoryChartBuilder().width(900).height(520)
                .title("Separate processes on one machine: acks=all latency, one record in flight (median)")
                .xAxisTitle("percentile").yAxisTitle("microseconds").build();
        for (String target : targets) {
            addSeries(throughput, m, target, SIDE_BY_SIDE_THROUGHPUT, 1e-3);
            addSeries(latency, m, target, SIDE_BY_SIDE_LATENCY, 1.0);
        }
        save(throughput, dir, "side-by-side-throughput");
        if (!latency.getSeriesMap().isEmpty()) {
            save(latency, dir, "side-by-side-latency");
        }
    }

    /** {@code target}'s median of {@code process.<target>.<suffix>}; NaN if it was not measured. */
    private static double median(Measurements m, String target, String suffix) {
        return m.median("process." + target + "." + suffix);
    }

    private static boolean has(Measurements m, String target, String suffix) {
        return !Double.isNaN(median(m, target, suffix));
    }

    /** One bar per scenario {@code target} measured, scaled by {@code scale}; a scenario it lacks reads 0. */
    private static void addSeries(CategoryChart chart, Measurements m, String target,
                                  List<Map.Entry<String, String>> scenarios, double scale) {
        if (scenarios.stream().noneMatch(e -> has(m, target, e.getKey()))) {
            return;
        }
        List<String> labels = new ArrayList<>();
        List<Double> values = new ArrayList<>();
        for (Map.Entry<String, String> e : scenarios) {
            double median = median(m, target, e.getKey());
            labels.add(e.getValue());
            values.add(Double.isNaN(median) ? 0.0 : median * scale);
        }
        chart.addSeries(target, labels, values);
    }

    private static void save(Chart<?, ?> chart, Path dir, String name)
            throws IOException {
        BitmapEncoder.saveBitmap(chart, dir.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
        VectorGraphicsEncoder.saveVectorGraphic(chart, dir.resolve(name).toString(),
                VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
    }
}
