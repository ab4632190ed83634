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

package dev.insync.replication.testkit.scenario;

import dev.insync.replication.testkit.history.Json;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The seed's three experiments, every number of contract §10 checked on the returned data and the trace. */
class SeedScenariosTest {

    @Test
    @DisplayName("SCN-1 default settings: ISR stays when idle, acks=1 at once, acks=all waits for the shrink, HW 12 -> 18, epochs 0,1,2")
    void isrHwDefault() {
        ScenarioResult result = new IsrHwScenario().run(ScenarioSettings.defaults());
        assertIsrHw(result, IsrHwScenario.DEFAULT_LAG_MS);
        assertThat(result.lines()).contains(
                "Topic: rep Partition: 0 Leader: 1 Replicas: 1,2,3 Isr: 1,2,3 Elr: LastKnownElr:",
                "=== 4. SIGSTOP broker 3, no new records, wait 12s",
                "before SIGSTOP: high watermark = 12",
                "Topic: rep Partition: 0 Leader: 1 Replicas: 1,2,3 Isr: 1,2 Elr: LastKnownElr:",
                "broker 1: rep 0 18", "broker 2: rep 0 18", "broker 3: rep 0 18");
    }

    @Test
    @DisplayName("SCN-1 with replica.lag.time.max.ms=2000 and another seed: the acks=all wait follows the lag")
    void isrHwOtherLagAndSeed() {
        ScenarioResult result = new IsrHwScenario().run(ScenarioSettings.defaults().withLagMs(2_000).withSeed(7));
        assertIsrHw(result, 2_000);
        assertThat(((Number) result.data().get("acksAllWaitMs")).longValue()).isLessThan(IsrHwScenario.DEFAULT_LAG_MS);
    }

    @Test
    @DisplayName("SCN-1 with replica.lag.time.max.ms=12000: the idle pause and request timeout grow with the lag")
    void isrHwLongLag() {
        ScenarioResult result = new IsrHwScenario().run(ScenarioSettings.defaults().withLagMs(12_000).withSeed(3));
        assertIsrHw(result, 12_000);
        assertThat(result.lines()).anyMatch(l -> l.startsWith("=== 4. SIGSTOP broker 3, no new records, wait 28800 ms"));
    }

    private static void assertIsrHw(ScenarioResult result, long lagMs) {
        assertThat(result.failures()).as(result.text()).isEmpty();
        Map<String, Object> d = roundTrip(result);
        assertThat(d).containsKeys("hwBeforePause", "acks1Offsets", "hwAfterAcks1", "acksAllOffset", "acksAllWaitMs",
                "msFromPauseToAcksAllDone", "hwAfterAcksAll", "isrAfterIdlePause", "isrAfterShrink", "isrAfterResume",
                "partitionEpochs", "hwCheckpoints");
        assertThat(d.get("lagMs")).isEqualTo(lagMs);
        assertThat(d.get("hwAfterFirstWrites")).isEqualTo(10L);
        assertThat(d.get("isrAfterIdlePause")).isEqualTo(List.of(1L, 2L, 3L));
        assertThat(d.get("hwBeforePause")).isEqualTo(12L);
        assertThat(d.get("acks1Offsets")).isEqualTo(List.of(12L, 13L, 14L, 15L, 16L));
        assertThat(d.get("hwAfterAcks1")).isEqualTo(12L);
        assertThat(d.get("acksAllOffset")).isEqualTo(17L);
        assertThat(d.get("hwAfterAcksAll")).isEqualTo(18L);
        assertThat(d.get("isrAfterShrink")).isEqualTo(List.of(1L, 2L));
        assertThat(d.get("isrAfterResume")).isEqualTo(List.of(1L, 2L, 3L));
        assertThat(d.get("partitionEpochs")).isEqualTo(List.of(0L, 1L, 2L));
        assertThat(d.get("hwCheckpoints")).isEqualTo(Map.of("1", "rep 0 18", "2", "rep 0 18", "3", "rep 0 18"));
        // ISR-1: the shrink needs more than lag since broker 3 last caught up, and comes at the latest on the
        // check after that (checks every lag/2), plus round trips.
        long waited = (Long) d.get("acksAllWaitMs");
        long caughtUpBeforeSend = (Long) d.get("lastCaughtUpMsBeforeAcksAll");
        assertThat(caughtUpBeforeSend).isBetween(0L, lagMs);
        assertThat(waited).isGreaterThan(lagMs - caughtUpBeforeSend);
        assertThat(waited).isLessThanOrEqualTo(lagMs * 3 / 2 + IsrHwScenario.SHRINK_SLACK_MS);
        assertThat((Long) d.get("msFromPauseToAcksAllDone")).isGreaterThanOrEqualTo(waited);
        assertThat((Long) d.get("shrinkCommittedMsAfterPause")).isLessThanOrEqualTo((Long) d.get("msFromPauseToAcksAllDone"));
        assertThat((Long) d.get("isrBackMsAfterResume")).isBetween(0L, IsrHwScenario.ISR_BACK_WITHIN_MS);
        assertThat(result.lines()).anyMatch(l -> l.startsWith("INFO [Partition rep-0 broker=1] Shrinking ISR from 1,2,3 to 1,2."
                + " Leader: (highWatermark: 12, endOffset: 18). Out of sync replicas: (brokerId: 3, endOffset: 12,"
                + " lastCaughtUpTimeMs: "));
        assertThat(result.lines()).contains("INFO [Partition rep-0 broker=1] ISR updated to 1,2  and version updated to 1",
                "INFO [Partition rep-0 broker=1] ISR updated to 1,2,3  and version updated to 2",
                "acks=all offset=17 waited " + waited + " ms (t+" + d.get("msFromPauseToAcksAllDone") + " ms)",
                "high watermark = 12 (t+" + acks1DoneMs(result) + " ms)");
        assertThat(result.lines()).filteredOn(l -> l.startsWith("acks=1 offset=")).hasSize(5);
    }

    private static String acks1DoneMs(ScenarioResult result) {
        String last = result.lines().stream().filter(l -> l.startsWith("acks=1 offset=16 (t+")).findFirst().orElseThrow();
        return last.substring("acks=1 offset=16 (t+".length(), last.indexOf(" ms)"));
    }

    @Test
    @DisplayName("SCN-2 min.insync.replicas=3: acks=all refused with NOT_ENOUGH_REPLICAS after a controlled shutdown, accepted at 2")
    void minIsr() {
        ScenarioResult result = new MinIsrScenario().run(ScenarioSettings.defaults());
        assertThat(result.failures()).as(result.text()).isEmpty();
        Map<String, Object> d = roundTrip(result);
        assertThat(d.get("results")).isEqualTo(List.of(
                step(1, "all", "NONE", 0), step(1, "1", "NONE", 1),
                step(2, "all", "NOT_ENOUGH_REPLICAS", -1), step(2, "1", "NONE", 2),
                step(3, "all", "NONE", 3), step(3, "1", "NONE", 4)));
        assertThat(d.get("isrAfterShutdown")).isEqualTo(List.of(1L, 2L));
        assertThat(d.get("elr")).isEqualTo(List.of(3L));
        List<String> payloads = List.of("acks-all", "acks-1", "acks-1", "acks-all", "acks-1");
        assertThat(d.get("leaderLog")).isEqualTo(IntStream.range(0, 5)
                .mapToObj(i -> Map.of("offset", (long) i, "value", payloads.get(i))).toList());
        assertThat(result.lines()).containsSubsequence(
                "Topic: strict Partition: 0 Leader: 1 Replicas: 1,2,3 Isr: 1,2,3 Elr: LastKnownElr:",
                "acks=all -> ok, offset=0",
                "acks=1 -> ok, offset=1",
                "Topic: strict Partition: 0 Leader: 1 Replicas: 1,2,3 Isr: 1,2 Elr: 3 LastKnownElr:",
                "acks=all -> NotEnoughReplicasException: Messages are rejected since there are fewer in-sync replicas than required.",
                "acks=1 -> ok, offset=2",
                "acks=all -> ok, offset=3",
                "acks=1 -> ok, offset=4",
                "offset: 0 payload: acks-all",
                "offset: 4 payload: acks-1");
    }

    private static Map<String, Object> step(long step, String acks, String error, long offset) {
        return Map.of("step", step, "acks", acks, "error", error, "offset", offset);
    }

    @Test
    @DisplayName("SCN-3 truncation: lost-* acks=1 records vanish, broker 1 truncates to 10 by EpochEndOffset(0, 10)")
    void truncation() {
        ScenarioResult result = new TruncationScenario().run(ScenarioSettings.defaults());
        assertThat(result.failures()).as(result.text()).isEmpty();
        Map<String, Object> d = roundTrip(result);
        String epoch0 = "0\n1\n0 0\n";
        String epoch1 = "0\n2\n0 0\n1 10\n";
        assertThat(d.get("epochCheckpoints")).isEqualTo(Map.of(
                "afterAcksAll", Map.of("1", epoch0, "2", epoch0, "3", epoch0),
                "afterNewLeader", Map.of("1", epoch0, "2", epoch1, "3", epoch1),
                "afterRestart", Map.of("1", epoch1, "2", epoch1, "3", epoch1)));
        assertThat(d.get("newLeader")).isEqualTo(2L);
        assertThat(d.get("newLeaderEpoch")).isEqualTo(1L);
        assertThat(d.get("lostOffsets")).isEqualTo(List.of(10L, 11L, 12L, 13L, 14L));
        assertThat(d.get("newOffsets")).isEqualTo(List.of(10L, 11L, 12L));
        assertThat(d.get("truncatedTo")).isEqualTo(10L);
        List<Object> expectedLog = new ArrayList<>();
        for (int i = 0; i < 13; i++) {
            expectedLog.add(Map.of("offset", (long) i, "epoch", i < 10 ? 0L : 1L, "value", i < 10 ? "ok-" + (i + 1) : "new-" + (i - 9)));
        }
        assertThat(d.get("brokerLogs")).isEqualTo(Map.of("1", expectedLog, "2", expectedLog, "3", expectedLog));
        List<String> consumed = new ArrayList<>();
        IntStream.rangeClosed(1, 10).forEach(i -> consumed.add("ok-" + i));
        IntStream.rangeClosed(1, 3).forEach(i -> consumed.add("new-" + i));
        assertThat(d.get("consumed")).isEqualTo(consumed);
        assertThat(result.lines()).containsSubsequence(
                "broker 1: 0 1 0 0",
                "acks=1 offset=10 (only the leader has it)",
                "batch offsets 14-14 (count 1) partitionLeaderEpoch=0", "offset 14: lost-5",
                "Topic: div Partition: 0 Leader: 2 Replicas: 1,2,3 Isr: 2,3 Elr: LastKnownElr:",
                "batch offsets 10-10 (count 1) partitionLeaderEpoch=1", "offset 10: new-1",
                "broker 2: 0 2 0 0 1 10",
                "INFO [ReplicaFetcher replicaId=1, leaderId=2, fetcherId=0] Truncating partition div-0 to offset 10 due to"
                        + " leader epoch and offset EpochEndOffset(errorCode=0, partition=0, leaderEpoch=0, endOffset=10)",
                "broker 1: 0 2 0 0 1 10",
                "ok-1 ok-2 ok-3 ok-4 ok-5 ok-6 ok-7 ok-8 ok-9 ok-10 new-1 new-2 new-3");
        assertThat(String.join("\n", result.lines().subList(result.lines().indexOf("--- console consumer from the beginning"),
                result.lines().size()))).doesNotContain("lost-");
    }

    @Test
    @DisplayName("SCN-3 with replica.lag.time.max.ms=2000 and seed 9: still truncates to 10 and loses only lost-*")
    void truncationOtherLagAndSeed() {
        ScenarioResult result = new TruncationScenario().run(ScenarioSettings.defaults().withLagMs(2_000).withSeed(9));
        assertThat(result.failures()).as(result.text()).isEmpty();
        Map<String, Object> d = roundTrip(result);
        assertThat(d.get("truncatedTo")).isEqualTo(10L);
        assertThat(d.get("newLeader")).isEqualTo(2L);
        assertThat((List<?>) d.get("consumed")).hasSize(13).noneMatch(v -> v.toString().startsWith("lost-"));
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 1234567})
    @DisplayName("SCN-1 SCN-2 SCN-3 reproduce the seed whatever the simulation seed")
    void anySeed(long seed) {
        for (Scenario scenario : Scenario.all()) {
            ScenarioResult result = scenario.run(ScenarioSettings.defaults().withSeed(seed));
            assertThat(result.failures()).as(scenario.name() + "\n" + result.text()).isEmpty();
            assertThat(roundTrip(result).get("seed")).isEqualTo(seed);
        }
    }

    @Test
    @DisplayName("SCN-2 keeps each broker's log directory under the given data dir and refuses a non-empty one")
    void dataDir(@TempDir Path dir) throws IOException {
        Path target = dir.resolve("run");
        ScenarioResult result = new MinIsrScenario().run(ScenarioSettings.defaults().withDataDir(target));
        assertThat(result.passed()).as(result.text()).isTrue();
        assertThat(target.resolve("broker-1").resolve("strict-0")).isDirectory();
        assertThat(Files.list(target.resolve("broker-1").resolve("strict-0")).map(p -> p.getFileName().toString()))
                .contains("00000000000000000000.log");
        assertThatThrownBy(() -> new MinIsrScenario().run(ScenarioSettings.defaults().withDataDir(target)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(target.toString());
    }

    @Test
    @DisplayName("INV-6 a scenario's trace is the same for the same seed")
    void deterministic() {
        ScenarioSettings settings = ScenarioSettings.defaults().withLagMs(1_000).withSeed(11);
        assertThat(new IsrHwScenario().run(settings).lines()).isEqualTo(new IsrHwScenario().run(settings).lines());
    }

    @Test
    @DisplayName("Scenario names and settings: the three in the contract's order, bad lag refused")
    void registry() {
        assertThat(Scenario.all()).extracting(Scenario::name).containsExactly("isr-hw", "min-isr", "truncation");
        assertThat(Scenario.all()).extracting(Scenario::ruleId).containsExactly("SCN-1", "SCN-2", "SCN-3");
        assertThat(Scenario.named("truncation")).containsInstanceOf(TruncationScenario.class);
        assertThat(Scenario.named("nope")).isEmpty();
        assertThatThrownBy(() -> ScenarioSettings.defaults().withLagMs(1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("replica.lag.time.max.ms");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> roundTrip(ScenarioResult result) {
        Map<String, Object> parsed = (Map<String, Object>) Json.read(result.toJson());
        assertThat(parsed.get("scenario")).isEqualTo(result.scenario());
        assertThat(parsed.get("passed")).isEqualTo(true);
        assertThat(parsed.get("failures")).isEqualTo(List.of());
        return parsed;
    }
}
