package dev.insync.replication.testkit.simulation;

import dev.insync.replication.testkit.history.History;
import dev.insync.replication.testkit.history.HistoryEvent;
import dev.insync.replication.testkit.history.Json;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SPEC §11 over a fixed batch of seeds: every seed's history and state samples satisfy every
 * invariant, and a seed replays event for event. The deliberately broken libraries are in
 * {@link MutationTest}.
 */
class SimulationTest {

    /** Seeds run by {@code mvn verify}; each simulates {@link #SECONDS} seconds plus the quiesce phase. */
    static final int SEEDS = 200;
    static final long SECONDS = 25;

    static LongStream seeds() {
        return LongStream.rangeClosed(1, SEEDS);
    }

    @ParameterizedTest(name = "INV-1 INV-2 INV-3 INV-4 INV-5 INV-7 INV-8 hold under random faults, seed {0}")
    @MethodSource("seeds")
    void everyInvariantHolds(long seed) {
        SimulationResult result = Simulation.run(seed, SimulationSettings.DEFAULT.withDurationMs(SECONDS * 1000));

        assertThat(result.violations()).as(result.failureReport()).isEmpty();
        // The run did something worth checking: writes were acknowledged and every broker has a final log.
        assertThat(result.acked()).as("acknowledged produce calls, seed " + seed).isPositive();
        assertThat(result.history().events()).filteredOn(HistoryEvent.Final.class::isInstance).hasSize(3);
    }

    @Test
    @DisplayName("INV-6 the same seed gives the same history, event for event, and the same event-loop trace")
    void sameSeedSameHistory() {
        SimulationSettings settings = SimulationSettings.DEFAULT.withDurationMs(30_000);
        SimulationResult first = Simulation.run(17, settings);
        SimulationResult second = Simulation.run(17, settings);
        SimulationResult other = Simulation.run(18, settings);

        assertThat(second.history().toJsonLines()).isEqualTo(first.history().toJsonLines());
        assertThat(second.traceHash()).isEqualTo(first.traceHash());
        assertThat(second.loopEvents()).isEqualTo(first.loopEvents());
        // And the seed matters: another seed takes another path.
        assertThat(other.traceHash()).isNotEqualTo(first.traceHash());
        assertThat(other.history().toJsonLines()).isNotEqualTo(first.history().toJsonLines());
    }

    @Test
    @DisplayName("INV-6 the history file has the documented JSONL shape and reads back identically")
    void historyFormat() {
        SimulationResult result = Simulation.run(5, SimulationSettings.DEFAULT.withDurationMs(20_000));
        String jsonl = result.history().toJsonLines();

        List<String> lines = jsonl.lines().toList();
        assertThat(lines).isNotEmpty();
        assertThat(lines.get(0)).matches("\\{\"t\":\\d+,\"type\":\"config\",\"minIsr\":2,\"replicas\":\\[1,2,3],\"unclean\":false}");
        assertThat(lines).anyMatch(l -> l.matches(
                "\\{\"t\":\\d+,\"type\":\"produce-invoke\",\"id\":\\d+,\"client\":\"p\\d\",\"acks\":\"(all|1)\",\"value\":\"p\\d-\\d+\"}"));
        assertThat(lines).anyMatch(l -> l.matches("\\{\"t\":\\d+,\"type\":\"produce-ok\",\"id\":\\d+,\"offset\":\\d+,\"epoch\":\\d+}"));
        assertThat(lines).anyMatch(l -> l.matches("\\{\"t\":\\d+,\"type\":\"consume\",\"client\":\"c\\d\",\"offset\":\\d+,\"value\":\"p\\d-\\d+\"}"));
        assertThat(lines.get(lines.size() - 1)).matches(
                "\\{\"type\":\"final\",\"broker\":3,\"hw\":\\d+,\"leo\":\\d+,\"log\":\\[(\\{\"offset\":\\d+,\"epoch\":\\d+,\"value\":\"p\\d-\\d+\"},?)*]}");
        // Times never go backwards, values are unique per produce call.
        long last = -1;
        java.util.Set<String> values = new java.util.HashSet<>();
        for (String line : lines) {
            @SuppressWarnings("unchecked")
            Map<String, Object> event = (Map<String, Object>) Json.read(line);
            if (event.containsKey("t")) {
                long t = (Long) event.get("t");
                assertThat(t).as(line).isGreaterThanOrEqualTo(last);
                last = t;
            }
            if ("produce-invoke".equals(event.get("type"))) {
                assertThat(values.add((String) event.get("value"))).as("unique value " + line).isTrue();
            }
        }
        assertThat(History.parse(jsonl).toJsonLines()).isEqualTo(jsonl);
    }

    @Test
    @DisplayName("INV-5 with no faults every produce call completes, acks=all ones with NONE, and nothing acknowledged is lost")
    void noFaultsNoLoss() {
        SimulationResult result = Simulation.run(3, SimulationSettings.DEFAULT.withDurationMs(20_000).withFaults(java.util.Set.of()));

        assertThat(result.violations()).as(result.failureReport()).isEmpty();
        assertThat(result.lostAcks1()).isZero();
        List<HistoryEvent> events = result.history().events();
        long invokes = events.stream().filter(HistoryEvent.ProduceInvoke.class::isInstance).count();
        long oks = events.stream().filter(HistoryEvent.ProduceOk.class::isInstance).count();
        assertThat(oks).isEqualTo(invokes).isEqualTo(result.acked());
    }
}
