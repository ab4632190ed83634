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

import dev.insync.replication.core.config.ReplicationConfig;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.Record;
import dev.insync.replication.log.record.RecordBatch;
import dev.insync.replication.testkit.cluster.ClusterAdmin;
import dev.insync.replication.testkit.cluster.ConsumedRecord;
import dev.insync.replication.testkit.cluster.InMemoryCluster;
import dev.insync.replication.testkit.cluster.ProduceOutcome;
import dev.insync.replication.testkit.cluster.TestProducer;
import dev.insync.replication.testkit.internal.ScenarioRecord;
import dev.insync.replication.testkit.network.LinkConfig;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * One run of a scenario: the cluster, the printed trace, the numbers and the expectations. Every wait
 * runs the simulation one event at a time, sampling the {@link LogLineObserver} between events, and is
 * bounded in virtual time.
 */
final class ScenarioRun implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ScenarioRun.class);

    /**
     * Link delays of every scenario: a little jitter drawn from the seeded source, so that the seed
     * matters and nothing depends on exact timings.
     */
    static final LinkConfig LINKS = LinkConfig.uniform(1, 3);
    /** Longest a produce round trip takes when nothing waits: request and response over one link each. */
    static final long ROUND_TRIP_MS = 2 * LINKS.maxDelayMs();

    private final String scenario;
    private final InMemoryCluster cluster;
    private final LogLineObserver observer;
    private final ScenarioRecord record;

    /**
     * A builder for the scenarios' three-broker cluster: seeded, with {@link #LINKS}, the lag, and the
     * data directory if one was given (which must be new or empty: a scenario starts from nothing).
     */
    static InMemoryCluster.Builder clusterBuilder(ScenarioSettings settings, long lagMs) {
        InMemoryCluster.Builder builder = InMemoryCluster.builder().brokers(3).seed(settings.seed()).links(LINKS)
                .config(ReplicationConfig.REPLICA_LAG_TIME_MAX_MS, lagMs);
        settings.dataDir().ifPresent(dir -> builder.dataDir(requireEmpty(dir)));
        return builder;
    }

    /** {@code dir} if it does not exist or is an empty directory. */
    static Path requireEmpty(Path dir) {
        if (Files.exists(dir)) {
            try (Stream<Path> entries = Files.list(dir)) {
                if (entries.findAny().isPresent()) {
                    throw new IllegalArgumentException("Data directory " + dir
                            + " is not empty; a scenario needs a new or empty directory");
                }
            } catch (IOException e) {
                throw new IllegalArgumentException("Data directory " + dir + " cannot be listed: " + e.getMessage(), e);
            }
        }
        return dir;
    }

    ScenarioRun(String scenario, InMemoryCluster cluster, TopicPartition watched, Consumer<String> printer) {
        this.scenario = scenario;
        this.cluster = cluster;
        this.observer = new LogLineObserver(cluster, watched);
        this.record = new ScenarioRecord(scenario, printer);
    }

    InMemoryCluster cluster() {
        return cluster;
    }

    ClusterAdmin admin() {
        return cluster.admin();
    }

    LogLineObserver observer() {
        return observer;
    }

    // ------------------------------------------------------------------------------------ output

    /** What this run records: trace, data, failed expectations. */
    ScenarioRecord record() {
        return record;
    }

    void line(String text) {
        record.line(text);
    }

    void section(String title) {
        record.section(title);
    }

    /** The describe line(s) of a topic in the seed's single-spaced form. */
    void describe(String topic) {
        cluster.controller().describeCompact(topic).lines().forEach(this::line);
    }

    void put(String key, Object value) {
        record.put(key, value);
    }

    /** Records a failure unless {@code expected} equals {@code actual}. */
    void expect(String what, Object expected, Object actual) {
        record.expect(what, expected, actual);
    }

    /** Records {@code what} as a failure unless {@code ok}. */
    void check(boolean ok, String what) {
        record.check(ok, what);
    }

    /** Prints the log lines {@code brokerId} produced since line index {@code from} of the observer. */
    void printLogLines(int from, int brokerId, String heading) {
        line("--- " + heading + " (lines rebuilt from the broker's state between simulated events)");
        observer.linesSince(from, brokerId).forEach(l -> line(l.text()));
    }

    int logMark() {
        return observer.lines().size();
    }

    // -------------------------------------------------------------------------------------- time

    /** Virtual wall-clock milliseconds. */
    long nowMs() {
        return cluster.loop().time().milliseconds();
    }

    void runFor(long ms) {
        cluster.runUntil(() -> {
            observer.sample();
            return false;
        }, ms);
        observer.sample();
    }

    /** Runs until {@code condition} holds, at most {@code timeoutMs}; returns whether it holds. */
    boolean runUntil(BooleanSupplier condition, long timeoutMs) {
        boolean held = cluster.runUntil(() -> {
            observer.sample();
            return condition.getAsBoolean();
        }, timeoutMs);
        observer.sample();
        return held;
    }

    /** Like {@link #runUntil} but stops the scenario if the condition does not hold in time. */
    void require(BooleanSupplier condition, long timeoutMs, String what) {
        if (!runUntil(condition, timeoutMs)) {
            throw new ScenarioAbortedException(what + " did not happen within " + timeoutMs + " ms of virtual time");
        }
    }

    <T> T await(CompletableFuture<T> future, long timeoutMs, String what) {
        require(future::isDone, timeoutMs, what);
        return future.join();
    }

    /** Sends one record and waits for its outcome, at most the request's timeout plus a round trip. */
    ProduceOutcome produce(TestProducer producer, String topic, String value, int acks, long timeoutMs) {
        return await(producer.send(topic, 0, null, value, acks, timeoutMs),
                timeoutMs + TestProducer.CLIENT_DEADLINE_SLACK_MS + ROUND_TRIP_MS,
                "the " + (acks == -1 ? "acks=all" : "acks=" + acks) + " send of " + value);
    }

    // ------------------------------------------------------------------------------------ result

    /**
     * Runs one scenario end to end: builds the cluster, records the settings, runs {@code steps}
     * and turns an exception from a step into a failed verdict rather than a crash.
     */
    static ScenarioResult execute(String scenario, InMemoryCluster.Builder builder, TopicPartition watched,
                                  ScenarioSettings settings, long lagMs, Consumer<String> printer,
                                  Consumer<ScenarioRun> steps) {
        try (ScenarioRun run = new ScenarioRun(scenario, builder.build(), watched, printer)) {
            run.put("lagMs", lagMs);
            run.put("seed", settings.seed());
            RuntimeException aborted = null;
            try {
                steps.accept(run);
            } catch (RuntimeException e) {
                // A step that cannot go on, or an exception from the cluster, fails this run with a verdict.
                aborted = e;
            }
            return run.finish(aborted);
        }
    }

    ScenarioResult finish(RuntimeException aborted) {
        if (aborted != null && record.aborted(aborted)) {
            LOG.warn("Scenario {} stopped by an exception", scenario, aborted);
        }
        if (!cluster.loop().taskFailures().isEmpty()) {
            record.fail(cluster.loop().taskFailures().size() + " simulated task(s) failed, first: "
                    + cluster.loop().taskFailures().get(0));
        }
        return record.finish(scenario, List.of());
    }

    @Override
    public void close() {
        cluster.close();
    }

    /**
     * A running broker's log of {@code topic}-0 the way the seed shows {@code kafka-dump-log.sh
     * --print-data-log}: {@code batch offsets 0-9 (count 10) partitionLeaderEpoch=0}, then
     * {@code offset 0: ok-1} per record.
     */
    List<String> batchLines(int brokerId, String topic) {
        if (admin().partitionState(brokerId, topic, 0).isEmpty()) {
            throw new ScenarioAbortedException("broker " + brokerId + " does not host " + topic + "-0");
        }
        List<String> out = new ArrayList<>();
        for (RecordBatch batch : admin().batches(brokerId, topic, 0)) {
            out.add("batch offsets " + batch.baseOffset() + "-" + batch.lastOffset() + " (count " + batch.recordCount()
                    + ") partitionLeaderEpoch=" + batch.partitionLeaderEpoch());
            for (Record r : batch.records()) {
                out.add("offset " + r.offset() + ": " + ConsumedRecord.of(batch, r).value());
            }
        }
        return out;
    }
}
