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

package dev.insync.replication.cli.chaos;

import dev.insync.replication.testkit.history.History;
import dev.insync.replication.testkit.history.HistoryEvent;
import dev.insync.replication.testkit.history.HistoryEvent.Consume;
import dev.insync.replication.testkit.history.HistoryEvent.ControllerState;
import dev.insync.replication.testkit.history.HistoryEvent.Fault;
import dev.insync.replication.testkit.history.HistoryEvent.ProduceFail;
import dev.insync.replication.testkit.history.HistoryEvent.ProduceInvoke;
import dev.insync.replication.testkit.history.HistoryEvent.ProduceOk;
import dev.insync.replication.testkit.history.InvariantChecker;
import dev.insync.replication.testkit.history.Json;
import dev.insync.replication.testkit.history.Verdict;
import dev.insync.replication.testkit.history.Violation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What {@code insync chaos} prints: acknowledged acks=all writes, those lost (the final read does
 * not hold them at their offset: must be 0), values read more than once (duplicated), the longest
 * time during the faults with no acks=all success (unavailability), how long each partition took to
 * become whole after the heal, the slowest acks=all call (bounded by delivery.timeout.ms), the faults injected and the {@link InvariantChecker}'s violations.
 * Each unavailability window over 5 s is explained by what surrounds it ({@link Window}), so that a
 * stall seen once can be understood from the report alone.
 *
 * @param lostExamples up to {@value #EXAMPLES} lost writes, {@code partition@offset=value}
 * @param windows      the {@value #MAX_WINDOWS} longest unavailability windows over 5 s, longest first
 */
public record ChaosReport(long seed, long seconds, int acknowledged, int failed, int consumed, int lost,
                          List<String> lostExamples, int duplicated, long longestUnavailableMs,
                          long longestUnavailableFromMs, int windowsOver5s, long slowestCallMs, Map<Integer, Long> healedAfterMs,
                          Map<String, Integer> faults, List<String> violations, List<Window> windows) {

    /** Lost writes quoted in the report. */
    static final int EXAMPLES = 10;
    /** Windows explained in the report. */
    static final int MAX_WINDOWS = 3;
    /** A stretch without an acks=all success longer than this is a window the report explains. */
    static final long WINDOW_MS = 5_000;
    /** Faults this long before a window are listed with it: what set it off usually comes first. */
    static final long FAULT_LOOKBACK_MS = 5_000;
    /** Calls and controller changes listed per window, at most. */
    static final int MAX_LINES = 12;

    /**
     * One stretch of the fault phase without an acks=all success, and what surrounds it.
     *
     * @param fromMs     the last success before it (or the start of the faults)
     * @param toMs       the first success after it (or the end of the faults)
     * @param faults     faults injected or undone from {@value ChaosReport#FAULT_LOOKBACK_MS} ms before it to its end
     * @param calls      the workload's produce calls outstanding during it: client, partition, when, outcome and
     *                   the client's own words (what an unsent record waited for: no leader, requests in flight...)
     * @param controller the controller's registration of each partition as the watcher last saw it before the
     *                   window, then every change it saw during it
     */
    public record Window(long fromMs, long toMs, List<String> faults, List<String> calls, List<String> controller) {
        /** Immutable copies. */
        public Window {
            faults = List.copyOf(faults);
            calls = List.copyOf(calls);
            controller = List.copyOf(controller);
        }

        /** How long it lasted. */
        public long ms() {
            return toMs - fromMs;
        }

        Map<String, Object> toJson() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("fromMs", fromMs);
            m.put("toMs", toMs);
            m.put("ms", ms());
            m.put("faults", faults);
            m.put("calls", calls);
            m.put("controller", controller);
            return m;
        }
    }
    /** The client name of the final read. */
    static final String FINAL_READER = "final";

    /** Immutable copies. */
    public ChaosReport {
        lostExamples = List.copyOf(lostExamples);
        healedAfterMs = Map.copyOf(healedAfterMs);
        faults = Map.copyOf(faults);
        violations = List.copyOf(violations);
        windows = List.copyOf(windows);
    }

    /** Whether nothing was lost or duplicated and no invariant broke. */
    public boolean clean() {
        return lost == 0 && duplicated == 0 && violations.isEmpty();
    }

    /**
     * @param failDetails the client's message of each failed produce call, by call id (the history has only
     *                    the error name)
     */
    static ChaosReport of(ChaosSettings settings, History history, Verdict verdict, Map<String, Integer> faults,
                          long faultsStartMs, long faultsEndMs, Map<Integer, Long> healedAfterMs,
                          Map<Long, String> failDetails) {
        List<HistoryEvent> events = history.events();
        Map<Long, ProduceInvoke> invokes = new HashMap<>();
        Map<Integer, Map<Long, String>> finalRead = new TreeMap<>();
        Map<String, Integer> readCounts = new HashMap<>();
        List<Long> successTimes = new ArrayList<>();
        int failed = 0;
        int consumed = 0;
        long slowest = 0;
        for (HistoryEvent e : events) {
            if (e instanceof ProduceInvoke inv) {
                invokes.put(inv.id(), inv);
            } else if (e instanceof ProduceOk ok && isWorkload(invokes.get(ok.id()))) {
                successTimes.add(ok.t());
                slowest = Math.max(slowest, ok.t() - invokes.get(ok.id()).t());
            } else if (e instanceof ProduceFail f && isWorkload(invokes.get(f.id()))) {
                failed++;
                slowest = Math.max(slowest, f.t() - invokes.get(f.id()).t());
            } else if (e instanceof Consume c) {
                consumed++;
                if (FINAL_READER.equals(c.client())) {
                    finalRead.computeIfAbsent(c.partition(), k -> new TreeMap<>()).put(c.offset(), c.value());
                    readCounts.merge(c.value(), 1, Integer::sum);
                }
            }
        }
        Map<Integer, Map<Long, String>> acked = ChaosRun.acknowledged(events);
        int acknowledged = 0;
        int lost = 0;
        List<String> examples = new ArrayList<>();
        for (Map.Entry<Integer, Map<Long, String>> p : acked.entrySet()) {
            Map<Long, String> read = finalRead.getOrDefault(p.getKey(), Map.of());
            for (Map.Entry<Long, String> a : p.getValue().entrySet()) {
                acknowledged++;
                if (!a.getValue().equals(read.get(a.getKey()))) {
                    lost++;
                    if (examples.size() < EXAMPLES) {
                        examples.add(p.getKey() + "@" + a.getKey() + "=" + a.getValue());
                    }
                }
            }
        }
        int duplicated = (int) readCounts.values().stream().filter(n -> n > 1).count();
        // Unavailability: the longest stretch of the fault phase without an acks=all success.
        long longest = 0;
        long longestFrom = faultsStartMs;
        int over5s = 0;
        List<long[]> gaps = new ArrayList<>();
        long previous = faultsStartMs;
        successTimes.sort(Long::compare);
        List<Long> marks = new ArrayList<>();
        for (long t : successTimes) {
            if (t >= faultsStartMs && t <= faultsEndMs) {
                marks.add(t);
            }
        }
        marks.add(faultsEndMs);
        for (long t : marks) {
            long gap = t - previous;
            if (gap > longest) {
                longest = gap;
                longestFrom = previous;
            }
            if (gap > WINDOW_MS) {
                over5s++;
                gaps.add(new long[] {previous, t});
            }
            previous = t;
        }
        List<String> violations = verdict.violations().stream().map(Violation::toString).toList();
        gaps.sort((a, b) -> Long.compare(b[1] - b[0], a[1] - a[0]));
        List<Window> windows = gaps.stream().limit(MAX_WINDOWS).map(g -> window(events, g[0], g[1], failDetails)).toList();
        return new ChaosReport(settings.seed(), settings.seconds(), acknowledged, failed, consumed, lost, examples,
                duplicated, longest, longestFrom, over5s, slowest, healedAfterMs, faults, violations, windows);
    }

    /** What surrounds the window {@code [fromMs, toMs]} in {@code events}. */
    static Window window(List<HistoryEvent> events, long fromMs, long toMs, Map<Long, String> failDetails) {
        List<String> faultLines = new ArrayList<>();
        Map<Long, ProduceInvoke> invokes = new LinkedHashMap<>();
        Map<Long, HistoryEvent> ends = new HashMap<>();
        Map<Integer, ControllerState> before = new TreeMap<>();
        List<String> changes = new ArrayList<>();
        for (HistoryEvent e : events) {
            if (e instanceof Fault f && f.t() >= fromMs - FAULT_LOOKBACK_MS && f.t() <= toMs) {
                faultLines.add("t=" + f.t() + " " + f.kind() + " " + f.brokers() + (f.params().isEmpty() ? "" : " " + f.params()));
            } else if (e instanceof ProduceInvoke inv && isWorkload(inv) && inv.t() <= toMs) {
                invokes.put(inv.id(), inv);
            } else if (e instanceof ProduceOk || e instanceof ProduceFail) {
                ends.put(e instanceof ProduceOk ok ? ok.id() : ((ProduceFail) e).id(), e);
            } else if (e instanceof ControllerState c) {
                if (c.t() <= fromMs) {
                    before.put(c.partition(), c);
                } else if (c.t() <= toMs) {
                    changes.add(describe(c));
                }
            }
        }
        List<String> calls = new ArrayList<>();
        for (ProduceInvoke inv : invokes.values()) {
            HistoryEvent end = ends.get(inv.id());
            long endMs = end == null ? Long.MAX_VALUE : end.t();
            if (endMs <= fromMs) {
                continue; // over before the window began (the success that opens it included)
            }
            String outcome;
            if (end == null) {
                outcome = "no outcome";
            } else if (end instanceof ProduceOk ok) {
                outcome = "ok at offset " + ok.offset() + " (epoch " + ok.epoch() + ")";
            } else {
                String detail = failDetails.get(inv.id());
                outcome = ((ProduceFail) end).error() + (detail == null ? "" : ": " + detail);
            }
            calls.add(inv.client() + " partition " + inv.partition() + " t=" + inv.t()
                    + (end == null ? "" : ".." + end.t() + " (" + (end.t() - inv.t()) + " ms)") + " " + outcome);
        }
        List<String> controller = new ArrayList<>();
        before.values().forEach(c -> controller.add(describe(c)));
        controller.addAll(changes);
        return new Window(fromMs, toMs, faultLines, limit(calls), limit(controller));
    }

    private static String describe(ControllerState c) {
        return "t=" + c.t() + " partition " + c.partition() + ": leader " + c.leader() + " epoch " + c.leaderEpoch()
                + ", partition epoch " + c.partitionEpoch() + ", isr " + c.isr() + (c.elr().isEmpty() ? "" : ", elr " + c.elr());
    }

    private static List<String> limit(List<String> lines) {
        if (lines.size() <= MAX_LINES) {
            return lines;
        }
        List<String> out = new ArrayList<>(lines.subList(0, MAX_LINES));
        out.add("... " + (lines.size() - MAX_LINES) + " more");
        return out;
    }

    private static boolean isWorkload(ProduceInvoke inv) {
        return inv != null && !InvariantChecker.PROBE_CLIENT.equals(inv.client());
    }

    /** The report as text lines. */
    public List<String> lines() {
        List<String> out = new ArrayList<>();
        out.add("seed " + seed + ", " + seconds + " s of faults " + new TreeMap<>(faults));
        out.add("acknowledged (acks=all): " + acknowledged + ", failed: " + failed + ", consumed: " + consumed);
        out.add("lost: " + lost + (lostExamples.isEmpty() ? "" : " " + lostExamples));
        out.add("duplicated: " + duplicated);
        out.add("longest unavailability: " + longestUnavailableMs + " ms (from t=" + longestUnavailableFromMs
                + " ms); windows over 5 s: " + windowsOver5s + "; slowest call: " + slowestCallMs + " ms");
        for (Window w : windows) {
            out.add("window without an acks=all success: t=" + w.fromMs() + ".." + w.toMs() + " ms (" + w.ms() + " ms)");
            w.faults().forEach(f -> out.add("  fault " + f));
            w.calls().forEach(c -> out.add("  call " + c));
            w.controller().forEach(c -> out.add("  controller " + c));
        }
        out.add("whole again after the heal (ms, by partition): " + new TreeMap<>(healedAfterMs));
        out.add("invariants: " + (violations.isEmpty() ? "clean" : violations.size() + " violation(s)"));
        violations.forEach(v -> out.add("  " + v));
        out.add(clean() ? "OK" : "VIOLATION");
        return out;
    }

    /** The report as one JSON object. */
    public String json() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("seed", seed);
        m.put("seconds", seconds);
        m.put("acknowledged", acknowledged);
        m.put("failed", failed);
        m.put("consumed", consumed);
        m.put("lost", lost);
        m.put("lostExamples", lostExamples);
        m.put("duplicated", duplicated);
        m.put("longestUnavailableMs", longestUnavailableMs);
        m.put("longestUnavailableFromMs", longestUnavailableFromMs);
        m.put("windowsOver5s", windowsOver5s);
        m.put("slowestCallMs", slowestCallMs);
        Map<String, Object> healed = new TreeMap<>();
        healedAfterMs.forEach((p, ms) -> healed.put(Integer.toString(p), ms));
        m.put("healedAfterMs", healed);
        m.put("faults", new TreeMap<>(faults));
        m.put("violations", violations);
        m.put("windows", windows.stream().map(Window::toJson).toList());
        m.put("clean", clean());
        return Json.write(m);
    }
}
