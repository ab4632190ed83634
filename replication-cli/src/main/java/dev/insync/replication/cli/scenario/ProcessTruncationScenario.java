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
import dev.insync.replication.cli.chaos.ChaosRun;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.Errors;
import dev.insync.replication.netty.client.InsyncClient;
import dev.insync.replication.netty.client.RecordMetadata;
import dev.insync.replication.testkit.cluster.ProduceOutcome;
import dev.insync.replication.testkit.history.HistoryEvent.LogEntry;
import dev.insync.replication.testkit.scenario.Scenario;
import dev.insync.replication.testkit.scenario.ScenarioResult;
import dev.insync.replication.testkit.scenario.ScenarioSettings;
import dev.insync.replication.testkit.scenario.TruncationScenario;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.stream.IntStream;

/**
 * SCN-3 on processes: {@link TruncationScenario}'s steps with SIGSTOP, {@code kill -9} and a restart.
 *
 * <p>Topic {@code div}, replicas 1,2,3; {@code replica.lag.time.max.ms} = lag (default 10000: the leader
 * does not drop its paused followers before it dies), {@code broker.session.timeout.ms} the chaos run's
 * 3000 (the dead leader is fenced within seconds). ok-1..ok-10 with acks=all; every broker's
 * {@code leader-epoch-checkpoint} file is {@code 0 1 0 0}. SIGSTOP brokers 2 and 3, wait
 * {@code max(1 s, 2 × replica.fetch.wait.max.ms)} (their parked fetches are answered empty first), write
 * lost-1..lost-5 with acks=1 all at once (offsets 10..14, acknowledged; the paused followers' files end at
 * 10), {@code kill -9} broker 1, SIGCONT 2 and 3. Once the controller fenced broker 1, broker 2 leads in
 * epoch 1 with ISR {@code 2,3}; new-1..new-3 with acks=all get offsets 10..12 in epoch 1; brokers 2 and 3
 * hold {@code 0 2 0 0 1 10}. Restart broker 1: its own output has the one line {@code Truncating partition
 * div-0 to offset 10 due to leader epoch and offset EpochEndOffset(errorCode=0, partition=0, leaderEpoch=0,
 * endOffset=10)}, its segment files become the leader's, its epoch file {@code 0 2 0 0 1 10}, the ISR is
 * {@code 1,2,3} again, and a consumer from the start reads ok-1..ok-10 new-1..new-3 and no lost-*.
 *
 * <p>Result keys: those of {@link TruncationScenario} ({@code epochCheckpoints, newLeader, newLeaderEpoch,
 * truncatedTo, brokerLogs, consumed, lagMs, lostOffsets, newOffsets, isrAfterRestart, msFromPauseToKill}),
 * and {@code processes}, {@code electedMsAfterKill}, {@code caughtUpMsAfterRestart}, {@code durationMs}.
 */
public final class ProcessTruncationScenario implements ProcessScenario {

    /** Bound on the file and ISR changes that follow a step. */
    public static final long SETTLE_WAIT_MS = TruncationScenario.SETTLE_WAIT_MS;
    /** The producers' request timeout. */
    public static final long REQUEST_TIMEOUT_MS = 10_000;
    /** The controller fences a broker this long after its last heartbeat (the chaos run's setting). */
    public static final long SESSION_TIMEOUT_MS = 3_000;

    private static final String TOPIC = TruncationScenario.TOPIC;
    private static final String EPOCH_FILE = "leader-epoch-checkpoint";
    private static final String EPOCH_0_FILE = TruncationScenario.EPOCH_0_FILE;
    private static final String EPOCH_1_FILE = TruncationScenario.EPOCH_1_FILE;
    private static final int OLD_LEADER = 1;
    private static final int NEW_LEADER = 2;

    @Override
    public Scenario simulated() {
        return new TruncationScenario();
    }

    @Override
    public ScenarioResult run(ScenarioSettings settings, Consumer<String> printer) {
        long lagMs = settings.lagMsOr(defaultLagMs());
        return ProcessScenarioRun.execute(name(), settings, lagMs,
                b -> b.property("broker.session.timeout.ms", SESSION_TIMEOUT_MS), printer, ProcessTruncationScenario::steps);
    }

    private static void steps(ProcessScenarioRun run) throws Exception {
        Map<String, Object> epochCheckpoints = new LinkedHashMap<>();
        run.put("epochCheckpoints", epochCheckpoints);

        run.section("1. topic div, replicas 1,2,3 (leader 1), 10 records with acks=all");
        run.createTopic(TOPIC, Map.of());
        InsyncClient acksAll = run.producer("div-acks-all", "all", Integer.MAX_VALUE, REQUEST_TIMEOUT_MS);
        InsyncClient acks1 = run.producer("div-acks-1", "1", 0, REQUEST_TIMEOUT_MS);
        for (int i = 1; i <= 10; i++) {
            run.expect("acks=all ok-" + i, new ProduceOutcome(Errors.NONE, i - 1, 0), run.produce(acksAll, TOPIC, "ok-" + i));
        }
        run.describe(TOPIC);
        run.waitUntil(() -> allEpochFiles(run, List.of(1, 2, 3), EPOCH_0_FILE), SETTLE_WAIT_MS);
        epochCheckpoints.put("afterAcksAll", printEpochFiles(run));
        for (int broker : run.cluster().brokerIds()) {
            run.expect("leader-epoch-checkpoint of broker " + broker + " after ok-*", EPOCH_0_FILE, epochFile(run, broker));
        }

        long waitMs = Math.max(TruncationScenario.PAUSE_BEFORE_WRITES_MS, 2 * ProcessScenarioRun.REPLICA_FETCH_WAIT_MAX_MS);
        run.section("2. SIGSTOP followers 2,3 -> wait " + waitMs + " ms -> 5 records with acks=1 -> kill -9 leader 1"
                + " -> SIGCONT 2,3");
        run.cluster().pause(2);
        run.cluster().pause(3);
        long pausedAt = ProcessScenarioRun.nowMs();
        ProcessScenarioRun.sleep(waitMs);
        // All five at once (one connection keeps their order), so the leader dies right after them.
        List<CompletableFuture<RecordMetadata>> sends = IntStream.rangeClosed(1, 5)
                .mapToObj(i -> run.send(acks1, TOPIC, "lost-" + i)).toList();
        List<Long> lostOffsets = new ArrayList<>();
        for (CompletableFuture<RecordMetadata> send : sends) {
            ProduceOutcome outcome = run.await(send, "an acks=1 lost-* send");
            lostOffsets.add(outcome.offset());
            run.expect("acks=1 lost-" + lostOffsets.size(), Errors.NONE, outcome.error());
            run.line("acks=1 offset=" + outcome.offset() + " (only the leader has it)");
        }
        run.put("lostOffsets", lostOffsets);
        run.expect("acks=1 offsets of lost-1..lost-5", List.of(10L, 11L, 12L, 13L, 14L), lostOffsets);
        for (int follower : List.of(2, 3)) {
            run.expect("log end offset in the files of paused follower " + follower + " when the leader dies", 10L,
                    ChaosRun.readPartitionFiles(run.dataDir(follower).resolve(TOPIC + "-0")).logEndOffset());
        }
        run.cluster().kill(OLD_LEADER);
        long killedAt = ProcessScenarioRun.nowMs();
        run.cluster().resume(2);
        run.cluster().resume(3);
        run.put("msFromPauseToKill", killedAt - pausedAt);
        run.line("leader killed, followers resumed (" + (killedAt - pausedAt) + " ms after SIGSTOP)");
        run.line("--- broker 1 log (process is dead, the file is still there)");
        printLog(run, OLD_LEADER);

        run.section("3. wait for a new leader, then 3 records with acks=all");
        run.require(() -> newLeaderServes(run), SESSION_TIMEOUT_MS + SETTLE_WAIT_MS, "a new leader of " + TOPIC + "-0");
        long electedMs = ProcessScenarioRun.nowMs() - killedAt;
        run.put("electedMsAfterKill", electedMs);
        run.line("new leader serving " + electedMs + " ms after kill -9");
        PartitionRegistration registration = run.requirePartition(TOPIC);
        run.describe(TOPIC);
        run.put("newLeader", registration.leader());
        run.put("newLeaderEpoch", registration.leaderEpoch());
        run.expect("new leader", NEW_LEADER, registration.leader());
        run.expect("new leader epoch", 1, registration.leaderEpoch());
        run.expect("ISR under the new leader", List.of(2, 3), registration.isr());
        List<Long> newOffsets = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            ProduceOutcome outcome = run.produce(acksAll, TOPIC, "new-" + i);
            newOffsets.add(outcome.offset());
            run.expect("acks=all new-" + i, new ProduceOutcome(Errors.NONE, 9L + i, 1), outcome);
        }
        run.put("newOffsets", newOffsets);
        run.waitUntil(() -> allEpochFiles(run, List.of(2, 3), EPOCH_1_FILE), SETTLE_WAIT_MS);
        run.line("--- broker 2 log (new leader)");
        printLog(run, NEW_LEADER);
        epochCheckpoints.put("afterNewLeader", printEpochFiles(run));
        run.expect("leader-epoch-checkpoint of the dead broker 1", EPOCH_0_FILE, epochFile(run, 1));
        run.expect("leader-epoch-checkpoint of broker 2", EPOCH_1_FILE, epochFile(run, 2));
        run.expect("leader-epoch-checkpoint of broker 3", EPOCH_1_FILE, epochFile(run, 3));

        run.section("4. restart broker 1");
        int mark = run.logs().mark();
        long restartAt = ProcessScenarioRun.nowMs();
        run.cluster().restart(OLD_LEADER);
        boolean caughtUp = run.waitUntil(() -> run.partition(TOPIC).map(p -> p.isr().size() == 3).orElse(false)
                && sameLog(run, OLD_LEADER, NEW_LEADER) && EPOCH_1_FILE.equals(epochFile(run, OLD_LEADER)), SETTLE_WAIT_MS);
        run.put("caughtUpMsAfterRestart", caughtUp ? ProcessScenarioRun.nowMs() - restartAt : -1L);
        run.describe(TOPIC);
        run.printLogLines(mark, OLD_LEADER, "broker 1 output", restartAt, t -> t.contains("Truncat"));
        List<BrokerLogTail.Line> truncations = run.logs().since(mark, OLD_LEADER).stream()
                .filter(l -> l.text().contains("Truncating partition")).toList();
        TruncationScenario.checkTruncationLines(truncations.stream().map(BrokerLogTail.Line::text).toList(), run.record());
        run.line("--- broker 1 log after truncation");
        printLog(run, OLD_LEADER);
        epochCheckpoints.put("afterRestart", printEpochFiles(run));
        List<Integer> isr = run.requirePartition(TOPIC).isr();
        run.put("isrAfterRestart", isr);
        run.expect("ISR after broker 1 caught up", List.of(1, 2, 3), isr.stream().sorted().toList());
        Map<Integer, Object> brokerLogs = new LinkedHashMap<>();
        for (int broker : run.cluster().brokerIds()) {
            List<Map<String, Object>> records = new ArrayList<>();
            for (LogEntry r : run.fileRecords(broker, TOPIC)) {
                Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("offset", r.offset());
                entry.put("epoch", (long) r.epoch());
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
        List<String> consumed = run.consumeAll(TOPIC).stream()
                .map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList();
        run.line(String.join(" ", consumed));
        run.put("consumed", consumed);
        List<String> expected = new ArrayList<>();
        IntStream.rangeClosed(1, 10).forEach(i -> expected.add("ok-" + i));
        IntStream.rangeClosed(1, 3).forEach(i -> expected.add("new-" + i));
        run.expect("what a consumer reads from the start", expected, consumed);
    }

    private static boolean newLeaderServes(ProcessScenarioRun run) {
        return run.partition(TOPIC).map(PartitionRegistration::leader)
                .filter(l -> l != PartitionRegistration.NO_LEADER && l != OLD_LEADER)
                .map(l -> run.leaderServes(TOPIC, l)).orElse(false);
    }

    private static boolean sameLog(ProcessScenarioRun run, int a, int b) {
        try {
            return run.cluster().isRunning(a) && run.fileRecords(a, TOPIC).equals(run.fileRecords(b, TOPIC));
        } catch (IOException e) {
            return false; // a segment being written or replaced: look again
        }
    }

    /** A broker's records from its segment files, one line each: {@code offset 10: new-1 (partitionLeaderEpoch=1)}. */
    private static void printLog(ProcessScenarioRun run, int broker) {
        try {
            for (LogEntry r : run.fileRecords(broker, TOPIC)) {
                run.line("offset " + r.offset() + ": " + r.value() + " (partitionLeaderEpoch=" + r.epoch() + ")");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read broker " + broker + "'s files of " + TOPIC + "-0", e);
        }
    }

    private static String epochFile(ProcessScenarioRun run, int broker) {
        return run.partitionFile(broker, TOPIC, EPOCH_FILE);
    }

    private static boolean allEpochFiles(ProcessScenarioRun run, List<Integer> brokers, String text) {
        return brokers.stream().allMatch(b -> text.equals(epochFile(run, b)));
    }

    private static Map<Integer, String> printEpochFiles(ProcessScenarioRun run) {
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
