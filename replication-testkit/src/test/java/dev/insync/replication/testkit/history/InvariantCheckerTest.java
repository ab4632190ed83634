package dev.insync.replication.testkit.history;

import dev.insync.replication.testkit.history.HistoryEvent.Config;
import dev.insync.replication.testkit.history.HistoryEvent.Consume;
import dev.insync.replication.testkit.history.HistoryEvent.Final;
import dev.insync.replication.testkit.history.HistoryEvent.LogEntry;
import dev.insync.replication.testkit.history.HistoryEvent.ProduceFail;
import dev.insync.replication.testkit.history.HistoryEvent.ProduceInvoke;
import dev.insync.replication.testkit.history.HistoryEvent.ProduceOk;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class InvariantCheckerTest {

    private final InvariantChecker checker = new InvariantChecker(30_000, 1_000);

    private static List<LogEntry> log(String... values) {
        List<LogEntry> entries = new ArrayList<>();
        for (int i = 0; i < values.length; i++) {
            entries.add(new LogEntry(i, 0, values[i]));
        }
        return entries;
    }

    private static History healthy() {
        History h = new History();
        h.add(new Config(0, 2, List.of(1, 2, 3), false));
        h.add(new ProduceInvoke(10, 1, "p1", "all", "v1"));
        h.add(new ProduceOk(15, 1, 0, 0));
        h.add(new ProduceInvoke(20, 2, "p1", "1", "v2"));
        h.add(new ProduceOk(21, 2, 1, 0));
        h.add(new Consume(30, "c1", 0, "v1"));
        return h;
    }

    private static void finals(History h, List<LogEntry> b1, List<LogEntry> b2, List<LogEntry> b3) {
        h.add(new Final(1, b1.size(), b1.size(), b1));
        h.add(new Final(2, b2.size(), b2.size(), b2));
        h.add(new Final(3, b3.size(), b3.size(), b3));
    }

    @Test
    @DisplayName("a healthy history has no violations")
    void healthyHistory() {
        History h = healthy();
        finals(h, log("v1", "v2"), log("v1", "v2"), log("v1", "v2"));
        assertThat(checker.check(h, List.of())).isEmpty();
    }

    @Test
    @DisplayName("INV-1 an acknowledged acks=all record missing from a final log is a violation")
    void inv1LostAckedRecord() {
        History h = healthy();
        finals(h, log("x", "v2"), log("x", "v2"), log("x", "v2"));
        assertThat(checker.check(h, List.of())).extracting(Violation::invariant).contains("INV-1", "INV-2");
    }

    @Test
    @DisplayName("INV-1 does not protect records while min ISR is 1")
    void inv1NotProtectedUnderMinIsrOne() {
        History h = new History();
        h.add(new Config(0, 1, List.of(1, 2, 3), false));
        h.add(new ProduceInvoke(10, 1, "p1", "all", "v1"));
        h.add(new ProduceOk(15, 1, 0, 0));
        finals(h, log("x"), log("x"), log("x"));
        assertThat(checker.check(h, List.of())).isEmpty();
    }

    @Test
    @DisplayName("INV-2 a consumed record that changed is a violation")
    void inv2ConsumedChanged() {
        History h = new History();
        h.add(new Config(0, 2, List.of(1, 2, 3), false));
        h.add(new Consume(30, "c1", 0, "v1"));
        finals(h, log("other"), log("other"), log("other"));
        assertThat(checker.check(h, List.of())).extracting(Violation::invariant).containsExactly("INV-2", "INV-2", "INV-2");
    }

    @Test
    @DisplayName("INV-3 diverged final logs are a violation")
    void inv3Diverged() {
        History h = healthy();
        finals(h, log("v1", "v2"), log("v1", "v2"), log("v1", "zz"));
        assertThat(checker.check(h, List.of())).extracting(Violation::invariant).containsExactly("INV-3");
    }

    @Test
    @DisplayName("INV-4 a leader HW that goes down within an epoch is a violation")
    void inv4HwDown() {
        History h = healthy();
        finals(h, log("v1", "v2"), log("v1", "v2"), log("v1", "v2"));
        List<StateSample> samples = List.of(
                new StateSample(100, 1, 1, true, 0, List.of(1, 2, 3), 5, 6, List.of()),
                new StateSample(200, 1, 1, true, 0, List.of(1, 2, 3), 4, 6, List.of()));
        assertThat(checker.check(h, samples)).extracting(Violation::invariant).containsExactly("INV-4");
    }

    @Test
    @DisplayName("INV-5 a produce call that never completes, or completes twice, is a violation")
    void inv5Completion() {
        History h = healthy();
        h.add(new ProduceInvoke(40, 3, "p2", "all", "v3"));
        h.add(new ProduceFail(41, 2, "REQUEST_TIMED_OUT"));
        finals(h, log("v1", "v2"), log("v1", "v2"), log("v1", "v2"));
        assertThat(checker.check(h, List.of())).extracting(Violation::invariant).containsExactly("INV-5", "INV-5");
    }

    @Test
    @DisplayName("INV-5 a produce call that completes after its timeout is a violation")
    void inv5Late() {
        History h = new History();
        h.add(new Config(0, 2, List.of(1), false));
        h.add(new ProduceInvoke(0, 1, "p1", "1", "v1"));
        h.add(new ProduceFail(40_000, 1, "REQUEST_TIMED_OUT"));
        assertThat(checker.check(h, List.of())).extracting(Violation::invariant).containsExactly("INV-5");
    }

    @Test
    @DisplayName("INV-7 an ISR member below the leader's HW is a violation")
    void inv7() {
        History h = healthy();
        finals(h, log("v1", "v2"), log("v1", "v2"), log("v1", "v2"));
        List<StateSample> samples = List.of(
                new StateSample(100, 1, 1, true, 0, List.of(1, 2), 5, 6, List.of()),
                new StateSample(100, 2, 1, false, 0, List.of(1, 2), 3, 3, List.of()));
        assertThat(checker.check(h, samples)).extracting(Violation::invariant).containsExactly("INV-7");
    }

    @Test
    @DisplayName("INV-8 two leaders in one epoch, or a non-increasing epoch cache, are violations")
    void inv8() {
        History h = healthy();
        finals(h, log("v1", "v2"), log("v1", "v2"), log("v1", "v2"));
        List<StateSample> samples = List.of(
                new StateSample(100, 1, 1, true, 3, List.of(1), 0, 0, List.of(new long[]{0, 0}, new long[]{3, 0})),
                new StateSample(100, 2, 1, true, 3, List.of(2), 0, 0, List.of()));
        assertThat(checker.check(h, samples)).extracting(Violation::invariant).containsExactly("INV-8", "INV-8");
    }

    @Test
    @DisplayName("INV-6 a history written as JSON lines parses back to the same events")
    void jsonLinesRoundTrip() {
        History h = healthy();
        h.add(new HistoryEvent.Fault(50, "partition", List.of(1, 3)));
        finals(h, log("v1", "v\"2\n"), log("v1"), log());
        String text = h.toJsonLines();
        assertThat(History.parse(text).events()).isEqualTo(h.events());
        assertThat(text.lines().findFirst()).hasValue("{\"t\":0,\"type\":\"config\",\"minIsr\":2,\"replicas\":[1,2,3],\"unclean\":false}");
    }
}
