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

import dev.insync.replication.cli.chaos.ChaosRun;
import dev.insync.replication.controller.api.TopicDescription;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.netty.client.ConsumerRecord;
import dev.insync.replication.netty.client.FetchResult;
import dev.insync.replication.netty.client.InsyncClient;
import dev.insync.replication.netty.client.ProduceFailedException;
import dev.insync.replication.netty.client.RecordMetadata;
import dev.insync.replication.testkit.cluster.ProduceOutcome;
import dev.insync.replication.testkit.history.HistoryEvent.LogEntry;
import dev.insync.replication.testkit.internal.Directories;
import dev.insync.replication.testkit.internal.ScenarioRecord;
import dev.insync.replication.testkit.process.ProcessCluster;
import dev.insync.replication.testkit.scenario.ScenarioAbortedException;
import dev.insync.replication.testkit.scenario.ScenarioResult;
import dev.insync.replication.testkit.scenario.ScenarioSettings;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One run of a seed experiment on real processes: a {@link ProcessCluster} (one controller, brokers 1, 2, 3
 * as {@code insync broker} JVMs, built as {@link ChaosRun#clusterBuilder} builds the chaos run's), clients
 * over TCP ({@link InsyncClient}), the brokers' own log lines ({@link BrokerLogTail}), the printed trace,
 * the numbers and the expectations. Times are the wall clock ({@link System#currentTimeMillis()}, the clock
 * the brokers stamp {@code lastCaughtUpTimeMs} with); every wait polls a condition and is bounded.
 */
final class ProcessScenarioRun implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ProcessScenarioRun.class);

    /** How often a wait looks at its condition again. */
    static final long POLL_MS = 50;
    /** Bound of one describe, fetch or file read over TCP. */
    static final long CALL_TIMEOUT_MS = 10_000;
    /** Slack of a produce call over its request timeout: the client's own deadline and a round trip. */
    static final long PRODUCE_SLACK_MS = 5_000;
    /** Kafka's default {@code replica.fetch.wait.max.ms}, which every scenario's brokers use. */
    static final long REPLICA_FETCH_WAIT_MAX_MS = 500;

    private final String scenario;
    private final ProcessCluster cluster;
    private final BrokerLogTail logs;
    private final InsyncClient admin;
    private final List<InsyncClient> clients = new ArrayList<>();
    private final ScenarioRecord record;

    private ProcessScenarioRun(String scenario, ProcessCluster cluster, Consumer<String> printer) {
        this.scenario = scenario;
        this.cluster = cluster;
        this.record = new ScenarioRecord(scenario, printer);
        Map<Integer, Path> files = new LinkedHashMap<>();
        for (int id : cluster.brokerIds()) {
            files.put(id, cluster.processGroup().logDir().resolve(cluster.node(id).processName() + ".log"));
        }
        this.logs = new BrokerLogTail(files);
        this.admin = client("admin", Map.of());
    }

    /** The steps of a scenario: they may throw, which fails the run with a verdict. */
    @FunctionalInterface
    interface Steps {
        void run(ProcessScenarioRun run) throws Exception;
    }

    /**
     * Runs one scenario end to end: the chaos run's cluster builder under {@code dir} with {@code lagMs} and
     * Kafka's {@code replica.fetch.wait.max.ms}, then {@code configure}'s additions; the steps; the verdict.
     * A cluster that does not start, a step that cannot go on or an exception fails the run (never a crash),
     * and every process is reaped before this returns. The directory is {@code settings.dataDir()} if given
     * (kept), else a temporary one, deleted when the run passed and kept (and named in the trace) otherwise.
     */
    static ScenarioResult execute(String scenario, ScenarioSettings settings, long lagMs,
                                  Function<ProcessCluster.Builder, ProcessCluster.Builder> configure,
                                  Consumer<String> printer, Steps steps) {
        long startedAt = System.currentTimeMillis();
        Path dir;
        try {
            dir = settings.dataDir().isPresent() ? Files.createDirectories(settings.dataDir().get())
                    : Files.createTempDirectory("insync-scenario-" + scenario + "-");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create the scenario's directory", e);
        }
        ProcessCluster.Builder builder = configure.apply(ChaosRun.clusterBuilder(dir)
                .brokerProperty("replica.lag.time.max.ms", lagMs)
                .brokerProperty("replica.fetch.wait.max.ms", REPLICA_FETCH_WAIT_MAX_MS));
        ScenarioResult result;
        ProcessCluster cluster = null;
        try {
            cluster = builder.start();
        } catch (IOException | InterruptedException | RuntimeException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            ScenarioRecord record = new ScenarioRecord(scenario, printer);
            record.put("lagMs", lagMs);
            record.put("processes", true);
            record.aborted(new ScenarioAbortedException("the process cluster did not start: " + e
                    + " (its files and logs are kept in " + dir + ")"));
            return record.finish(scenario + " on processes", List.of());
        }
        try (ProcessScenarioRun run = new ProcessScenarioRun(scenario, cluster, printer)) {
            run.put("lagMs", lagMs);
            run.put("processes", true);
            run.line("cluster ready in " + (System.currentTimeMillis() - startedAt) + " ms: controller "
                    + cluster.controllerIds() + ", brokers " + cluster.brokerIds() + " (processes under " + dir + ")");
            Exception aborted = null;
            try {
                steps.run(run);
            } catch (Exception e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                aborted = e;
            }
            run.put("durationMs", System.currentTimeMillis() - startedAt);
            result = run.finish(aborted, dir, settings.dataDir().isEmpty());
        } finally {
            cluster.close();
        }
        if (result.passed() && settings.dataDir().isEmpty()) {
            try {
                Directories.deleteRecursively(dir);
            } catch (UncheckedIOException e) {
                // a temporary directory left behind is harmless
            }
        }
        return result;
    }

    private ScenarioResult finish(Exception aborted, Path dir, boolean temporary) {
        if (aborted != null && record.aborted(aborted)) {
            LOG.warn("Scenario {} on processes stopped by an exception", scenario, aborted);
        }
        return record.finish(scenario + " on processes", temporary
                ? List.of("(the processes' logs are kept in " + dir.resolve("cluster").resolve("logs") + ")") : List.of());
    }

    @Override
    public void close() {
        logs.close();
        for (InsyncClient c : clients) {
            c.close(Duration.ofSeconds(1));
        }
    }

    // ------------------------------------------------------------------------------ the cluster

    ProcessCluster cluster() {
        return cluster;
    }

    BrokerLogTail logs() {
        return logs;
    }

    /**
     * A client of the cluster ({@link ChaosRun#clientProperties}) with {@code overrides} ({@code acks},
     * {@code retries}, timeouts); closed with the run.
     */
    InsyncClient client(String id, Map<String, Object> overrides) {
        Map<String, Object> props = ChaosRun.clientProperties(cluster, "scenario-" + scenario + "-" + id);
        props.put("request.timeout.ms", 30_000);
        props.put("delivery.timeout.ms", 120_000);
        props.putAll(overrides);
        InsyncClient c = InsyncClient.builder(props).build();
        clients.add(c);
        return c;
    }

    /** A producer with {@code acks} ("1" or "all"), {@code retries} and the broker-side wait {@code requestTimeoutMs}. */
    InsyncClient producer(String id, String acks, int retries, long requestTimeoutMs) {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("acks", acks);
        props.put("retries", retries);
        props.put("request.timeout.ms", requestTimeoutMs);
        props.put("delivery.timeout.ms", Math.max(120_000, 2 * requestTimeoutMs));
        return client(id, props);
    }

    /** Creates {@code topic}, one partition of three replicas, and checks that they are {@code 1,2,3} (so 1 leads). */
    void createTopic(String topic, Map<String, String> configs) throws Exception {
        List<PartitionRegistration> created = admin.createTopic(topic, 1, 3, configs)
                .get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        if (!created.get(0).replicas().equals(List.of(1, 2, 3))) {
            throw new ScenarioAbortedException("topic " + topic + " was placed on " + created.get(0).replicas()
                    + ", not 1,2,3");
        }
        require(() -> partition(topic).map(p -> p.leader() == 1 && p.isr().size() == 3).orElse(false)
                        && leaderServes(topic, 1), 30_000, "broker 1 leading " + topic + "-0 with ISR 1,2,3");
    }

    /** The controller's registration of {@code topic}-0 now, empty if no controller answered in time. */
    Optional<PartitionRegistration> partition(String topic) {
        return description(topic).map(d -> d.partitions().get(0));
    }

    private Optional<TopicDescription> description(String topic) {
        try {
            return Optional.of(admin.describeTopicConfigs(topic).get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS));
        } catch (ExecutionException | TimeoutException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ScenarioAbortedException("interrupted while describing " + topic);
        }
    }

    /** The controller's registration of {@code topic}-0; stops the scenario if no controller answers. */
    PartitionRegistration requirePartition(String topic) {
        return partition(topic).orElseThrow(() -> new ScenarioAbortedException("no controller described " + topic));
    }

    /** Whether {@code broker} answers a consumer fetch of {@code topic}-0 as its leader. */
    boolean leaderServes(String topic, int broker) {
        FetchResult r = fetch(topic, 0);
        return r.error() == Errors.NONE && partition(topic).map(p -> p.leader() == broker).orElse(false);
    }

    /** One consumer fetch of {@code topic}-0 from {@code offset} by the admin client (errors are values). */
    FetchResult fetch(String topic, long offset) {
        TopicPartition tp = new TopicPartition(topic, 0);
        try {
            return admin.fetch(tp, offset).get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            return new FetchResult(tp, Errors.REQUEST_TIMED_OUT, List.of(), offset, -1, -1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ScenarioAbortedException("interrupted while fetching " + tp);
        }
    }

    /** The leader's high watermark of {@code topic}-0, as its answer to a consumer fetch says. */
    long highWatermark(String topic) {
        FetchResult r = fetch(topic, 0);
        if (r.error() != Errors.NONE) {
            throw new ScenarioAbortedException("the leader of " + topic + "-0 did not answer a fetch: " + r.error());
        }
        return r.highWatermark();
    }

    /** Every record of {@code topic}-0 below the leader's HW, read from offset 0 by a consumer. */
    List<ConsumerRecord> consumeAll(String topic) {
        List<ConsumerRecord> out = new ArrayList<>();
        long position = 0;
        long deadline = System.currentTimeMillis() + 30_000;
        while (true) {
            FetchResult r = fetch(topic, position);
            if (r.error() == Errors.NONE) {
                out.addAll(r.records());
                position = r.nextOffset();
                if (position >= r.highWatermark()) {
                    return out;
                }
            } else {
                sleep(POLL_MS); // the leader is changing: ask again shortly
            }
            if (System.currentTimeMillis() > deadline) {
                throw new ScenarioAbortedException("a consumer of " + topic + "-0 stuck at offset " + position
                        + " (last error " + r.error() + ")");
            }
        }
    }

    /** Sends {@code value} to {@code topic}-0 and waits for its outcome, at most the request timeout plus slack. */
    ProduceOutcome produce(InsyncClient producer, String topic, String value) {
        return await(send(producer, topic, value), "the send of " + value);
    }

    /** Hands {@code value} to {@code producer} without waiting. */
    CompletableFuture<RecordMetadata> send(InsyncClient producer, String topic, String value) {
        return producer.send(new TopicPartition(topic, 0), null, value.getBytes(StandardCharsets.UTF_8));
    }

    /** The outcome of a send, waited for at most the producer's delivery timeout plus slack. */
    ProduceOutcome await(CompletableFuture<RecordMetadata> send, String what) {
        try {
            RecordMetadata md = send.get(CALL_TIMEOUT_MS + 2 * 120_000L, TimeUnit.MILLISECONDS);
            return new ProduceOutcome(Errors.NONE, md.offset(), md.leaderEpoch());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ProduceFailedException pf) {
                return ProduceOutcome.failed(pf.error());
            }
            throw new ScenarioAbortedException(what + " failed: " + e.getCause());
        } catch (TimeoutException e) {
            throw new ScenarioAbortedException(what + " never completed");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ScenarioAbortedException("interrupted while waiting for " + what);
        }
    }

    /** Broker {@code broker}'s records of {@code topic}-0, read from its segment files. */
    List<LogEntry> fileRecords(int broker, String topic) throws IOException {
        return ChaosRun.readPartitionFiles(dataDir(broker).resolve(topic + "-0")).entries();
    }

    /** Broker {@code broker}'s log directory. */
    Path dataDir(int broker) {
        return cluster.node(broker).directory().resolve("data");
    }

    /** A file of broker {@code broker}'s log directory ({@code replication-offset-checkpoint}), "" if absent. */
    String logDirFile(int broker, String name) {
        return readOrEmpty(dataDir(broker).resolve(name));
    }

    /** A file of broker {@code broker}'s directory of {@code topic}-0 ({@code leader-epoch-checkpoint}), "" if absent. */
    String partitionFile(int broker, String topic, String name) {
        return readOrEmpty(dataDir(broker).resolve(topic + "-0").resolve(name));
    }

    private static String readOrEmpty(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return ""; // being replaced right now (checkpoints are written to a temporary file and moved): read again
        }
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

    /** The controller's describe line of {@code topic} in the seed's single-spaced form. */
    void describe(String topic) {
        description(topic).ifPresentOrElse(d -> d.describeCompact().lines().forEach(this::line),
                () -> line("(no controller answered a describe of " + topic + ")"));
    }

    /**
     * Prints the lines {@code broker} wrote since {@code mark} that {@code interesting} keeps, each after
     * {@code [t+N ms]}: when this run first saw it, from {@code zeroMs} (a step's SIGSTOP or restart).
     */
    void printLogLines(int mark, int broker, String heading, long zeroMs, Predicate<String> interesting) {
        logs.readOnce();
        line("--- " + heading + " (the broker's own lines; t+ = when this run saw them)");
        for (BrokerLogTail.Line l : logs.since(mark, broker)) {
            if (interesting.test(l.text())) {
                line("[t+" + (l.seenAtMs() - zeroMs) + " ms] " + l.text());
            }
        }
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

    // -------------------------------------------------------------------------------------- time

    /** Wall-clock milliseconds. */
    static long nowMs() {
        return System.currentTimeMillis();
    }

    /** Polls {@code condition} until it holds, at most {@code timeoutMs}; returns whether it holds. */
    boolean waitUntil(BooleanSupplier condition, long timeoutMs) {
        long deadline = nowMs() + timeoutMs;
        while (true) {
            if (condition.getAsBoolean()) {
                return true;
            }
            if (nowMs() >= deadline) {
                return false;
            }
            sleep(POLL_MS);
        }
    }

    /** Like {@link #waitUntil} but stops the scenario if the condition does not hold in time. */
    void require(BooleanSupplier condition, long timeoutMs, String what) {
        if (!waitUntil(condition, timeoutMs)) {
            throw new ScenarioAbortedException(what + " did not happen within " + timeoutMs + " ms");
        }
    }

    /** Waits {@code ms} of wall-clock time: a step of the experiment ("write nothing for 12 s"). */
    static void sleep(long ms) {
        try {
            Thread.sleep(ms); // a step's own duration or a polling period, not a synchronisation
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ScenarioAbortedException("interrupted");
        }
    }

    // ---------------------------------------------------------------------------------- helpers


    /**
     * Whether {@code text} is a leader's line saying that the ISR {@code ids} (in any order) is committed:
     * its own {@code ISR updated to 1,2  and version updated to N} (the AlterPartition answer, ISR-5) or, when
     * the controller's metadata came first, {@code ... ISR 1,2 and replicas 1,2,3 applied with partition epoch N}.
     */
    static boolean isrCommitted(String text, int... ids) {
        return isrListAfter(text, ISR_UPDATED, ids) || isrListAfter(text, ISR_APPLIED, ids) && text.contains(" applied with");
    }

    private static boolean isrListAfter(String text, String prefix, int... ids) {
        int at = text.indexOf(prefix);
        if (at < 0) {
            return false;
        }
        String list = text.substring(at + prefix.length()).split(" ", 2)[0];
        Set<Integer> seen = new TreeSet<>();
        for (String id : list.split(",")) {
            try {
                seen.add(Integer.parseInt(id));
            } catch (NumberFormatException e) {
                return false;
            }
        }
        Set<Integer> wanted = new TreeSet<>();
        for (int id : ids) {
            wanted.add(id);
        }
        return seen.equals(wanted);
    }

    private static final String ISR_APPLIED = "; ISR ";
    private static final String ISR_UPDATED = "ISR updated to ";

    static String seconds(long ms) {
        return ms % 1000 == 0 ? (ms / 1000) + "s" : ms + " ms";
    }
}
