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

package dev.insync.replication.testkit.simulation;

import dev.insync.replication.testkit.history.History;
import dev.insync.replication.testkit.history.HistoryEvent;
import dev.insync.replication.testkit.history.Json;
import dev.insync.replication.testkit.history.Violation;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The outcome of one {@link Simulation} run.
 *
 * @param seed           the seed that reproduces it
 * @param profile        the settings the seed drew
 * @param history        everything that happened (the {@code <seed>.jsonl} file); the verdict follows from it alone
 * @param violations     broken invariants (and failures of the run itself: CRASH, LDR-4), empty for a clean run
 * @param excused        liveness failures the history excuses (no clean ISR/ELR member left, unclean election off)
 * @param acked          produce calls acknowledged with NONE
 * @param ackedAll       of those, acks=all
 * @param lostAcks1      acks=1 acknowledged records absent from every final log (allowed, counted)
 * @param simulatedMs    virtual time the run took, heal-and-quiesce included
 * @param loopEvents     events the event loop executed
 * @param traceHash      the loop's hash over every executed event (INV-6)
 * @param recentTrace    the loop's last events, to replay a failure
 * @param faultCounts    fault events recorded, by history kind ({@code kill}, {@code cut}, {@code loss}, ...)
 */
public record SimulationResult(long seed, SeedProfile profile, History history, List<Violation> violations,
                               List<Violation> excused, long acked, long ackedAll, long lostAcks1, long simulatedMs,
                               long loopEvents, long traceHash, List<String> recentTrace, Map<String, Long> faultCounts) {

    /** History events shown with a failure. */
    public static final int TRACE_EVENTS = 40;

    /** Copies. */
    public SimulationResult {
        violations = List.copyOf(violations);
        excused = List.copyOf(excused);
        recentTrace = List.copyOf(recentTrace);
        faultCounts = java.util.Collections.unmodifiableMap(new TreeMap<>(faultCounts));
    }

    /** Whether no invariant broke. */
    public boolean clean() {
        return violations.isEmpty();
    }

    /** Number of history events. */
    public int historyEvents() {
        return history.events().size();
    }

    /** Whether the controller made an unclean election in this run (the history's {@code controller} lines). */
    public boolean hadUncleanElection() {
        return history.events().stream().anyMatch(e -> e instanceof HistoryEvent.ControllerState c && c.unclean());
    }

    /**
     * A report to replay a failure: the seed, the first violation, the last {@link #TRACE_EVENTS}
     * history events up to it and the event loop's recent trace.
     */
    public String failureReport() {
        if (clean()) {
            return "seed " + seed + ": clean";
        }
        Violation first = violations.get(0);
        StringBuilder sb = new StringBuilder();
        sb.append("seed ").append(seed).append(": ").append(violations.size()).append(" violation(s), first: ")
                .append(first).append('\n');
        sb.append("replay: simulate --seeds ").append(seed).append('-').append(seed).append(" --history DIR\n");
        List<HistoryEvent> events = history.events();
        int end = events.size();
        if (first.t() >= 0) {
            end = 0;
            while (end < events.size() && (events.get(end).t() < 0 ? Long.MAX_VALUE : events.get(end).t()) <= first.t()) {
                end++;
            }
        }
        sb.append("last history events:\n");
        for (HistoryEvent e : events.subList(Math.max(0, end - TRACE_EVENTS), end)) {
            sb.append("  ").append(Json.write(e.toJson())).append('\n');
        }
        sb.append("event loop's last events:\n");
        for (String line : recentTrace) {
            sb.append("  ").append(line).append('\n');
        }
        return sb.toString();
    }

    /** The per-seed summary as one JSON object. */
    public Map<String, Object> summaryJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("seed", seed);
        m.put("events", historyEvents());
        m.put("acked", acked);
        m.put("ackedAll", ackedAll);
        m.put("lostAcks1", lostAcks1);
        m.put("violations", violations.stream().map(Violation::toString).toList());
        m.put("excused", excused.stream().map(Violation::toString).toList());
        m.put("simulatedMs", simulatedMs);
        m.put("loopEvents", loopEvents);
        m.put("traceHash", Long.toHexString(traceHash));
        m.put("settings", profile.toJson());
        m.put("faults", faultCounts);
        return m;
    }
}
