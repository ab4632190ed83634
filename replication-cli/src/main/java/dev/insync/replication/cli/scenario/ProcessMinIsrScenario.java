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

package dev.insync.replication.cli.scenario;

import dev.insync.replication.testkit.scenario.SeedText;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.Errors;
import dev.insync.replication.netty.client.InsyncClient;
import dev.insync.replication.testkit.cluster.ProduceOutcome;
import dev.insync.replication.testkit.history.HistoryEvent.LogEntry;
import dev.insync.replication.testkit.scenario.MinIsrScenario;
import dev.insync.replication.testkit.scenario.Scenario;
import dev.insync.replication.testkit.scenario.ScenarioResult;
import dev.insync.replication.testkit.scenario.ScenarioSettings;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * SCN-2 on processes: {@link MinIsrScenario}'s steps with broker 3 stopped by SIGTERM (its controlled
 * shutdown) and started again.
 *
 * <p>Topic {@code strict}, replicas 1,2,3, created with {@code min.insync.replicas=3}; producers with no
 * retries. acks=all gets offset 0, acks=1 offset 1. SIGTERM to broker 3 (it exits): the controller has ISR
 * {@code 1,2} and ELR {@code 3}; once the leader applied that ISR, acks=all fails with
 * {@code NOT_ENOUGH_REPLICAS} and writes nothing; acks=1 gets offset 2. The simulated scenario lowers
 * {@code min.insync.replicas} at run time; the wire protocol has no call to alter a topic's configuration,
 * so here broker 3 is started again instead: once it is back in the ISR, acks=all gets 3 and acks=1 gets 4.
 * The leader's log (its segment files) is exactly offsets 0..4 holding acks-all, acks-1, acks-1, acks-all,
 * acks-1, and a consumer reads the same.
 *
 * <p>Result keys: those of {@link MinIsrScenario} ({@code results}, {@code isrAfterShutdown}, {@code elr},
 * {@code leaderLog}, {@code lagMs}), and {@code processes}, {@code isrAfterRestart},
 * {@code shutdownMs} (SIGTERM to exit), {@code isrBackMsAfterRestart} (from the restart until the controller has
 * broker 3 in the ISR again), {@code durationMs}.
 */
public final class ProcessMinIsrScenario implements ProcessScenario {

    /** Bound on the leader learning a change of the ISR, and on the restarted broker rejoining it. */
    public static final long METADATA_WAIT_MS = 30_000;
    /** The producers' request timeout: short, since no acks=all here waits for a shrink. */
    public static final long REQUEST_TIMEOUT_MS = 10_000;

    private static final String TOPIC = MinIsrScenario.TOPIC;
    private static final int LEADER = 1;
    private static final int STOPPED = 3;

    @Override
    public Scenario simulated() {
        return new MinIsrScenario();
    }

    @Override
    public ScenarioResult run(ScenarioSettings settings, Consumer<String> printer) {
        long lagMs = settings.lagMsOr(defaultLagMs());
        return ProcessScenarioRun.execute(name(), settings, lagMs, b -> b, printer, ProcessMinIsrScenario::steps);
    }

    private static void steps(ProcessScenarioRun run) throws Exception {
        List<Map<String, Object>> results = new ArrayList<>();
        run.put("results", results);

        run.section("1. topic strict, replicas 1,2,3, min.insync.replicas=3");
        run.createTopic(TOPIC, Map.of("min.insync.replicas", "3"));
        run.describe(TOPIC);
        InsyncClient acksAll = run.producer("no-retries-all", "all", 0, REQUEST_TIMEOUT_MS);
        InsyncClient acks1 = run.producer("no-retries-1", "1", 0, REQUEST_TIMEOUT_MS);
        send(run, acksAll, results, 1, -1, new ProduceOutcome(Errors.NONE, 0, 0));
        send(run, acks1, results, 1, 1, new ProduceOutcome(Errors.NONE, 1, 0));

        run.section("2. stop broker 3 (SIGTERM, controlled shutdown)");
        int mark = run.logs().mark();
        long termAt = ProcessScenarioRun.nowMs();
        int exitCode = run.cluster().controlledShutdown(STOPPED);
        long shutdownMs = ProcessScenarioRun.nowMs() - termAt;
        run.put("shutdownMs", shutdownMs);
        run.line("broker 3 exited with code " + exitCode + " " + shutdownMs + " ms after SIGTERM");
        run.expect("exit code of broker 3 after SIGTERM", 0, exitCode);
        run.require(() -> run.partition(TOPIC).map(p -> p.isr().equals(List.of(1, 2))).orElse(false)
                        && run.logs().first(mark, LEADER, t -> ProcessScenarioRun.isrCommitted(t, 1, 2)).isPresent(),
                METADATA_WAIT_MS, "the controller and the leader having ISR 1,2");
        run.describe(TOPIC);
        PartitionRegistration p = run.requirePartition(TOPIC);
        run.put("isrAfterShutdown", p.isr());
        run.put("elr", p.elr());
        run.expect("ISR after the controlled shutdown of broker 3", List.of(1, 2), p.isr());
        run.expect("ELR after the controlled shutdown of broker 3", List.of(3), p.elr());
        send(run, acksAll, results, 2, -1, ProduceOutcome.failed(Errors.NOT_ENOUGH_REPLICAS));
        send(run, acks1, results, 2, 1, new ProduceOutcome(Errors.NONE, 2, 0));

        run.section("3. start broker 3 again");
        int restartMark = run.logs().mark();
        long restartAt = ProcessScenarioRun.nowMs();
        run.cluster().restart(STOPPED);
        run.require(() -> run.partition(TOPIC).map(r -> r.isr().size() == 3).orElse(false),
                METADATA_WAIT_MS, "broker 3 back in the ISR");
        long backMs = ProcessScenarioRun.nowMs() - restartAt;
        run.put("isrBackMsAfterRestart", backMs);
        run.line("broker 3 back in the ISR " + backMs + " ms after its restart");
        run.describe(TOPIC);
        List<Integer> isrAfterRestart = run.requirePartition(TOPIC).isr();
        run.put("isrAfterRestart", isrAfterRestart);
        run.expect("ISR after broker 3's restart", List.of(1, 2, 3), isrAfterRestart.stream().sorted().toList());
        // The leader may learn the expanded ISR a moment after the controller committed it (ISR-5): until then
        // it still counts two in-sync replicas.
        run.require(() -> run.logs().first(restartMark, LEADER, t -> ProcessScenarioRun.isrCommitted(t, 1, 2, 3)).isPresent(),
                METADATA_WAIT_MS, "the leader having ISR 1,2,3");
        send(run, acksAll, results, 3, -1, new ProduceOutcome(Errors.NONE, 3, 0));
        send(run, acks1, results, 3, 1, new ProduceOutcome(Errors.NONE, 4, 0));

        run.section("4. offsets on the leader's disk (broker 1)");
        List<Map<String, Object>> leaderLog = new ArrayList<>();
        for (LogEntry r : run.fileRecords(LEADER, TOPIC)) {
            run.line("offset: " + r.offset() + " payload: " + r.value());
            leaderLog.add(record(r.offset(), r.value()));
        }
        run.put("leaderLog", leaderLog);
        List<Map<String, Object>> expected = List.of(record(0, "acks-all"), record(1, "acks-1"), record(2, "acks-1"),
                record(3, "acks-all"), record(4, "acks-1"));
        run.expect("the leader's log", expected, leaderLog);
        run.require(() -> run.highWatermark(TOPIC) == 5, METADATA_WAIT_MS, "the HW reaching 5");
        List<Map<String, Object>> consumed = run.consumeAll(TOPIC).stream()
                .map(r -> record(r.offset(), new String(r.value(), java.nio.charset.StandardCharsets.UTF_8))).toList();
        run.expect("what a consumer reads from the start", expected, consumed);
    }

    private static Map<String, Object> record(long offset, String value) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("offset", offset);
        entry.put("value", value);
        return entry;
    }

    private static void send(ProcessScenarioRun run, InsyncClient producer, List<Map<String, Object>> results, int step,
                             int acks, ProduceOutcome expected) {
        String label = acks == -1 ? "acks=all" : "acks=" + acks;
        String payload = acks == -1 ? "acks-all" : "acks-" + acks;
        ProduceOutcome outcome = run.produce(producer, TOPIC, payload);
        run.line(label + " -> " + (outcome.isSuccess() ? "ok, offset=" + outcome.offset()
                : SeedText.exceptionName(outcome.error()) + ": " + outcome.error().message()));
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("step", step);
        result.put("acks", label.substring("acks=".length()));
        result.put("error", outcome.error().name());
        result.put("offset", outcome.offset());
        results.add(result);
        run.expect("step " + step + " " + label, expected, outcome);
    }
}
