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

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.testkit.cluster.BrokerStatus;
import dev.insync.replication.testkit.cluster.ConsumedRecord;
import dev.insync.replication.testkit.cluster.InMemoryCluster;
import dev.insync.replication.testkit.cluster.ProduceOutcome;
import dev.insync.replication.testkit.cluster.TestConsumer;
import dev.insync.replication.testkit.cluster.TestProducer;
import dev.insync.replication.testkit.internal.ScenarioRecord;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

/**
 * SCN-3, the seed's example 3: acks=1 records only the leader had vanish when a new leader takes over,
 * and the old leader truncates them away by leader epoch.
 *
 * <p>Steps (contract §10): topic {@code div}, {@code replica.lag.time.max.ms} = lag (default 10000, so the
 * leader does not drop its paused followers before it dies), {@code broker.session.timeout.ms} Kafka's
 * 9000. ok-1..ok-10 with acks=all; every {@code leader-epoch-checkpoint} is {@code 0 1 0 0}. Pause
 * brokers 2 and 3, wait 1 s (longer than {@code replica.fetch.wait.max.ms}, so their parked fetches were
 * answered empty before the writes), write lost-1..lost-5 with acks=1 (offsets 10..14, acknowledged,
 * only on broker 1), kill broker 1, resume 2 and 3. Once the controller fences broker 1 (session
 * timeout), broker 2 leads in epoch 1; new-1..new-3 with acks=all get offsets 10..12; brokers 2 and 3
 * hold the epoch cache {@code 0 2 0 0 1 10}. Restart broker 1: it truncates to 10 because of the
 * leader's {@code EpochEndOffset(... leaderEpoch=0, endOffset=10)}, its log becomes the leader's, its
 * epoch cache {@code 0 2 0 0 1 10}, the ISR is {@code 1,2,3} again, and a consumer from the start reads
 * ok-1..ok-10 new-1..new-3 and no lost-*.
 *
 * <p>Result keys: {@code epochCheckpoints} (phase {@code afterAcksAll}, {@code afterNewLeader},
 * {@code afterRestart} to broker id to the file's text), {@code newLeader}, {@code newLeaderEpoch},
 * {@code truncatedTo}, {@code brokerLogs} (broker id to a list of {@code {offset, epoch, value}}),
 * {@code consumed}, and {@code lagMs, seed, lostOffsets, newOffsets, isrAfterRestart,
 * msFromPauseToKill}.
 */
public final class TruncationScenario implements Scenario {

    /** The topic. */
    public static final String TOPIC = "div";
    /** SCN-3's {@code replica.lag.time.max.ms}. */
    public static final long DEFAULT_LAG_MS = 10_000;
    /** How long the followers are paused before the acks=1 writes, as in the seed. */
    public static final long PAUSE_BEFORE_WRITES_MS = 1_000;
    /** The producer's request timeout, Kafka's default. */
    public static final long REQUEST_TIMEOUT_MS = 30_000;
    /** Bound on the file and ISR changes that follow a step. */
    public static final long SETTLE_WAIT_MS = 30_000;
    /** The epoch cache file of a replica that only saw epoch 0. */
    public static final String EPOCH_0_FILE = "0\n1\n0 0\n";
    /** The epoch cache file of a replica that saw epoch 1 start at offset 10. */
    public static final String EPOCH_1_FILE = "0\n2\n0 0\n1 10\n";

    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final String EPOCH_FILE = "leader-epoch-checkpoint";
    private static final int OLD_LEADER = 1;
    private static final int NEW_LEADER = 2;
    private static final Pattern TRUNCATED_TO = Pattern.compile("to offset (\\d+)");
    /** The one truncation line the seed shows broker 1 logging when it comes back (SCN-3). */
    private static final String SEED_TRUNCATION = "Truncating partition div-0 to offset 10 due to leader epoch and offset "
            + "EpochEndOffset(errorCode=0, partition=0, leaderEpoch=0, endOffset=10)";

    /**
     * SCN-3's check of the old leader's truncation lines (its log lines naming a truncation since it
     * came back), the same on every harness: records where the first one truncated to, and expects
     * exactly one, the seed's.
     */
    public static void checkTruncationLines(List<String> truncations, ScenarioRecord record) {
        long truncatedTo = -1;
        if (!truncations.isEmpty()) {
            Matcher m = TRUNCATED_TO.matcher(truncations.get(0));
            truncatedTo = m.find() ? Long.parseLong(m.group(1)) : -1;
        }
        record.put("truncatedTo", truncatedTo);
        record.expect("offset broker 1 truncated to", 10L, truncatedTo);
        record.check(truncations.size() == 1 && truncations.get(0).endsWith(SEED_TRUNCATION),
                "broker 1 logs one truncation to 10 due to EpochEndOffset(leaderEpoch=0, endOffset=10); lines: "
                        + truncations);
    }

    @Override
    public String name() {
        return "truncation";
    }

    @Override
    public String ruleId() {
        return "SCN-3";
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
        Map<String, Object> epochCheckpoints = new LinkedHashMap<>();
        run.put("epochCheckpoints", epochCheckpoints);

        run.section("1. topic div, replicas 1,2,3 (leader 1), 10 records with acks=all");
        cluster.createTopic(TOPIC, 1, 2, 3);
        TestProducer producer = cluster.producer("div-producer");
        for (int i = 1; i <= 10; i++) {
            ProduceOutcome outcome = run.produce(producer, TOPIC, "ok-" + i, -1, REQUEST_TIMEOUT_MS);
            run.expect("acks=all ok-" + i, new ProduceOutcome(Errors.NONE, i - 1, 0), outcome);
        }
        run.describe(TOPIC);
        run.runUntil(() -> allEpochFiles(run, List.of(1, 2, 3), EPOCH_0_FILE), SETTLE_WAIT_MS);
        epochCheckpoints.put("afterAcksAll", printEpochFiles(run));
        for (int broker : cluster.brokerIds()) {
            run.expect("leader-epoch-checkpoint of broker " + broker + " after ok-*", EPOCH_0_FILE,
                    epochFile(run, broker));
        }

        long waitMs = Math.max(PAUSE_BEFORE_WRITES_MS, 2 * cluster.config().replicaFetchWaitMaxMs());
        run.section("2. SIGSTOP followers 2,3 -> wait " + waitMs + " ms -> 5 records with acks=1 -> kill -9 leader 1"
                + " -> SIGCONT 2,3");
        cluster.pause(2);
        cluster.pause(3);
        long pausedAt = run.nowMs();
        run.runFor(waitMs);
        // All five at once (one connection keeps their order), so the leader dies right after them.
        List<CompletableFuture<ProduceOutcome>> sends = IntStream.rangeClosed(1, 5)
                .mapToObj(i -> producer.send(TOPIC, 0, null, "lost-" + i, 1, REQUEST_TIMEOUT_MS)).toList();
        List<Long> lostOffsets = new ArrayList<>();
        for (CompletableFuture<ProduceOutcome> send : sends) {
            ProduceOutcome outcome = run.await(send, REQUEST_TIMEOUT_MS + TestProducer.CLIENT_DEADLINE_SLACK_MS,
                    "an acks=1 lost-* send");
            lostOffsets.add(outcome.offset());
            run.expect("acks=1 lost-" + lostOffsets.size(), Errors.NONE, outcome.error());
            run.line("acks=1 offset=" + outcome.offset() + " (only the leader has it)");
        }
        run.put("lostOffsets", lostOffsets);
        run.expect("acks=1 offsets of lost-1..lost-5", List.of(10L, 11L, 12L, 13L, 14L), lostOffsets);
        List<String> oldLeaderLog = run.batchLines(OLD_LEADER, TOPIC);
        for (int follower : List.of(2, 3)) {
            run.expect("LEO of paused follower " + follower + " when the leader dies", 10L,
                    run.admin().logEndOffset(follower, TOPIC, 0));
        }
        cluster.kill(OLD_LEADER);
        cluster.resume(2);
        cluster.resume(3);
        run.put("msFromPauseToKill", run.nowMs() - pausedAt);
        run.line("leader killed, followers resumed (" + (run.nowMs() - pausedAt) + " ms after SIGSTOP)");
        run.line("--- broker 1 log (process is dead, the file is still there)");
        oldLeaderLog.forEach(run::line);

        run.section("3. wait for a new leader, then 3 records with acks=all");
        long electionBound = cluster.config().brokerSessionTimeoutMs() + SETTLE_WAIT_MS;
        run.require(() -> newLeaderServes(run), electionBound, "a new leader of " + TP);
        PartitionRegistration registration = run.admin().partition(TOPIC, 0);
        run.describe(TOPIC);
        run.put("newLeader", registration.leader());
        run.put("newLeaderEpoch", registration.leaderEpoch());
        run.expect("new leader", NEW_LEADER, registration.leader());
        run.expect("new leader epoch", 1, registration.leaderEpoch());
        run.expect("ISR under the new leader", List.of(2, 3), registration.isr());
        List<Long> newOffsets = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            ProduceOutcome outcome = run.produce(producer, TOPIC, "new-" + i, -1, REQUEST_TIMEOUT_MS);
            newOffsets.add(outcome.offset());
            run.expect("acks=all new-" + i, new ProduceOutcome(Errors.NONE, 9L + i, 1), outcome);
        }
        run.put("newOffsets", newOffsets);
        run.runUntil(() -> allEpochFiles(run, List.of(2, 3), EPOCH_1_FILE), SETTLE_WAIT_MS);
        run.line("--- broker 2 log (new leader)");
        run.batchLines(NEW_LEADER, TOPIC).forEach(run::line);
        epochCheckpoints.put("afterNewLeader", printEpochFiles(run));
        run.expect("leader-epoch-checkpoint of the dead broker 1", EPOCH_0_FILE, epochFile(run, 1));
        run.expect("leader-epoch-checkpoint of broker 2", EPOCH_1_FILE, epochFile(run, 2));
        run.expect("leader-epoch-checkpoint of broker 3", EPOCH_1_FILE, epochFile(run, 3));

        run.section("4. restart broker 1");
        int mark = run.logMark();
        cluster.restart(OLD_LEADER);
        run.runUntil(() -> run.admin().isr(TOPIC, 0).size() == 3 && sameLog(run, OLD_LEADER, NEW_LEADER)
                && EPOCH_1_FILE.equals(epochFile(run, OLD_LEADER)), SETTLE_WAIT_MS);
        run.describe(TOPIC);
        run.printLogLines(mark, OLD_LEADER, "broker 1 server.log");
        List<LogLineObserver.LogLine> truncations = run.observer().linesSince(mark, OLD_LEADER).stream()
                .filter(l -> l.kind() == LogLineObserver.Kind.TRUNCATION).toList();
        checkTruncationLines(truncations.stream().map(LogLineObserver.LogLine::text).toList(), run.record());
        run.line("--- broker 1 log after truncation");
        run.batchLines(OLD_LEADER, TOPIC).forEach(run::line);
        epochCheckpoints.put("afterRestart", printEpochFiles(run));
        List<Integer> isr = run.admin().isr(TOPIC, 0);
        run.put("isrAfterRestart", isr);
        run.expect("ISR after broker 1 caught up", List.of(1, 2, 3), isr.stream().sorted().toList());
        Map<Integer, Object> brokerLogs = new LinkedHashMap<>();
        for (int broker : cluster.brokerIds()) {
            List<Map<String, Object>> records = new ArrayList<>();
            for (ConsumedRecord r : run.admin().records(broker, TOPIC, 0)) {
                Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("offset", r.offset());
                entry.put("epoch", r.leaderEpoch());
                entry.put("value", r.value());
                records.add(entry);
            }
            brokerLogs.put(broker, records);
            run.expect("leader-epoch-checkpoint of broker " + broker + " after the restart", EPOCH_1_FILE,
                    epochFile(run, broker));
        }
        run.put("brokerLogs", brokerLogs);
        run.expect("broker 1's log equals the leader's", brokerLogs.get(NEW_LEADER), brokerLogs.get(OLD_LEADER));
        run.expect("broker 3's log equals the leader's", brokerLogs.get(NEW_LEADER), brokerLogs.get(3));

        run.line("--- console consumer from the beginning");
        List<String> consumed = consumeAll(run);
        run.line(String.join(" ", consumed));
        run.put("consumed", consumed);
        List<String> expected = new ArrayList<>();
        IntStream.rangeClosed(1, 10).forEach(i -> expected.add("ok-" + i));
        IntStream.rangeClosed(1, 3).forEach(i -> expected.add("new-" + i));
        run.expect("what a consumer reads from the start", expected, consumed);
    }

    private static boolean newLeaderServes(ScenarioRun run) {
        int leader = run.admin().partition(TOPIC, 0).leader();
        return leader != PartitionRegistration.NO_LEADER && leader != OLD_LEADER
                && run.admin().partitionState(leader, TOPIC, 0).map(Partition::isLeader).orElse(false);
    }

    private static boolean sameLog(ScenarioRun run, int a, int b) {
        return run.cluster().broker(a).status() == BrokerStatus.RUNNING
                && run.admin().records(a, TOPIC, 0).equals(run.admin().records(b, TOPIC, 0));
    }

    private static List<String> consumeAll(ScenarioRun run) {
        TestConsumer consumer = run.cluster().consumer("from-beginning");
        List<String> values = new ArrayList<>();
        long hw = run.admin().highWatermark(run.admin().partition(TOPIC, 0).leader(), TOPIC, 0);
        int polls = 0;
        while (consumer.position(TOPIC, 0) < hw && polls++ < 10) {
            List<ConsumedRecord> got = run.await(consumer.poll(TOPIC, 0), TestConsumer.POLL_TIMEOUT_MS + ScenarioRun.ROUND_TRIP_MS,
                    "a consumer poll");
            got.forEach(r -> values.add(r.value()));
        }
        return values;
    }

    private static String epochFile(ScenarioRun run, int broker) {
        return run.admin().partitionFile(broker, TOPIC, 0, EPOCH_FILE);
    }

    private static boolean allEpochFiles(ScenarioRun run, List<Integer> brokers, String text) {
        return brokers.stream().allMatch(b -> text.equals(epochFile(run, b)));
    }

    private static Map<Integer, String> printEpochFiles(ScenarioRun run) {
        run.line("--- leader-epoch-checkpoint (version, count, then 'epoch startOffset')");
        Map<Integer, String> files = new LinkedHashMap<>();
        for (int broker : run.cluster().brokerIds()) {
            String text = epochFile(run, broker);
            files.put(broker, text);
            run.line("broker " + broker + ": " + SeedText.oneLine(text));
        }
        return files;
    }
}
