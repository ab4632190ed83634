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

import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.testkit.cluster.ConsumedRecord;
import dev.insync.replication.testkit.cluster.InMemoryCluster;
import dev.insync.replication.testkit.cluster.ProduceOutcome;
import dev.insync.replication.testkit.cluster.TestProducer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * SCN-2, the seed's example 2: {@code min.insync.replicas=3} with one broker shut down.
 *
 * <p>Steps (contract §10): topic {@code strict}, replicas 1,2,3, min.insync.replicas=3, a producer with no
 * retries. acks=all gets offset 0, acks=1 offset 1. Controlled shutdown of broker 3: ISR {@code 1,2},
 * ELR {@code 3}; acks=all fails with {@code NOT_ENOUGH_REPLICAS} and writes nothing; acks=1 gets
 * offset 2. min.insync.replicas=2 at run time: acks=all gets 3, acks=1 gets 4. The leader's log is
 * exactly offsets 0..4 holding acks-all, acks-1, acks-1, acks-all, acks-1.
 *
 * <p>Result keys: {@code results} (list of {@code {step, acks ("all" or "1"), error, offset}}), {@code isrAfterShutdown},
 * {@code elr}, {@code leaderLog} (list of {@code {offset, value}}), and {@code lagMs, seed}.
 */
public final class MinIsrScenario implements Scenario {

    /** The topic. */
    public static final String TOPIC = "strict";
    /** Kafka's default {@code replica.lag.time.max.ms}: nothing in this scenario depends on it. */
    public static final long DEFAULT_LAG_MS = 30_000;
    /** The producer's request timeout, Kafka's default. */
    public static final long REQUEST_TIMEOUT_MS = 30_000;
    /** Bound on a metadata change reaching the leader or a controlled shutdown finishing. */
    public static final long METADATA_WAIT_MS = 10_000;

    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final int LEADER = 1;
    private static final int STOPPED = 3;

    @Override
    public String name() {
        return "min-isr";
    }

    @Override
    public String ruleId() {
        return "SCN-2";
    }

    @Override
    public long defaultLagMs() {
        return DEFAULT_LAG_MS;
    }

    @Override
    public ScenarioResult run(ScenarioSettings settings, Consumer<String> printer) {
        long lagMs = settings.lagMsOr(DEFAULT_LAG_MS);
        InMemoryCluster.Builder builder = ScenarioRun.clusterBuilder(settings, lagMs);
        return ScenarioRun.execute(name(), builder, TP, settings, lagMs, printer, run -> steps(run));
    }

    private void steps(ScenarioRun run) {
        InMemoryCluster cluster = run.cluster();
        List<Map<String, Object>> results = new ArrayList<>();
        run.put("results", results);

        run.section("1. topic strict, replicas 1,2,3, min.insync.replicas=3");
        cluster.createTopic(TOPIC, 1, 2, 3);
        setMinIsr(run, 3);
        run.describe(TOPIC);
        TestProducer producer = cluster.producer("no-retries");
        send(run, producer, results, 1, -1, new ProduceOutcome(Errors.NONE, 0, 0));
        send(run, producer, results, 1, 1, new ProduceOutcome(Errors.NONE, 1, 0));

        run.section("2. stop broker 3 (SIGTERM, controlled shutdown)");
        run.await(cluster.controlledShutdown(STOPPED), METADATA_WAIT_MS, "the controlled shutdown of broker 3");
        run.require(() -> leader(run).isr().equals(List.of(1, 2)), METADATA_WAIT_MS,
                "the leader learning ISR 1,2");
        run.describe(TOPIC);
        List<Integer> isr = run.admin().isr(TOPIC, 0);
        List<Integer> elr = run.admin().partition(TOPIC, 0).elr();
        run.put("isrAfterShutdown", isr);
        run.put("elr", elr);
        run.expect("ISR after the controlled shutdown of broker 3", List.of(1, 2), isr);
        run.expect("ELR after the controlled shutdown of broker 3", List.of(3), elr);
        long leoBefore = run.admin().logEndOffset(LEADER, TOPIC, 0);
        send(run, producer, results, 2, -1, ProduceOutcome.failed(Errors.NOT_ENOUGH_REPLICAS));
        run.expect("leader LEO after the refused acks=all (nothing written)", leoBefore,
                run.admin().logEndOffset(LEADER, TOPIC, 0));
        send(run, producer, results, 2, 1, new ProduceOutcome(Errors.NONE, 2, 0));

        run.section("3. min.insync.replicas=2");
        setMinIsr(run, 2);
        send(run, producer, results, 3, -1, new ProduceOutcome(Errors.NONE, 3, 0));
        send(run, producer, results, 3, 1, new ProduceOutcome(Errors.NONE, 4, 0));

        run.section("4. offsets on the leader's disk (broker 1)");
        List<Map<String, Object>> leaderLog = new ArrayList<>();
        for (ConsumedRecord r : run.admin().records(LEADER, TOPIC, 0)) {
            run.line("offset: " + r.offset() + " payload: " + r.value());
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("offset", r.offset());
            entry.put("value", r.value());
            leaderLog.add(entry);
        }
        run.put("leaderLog", leaderLog);
        run.expect("the leader's log", List.of(
                record(0, "acks-all"), record(1, "acks-1"), record(2, "acks-1"), record(3, "acks-all"), record(4, "acks-1")),
                leaderLog);
    }

    private static Map<String, Object> record(long offset, String value) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("offset", offset);
        entry.put("value", value);
        return entry;
    }

    /** Changes the topic's min ISR and waits until the leader applies it (it arrives as metadata). */
    private static void setMinIsr(ScenarioRun run, int minIsr) {
        run.cluster().setMinInsyncReplicas(TOPIC, minIsr);
        run.require(() -> leader(run).minInsyncReplicas() == minIsr, METADATA_WAIT_MS,
                "the leader applying min.insync.replicas=" + minIsr);
    }

    private static Partition leader(ScenarioRun run) {
        return run.admin().partitionState(LEADER, TOPIC, 0)
                .orElseThrow(() -> new ScenarioAbortedException("broker 1 does not host " + TP));
    }

    private static void send(ScenarioRun run, TestProducer producer, List<Map<String, Object>> results, int step,
                             int acks, ProduceOutcome expected) {
        String label = acks == -1 ? "acks=all" : "acks=" + acks;
        String payload = acks == -1 ? "acks-all" : "acks-" + acks;
        ProduceOutcome outcome = run.produce(producer, TOPIC, payload, acks, REQUEST_TIMEOUT_MS);
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
