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

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.Record;
import dev.insync.replication.log.record.RecordBatch;
import dev.insync.replication.netty.client.ConsumerRecord;
import dev.insync.replication.netty.client.FetchResult;
import dev.insync.replication.netty.client.InsyncClient;
import dev.insync.replication.netty.client.ProduceFailedException;
import dev.insync.replication.netty.client.RecordMetadata;
import dev.insync.replication.testkit.history.HistoryEvent;
import dev.insync.replication.testkit.history.HistoryEvent.Config;
import dev.insync.replication.testkit.history.HistoryEvent.Consume;
import dev.insync.replication.testkit.history.HistoryEvent.ControllerState;
import dev.insync.replication.testkit.history.HistoryEvent.Final;
import dev.insync.replication.testkit.history.HistoryEvent.LogEntry;
import dev.insync.replication.testkit.history.HistoryEvent.PollDone;
import dev.insync.replication.testkit.history.HistoryEvent.PollInvoke;
import dev.insync.replication.testkit.history.HistoryEvent.ProduceFail;
import dev.insync.replication.testkit.history.HistoryEvent.ProduceInvoke;
import dev.insync.replication.testkit.history.HistoryEvent.ProduceOk;
import dev.insync.replication.testkit.history.HistoryValues;
import dev.insync.replication.testkit.history.InvariantChecker;
import dev.insync.replication.testkit.history.Verdict;
import dev.insync.replication.testkit.process.ProcessCluster;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * One {@code insync chaos} run: a {@link ProcessCluster}, a topic of several partitions (RF 3,
 * min ISR 2), acks=all producers and a consumer recording every call and its outcome, a watcher
 * recording the controller's registration of every partition, a {@link ChaosSampler} recording
 * every broker's replicas, and the {@link ChaosNemesis}; then
 * the heal: every fault undone, each partition waited for until its ISR is whole again, an acks=all
 * probe per partition, a final read of every partition, and every broker's log read from its
 * files. The history is judged by the simulator's {@link InvariantChecker}.
 */
public final class ChaosRun {

    /** The topic the run writes. */
    public static final String TOPIC = "chaos";
    /** min.insync.replicas of the topic. */
    public static final int MIN_ISR = 2;
    /** Replication factor of the topic. */
    public static final int REPLICATION_FACTOR = 3;
    /** The producers' request.timeout.ms: the broker-side acks=all wait. */
    static final long REQUEST_TIMEOUT_MS = 5_000;
    /** Pause between two sampling instants of the brokers' replicas. */
    private static final long SAMPLE_INTERVAL_MS = 100;
    /** The producers' delivery.timeout.ms: every send completes within it (PRO-5). */
    static final long DELIVERY_TIMEOUT_MS = 20_000;
    /** Slack of the history's deadline over delivery.timeout.ms: the client's own bookkeeping. */
    static final long DEADLINE_SLACK_MS = 5_000;
    /** How long the heal may take for each partition to be whole again and accept a probe. */
    static final long HEAL_BOUND_MS = 120_000;
    /** Producers writing at once, each with one call outstanding. */
    static final int PRODUCERS = 2;

    private final ChaosSettings settings;
    private final ChaosRecorder recorder = new ChaosRecorder();
    private final Map<Integer, PartitionRegistration> controllerView = new ConcurrentHashMap<>();
    /** The client's message of every failed produce call, by call id, for the report's windows. */
    private final Map<Long, String> failDetails = new ConcurrentHashMap<>();
    private volatile boolean stopWorkload;

    private ChaosRun(ChaosSettings settings) {
        this.settings = settings;
    }

    /** Runs {@code settings} with everything under {@code workDir}; progress lines go to {@code log}. */
    public static ChaosReport run(ChaosSettings settings, Path workDir, PrintWriter log) throws Exception {
        return new ChaosRun(settings).execute(workDir, log);
    }

    /** The cluster's {@code broker.session.timeout.ms}: how long the active controller waits before fencing a silent broker. */
    public static final int BROKER_SESSION_TIMEOUT_MS = 3000;

    /** The process cluster of a chaos run: short timeouts, so fencing, elections and ISR changes happen within seconds. */
    public static ProcessCluster.Builder clusterBuilder(Path dir) {
        return ProcessCluster.builder(dir.resolve("cluster"))
                // Node logs with wall-clock milliseconds, so a window in the report can be read against them.
                .addJvmOptions("-Dorg.slf4j.simpleLogger.showDateTime=true",
                        "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS")
                .property("broker.session.timeout.ms", BROKER_SESSION_TIMEOUT_MS)
                .property("broker.heartbeat.interval.ms", 300)
                .property("num.network.threads", 1)
                .property("num.io.threads", 2)
                .controllerProperty("controller.quorum.election.timeout.ms", 500)
                .brokerProperty("replica.lag.time.max.ms", 3000)
                .brokerProperty("replica.fetch.wait.max.ms", 200)
                .brokerProperty("insync.controlled.shutdown.timeout.ms", 15000);
    }

    private ChaosReport execute(Path workDir, PrintWriter log) throws Exception {
        ProcessCluster.Builder builder = clusterBuilder(workDir).brokers(settings.brokers()).controllers(settings.controllers());
        settings.pidDirectory().ifPresent(builder::pidDirectory);
        try (ProcessCluster cluster = builder.start();
             InsyncClient admin = client(cluster, "watcher")) {
            log.println("chaos: cluster ready at t=" + recorder.now() + " ms (" + LocalTime.now() + " local time): brokers "
                    + cluster.brokerIds() + ", controllers " + cluster.controllerIds());
            log.flush();
            recordSettings();
            List<PartitionRegistration> placed = admin.createTopic(TOPIC, settings.partitions(), REPLICATION_FACTOR,
                    Map.of("min.insync.replicas", Integer.toString(MIN_ISR))).get(60, TimeUnit.SECONDS);
            List<List<Integer>> assignment = recordConfig(placed);
            awaitWhole(admin, cluster, recorder.now() + HEAL_BOUND_MS);

            List<Thread> workload = new ArrayList<>();
            List<InsyncClient> clients = new ArrayList<>();
            for (int i = 1; i <= PRODUCERS; i++) {
                String name = "p" + i;
                InsyncClient c = client(cluster, name);
                clients.add(c);
                workload.add(thread("chaos-producer-" + i, () -> produceLoop(c, name)));
            }
            InsyncClient consumer = client(cluster, "c1");
            clients.add(consumer);
            workload.add(thread("chaos-consumer", () -> consumeLoop(consumer, "c1")));
            workload.add(thread("chaos-watcher", () -> watchLoop(admin)));
            ChaosSampler sampler = new ChaosSampler(cluster, recorder, TOPIC, settings.partitions());
            InsyncClient sampling = client(cluster, "sampler");
            clients.add(sampling);
            workload.add(thread("chaos-sampler", () -> sampleLoop(sampler, sampling)));
            long faultsStart = recorder.now();
            workload.forEach(Thread::start);
            ChaosNemesis nemesis = new ChaosNemesis(cluster, recorder, settings.seed(), settings.faults());
            long faultsEnd;
            try {
                nemesis.run(faultsStart + settings.seconds() * 1000);
            } finally {
                // The fault phase ends with the nemesis; calls still outstanding finish afterwards.
                faultsEnd = recorder.now();
                stopWorkload = true;
                for (Thread t : workload) {
                    t.join(DELIVERY_TIMEOUT_MS + DEADLINE_SLACK_MS + 10_000);
                    if (t.isAlive()) {
                        throw new IllegalStateException(t.getName() + " did not stop");
                    }
                }
            }
            log.println("chaos: faults over at t=" + faultsEnd + " ms; healing");
            log.flush();
            for (int id : cluster.controllerIds()) {
                ensureRunning(cluster, id);
            }
            for (int id : cluster.brokerIds()) {
                ensureRunning(cluster, id);
            }
            cluster.heal();
            recorder.add(t -> new HistoryEvent.Fault(t, "heal-all", List.of(), Map.of()));
            // From here the checker judges LIVENESS: within the bound, each partition whole, then a probe succeeding.
            recorder.add(t -> new HistoryEvent.Quiesce(t, HEAL_BOUND_MS));
            long healDeadline = recorder.now() + HEAL_BOUND_MS;
            Map<Integer, Long> healedAtMs = new TreeMap<>();
            Map<Integer, Long> finalHw = new TreeMap<>();
            try (InsyncClient probe = client(cluster, InvariantChecker.PROBE_CLIENT);
                 InsyncClient reader = client(cluster, "final")) {
                for (int p = 0; p < settings.partitions(); p++) {
                    awaitSettled(admin, sampler, sampling, p, healDeadline);
                    long offset = probe(probe, p, healDeadline);
                    healedAtMs.put(p, recorder.now() - faultsEnd);
                    finalHw.put(p, readToEnd(reader, "final", p, offset + 1, healDeadline));
                }
                watchOnce(admin);
                // The brokers' final state (LOG-8 compares each epoch cache with the final log).
                sampler.sampleOnce(sampling);
            }
            for (InsyncClient c : clients) {
                c.close();
            }
            // The logs, read from every broker's files once it is gone (kill -9 leaves them as they are).
            for (int id : cluster.brokerIds()) {
                cluster.kill(id);
            }
            // Only a partition's replicas hold a log of it (with more brokers than replicas, the others have none).
            for (int id : cluster.brokerIds()) {
                for (int p = 0; p < settings.partitions(); p++) {
                    if (!assignment.get(p).contains(id)) {
                        continue;
                    }
                    Final f = finalLog(id, p, cluster.node(id).directory().resolve("data"), finalHw.get(p));
                    recorder.add(t -> f);
                }
            }
            Verdict verdict = new InvariantChecker().check(recorder.history());
            ChaosReport report = ChaosReport.of(settings, recorder.history(), verdict, nemesis.injected(), faultsStart,
                    faultsEnd, healedAtMs, failDetails);
            settings.historyDirectory().ifPresent(dir -> {
                try {
                    Files.createDirectories(dir);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException("Cannot create history directory " + dir, e);
                }
                recorder.history().writeTo(dir.resolve("chaos-" + settings.seed() + ".jsonl"));
            });
            return report;
        }
    }

    private static Thread thread(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        return t;
    }

    private static InsyncClient client(ProcessCluster cluster, String id) {
        Map<String, Object> props = clientProperties(cluster, "chaos-" + id);
        props.put("acks", "all");
        props.put("request.timeout.ms", REQUEST_TIMEOUT_MS);
        props.put("delivery.timeout.ms", DELIVERY_TIMEOUT_MS);
        return InsyncClient.builder(props).build();
    }

    /**
     * The properties of a client of {@code cluster}: its brokers and controllers, no linger, one request in
     * flight per connection (so a connection keeps the order of its records), consumer fetches parked at most
     * 200 ms. Callers add {@code acks} and their timeouts.
     */
    public static Map<String, Object> clientProperties(ProcessCluster cluster, String clientId) {
        StringBuilder controllers = new StringBuilder();
        for (int c : cluster.controllerIds()) {
            controllers.append(controllers.length() == 0 ? "" : ",").append("127.0.0.1:").append(cluster.node(c).listenerPort());
        }
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("bootstrap.servers", cluster.bootstrapServers());
        props.put("bootstrap.controllers", controllers.toString());
        props.put("linger.ms", 0);
        props.put("max.in.flight.requests.per.connection", 1);
        props.put("fetch.max.wait.ms", 200);
        props.put("client.id", clientId);
        return props;
    }

    private void recordSettings() {
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("brokers", settings.brokers());
        values.put("controllers", settings.controllers());
        values.put("partitions", settings.partitions());
        values.put("initialMinIsr", MIN_ISR);
        values.put("durationMs", settings.seconds() * 1000);
        values.put("produceTimeoutMs", REQUEST_TIMEOUT_MS);
        values.put("faults", settings.faults().stream().map(ChaosNemesis.Kind::label).toList());
        values.put("processes", true);
        recorder.add(t -> new HistoryEvent.Settings(t, settings.seed(), values));
    }

    /**
     * Records the topic's configuration as the controller placed it: every partition's replicas (with more
     * brokers than the replication factor they differ), before any record is sent.
     *
     * @return the replicas of each partition, by partition
     */
    private List<List<Integer>> recordConfig(List<PartitionRegistration> placed) {
        List<List<Integer>> assignment = new ArrayList<>();
        for (int p = 0; p < settings.partitions(); p++) {
            int partition = p;
            PartitionRegistration r = placed.stream().filter(x -> x.topicPartition().partition() == partition).findFirst()
                    .orElseThrow(() -> new IllegalStateException("The controller created no partition " + partition
                            + " of " + TOPIC + ": " + placed));
            assignment.add(r.replicas());
        }
        List<Integer> hosts = assignment.stream().flatMap(List::stream).distinct().sorted().toList();
        recorder.add(t -> new Config(t, MIN_ISR, hosts, false, settings.partitions(), assignment));
        return assignment;
    }

    private static TopicPartition tp(int partition) {
        return new TopicPartition(TOPIC, partition);
    }

    // ------------------------------------------------------------------ workload

    private void produceLoop(InsyncClient client, String name) {
        long seq = 0;
        while (!stopWorkload) {
            int partition = (int) (seq % settings.partitions());
            String value = name + "-" + seq++;
            ProduceResult r = produce(client, name, partition, value);
            if (!r.ok()) {
                pause(100); // a failed call is not retried at once: the cluster is busy failing over
            }
        }
    }

    private record ProduceResult(boolean ok, long offset) {
    }

    /** One recorded acks=all call: invoke, then exactly one of ok or fail. */
    private ProduceResult produce(InsyncClient client, String name, int partition, String value) {
        long id = recorder.nextId();
        long deadlineMs = DELIVERY_TIMEOUT_MS + DEADLINE_SLACK_MS;
        recorder.add(t -> new ProduceInvoke(t, id, name, partition, "all", HistoryValues.digest(value),
                REQUEST_TIMEOUT_MS, deadlineMs));
        CompletableFuture<RecordMetadata> f = client.send(tp(partition), null, value.getBytes(StandardCharsets.UTF_8));
        try {
            RecordMetadata md = f.get(deadlineMs, TimeUnit.MILLISECONDS);
            recorder.add(t -> new ProduceOk(t, id, md.offset(), md.leaderEpoch()));
            return new ProduceResult(true, md.offset());
        } catch (ExecutionException e) {
            String error = e.getCause() instanceof ProduceFailedException pf ? pf.error().name()
                    : e.getCause().getClass().getSimpleName();
            failDetails.put(id, String.valueOf(e.getCause().getMessage()));
            recorder.add(t -> new ProduceFail(t, id, error));
        } catch (TimeoutException e) {
            // PRO-5 broken: the client never completed the call. The checker reports it (INV-5).
            recorder.add(t -> new ProduceFail(t, id, "CLIENT_NEVER_COMPLETED"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            recorder.add(t -> new ProduceFail(t, id, "INTERRUPTED"));
        }
        return new ProduceResult(false, -1);
    }

    private void consumeLoop(InsyncClient client, String name) {
        long[] positions = new long[settings.partitions()];
        int partition = 0;
        while (!stopWorkload) {
            positions[partition] = poll(client, name, partition, positions[partition]).nextOffset();
            partition = (partition + 1) % settings.partitions();
        }
    }

    /** One recorded consumer fetch: poll-invoke, a consume line per record, poll-done. */
    private FetchResult poll(InsyncClient client, String name, int partition, long position) {
        long id = recorder.nextId();
        recorder.add(t -> new PollInvoke(t, id, name, partition, position, -1, REQUEST_TIMEOUT_MS));
        FetchResult r;
        try {
            r = client.fetch(tp(partition), position).get(DELIVERY_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            recorder.add(t -> new PollDone(t, id, "error", 0, position));
            pause(100);
            return new FetchResult(tp(partition), Errors.REQUEST_TIMED_OUT, List.of(),
                    position, -1, -1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            recorder.add(t -> new PollDone(t, id, "interrupted", 0, position));
            return new FetchResult(tp(partition), Errors.REQUEST_TIMED_OUT, List.of(),
                    position, -1, -1);
        }
        FetchResult result = r;
        synchronized (recorder) {
            for (ConsumerRecord c : result.records()) {
                String value = HistoryValues.digest(new String(c.value(), StandardCharsets.UTF_8));
                recorder.add(t -> new Consume(t, id, name, partition, c.offset(), value));
            }
            recorder.add(t -> new PollDone(t, id, result.error().name(), result.records().size(), result.nextOffset()));
        }
        if (result.error() != Errors.NONE) {
            pause(100);
        }
        return result;
    }

    private void sampleLoop(ChaosSampler sampler, InsyncClient client) {
        try {
            while (!stopWorkload) {
                sampler.sampleOnce(client);
                pause(SAMPLE_INTERVAL_MS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void watchLoop(InsyncClient admin) {
        while (!stopWorkload) {
            watchOnce(admin);
            pause(250);
        }
    }

    /** Records the controller's registration of every partition that changed since the last look. */
    private void watchOnce(InsyncClient admin) {
        List<PartitionRegistration> partitions;
        try {
            partitions = admin.describeTopicConfigs(TOPIC).get(3, TimeUnit.SECONDS).partitions();
        } catch (ExecutionException | TimeoutException e) {
            return; // no controller answered now (one is down or paused): look again later
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        for (PartitionRegistration p : partitions) {
            int partition = p.topicPartition().partition();
            PartitionRegistration before = controllerView.put(partition, p);
            if (!p.equals(before)) {
                recorder.add(t -> new ControllerState(t, partition, p.leader(), p.leaderEpoch(), p.partitionEpoch(),
                        p.isr(), p.elr(), p.lastKnownElr(), p.recovering(), false));
            }
        }
    }

    private static void pause(long ms) {
        try {
            Thread.sleep(ms); // back-off between client calls, not a synchronisation
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ------------------------------------------------------------------ heal and final read

    private static void ensureRunning(ProcessCluster cluster, int id) throws Exception {
        if (!cluster.isRunning(id)) {
            cluster.restart(id);
        } else if (cluster.process(id).isStopped()) {
            cluster.resume(id);
        }
    }

    private void awaitWhole(InsyncClient admin, ProcessCluster cluster, long deadlineMs) {
        for (int p = 0; p < settings.partitions(); p++) {
            awaitWhole(admin, p, cluster, deadlineMs);
        }
    }

    /** Waits until the controller has a leader and every replica in the ISR of {@code partition}. */
    private void awaitWhole(InsyncClient admin, int partition, ProcessCluster cluster, long deadlineMs) {
        while (recorder.now() < deadlineMs) {
            watchOnce(admin);
            PartitionRegistration p = controllerView.get(partition);
            if (p != null && p.leader() >= 0 && Set.copyOf(p.isr()).equals(Set.copyOf(p.replicas()))) {
                return;
            }
            pause(200);
        }
        throw new IllegalStateException("Partition " + partition + " not whole within " + HEAL_BOUND_MS
                + " ms after the heal: " + controllerView.get(partition));
    }

    /**
     * Waits, sampling, until {@code partition} is whole as the history shows it ({@link InvariantChecker#whole}): the
     * controller's ISR is every replica and every replica's latest sample has HW = LEO, the same on all. A probe
     * invoked after this is one the checker's LIVENESS counts.
     */
    private void awaitSettled(InsyncClient admin, ChaosSampler sampler, InsyncClient sampling, int partition,
                              long deadlineMs) throws InterruptedException {
        while (recorder.now() < deadlineMs) {
            // The controller's state first, then the samples: the history holds both before the instant judged.
            watchOnce(admin);
            sampler.sampleOnce(sampling);
            PartitionRegistration p = controllerView.get(partition);
            if (p != null && InvariantChecker.whole(Set.copyOf(p.replicas()), p.leader(), p.leaderEpoch(), p.isr(),
                    b -> sampler.latest(partition, b))) {
                return;
            }
            pause(200);
        }
        PartitionRegistration last = controllerView.get(partition);
        throw new IllegalStateException("Partition " + partition + " not whole within " + HEAL_BOUND_MS
                + " ms after the heal: " + last + (last == null ? ""
                : ", samples " + last.replicas().stream().map(b -> sampler.latest(partition, b)).toList()));
    }

    /** An acks=all probe write, retried until it succeeds; its offset. */
    private long probe(InsyncClient client, int partition, long deadlineMs) {
        int attempt = 0;
        while (recorder.now() < deadlineMs) {
            ProduceResult r = produce(client, InvariantChecker.PROBE_CLIENT, partition, "probe-" + partition + "-" + attempt++);
            if (r.ok()) {
                return r.offset();
            }
            pause(400);
        }
        throw new IllegalStateException("No acks=all probe of partition " + partition + " succeeded within the heal bound");
    }

    /** Reads {@code partition} from 0 up to {@code end} as consumer {@code name}; the leader's HW at the end. */
    private long readToEnd(InsyncClient client, String name, int partition, long end, long deadlineMs) {
        long position = 0;
        long hw = -1;
        while (position < end) {
            if (recorder.now() > deadlineMs) {
                throw new IllegalStateException("Final read of partition " + partition + " stuck at offset " + position);
            }
            FetchResult r = poll(client, name, partition, position);
            position = r.nextOffset();
            hw = Math.max(hw, r.highWatermark());
        }
        return hw;
    }

    /** Broker {@code broker}'s log of {@code partition}, from its segment files: every valid batch, in order. */
    static Final finalLog(int broker, int partition, Path logDir, long hw) throws IOException {
        PartitionFiles files = readPartitionFiles(logDir.resolve(TOPIC + "-" + partition));
        return new Final(broker, partition, hw, files.logEndOffset(), files.logStartOffset(), files.entries());
    }

    /**
     * What a partition directory's segment files hold, read by another process (a stopped broker's, or a running
     * one's as far as it has written): every record of every valid batch, in order, each value as
     * {@link HistoryValues#digest} gives it (short values as they are).
     *
     * @param entries        the records: offset, the batch's partition leader epoch, the value
     * @param logStartOffset the first batch's base offset, 0 without any
     * @param logEndOffset   the offset after the last valid batch, 0 without any
     */
    public record PartitionFiles(List<LogEntry> entries, long logStartOffset, long logEndOffset) {
        /** Immutable copy. */
        public PartitionFiles {
            entries = List.copyOf(entries);
        }
    }

    /** The records of the partition directory {@code dir} (empty if it does not exist), up to a torn or invalid tail. */
    public static PartitionFiles readPartitionFiles(Path dir) throws IOException {
        List<LogEntry> entries = new ArrayList<>();
        long leo = 0;
        long logStart = -1;
        if (Files.isDirectory(dir)) {
            List<Path> segments;
            try (Stream<Path> files = Files.list(dir)) {
                segments = files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList();
            }
            outer:
            for (Path segment : segments) {
                ByteBuffer buffer = ByteBuffer.wrap(Files.readAllBytes(segment));
                int pos = 0;
                while (pos < buffer.limit()) {
                    int size = RecordBatch.batchSizeAt(buffer, pos);
                    if (size <= 0) {
                        break outer; // a torn tail: recovery would cut the log here (LOG-7)
                    }
                    RecordBatch batch = RecordBatch.wrap(buffer.slice(pos, size));
                    if (!batch.isValid()) {
                        break outer;
                    }
                    for (RecordBatch b : MemoryRecords.readableRecords(buffer.slice(pos, size)).batches()) {
                        for (Record r : b.records()) {
                            byte[] bytes = new byte[r.value().remaining()];
                            r.value().duplicate().get(bytes);
                            entries.add(new LogEntry(r.offset(), b.partitionLeaderEpoch(),
                                    HistoryValues.digest(new String(bytes, StandardCharsets.UTF_8))));
                        }
                        if (logStart < 0) {
                            logStart = b.baseOffset();
                        }
                        leo = b.nextOffset();
                    }
                    pos += size;
                }
            }
        }
        return new PartitionFiles(entries, Math.max(0, logStart), leo);
    }

    /** What a run found, for the report: acknowledged values by partition and offset, as the checker sees them. */
    static Map<Integer, Map<Long, String>> acknowledged(List<HistoryEvent> events) {
        Map<Long, ProduceInvoke> invokes = new HashMap<>();
        Map<Integer, Map<Long, String>> acked = new TreeMap<>();
        for (HistoryEvent e : events) {
            if (e instanceof ProduceInvoke inv) {
                invokes.put(inv.id(), inv);
            } else if (e instanceof ProduceOk ok) {
                ProduceInvoke inv = invokes.get(ok.id());
                if (inv != null && !InvariantChecker.PROBE_CLIENT.equals(inv.client())) {
                    acked.computeIfAbsent(inv.partition(), k -> new TreeMap<>()).put(ok.offset(), inv.value());
                }
            }
        }
        return acked;
    }
}
