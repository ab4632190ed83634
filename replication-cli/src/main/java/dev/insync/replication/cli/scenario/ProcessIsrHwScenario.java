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
import dev.insync.replication.testkit.scenario.IsrHwScenario;
import dev.insync.replication.testkit.scenario.Scenario;
import dev.insync.replication.testkit.scenario.ScenarioResult;
import dev.insync.replication.testkit.scenario.ScenarioSettings;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * SCN-1 on processes: {@link IsrHwScenario}'s steps with broker 3 stopped by SIGSTOP, on the wall clock.
 *
 * <p>Topic {@code rep}, replicas 1,2,3, {@code min.insync.replicas=2}; {@code replica.lag.time.max.ms} = lag
 * (default 5000), {@code replica.fetch.wait.max.ms} Kafka's 500, {@code broker.session.timeout.ms} as the
 * simulated scenario's (30000, or longer for a large lag: the paused broker is never fenced). Ten acks=all
 * records (HW 10); SIGSTOP broker 3 and write nothing for 12 s (2.4 × lag when longer): ISR {@code 1,2,3};
 * SIGCONT. One acks=1 and one acks=all warm-up record: HW 12. SIGSTOP broker 3; five acks=1 records get
 * offsets 12..16 at once (each within {@value #ACKS1_BOUND_MS} ms) and the HW stays 12; one acks=all record
 * gets offset 17 once the leader's shrink to {@code 1,2} is committed; HW 18. The leader's own
 * {@code Shrinking ISR from 1,2,3 to 1,2 ...} line must come more than lag after broker 3 last caught up
 * (its {@code lastCaughtUpTimeMs}) and between {@code lag - replica.fetch.wait.max.ms} and
 * {@code 1.5 × lag + }{@value #SHRINK_SLACK_MS} ms after the SIGSTOP (broker 3's last fetch may have been
 * parked up to the fetch wait before it); the acks=all record completes more than lag and at most
 * {@code 1.5 × lag + }{@value #COMMIT_SLACK_MS} ms after broker 3 last caught up. SIGCONT: within 5 s the
 * ISR is {@code 1,2,3} again; the controller's partition epochs went 0, 1, 2; every broker's
 * {@code replication-offset-checkpoint} holds {@code rep 0 18}.
 *
 * <p>Result keys: those of {@link IsrHwScenario} ({@code lagMs, hwAfterFirstWrites, isrAfterIdlePause,
 * hwBeforePause, acks1Offsets, hwAfterAcks1, acksAllOffset, acksAllError, acksAllWaitMs,
 * msFromPauseToAcksAllDone, hwAfterAcksAll, isrAfterShrink, shrinkCommittedMsAfterPause,
 * lastCaughtUpMsBeforeAcksAll, isrBackMsAfterResume, isrAfterResume, partitionEpochs, hwCheckpoints}), and
 * {@code processes} (true), {@code shrinkMsAfterPause} (the shrink line, wall clock),
 * {@code shrinkWindowMs} (the range it was checked against), {@code lastCaughtUpMsBeforePause},
 * {@code durationMs}.
 */
public final class ProcessIsrHwScenario implements ProcessScenario {

    /** How long an acks=1 record may take while broker 3 is paused: far below any lag, it does not wait for it. */
    public static final long ACKS1_BOUND_MS = 1_000;
    /**
     * Slack over 1.5 × lag for the shrink line: the leader's check running late on a loaded machine and this
     * run's reading of its output (a quiet machine needs a few tens of ms).
     */
    public static final long SHRINK_SLACK_MS = 1_000;
    /** Slack over 1.5 × lag for the acks=all completion: the shrink's slack, AlterPartition and the produce answer. */
    public static final long COMMIT_SLACK_MS = 2_000;
    /** How long the ISR may take to come back after SIGCONT (contract §10). */
    public static final long ISR_BACK_WITHIN_MS = IsrHwScenario.ISR_BACK_WITHIN_MS;
    /** Kafka's {@code replica.high.watermark.checkpoint.interval.ms}, the brokers' default. */
    static final long HW_CHECKPOINT_INTERVAL_MS = 5_000;

    private static final String TOPIC = IsrHwScenario.TOPIC;
    private static final int LEADER = 1;
    private static final int PAUSED = 3;
    private static final Pattern LAST_CAUGHT_UP = Pattern.compile("lastCaughtUpTimeMs: (\\d+)");

    @Override
    public Scenario simulated() {
        return new IsrHwScenario();
    }

    private static long idlePauseMs(long lagMs) {
        return IsrHwScenario.idlePauseMs(lagMs);
    }

    private static long sessionTimeoutMs(long lagMs) {
        return IsrHwScenario.sessionTimeoutMs(lagMs);
    }

    private static long requestTimeoutMs(long lagMs) {
        return IsrHwScenario.requestTimeoutMs(lagMs);
    }

    @Override
    public ScenarioResult run(ScenarioSettings settings, Consumer<String> printer) {
        long lagMs = settings.lagMsOr(defaultLagMs());
        return ProcessScenarioRun.execute(name(), settings, lagMs,
                b -> b.property("broker.session.timeout.ms", sessionTimeoutMs(lagMs))
                        .brokerProperty("replica.high.watermark.checkpoint.interval.ms", HW_CHECKPOINT_INTERVAL_MS),
                printer, run -> steps(run, lagMs));
    }

    private static void steps(ProcessScenarioRun run, long lagMs) throws Exception {
        long requestTimeoutMs = requestTimeoutMs(lagMs);
        List<Integer> epochs = new ArrayList<>();
        run.section("1. topic rep, replicas 1,2,3 (leader 1), min.insync.replicas=2, replica.lag.time.max.ms=" + lagMs
                + ", broker.session.timeout.ms=" + sessionTimeoutMs(lagMs));
        run.createTopic(TOPIC, Map.of("min.insync.replicas", "2"));
        run.describe(TOPIC);
        epochs.add(run.requirePartition(TOPIC).partitionEpoch());

        run.section("3. write 10 records with acks=all");
        InsyncClient first = run.producer("acks-all-10", "all", 0, requestTimeoutMs);
        for (int i = 0; i < 10; i++) {
            run.expect("acks=all record " + i, new ProduceOutcome(Errors.NONE, i, 0), run.produce(first, TOPIC, "record-" + i));
        }
        long hwAfterFirstWrites = run.highWatermark(TOPIC);
        run.line(TOPIC + ":0:" + hwAfterFirstWrites);
        run.put("hwAfterFirstWrites", hwAfterFirstWrites);
        run.expect("HW after 10 acks=all records", 10L, hwAfterFirstWrites);

        long idleMs = idlePauseMs(lagMs);
        run.section("4. SIGSTOP broker 3, no new records, wait " + ProcessScenarioRun.seconds(idleMs));
        int mark = run.logs().mark();
        run.cluster().pause(PAUSED);
        ProcessScenarioRun.sleep(idleMs);
        run.describe(TOPIC);
        List<Integer> isrAfterIdle = run.requirePartition(TOPIC).isr();
        run.put("isrAfterIdlePause", isrAfterIdle);
        run.expect("ISR after " + idleMs + " ms of an idle pause (an idle follower is caught up)", List.of(1, 2, 3),
                isrAfterIdle);
        Optional<BrokerLogTail.Line> idleShrink = run.logs().first(mark, LEADER, t -> t.contains("Shrinking ISR"));
        run.check(idleShrink.isEmpty(), "the leader shrank the ISR during the idle pause: "
                + idleShrink.map(BrokerLogTail.Line::text).orElse(""));
        run.cluster().resume(PAUSED);

        run.section("5. warm up, SIGSTOP broker 3 again, then produce");
        InsyncClient acks1 = run.producer("acks-1", "1", 0, requestTimeoutMs);
        InsyncClient acksAll = run.producer("acks-all", "all", 0, requestTimeoutMs);
        run.expect("warm-up acks=1 offset", 10L, run.produce(acks1, TOPIC, "warmup-acks1").offset());
        run.expect("warm-up acks=all offset", 11L, run.produce(acksAll, TOPIC, "warmup-acksall").offset());
        long hwBeforePause = run.highWatermark(TOPIC);
        run.line("before SIGSTOP: high watermark = " + hwBeforePause);
        run.put("hwBeforePause", hwBeforePause);
        run.expect("HW before the second pause", 12L, hwBeforePause);

        mark = run.logs().mark();
        run.cluster().pause(PAUSED);
        long pausedAt = ProcessScenarioRun.nowMs();
        run.line("SIGSTOP sent to the follower");
        List<Long> acks1Offsets = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            long sentAt = ProcessScenarioRun.nowMs();
            ProduceOutcome outcome = run.produce(acks1, TOPIC, "acks1-" + i);
            long doneAt = ProcessScenarioRun.nowMs();
            run.line("acks=1 offset=" + outcome.offset() + " (t+" + (doneAt - pausedAt) + " ms)");
            acks1Offsets.add(outcome.offset());
            run.expect("acks=1 record " + i + " error", Errors.NONE, outcome.error());
            run.check(doneAt - sentAt <= ACKS1_BOUND_MS, "acks=1 record " + i + " took " + (doneAt - sentAt)
                    + " ms, more than " + ACKS1_BOUND_MS + " ms: it should not wait for the paused follower");
        }
        run.put("acks1Offsets", acks1Offsets);
        run.expect("acks=1 offsets while broker 3 is paused", List.of(12L, 13L, 14L, 15L, 16L), acks1Offsets);
        long hwAfterAcks1 = run.highWatermark(TOPIC);
        run.line("high watermark = " + hwAfterAcks1 + " (t+" + (ProcessScenarioRun.nowMs() - pausedAt) + " ms)");
        run.put("hwAfterAcks1", hwAfterAcks1);
        run.expect("HW after the acks=1 records (broker 3 still in the ISR holds it)", 12L, hwAfterAcks1);

        long acksAllSentAt = ProcessScenarioRun.nowMs();
        ProduceOutcome outcome = run.produce(acksAll, TOPIC, "acksall-0");
        long acksAllDoneAt = ProcessScenarioRun.nowMs();
        long waitedMs = acksAllDoneAt - acksAllSentAt;
        run.line("acks=all offset=" + outcome.offset() + " waited " + waitedMs + " ms (t+" + (acksAllDoneAt - pausedAt)
                + " ms)");
        long hwAfterAcksAll = run.highWatermark(TOPIC);
        run.line("high watermark = " + hwAfterAcksAll + " (t+" + (ProcessScenarioRun.nowMs() - pausedAt) + " ms)");
        run.describe(TOPIC);
        run.printLogLines(mark, LEADER, "leader (broker 1) output", pausedAt, t -> t.contains("ISR"));
        PartitionRegistration shrunk = run.requirePartition(TOPIC);
        epochs.add(shrunk.partitionEpoch());
        run.put("acksAllOffset", outcome.offset());
        run.put("acksAllError", outcome.error().name());
        run.put("acksAllWaitMs", waitedMs);
        run.put("msFromPauseToAcksAllDone", acksAllDoneAt - pausedAt);
        run.put("hwAfterAcksAll", hwAfterAcksAll);
        run.put("isrAfterShrink", shrunk.isr());
        run.expect("acks=all while broker 3 is paused", new ProduceOutcome(Errors.NONE, 17L, 0), outcome);
        run.expect("HW after the acks=all record", 18L, hwAfterAcksAll);
        run.expect("ISR after the shrink", List.of(1, 2), shrunk.isr());
        checkShrinkTiming(run, mark, lagMs, pausedAt, acksAllSentAt, acksAllDoneAt);

        run.section("6. SIGCONT broker 3, wait up to " + ProcessScenarioRun.seconds(ISR_BACK_WITHIN_MS));
        mark = run.logs().mark();
        run.cluster().resume(PAUSED);
        long resumedAt = ProcessScenarioRun.nowMs();
        int expandMark = mark;
        boolean back = run.waitUntil(() -> run.partition(TOPIC).map(p -> p.isr().contains(PAUSED)).orElse(false)
                        && run.logs().first(expandMark, LEADER, t -> ProcessScenarioRun.isrCommitted(t, 1, 2, 3)).isPresent(),
                3 * ISR_BACK_WITHIN_MS);
        long backMs = back ? ProcessScenarioRun.nowMs() - resumedAt : -1L;
        run.put("isrBackMsAfterResume", backMs);
        run.line("ISR back " + (back ? backMs + " ms" : "not within " + 3 * ISR_BACK_WITHIN_MS + " ms") + " after SIGCONT");
        run.describe(TOPIC);
        run.printLogLines(mark, LEADER, "leader (broker 1) output", resumedAt, t -> t.contains("ISR"));
        PartitionRegistration expanded = run.requirePartition(TOPIC);
        epochs.add(expanded.partitionEpoch());
        run.put("isrAfterResume", expanded.isr());
        run.expect("ISR after the resume", List.of(1, 2, 3), expanded.isr());
        run.check(back && backMs <= ISR_BACK_WITHIN_MS, "the ISR came back " + backMs + " ms after SIGCONT, not within "
                + ISR_BACK_WITHIN_MS + " ms");
        run.put("partitionEpochs", epochs);
        run.expect("partition epochs (shrink, then expand)", List.of(0, 1, 2), epochs);

        run.section("7. replication-offset-checkpoint (high watermark on disk)");
        String expected = TOPIC + " 0 18";
        run.waitUntil(() -> run.cluster().brokerIds().stream().allMatch(b -> checkpoint(run, b).equals(expected)),
                2 * HW_CHECKPOINT_INTERVAL_MS + ISR_BACK_WITHIN_MS);
        Map<Integer, String> checkpoints = new LinkedHashMap<>();
        for (int broker : run.cluster().brokerIds()) {
            String entries = checkpoint(run, broker);
            checkpoints.put(broker, entries);
            run.line("broker " + broker + ": " + entries);
            run.expect("replication-offset-checkpoint of broker " + broker, expected, entries);
        }
        run.put("hwCheckpoints", checkpoints);
    }

    /**
     * SCN-1/ISR-1 on the wall clock: the leader's shrink line comes more than lag after broker 3 last caught up
     * and within the window after the SIGSTOP; the acks=all record completes only once the shrink could have
     * happened and is committed, at most 1.5 × lag (plus slack) after broker 3 last caught up.
     */
    private static void checkShrinkTiming(ProcessScenarioRun run, int mark, long lagMs, long pausedAt, long sentAt,
                                          long doneAt) {
        Optional<BrokerLogTail.Line> shrink = run.logs().first(mark, LEADER, t -> t.contains("Shrinking ISR"));
        Optional<BrokerLogTail.Line> committed = run.logs().first(mark, LEADER, t -> ProcessScenarioRun.isrCommitted(t, 1, 2));
        List<String> seen = run.logs().since(mark, LEADER).stream().map(BrokerLogTail.Line::text)
                .filter(t -> t.contains("ISR")).toList();
        run.check(shrink.isPresent() && shrink.get().text().contains(
                        "Shrinking ISR from 1,2,3 to 1,2. Leader: (highWatermark: 12, endOffset: 18). "
                                + "Out of sync replicas: (brokerId: 3, endOffset: 12, lastCaughtUpTimeMs: "),
                "the leader logs the shrink of 1,2,3 to 1,2 at HW 12, LEO 18, broker 3 at 12; lines: " + seen);
        run.check(committed.isPresent() && (committed.get().text().endsWith("ISR updated to 1,2  and version updated to 1")
                        || committed.get().text().endsWith("ISR 1,2 and replicas 1,2,3 applied with partition epoch 1.")),
                "the leader logs ISR 1,2 committed with partition epoch 1 (its AlterPartition answer or the controller's"
                        + " metadata, whichever came first); lines: " + seen);
        if (shrink.isEmpty()) {
            return;
        }
        long shrinkMs = shrink.get().seenAtMs() - pausedAt;
        long low = lagMs - ProcessScenarioRun.REPLICA_FETCH_WAIT_MAX_MS;
        long high = lagMs * 3 / 2 + SHRINK_SLACK_MS;
        run.put("shrinkMsAfterPause", shrinkMs);
        run.put("shrinkWindowMs", List.of(low, high));
        long committedMs = committed.map(l -> l.seenAtMs() - pausedAt).orElse(-1L);
        run.put("shrinkCommittedMsAfterPause", committedMs);
        run.line("shrink seen " + shrinkMs + " ms after SIGSTOP, committed " + committedMs + " ms after (window " + low
                + ".." + high + " ms)");
        run.check(shrinkMs >= low && shrinkMs <= high, "the shrink came " + shrinkMs + " ms after SIGSTOP, outside "
                + low + ".." + high + " ms");
        Matcher m = LAST_CAUGHT_UP.matcher(shrink.get().text());
        if (!m.find()) {
            return;
        }
        long lastCaughtUp = Long.parseLong(m.group(1));
        run.put("lastCaughtUpMsBeforePause", pausedAt - lastCaughtUp);
        run.put("lastCaughtUpMsBeforeAcksAll", sentAt - lastCaughtUp);
        run.check(shrink.get().seenAtMs() - lastCaughtUp > lagMs, "the shrink came "
                + (shrink.get().seenAtMs() - lastCaughtUp) + " ms after broker 3 last caught up, not more than " + lagMs + " ms");
        run.check(doneAt - lastCaughtUp > lagMs, "acks=all completed " + (doneAt - lastCaughtUp)
                + " ms after broker 3 last caught up, before a shrink could happen (" + lagMs + " ms)");
        run.check(doneAt - lastCaughtUp <= lagMs * 3 / 2 + COMMIT_SLACK_MS, "acks=all completed " + (doneAt - lastCaughtUp)
                + " ms after broker 3 last caught up, more than 1.5 x " + lagMs + " ms + " + COMMIT_SLACK_MS + " ms");
    }

    private static String checkpoint(ProcessScenarioRun run, int broker) {
        return String.join("; ", SeedText.checkpointEntries(run.logDirFile(broker, "replication-offset-checkpoint")));
    }
}
