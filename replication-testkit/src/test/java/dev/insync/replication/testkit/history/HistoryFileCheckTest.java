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

package dev.insync.replication.testkit.history;

import dev.insync.replication.testkit.simulation.Simulation;
import dev.insync.replication.testkit.simulation.SimulationResult;
import dev.insync.replication.testkit.simulation.SimulationSettings;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The history file is self-contained: a simulation's history written to disk and read back gives
 * the checker's verdict on its own, and tampering with the file (one line changed, added or removed)
 * to break each invariant is found from the file alone.
 */
class HistoryFileCheckTest {

    private static final SimulationSettings SETTINGS = SimulationSettings.DEFAULT.withDurationMs(10_000);

    @TempDir
    static Path dir;
    private static SimulationResult run;
    private static List<Map<String, Object>> lines;

    @BeforeAll
    static void writeOneHistory() throws IOException {
        // The first seed of one partition, under min ISR >= 2 throughout, with acks=all and consumed records,
        // so that every invariant has something to protect.
        for (long seed = 1; run == null; seed++) {
            SimulationResult r = Simulation.run(seed, SETTINGS);
            List<HistoryEvent> events = r.history().events();
            boolean protectedThroughout = events.stream().allMatch(e -> !(e instanceof HistoryEvent.Config c)
                    || (c.minIsr() >= 2 && c.partitions() == 1));
            boolean consumed = events.stream().anyMatch(HistoryEvent.Consume.class::isInstance);
            if (r.clean() && protectedThroughout && r.ackedAll() > 0 && consumed && noRestartInLastEpoch(events)) {
                run = r;
            }
        }
        Path file = dir.resolve(run.seed() + ".jsonl");
        run.history().writeTo(file);
        lines = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            @SuppressWarnings("unchecked")
            Map<String, Object> m = (Map<String, Object>) Json.read(line);
            lines.add(m);
        }
    }

    /** No broker restarted since the last leader's epoch began (so INV-7 judges every ISR member at the end). */
    private static boolean noRestartInLastEpoch(List<HistoryEvent> events) {
        HistoryEvent.Sample last = (HistoryEvent.Sample) events.stream()
                .filter(e -> e instanceof HistoryEvent.Sample s && s.leader()).reduce((a, b) -> b).orElseThrow();
        int began = 0;
        while (!(events.get(began) instanceof HistoryEvent.Sample s && s.leader() && s.broker() == last.broker()
                && s.leaderEpoch() == last.leaderEpoch() && s.incarnation() == last.incarnation())) {
            began++;
        }
        return events.subList(began, events.size()).stream()
                .noneMatch(e -> e instanceof HistoryEvent.Fault f && "restart".equals(f.kind()));
    }

    private static List<String> checkFile(List<Map<String, Object>> edited) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (Map<String, Object> m : edited) {
            sb.append(Json.write(m)).append('\n');
        }
        Path file = Files.writeString(dir.resolve("tampered.jsonl"), sb);
        History read = History.parse(Files.readString(file));
        return new InvariantChecker().violations(read).stream().map(Violation::invariant).toList();
    }

    private static List<Map<String, Object>> copy() {
        List<Map<String, Object>> c = new ArrayList<>();
        for (Map<String, Object> m : lines) {
            c.add(deepCopy(m));
        }
        return c;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> deepCopy(Map<String, Object> m) {
        Map<String, Object> c = new LinkedHashMap<>();
        m.forEach((k, v) -> c.put(k, v instanceof Map<?, ?> inner ? deepCopy((Map<String, Object>) inner)
                : v instanceof List<?> list ? new ArrayList<>(list.stream().map(o -> o instanceof Map<?, ?> x
                ? deepCopy((Map<String, Object>) x) : o).toList()) : v));
        return c;
    }

    private static int indexOf(List<Map<String, Object>> in, Predicate<Map<String, Object>> p) {
        for (int i = 0; i < in.size(); i++) {
            if (p.test(in.get(i))) {
                return i;
            }
        }
        throw new AssertionError("no such line in the history of seed " + run.seed());
    }

    private static int lastIndexOf(List<Map<String, Object>> in, Predicate<Map<String, Object>> p) {
        for (int i = in.size() - 1; i >= 0; i--) {
            if (p.test(in.get(i))) {
                return i;
            }
        }
        throw new AssertionError("no such line in the history of seed " + run.seed());
    }

    private static Predicate<Map<String, Object>> type(String type) {
        return m -> type.equals(m.get("type"));
    }

    private static long num(Map<String, Object> m, String key) {
        return ((Number) m.get(key)).longValue();
    }

    @Test
    @DisplayName("INV-6 a history read back from its file gives the same verdict, and it is clean")
    void fileAloneGivesTheVerdict() throws IOException {
        assertThat(checkFile(lines)).isEmpty();
        History read = History.parse(Files.readString(dir.resolve(run.seed() + ".jsonl")));
        assertThat(read.toJsonLines()).isEqualTo(run.history().toJsonLines());
        assertThat(read.events()).anyMatch(HistoryEvent.Sample.class::isInstance)
                .anyMatch(HistoryEvent.ControllerState.class::isInstance)
                .anyMatch(HistoryEvent.Quiesce.class::isInstance)
                .anyMatch(HistoryEvent.Settings.class::isInstance);
    }

    @Test
    @DisplayName("INV-1 an acknowledged acks=all record changed in the final logs of the file is found")
    void inv1() throws IOException {
        List<Map<String, Object>> h = copy();
        int probe = lastIndexOf(h, m -> type("produce-invoke").test(m) && InvariantChecker.PROBE_CLIENT.equals(m.get("client")));
        long id = num(h.get(probe), "id");
        long offset = num(h.get(indexOf(h, m -> type("produce-ok").test(m) && num(m, "id") == id)), "offset");
        for (Map<String, Object> m : h) {
            if (type("final").test(m)) {
                for (Object o : (List<?>) m.get("log")) {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> entry = (Map<String, Object>) o;
                    if (num(entry, "offset") == offset) {
                        entry.put("value", "tampered");
                    }
                }
            }
        }
        assertThat(checkFile(h)).contains("INV-1");
    }

    @Test
    @DisplayName("INV-2 a consumed value that no final log holds is found")
    void inv2() throws IOException {
        List<Map<String, Object>> h = copy();
        lastIndexOfConsume(h).put("value", "tampered");
        assertThat(checkFile(h)).contains("INV-2");
    }

    private static Map<String, Object> lastIndexOfConsume(List<Map<String, Object>> h) {
        return h.get(lastIndexOf(h, type("consume")));
    }

    @Test
    @DisplayName("INV-2 a poll starting past where the consumer was (records it was given but the file lacks) is found")
    void inv2Completeness() throws IOException {
        List<Map<String, Object>> h = copy();
        Map<String, Object> poll = h.get(lastIndexOf(h, type("poll-invoke")));
        poll.put("position", num(poll, "position") + 1);
        assertThat(checkFile(h)).contains("INV-2");
    }

    @Test
    @DisplayName("INV-3 a final log that differs from the others is found")
    void inv3() throws IOException {
        List<Map<String, Object>> h = copy();
        Map<String, Object> fin = h.get(lastIndexOf(h, type("final")));
        List<?> log = (List<?>) fin.get("log");
        @SuppressWarnings("unchecked")
        Map<String, Object> last = (Map<String, Object>) log.get(log.size() - 1);
        last.put("epoch", num(last, "epoch") + 1);
        assertThat(checkFile(h)).contains("INV-3");
    }

    @Test
    @DisplayName("INV-4 a sample whose HW is above its LEO is found")
    void inv4() throws IOException {
        List<Map<String, Object>> h = copy();
        Map<String, Object> s = h.get(lastIndexOf(h, m -> type("sample").test(m) && "running".equals(m.get("status"))));
        s.put("hw", num(s, "leo") + 1);
        assertThat(checkFile(h)).contains("INV-4");
    }

    @Test
    @DisplayName("INV-5 a produce call whose completion line is gone is found")
    void inv5() throws IOException {
        List<Map<String, Object>> h = copy();
        h.remove(indexOf(h, type("produce-ok")));
        assertThat(checkFile(h)).contains("INV-5");
    }

    @Test
    @DisplayName("INV-7 an ISR member sampled below its leader's HW is found")
    void inv7() throws IOException {
        List<Map<String, Object>> h = copy();
        int firstFinal = indexOf(h, type("final"));
        int leaderAt = lastIndexOf(h, m -> type("sample").test(m) && Boolean.TRUE.equals(m.get("leader")));
        Map<String, Object> leader = h.get(leaderAt);
        long hw = num(leader, "hw");
        // A member in the same incarnation as when the leader's epoch began (the checker skips restarted ones).
        int epochBegan = indexOf(h, m -> type("sample").test(m) && Boolean.TRUE.equals(m.get("leader"))
                && num(m, "broker") == num(leader, "broker") && num(m, "leaderEpoch") == num(leader, "leaderEpoch")
                && num(m, "incarnation") == num(leader, "incarnation"));
        Map<String, Object> member = null;
        for (Object o : (List<?>) leader.get("isr")) {
            long id = ((Number) o).longValue();
            if (id == num(leader, "broker")) {
                continue;
            }
            int then = lastIndexOf(h.subList(0, epochBegan + 1), m -> type("sample").test(m) && num(m, "broker") == id);
            int now = lastIndexOf(h, m -> type("sample").test(m) && num(m, "broker") == id);
            if (num(h.get(then), "incarnation") == num(h.get(now), "incarnation")) {
                member = deepCopy(h.get(now));
            }
        }
        assertThat(member).as("an ISR member that did not restart during the leader's epoch").isNotNull();
        member.put("t", num(h.get(firstFinal - 1), "t") + 1);
        member.put("leo", hw - 1);
        member.put("hw", hw - 1);
        h.add(firstFinal, member);
        assertThat(checkFile(h)).contains("INV-7");
    }

    @Test
    @DisplayName("INV-8 a second broker sampled as leader of the same epoch is found")
    void inv8() throws IOException {
        List<Map<String, Object>> h = copy();
        int firstFinal = indexOf(h, type("final"));
        Map<String, Object> leader = h.get(lastIndexOf(h, m -> type("sample").test(m) && Boolean.TRUE.equals(m.get("leader"))));
        Map<String, Object> usurper = deepCopy(leader);
        usurper.put("broker", num(leader, "broker") % 3 + 1);
        usurper.put("t", num(h.get(firstFinal - 1), "t") + 1);
        h.add(firstFinal, usurper);
        assertThat(checkFile(h)).contains("INV-8");
    }

    @Test
    @DisplayName("LOG-8 a final epoch cache that does not describe the final log is found")
    void log8() throws IOException {
        List<Map<String, Object>> h = copy();
        Map<String, Object> s = h.get(lastIndexOf(h, type("sample")));
        List<Object> epochs = new ArrayList<>((List<?>) s.get("epochs"));
        List<?> first = (List<?>) epochs.get(0);
        epochs.set(0, List.of(((Number) first.get(0)).longValue() - 1 - 100, ((Number) first.get(1)).longValue()));
        s.put("epochs", epochs);
        assertThat(checkFile(h)).contains("LOG-8");
    }

    @Test
    @DisplayName("LOG-10 a leader whose log start passed its HW is found")
    void log10() throws IOException {
        List<Map<String, Object>> h = copy();
        Map<String, Object> leader = h.get(lastIndexOf(h, m -> type("sample").test(m) && Boolean.TRUE.equals(m.get("leader"))));
        leader.put("logStart", num(leader, "hw") + 1);
        assertThat(checkFile(h)).contains("LOG-10");
    }

    @Test
    @DisplayName("LIVENESS a run whose probe writes never succeeded is found")
    void liveness() throws IOException {
        List<Map<String, Object>> h = copy();
        List<Long> probes = h.stream().filter(m -> type("produce-invoke").test(m)
                && InvariantChecker.PROBE_CLIENT.equals(m.get("client"))).map(m -> num(m, "id")).toList();
        h.removeIf(m -> type("produce-ok").test(m) && probes.contains(num(m, "id")));
        assertThat(checkFile(h)).contains("LIVENESS");
    }
}
