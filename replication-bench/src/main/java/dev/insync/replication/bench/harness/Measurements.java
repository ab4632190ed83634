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

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every number one bench run produced, by metric name (the unit is part of the name, e.g.
 * {@code throughput.acks_all.p1.records_per_s}); a metric measured in several repeats keeps every
 * value and reports their median. Latency histograms are kept (the last repeat's) for the chart.
 * Thread-safe enough for the harness: one thread writes at a time.
 */
public final class Measurements {

    private final Map<String, List<Double>> values = new LinkedHashMap<>();
    private final Map<String, Histogram> histograms = new LinkedHashMap<>();
    private final Map<String, String> notes = new LinkedHashMap<>();

    /** Adds one repeat's value of {@code metric}. */
    public synchronized void add(String metric, double value) {
        values.computeIfAbsent(metric, k -> new ArrayList<>()).add(value);
    }

    /** Keeps the latency histogram (nanoseconds) of {@code name} for charts, replacing an earlier repeat's. */
    public synchronized void histogram(String name, Histogram histogram) {
        histograms.put(name, histogram.copy());
    }

    /** A free-text remark shown with the results (e.g. why a measurement was skipped). */
    public synchronized void note(String key, String text) {
        notes.put(key, text);
    }

    /** Metric names in the order first seen. */
    public synchronized List<String> metrics() {
        return List.copyOf(values.keySet());
    }

    /** All values of a metric, in repeat order; empty if never measured. */
    public synchronized List<Double> values(String metric) {
        return List.copyOf(values.getOrDefault(metric, List.of()));
    }

    /** Whether the metric was measured at least once. */
    public synchronized boolean has(String metric) {
        return values.containsKey(metric);
    }

    /** Median of the metric's values (the mean of the middle two for an even count); NaN if none. */
    public synchronized double median(String metric) {
        List<Double> v = new ArrayList<>(values.getOrDefault(metric, List.of()));
        if (v.isEmpty()) {
            return Double.NaN;
        }
        Collections.sort(v);
        int n = v.size();
        return n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
    }

    /** Kept latency histograms by name. */
    public synchronized Map<String, Histogram> histograms() {
        return Map.copyOf(histograms);
    }

    /** Kept histograms in insertion order. */
    public synchronized List<Map.Entry<String, Histogram>> orderedHistograms() {
        return List.copyOf(histograms.entrySet());
    }

    /** Remarks by key. */
    public synchronized Map<String, String> notes() {
        return new LinkedHashMap<>(notes);
    }
}
