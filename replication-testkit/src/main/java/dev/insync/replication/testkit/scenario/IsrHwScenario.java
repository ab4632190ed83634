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
import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.core.replica.ReplicaState;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.testkit.cluster.InMemoryCluster;
import dev.insync.replication.testkit.cluster.ProduceOutcome;
import dev.insync.replication.testkit.cluster.TestProducer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * SCN-1, the seed's example 1-2: a paused follower, the ISR, the HW and acks=all.
 *
 * <p>Steps (contract §10): {@code replica.lag.time.max.ms} = lag (default 5000), {@code
 * broker.session.timeout.ms} = 30000 (raised when a large lag makes the pauses longer, so that the
 * controller never fences the paused broker: only the leader's shrink is shown). Ten acks=all records
 * (HW 10). Pause broker 3 and write nothing for 12 s (2.4 × lag when that is longer): the ISR stays
 * {@code 1,2,3} because an idle follower is caught up. Resume. One acks=1 and one acks=all warm-up
 * record: HW 12. Pause broker 3; five acks=1 records get offsets 12..16 at once and the HW stays 12;
 * one acks=all record gets offset 17 and completes only once the leader's shrink to {@code 1,2} is
 * committed, 1 to 1.5 × lag after broker 3 last caught up, plus the AlterPartition round trip; then
 * the HW is 18. Resume: within 5 s the ISR is {@code 1,2,3} again; partition epochs 0, 1, 2; every
 * broker's {@code replication-offset-checkpoint} holds {@code rep 0 18}.
 *
 * <p>Result keys: {@code hwBeforePause, acks1Offsets, hwAfterAcks1, acksAllOffset, acksAllWaitMs,
 * msFromPauseToAcksAllDone, hwAfterAcksAll, isrAfterIdlePause, isrAfterShrink, isrAfterResume,
 * partitionEpochs, hwCheckpoints} (broker id to the checkpoint's entry line), and {@code lagMs, seed,
 * hwAfterFirstWrites, lastCaughtUpMsBeforeAcksAll} (how long before the acks=all send broker 3 last
 * caught up, as the leader saw it), {@code shrinkCommittedMsAfterPause, isrBackMsAfterResume}.
 */
public final class IsrHwScenario implements Scenario {

    /** The topic. */
    public static final String TOPIC = "rep";
    /** SCN-1's {@code replica.lag.time.max.ms}. */
    public static final long DEFAULT_LAG_MS = 5_000;
    /** SCN-1's {@code broker.session.timeout.ms}. */
    public static final long SESSION_TIMEOUT_MS = 30_000;
    /** How long the first pause lasts with no writes at the default lag. */
    public static final long IDLE_PAUSE_MS = 12_000;
    /** The producer's request timeout, Kafka's default. */
    public static final long REQUEST_TIMEOUT_MS = 30_000;
    /** How long the ISR may take to come back after the resume. */
    public static final long ISR_BACK_WITHIN_MS = 5_000;
    /** Slack over 1.5 × lag for the acks=all completion: AlterPartition and produce round trips. */
    public static final long SHRINK_SLACK_MS = 10 * ScenarioRun.ROUND_TRIP_MS;

    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final int LEADER = 1;
    private static final int PAUSED = 3;

    @Override
    public String name() {
        return "isr-hw";
    }

    @Override
    public String ruleId() {
        return "SCN-1";
    }

    @Override
    public long defaultLagMs() {
        return DEFAULT_LAG_MS;
    }

    /** The idle pause: 12 s, or 2.4 × lag when longer, so it always exceeds twice the lag. */
    public static long idlePauseMs(long lagMs) {
        return Math.max(IDLE_PAUSE_MS, lagMs * 12 / 5);
    }

    /** 30 s, or longer than any pause of the run so that the paused broker is never fenced. */
    public static long sessionTimeoutMs(long lagMs) {
        return Math.max(SESSION_TIMEOUT_MS, idlePauseMs(lagMs) + 2 * lagMs);
    }

    /** 30 s, or long enough for a shrink at 1.5 × lag. */
    public static long requestTimeoutMs(long lagMs) {
        return Math.max(REQUEST_TIMEOUT_MS, 2 * lagMs + ISR_BACK_WITHIN_MS);
    }

    @Override
    public ScenarioResult run(ScenarioSettings settings, Consumer<String> printer) {
        long lagMs = settings.lagMsOr(DEFAULT_LAG_MS);
        InMemoryCluster.Builder builder = ScenarioRun.clusterBuilder(settings, lagMs)
                .config(ReplicationConfig.BROKER_SESSION_TIMEOUT_MS, sessionTimeoutMs(lagMs));
        return ScenarioRun.execute(name(), builder, TP, settings, lagMs, printer, run -> steps(run, lagMs));
    }

    private void steps(ScenarioRun run, long lagMs) {
        InMemoryCluster cluster = run.cluster();
        long requestTimeoutMs = requestTimeoutMs(lagMs);
        run.section("1. topic rep, replicas 1,2,3 (leader 1), replica.lag.time.max.ms=" + lagMs
                + ", broker.session.timeout.ms=" + sessionTimeoutMs(lagMs));
        cluster.createTopic(TOPIC, 1, 2, 3);
        run.describe(TOPIC);

        run.section("3. write 10 records with acks=all");
        TestProducer first = cluster.producer("acks-all-10");
        for (int i = 0; i < 10; i++) {
            ProduceOutcome outcome = run.produce(first, TOPIC, "record-" + i, -1, requestTimeoutMs);
            run.expect("acks=all record " + i, new ProduceOutcome(Errors.NONE, i, 0), outcome);
        }
        long hwAfterFirstWrites = leaderHw(run);
        run.line(TOPIC + ":0:" + hwAfterFirstWrites);
        run.put("hwAfterFirstWrites", hwAfterFirstWrites);
        run.expect("HW after 10 acks=all records", 10L, hwAfterFirstWrites);

        long idleMs = idlePauseMs(lagMs);
        run.section("4. SIGSTOP broker 3, no new records, wait " + seconds(idleMs));
        int mark = run.logMark();
        cluster.pause(PAUSED);
        run.runFor(idleMs);
        run.describe(TOPIC);
        List<Integer> isrAfterIdle = run.admin().isr(TOPIC, 0);
        run.put("isrAfterIdlePause", isrAfterIdle);
        run.expect("ISR after " + idleMs + " ms of an idle pause (an idle follower is caught up)", List.of(1, 2, 3),
                isrAfterIdle);
        run.check(run.observer().linesSince(mark, LEADER).isEmpty(),
                "the leader changed its ISR during the idle pause: " + texts(run.observer().linesSince(mark, LEADER)));
        cluster.resume(PAUSED);

        run.section("5. warm up, SIGSTOP broker 3 again, then produce");
        TestProducer acks1 = cluster.producer("acks-1");
        TestProducer acksAll = cluster.producer("acks-all");
        ProduceOutcome warm1 = run.produce(acks1, TOPIC, "warmup-acks1", 1, requestTimeoutMs);
        ProduceOutcome warmAll = run.produce(acksAll, TOPIC, "warmup-acksall", -1, requestTimeoutMs);
        run.expect("warm-up acks=1 offset", 10L, warm1.offset());
        run.expect("warm-up acks=all offset", 11L, warmAll.offset());
        long hwBeforePause = leaderHw(run);
        run.line("before SIGSTOP: high watermark = " + hwBeforePause);
        run.put("hwBeforePause", hwBeforePause);
        run.expect("HW before the second pause", 12L, hwBeforePause);

        mark = run.logMark();
        cluster.pause(PAUSED);
        long pausedAt = run.nowMs();
        run.line("SIGSTOP sent to the follower");
        List<Long> acks1Offsets = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            long sentAt = run.nowMs();
            ProduceOutcome outcome = run.produce(acks1, TOPIC, "acks1-" + i, 1, requestTimeoutMs);
            long tookMs = run.nowMs() - sentAt;
            run.line("acks=1 offset=" + outcome.offset() + " (t+" + (run.nowMs() - pausedAt) + " ms)");
            acks1Offsets.add(outcome.offset());
            run.expect("acks=1 record " + i + " error", Errors.NONE, outcome.error());
            run.check(tookMs <= ScenarioRun.ROUND_TRIP_MS,
                    "acks=1 record " + i + " took " + tookMs + " ms, more than a round trip (" + ScenarioRun.ROUND_TRIP_MS
                            + " ms): it should not wait for the paused follower");
        }
        run.put("acks1Offsets", acks1Offsets);
        run.expect("acks=1 offsets while broker 3 is paused", List.of(12L, 13L, 14L, 15L, 16L), acks1Offsets);
        long hwAfterAcks1 = leaderHw(run);
        run.line("high watermark = " + hwAfterAcks1 + " (t+" + (run.nowMs() - pausedAt) + " ms)");
        run.put("hwAfterAcks1", hwAfterAcks1);
        run.expect("HW after the acks=1 records (broker 3 still in the ISR holds it)", 12L, hwAfterAcks1);

        long acksAllSentAt = run.nowMs();
        ProduceOutcome outcome = run.produce(acksAll, TOPIC, "acksall-0", -1, requestTimeoutMs);
        long acksAllDoneAt = run.nowMs();
        long waitedMs = acksAllDoneAt - acksAllSentAt;
        run.line("acks=all offset=" + outcome.offset() + " waited " + waitedMs + " ms (t+" + (acksAllDoneAt - pausedAt)
                + " ms)");
        long hwAfterAcksAll = leaderHw(run);
        run.line("high watermark = " + hwAfterAcksAll + " (t+" + (run.nowMs() - pausedAt) + " ms)");
        run.describe(TOPIC);
        run.printLogLines(mark, LEADER, "leader (broker 1) server.log");
        List<Integer> isrAfterShrink = run.admin().isr(TOPIC, 0);
        run.put("acksAllOffset", outcome.offset());
        run.put("acksAllError", outcome.error().name());
        run.put("acksAllWaitMs", waitedMs);
        run.put("msFromPauseToAcksAllDone", acksAllDoneAt - pausedAt);
        run.put("hwAfterAcksAll", hwAfterAcksAll);
        run.put("isrAfterShrink", isrAfterShrink);
        run.expect("acks=all while broker 3 is paused", new ProduceOutcome(Errors.NONE, 17L, 0), outcome);
        run.expect("HW after the acks=all record", 18L, hwAfterAcksAll);
        run.expect("ISR after the shrink", List.of(1, 2), isrAfterShrink);
        checkShrinkTiming(run, mark, lagMs, pausedAt, acksAllSentAt, acksAllDoneAt);

        run.section("6. SIGCONT broker 3, wait up to " + seconds(ISR_BACK_WITHIN_MS));
        mark = run.logMark();
        cluster.resume(PAUSED);
        long resumedAt = run.nowMs();
        boolean back = run.runUntil(() -> run.admin().isr(TOPIC, 0).contains(PAUSED) && leaderIsrCommitted(run, 3),
                ISR_BACK_WITHIN_MS);
        run.put("isrBackMsAfterResume", back ? run.nowMs() - resumedAt : -1L);
        run.describe(TOPIC);
        run.printLogLines(mark, LEADER, "leader (broker 1) server.log");
        List<Integer> isrAfterResume = run.admin().isr(TOPIC, 0);
        run.put("isrAfterResume", isrAfterResume);
        run.expect("ISR within " + ISR_BACK_WITHIN_MS + " ms of the resume", List.of(1, 2, 3), isrAfterResume);
        List<Integer> epochs = run.admin().partitionEpochs(TOPIC, 0);
        run.put("partitionEpochs", epochs);
        run.expect("partition epochs (shrink, then expand)", List.of(0, 1, 2), epochs);

        run.section("7. replication-offset-checkpoint (high watermark on disk)");
        long interval = cluster.config().replicaHighWatermarkCheckpointIntervalMs();
        String expected = TOPIC + " 0 18";
        run.runUntil(() -> cluster.brokerIds().stream().allMatch(b -> checkpoint(run, b).equals(expected)),
                2 * interval + ISR_BACK_WITHIN_MS);
        Map<Integer, String> checkpoints = new LinkedHashMap<>();
        for (int broker : cluster.brokerIds()) {
            String entries = checkpoint(run, broker);
            checkpoints.put(broker, entries);
            run.line("broker " + broker + ": " + entries);
            run.expect("replication-offset-checkpoint of broker " + broker, expected, entries);
        }
        run.put("hwCheckpoints", checkpoints);
    }

    /**
     * SCN-1/ISR-1: the acks=all record completes only after the shrink was committed, which happens on the
     * first check more than lag after broker 3 last caught up and at most 1.5 × lag after it, plus round trips.
     */
    private static void checkShrinkTiming(ScenarioRun run, int mark, long lagMs, long pausedAt, long sentAt,
                                          long doneAt) {
        List<LogLineObserver.LogLine> lines = run.observer().linesSince(mark, LEADER);
        Optional<LogLineObserver.LogLine> shrink = lines.stream()
                .filter(l -> l.kind() == LogLineObserver.Kind.SHRINK).findFirst();
        Optional<LogLineObserver.LogLine> committed = lines.stream()
                .filter(l -> l.kind() == LogLineObserver.Kind.ISR_UPDATED).findFirst();
        run.check(shrink.isPresent() && shrink.get().text().contains(
                        "Shrinking ISR from 1,2,3 to 1,2. Leader: (highWatermark: 12, endOffset: 18). "
                                + "Out of sync replicas: (brokerId: 3, endOffset: 12, lastCaughtUpTimeMs: "),
                "the leader logs the shrink of 1,2,3 to 1,2 at HW 12, LEO 18, broker 3 at 12; lines: " + texts(lines));
        run.check(committed.isPresent() && committed.get().text().endsWith("ISR updated to 1,2  and version updated to 1"),
                "the leader logs ISR updated to 1,2 with version 1; lines: " + texts(lines));
        ReplicaState follower = run.observer().outOfSyncAtLastShrink().get(PAUSED);
        if (shrink.isEmpty() || committed.isEmpty() || follower == null) {
            return;
        }
        run.put("shrinkCommittedMsAfterPause", committed.get().timeMs() - pausedAt);
        long lastCaughtUp = follower.lastCaughtUpTimeMs();
        run.put("lastCaughtUpMsBeforeAcksAll", sentAt - lastCaughtUp);
        run.check(doneAt >= committed.get().timeMs(),
                "acks=all completed at " + doneAt + ", before the shrink was committed at " + committed.get().timeMs());
        run.check(shrink.get().timeMs() - lastCaughtUp > lagMs,
                "the shrink came " + (shrink.get().timeMs() - lastCaughtUp) + " ms after broker 3 last caught up, not more than "
                        + lagMs + " ms");
        run.check(doneAt - lastCaughtUp <= lagMs * 3 / 2 + SHRINK_SLACK_MS,
                "acks=all completed " + (doneAt - lastCaughtUp) + " ms after broker 3 last caught up, more than 1.5 x "
                        + lagMs + " ms + " + SHRINK_SLACK_MS + " ms");
    }

    private static List<String> texts(List<LogLineObserver.LogLine> lines) {
        return lines.stream().map(LogLineObserver.LogLine::text).toList();
    }

    private static long leaderHw(ScenarioRun run) {
        return run.admin().highWatermark(LEADER, TOPIC, 0);
    }

    private static boolean leaderIsrCommitted(ScenarioRun run, int member) {
        return run.admin().partitionState(LEADER, TOPIC, 0)
                .map(Partition::isrState)
                .map(s -> !s.isInflight() && s.isr().contains(member))
                .orElse(false);
    }

    private static String checkpoint(ScenarioRun run, int broker) {
        return String.join("; ", SeedText.checkpointEntries(run.admin().logDirFile(broker, "replication-offset-checkpoint")));
    }

    static String seconds(long ms) {
        return ms % 1000 == 0 ? (ms / 1000) + "s" : ms + " ms";
    }
}
