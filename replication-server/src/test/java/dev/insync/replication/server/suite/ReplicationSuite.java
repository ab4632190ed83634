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

package dev.insync.replication.server.suite;

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.Log;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.checkpoint.CleanShutdownFile;
import dev.insync.replication.log.checkpoint.OffsetCheckpointFile;
import dev.insync.replication.log.epoch.EpochEntry;
import dev.insync.replication.log.record.Record;
import dev.insync.replication.log.record.RecordBatch;
import dev.insync.replication.server.suite.ReplicationCluster.Settings;
import dev.insync.replication.testkit.cluster.ProduceOutcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The replication suite, written once against {@link ReplicationCluster} and run on both clusters
 * ({@link InMemoryReplicationSuiteTest}: simulated time; {@link NettyReplicationSuiteTest}:
 * InsyncServers over loopback TCP in real time) with the same assertions. Each scenario starts a
 * fresh cluster of brokers 1, 2, 3 and creates partition {@code rep-0} with replicas 1, 2, 3, so
 * broker 1 leads (ISR-8). Bounds are in the cluster's own time.
 */
abstract class ReplicationSuite {

    static final String TOPIC = "rep";
    static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    /** A produce's own timeout (the leader's purgatory bound for acks=all). */
    static final long REQUEST_TIMEOUT_MS = 10_000;
    /** Bound of every wait for replication, an ISR change, an election, a restart. */
    static final long WAIT_MS = 20_000;
    /** The ISR shrink's check runs every lag/2, then AlterPartition goes to the controller: slack beyond 1.5 × lag. */
    static final long SHRINK_SLACK_MS = 3_000;

    @TempDir
    Path root;

    private ReplicationCluster cluster;

    /** A new, started cluster with these settings, under {@code root}. */
    abstract ReplicationCluster newCluster(Settings settings, Path root);

    @AfterEach
    void closeCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private ReplicationCluster start(Settings settings, Map<String, String> topicConfigs) {
        cluster = newCluster(settings, root);
        cluster.createTopic(TOPIC, List.of(1, 2, 3), topicConfigs);
        return cluster;
    }

    // ================================================================================== scenarios

    @Test
    @DisplayName("HW-1, FOL-5, FET-1, INV-3: acks=all and acks=1 records reach every follower; every replica's HW becomes the"
            + " leader's LEO; a consumer reads exactly the records below the HW")
    void hw1_everyFollowerReplicatesAndHwReachesLeo() {
        ReplicationCluster c = start(Settings.FAST, Map.of("min.insync.replicas", "2"));
        List<String> written = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            assertThat(send("r-" + i, -1)).as("acks=all r-%d", i).isEqualTo(ok(i, 0));
            written.add("r-" + i);
        }
        awaitEveryReplicaAt(10);
        assertThat(c.describe(TP).isr()).containsExactly(1, 2, 3);
        assertThat(send("one", 1)).isEqualTo(ok(10, 0));
        written.add("one");
        // acks=0: no answer; the record lands and replicates all the same.
        assertThat(send("zero", 0).error()).isEqualTo(Errors.NONE);
        written.add("zero");
        awaitEveryReplicaAt(12);
        assertThat(c.consume(TP, 0)).containsExactlyElementsOf(written);
        for (int id : c.brokerIds()) {
            assertThat(values(log(id))).as("broker %d's log", id).containsExactlyElementsOf(written);
        }
    }

    @Test
    @DisplayName("ISR-1, PRO-3, HW-1, ISR-2, ISR-6 (SCN-1 shape): a follower cut off falls behind; acks=1 records do not move"
            + " the HW; an acks=all record waits in the purgatory until the leader shrinks the ISR, no sooner than"
            + " replica.lag.time.max.ms and within 1.5 times it; once caught up the follower rejoins; partition epoch +2,"
            + " leader epoch unchanged")
    void isr1_pro3_isr2_stalledFollowerLeavesIsrAndRejoins() {
        ReplicationCluster c = start(Settings.FAST, Map.of());
        long lagMs = Settings.FAST.replicaLagTimeMaxMs();
        assertThat(send("warm-0", -1)).isEqualTo(ok(0, 0));
        assertThat(send("warm-1", -1)).isEqualTo(ok(1, 0));
        awaitEveryReplicaAt(2);
        PartitionRegistration before = c.describe(TP);

        long cutAtMs = c.nowMs();
        c.cutFetches(3);
        for (int i = 0; i < 5; i++) {
            assertThat(send("one-" + i, 1)).isEqualTo(ok(2 + i, 0));
        }
        // HW-1: broker 3 is still in the ISR and behind, so the HW stays where it was.
        assertThat(partition(1).highWatermark()).isEqualTo(2);
        long[] completedAtMs = {-1};
        List<Integer> isrAtCompletion = new ArrayList<>();
        CompletableFuture<ProduceOutcome> all = c.produce(TP, "all", -1, REQUEST_TIMEOUT_MS).thenApply(o -> {
            completedAtMs[0] = c.nowMs();
            isrAtCompletion.addAll(partition(1).isr());
            return o;
        });
        c.awaitCondition("the ISR shrunk to [1, 2] at the controller", WAIT_MS, () -> c.describe(TP).isr().equals(List.of(1, 2)));
        long shrunkSeenAtMs = c.nowMs();
        // ISR-1: lag is time, not messages: not before lag ms after broker 3 last caught up (≤ the cut).
        assertThat(shrunkSeenAtMs - cutAtMs).isGreaterThanOrEqualTo(lagMs)
                .isLessThanOrEqualTo(lagMs * 3 / 2 + SHRINK_SLACK_MS);
        // PRO-3: the acks=all record was answered only once the HW covered it, after the shrink committed.
        assertThat(c.await(all, REQUEST_TIMEOUT_MS * 2)).isEqualTo(ok(7, 0));
        assertThat(completedAtMs[0] - cutAtMs).isGreaterThanOrEqualTo(lagMs);
        assertThat(isrAtCompletion).containsExactly(1, 2);
        assertThat(partition(1).highWatermark()).isEqualTo(8);

        // ISR-2: once broker 3 fetches again and reaches the HW, the leader adds it back.
        c.healFetches(3);
        c.awaitCondition("the ISR [1, 2, 3] again", WAIT_MS, () -> Set.copyOf(c.describe(TP).isr()).equals(Set.of(1, 2, 3)));
        awaitEveryReplicaAt(8);
        PartitionRegistration after = c.describe(TP);
        assertThat(after.partitionEpoch()).isEqualTo(before.partitionEpoch() + 2);
        assertThat(after.leaderEpoch()).isEqualTo(before.leaderEpoch());
        assertThat(after.leader()).isEqualTo(1);
        // HW-5: every broker checkpoints the HW (SCN-1: "every broker's replication-offset-checkpoint says rep 0 18").
        for (int id : c.brokerIds()) {
            c.awaitCondition("broker " + id + " checkpointing HW 8", WAIT_MS,
                    () -> checkpointLines(c.logDir(id)).contains(TOPIC + " 0 8"));
        }
    }

    @Test
    @DisplayName("PRO-3, HW-2, ISR-7, PRO-2: min ISR 2; an acks=all record waits while both followers are cut off, the ISR"
            + " shrinks to the leader alone (ELR 2,3), the HW freezes, and the call ends REQUEST_TIMED_OUT with the record"
            + " in the leader's log; a new acks=all is refused; once the followers catch up the HW covers the record")
    void pro3_acksAllTimesOutWhenTheIsrFallsBelowMinIsr() {
        ReplicationCluster c = start(Settings.FAST, Map.of("min.insync.replicas", "2"));
        assertThat(send("first", -1)).isEqualTo(ok(0, 0));
        awaitEveryReplicaAt(1);
        PartitionRegistration before = c.describe(TP);
        c.cutFetches(2);
        c.cutFetches(3);
        long timeoutMs = Settings.FAST.replicaLagTimeMaxMs() * 3;
        ProduceOutcome stuck = c.await(c.produce(TP, "stuck", -1, timeoutMs), timeoutMs * 2);
        assertThat(stuck.error()).isEqualTo(Errors.REQUEST_TIMED_OUT);
        PartitionRegistration p = c.describe(TP);
        assertThat(p.isr()).containsExactly(1);
        // ISR-7: the ELR takes the members removed by the change that takes the ISR below min ISR. On real time the
        // two followers' lag can expire on different shrink checks: then [1, 2, 3] -> [1, x] (still min ISR, no ELR)
        // -> [1], and only the follower removed second is in the ELR.
        int shrinks = p.partitionEpoch() - before.partitionEpoch();
        assertThat(shrinks).as("AlterPartitions that shrank the ISR").isBetween(1, 2);
        if (shrinks == 1) {
            assertThat(p.elr()).containsExactlyInAnyOrder(2, 3);
        } else {
            assertThat(p.elr()).hasSize(1).isSubsetOf(2, 3);
        }
        assertThat(log(1).logEndOffset()).as("the timed-out record is in the leader's log").isEqualTo(2);
        assertThat(partition(1).highWatermark()).as("HW-2: frozen under min ISR").isEqualTo(1);
        c.awaitCondition("the leader applying ISR [1]", WAIT_MS, () -> partition(1).isr().equals(List.of(1)));
        assertThat(send("refused", -1).error()).isEqualTo(Errors.NOT_ENOUGH_REPLICAS);

        c.healFetches(2);
        c.healFetches(3);
        c.awaitCondition("the ISR [1, 2, 3] again", WAIT_MS, () -> Set.copyOf(c.describe(TP).isr()).equals(Set.of(1, 2, 3)));
        awaitEveryReplicaAt(2);
        assertThat(c.consume(TP, 0)).containsExactly("first", "stuck");
    }

    @Test
    @DisplayName("ISR-1 (SCN-1 step 2): a paused follower of a partition that receives no writes is caught up and stays in"
            + " the ISR well past replica.lag.time.max.ms")
    void isr1_pausedFollowerOfAnIdlePartitionStaysInIsr() {
        // A long session timeout: the paused broker's heartbeats are held too, and fencing (ISR-7) is not this test.
        ReplicationCluster c = start(new Settings(Settings.FAST.replicaLagTimeMaxMs(), 10_000), Map.of());
        for (int i = 0; i < 3; i++) {
            assertThat(send("r-" + i, -1)).isEqualTo(ok(i, 0));
        }
        awaitEveryReplicaAt(3);
        PartitionRegistration before = c.describe(TP);
        c.pause(3);
        // 2.5 × lag: the shrink check ran several times; well below the session timeout (no fencing).
        c.runFor(Settings.FAST.replicaLagTimeMaxMs() * 5 / 2);
        assertThat(c.describe(TP).isr()).containsExactly(1, 2, 3);
        assertThat(partition(1).isr()).containsExactly(1, 2, 3);
        assertThat(c.describe(TP).partitionEpoch()).isEqualTo(before.partitionEpoch());
        c.resume(3);
        assertThat(send("after", -1)).isEqualTo(ok(3, 0));
        awaitEveryReplicaAt(4);
    }

    @Test
    @DisplayName("SCN-2, PRO-2, HW-2, ISR-7, PRO-3: min.insync.replicas=3; after broker 3's controlled shutdown (ISR 1,2,"
            + " ELR 3) acks=all is refused with NOT_ENOUGH_REPLICAS and writes nothing, acks=1 is written but stays"
            + " below the frozen HW; min.insync.replicas=2 at run time lets acks=all through; the leader's log is"
            + " exactly acks-all, acks-1, acks-1, acks-all, acks-1")
    void scn2_pro2_acksAllRefusedUnderMinIsr() {
        ReplicationCluster c = start(Settings.FAST, Map.of("min.insync.replicas", "3"));
        c.awaitCondition("the leader applying min.insync.replicas=3", WAIT_MS, () -> partition(1).minInsyncReplicas() == 3);
        assertThat(send("acks-all", -1)).isEqualTo(ok(0, 0));
        assertThat(send("acks-1", 1)).isEqualTo(ok(1, 0));
        awaitEveryReplicaAt(2);

        assertThat(c.controlledShutdown(3)).as("broker 3 stopped cleanly").isTrue();
        PartitionRegistration p = c.describe(TP);
        assertThat(p.isr()).containsExactly(1, 2);
        assertThat(p.elr()).containsExactly(3);
        c.awaitCondition("the leader applying ISR [1, 2]", WAIT_MS, () -> partition(1).isr().equals(List.of(1, 2)));

        assertThat(send("refused", -1).error()).isEqualTo(Errors.NOT_ENOUGH_REPLICAS);
        assertThat(log(1).logEndOffset()).as("nothing written by the refused acks=all").isEqualTo(2);
        assertThat(send("acks-1", 1)).isEqualTo(ok(2, 0));
        // HW-2: under min ISR the HW does not move, even for acks=1 records replicated to broker 2.
        c.awaitCondition("broker 2 holding offset 2", WAIT_MS, () -> log(2).logEndOffset() == 3);
        assertThat(partition(1).highWatermark()).isEqualTo(2);

        c.setMinInsyncReplicas(TOPIC, 2);
        c.awaitCondition("the leader applying min.insync.replicas=2", WAIT_MS, () -> partition(1).minInsyncReplicas() == 2);
        assertThat(send("acks-all", -1)).isEqualTo(ok(3, 0));
        assertThat(send("acks-1", 1)).isEqualTo(ok(4, 0));
        assertThat(values(log(1))).containsExactly("acks-all", "acks-1", "acks-1", "acks-all", "acks-1");
    }

    @Test
    @DisplayName("INV-1, LDR-1, ISR-8, CTL-3, INV-3: min ISR 2; the leader is killed; after the session timeout another ISR"
            + " member leads in leader epoch 1 from its LEO; every acknowledged acks=all record is read back; the old"
            + " leader restarts, rejoins the ISR and holds the same log")
    void inv1_ldr1_leaderFailoverKeepsEveryAcknowledgedRecord() {
        ReplicationCluster c = start(Settings.FAST, Map.of("min.insync.replicas", "2"));
        List<String> acknowledged = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            assertThat(send("a-" + i, -1)).isEqualTo(ok(i, 0));
            acknowledged.add("a-" + i);
        }
        c.halt(1);
        int leader = awaitLeaderAmong(Set.of(2, 3));
        PartitionRegistration p = c.describe(TP);
        assertThat(p.leaderEpoch()).isEqualTo(1);
        assertThat(p.isr()).doesNotContain(1);
        // LDR-1: the new leader's epoch starts at its LEO.
        assertThat(partition(leader).leaderEpochStartOffset()).isEqualTo(10);
        assertThat(log(leader).leaderEpochCache().epochEntries()).containsExactly(new EpochEntry(0, 0), new EpochEntry(1, 10));
        for (int i = 0; i < 5; i++) {
            assertThat(send("b-" + i, -1)).isEqualTo(ok(10 + i, 1));
            acknowledged.add("b-" + i);
        }
        assertThat(c.consume(TP, 0)).containsExactlyElementsOf(acknowledged);

        c.restart(1);
        awaitBackInIsr(1);
        awaitEveryReplicaAt(15);
        for (int id : c.brokerIds()) {
            assertThat(values(log(id))).as("broker %d's log", id).containsExactlyElementsOf(acknowledged);
        }
    }

    @Test
    @DisplayName("LDR-4, ISR-7, LOG-9: the leader's controlled shutdown moves leadership and ISR membership away before it"
            + " stops, leaves .kafka_cleanshutdown; acks=all goes on at the new leader; the broker restarts and rejoins")
    void ldr4_controlledShutdownMovesLeadership() {
        ReplicationCluster c = start(Settings.FAST, Map.of("min.insync.replicas", "2"));
        for (int i = 0; i < 5; i++) {
            assertThat(send("a-" + i, -1)).isEqualTo(ok(i, 0));
        }
        assertThat(c.controlledShutdown(1)).as("broker 1 stopped cleanly").isTrue();
        assertThat(Files.exists(c.logDir(1).resolve(CleanShutdownFile.FILE_NAME))).isTrue();
        PartitionRegistration p = c.describe(TP);
        // Already moved when the broker stopped: no session timeout was waited for.
        assertThat(p.leader()).isIn(2, 3);
        assertThat(p.leaderEpoch()).isEqualTo(1);
        assertThat(p.isr()).doesNotContain(1).hasSize(2);
        int leader = awaitLeaderAmong(Set.of(2, 3));
        assertThat(send("b-0", -1)).isEqualTo(ok(5, 1));

        c.restart(1);
        awaitBackInIsr(1);
        awaitEveryReplicaAt(6);
        assertThat(c.describe(TP).leader()).isEqualTo(leader);
    }

    @Test
    @DisplayName("SCN-3, FOL-8, FET-3, LDR-1, INV-2: acks=1 records only the old leader held (its followers paused) are"
            + " truncated away when it comes back under a new leader epoch; every log and epoch cache becomes the"
            + " leader's (0 0, 1 10); a consumer sees ok-* and new-*, never lost-*")
    void scn3_fol8_divergentLogTruncatedOnNewLeaderEpoch() {
        // A longer lag: no shrink while the followers are paused, so both stay electable (as in the seed, 10 s).
        ReplicationCluster c = start(Settings.FAST.withLagTimeMaxMs(3_000), Map.of());
        List<String> expected = new ArrayList<>();
        for (int i = 1; i <= 10; i++) {
            assertThat(send("ok-" + i, -1)).isEqualTo(ok(i - 1, 0));
            expected.add("ok-" + i);
        }
        awaitEveryReplicaAt(10);
        for (int id : c.brokerIds()) {
            assertThat(log(id).leaderEpochCache().epochEntries()).containsExactly(new EpochEntry(0, 0));
        }
        c.pause(2);
        long pausedAtMs = c.nowMs();
        c.pause(3);
        // The seed waits 1 s here: a fetch of 2 or 3 parked at the leader would carry lost-* to the paused broker
        // (held, then read on resume, as a stopped process reads its socket). Past replica.fetch.wait.max.ms every
        // fetch parked before the pause has been answered empty, and no new one comes from a paused broker.
        c.awaitCondition("no fetch parked at broker 1, 1 s after the pause", WAIT_MS,
                () -> c.nowMs() - pausedAtMs >= 1_000 && c.parkedFetches(1) == 0);
        for (int i = 1; i <= 5; i++) {
            assertThat(send("lost-" + i, 1)).isEqualTo(ok(9 + i, 0));
        }
        c.halt(1);
        c.resume(2);
        c.resume(3);

        assertThat(awaitLeaderAmong(Set.of(2, 3))).as("ISR-8: the first of the ISR in assignment order").isEqualTo(2);
        assertThat(c.describe(TP).leaderEpoch()).isEqualTo(1);
        for (int i = 1; i <= 3; i++) {
            assertThat(send("new-" + i, -1)).isEqualTo(ok(9 + i, 1));
            expected.add("new-" + i);
        }
        List<EpochEntry> cache = List.of(new EpochEntry(0, 0), new EpochEntry(1, 10));
        c.awaitCondition("broker 3's epoch cache " + cache, WAIT_MS, () -> log(3).leaderEpochCache().epochEntries().equals(cache));
        assertThat(log(2).leaderEpochCache().epochEntries()).isEqualTo(cache);

        c.restart(1);
        c.awaitCondition("broker 1's log the leader's", WAIT_MS, () ->
                c.logOn(1, TP).map(l -> valuesWhileChanging(l).equals(expected)).orElse(false));
        c.awaitCondition("ISR 1,2,3 again", WAIT_MS, () -> Set.copyOf(c.describe(TP).isr()).equals(Set.of(1, 2, 3)));
        awaitEveryReplicaAt(13);
        for (int id : c.brokerIds()) {
            assertThat(values(log(id))).as("broker %d's log", id).containsExactlyElementsOf(expected);
            assertThat(log(id).leaderEpochCache().epochEntries()).as("broker %d's epoch cache", id).isEqualTo(cache);
        }
        assertThat(c.consume(TP, 0)).containsExactlyElementsOf(expected).noneMatch(v -> v.startsWith("lost-"));
    }

    @Test
    @DisplayName("ISR-8, CTL-6, ISR-2, FOL-8: unclean.leader.election.enable; broker 3, down, leaves the ISR and misses an"
            + " acknowledged record; both ISR members die and broker 3 comes back; it is elected uncleanly (ISR 3 alone), reports"
            + " the partition recovered, and the old replicas restart, truncate to its log and rejoin the ISR; acks=all works"
            + " again and every log converges (the missed record is lost: unclean election is outside INV-1)")
    void ctl6_uncleanElectionRecoversAndTheIsrRegrows() {
        ReplicationCluster c = start(Settings.FAST, Map.of("min.insync.replicas", "2", "unclean.leader.election.enable", "true"));
        assertThat(send("both", -1)).isEqualTo(ok(0, 0));
        awaitEveryReplicaAt(1);
        // Down rather than cut off: a frozen TCP link would still deliver the record once thawed.
        c.halt(3);
        // Acknowledged once the leader shrank the ISR to 1, 2 (ISR-1): min ISR 2 still holds.
        assertThat(send("missed-by-3", -1)).isEqualTo(ok(1, 0));
        assertThat(c.describe(TP).isr()).containsExactly(1, 2);

        c.halt(1);
        c.halt(2);
        c.restart(3);
        // ISR-8: once 1 and 2 are fenced, the only active replica is elected although it is not in the ISR.
        assertThat(awaitLeaderAmong(Set.of(3))).isEqualTo(3);
        PartitionRegistration elected = c.describe(TP);
        assertThat(elected.isr()).containsExactly(3);
        assertThat(elected.elr()).isEmpty();
        // CTL-6: the new leader reports the recovery and learns that it was committed.
        c.awaitCondition("the controller leaving RECOVERING", WAIT_MS, () -> !c.describe(TP).recovering());
        c.awaitCondition("the leader leaving RECOVERING", WAIT_MS, () -> !partition(3).isRecovering());
        assertThat(log(3).logEndOffset()).isEqualTo(1);

        c.restart(1);
        c.restart(2);
        c.awaitCondition("the ISR regrowing to 1,2,3", WAIT_MS, () -> Set.copyOf(c.describe(TP).isr()).equals(Set.of(1, 2, 3)));
        PartitionRegistration recovered = c.describe(TP);
        assertThat(recovered.recovering()).isFalse();
        assertThat(recovered.leader()).isEqualTo(3);
        assertThat(send("after-recovery", -1)).isEqualTo(ok(1, recovered.leaderEpoch()));
        awaitEveryReplicaAt(2);
        for (int id : c.brokerIds()) {
            assertThat(values(log(id))).as("broker %d's log", id).containsExactly("both", "after-recovery");
        }
        assertThat(c.consume(TP, 0)).containsExactly("both", "after-recovery");
    }

    @Test
    @DisplayName("LDR-5, ISR-7, LOG-9: min ISR 3; after a controlled shutdown broker 3 is in the ELR and a clean restart keeps"
            + " it there (it sent its previous broker epoch); after kill -9 and a restart it is out of the ISR and, having"
            + " restarted uncleanly, out of the ELR too; each time it rejoins the ISR by ISR-2 once it fetches again")
    void ldr5_cleanRestartKeepsTheElrAnUncleanOneLeavesIt() {
        ReplicationCluster c = start(Settings.FAST, Map.of("min.insync.replicas", "3"));
        c.awaitCondition("the leader applying min.insync.replicas=3", WAIT_MS, () -> partition(1).minInsyncReplicas() == 3);
        assertThat(send("a-0", -1)).isEqualTo(ok(0, 0));
        awaitEveryReplicaAt(1);

        assertThat(c.controlledShutdown(3)).as("broker 3 stopped cleanly").isTrue();
        assertThat(c.describe(TP).elr()).containsExactly(3);
        c.cutFetches(3); // so that it cannot rejoin the ISR before the controller's view is read
        c.restart(3);
        PartitionRegistration afterClean = c.describe(TP);
        assertThat(afterClean.isr()).containsExactly(1, 2);
        assertThat(afterClean.elr()).as("a clean restart keeps the ELR").containsExactly(3);
        c.healFetches(3);
        c.awaitCondition("broker 3 back in the ISR, as the leader has it", WAIT_MS,
                () -> Set.copyOf(partition(1).isr()).equals(Set.of(1, 2, 3)));
        assertThat(c.describe(TP).elr()).isEmpty();
        assertThat(send("a-1", -1)).isEqualTo(ok(1, 0));

        c.halt(3);
        assertThat(Files.exists(c.logDir(3).resolve(CleanShutdownFile.FILE_NAME))).isFalse();
        c.cutFetches(3);
        c.restart(3);
        PartitionRegistration afterUnclean = c.describe(TP);
        assertThat(afterUnclean.isr()).as("a new incarnation leaves the ISR").containsExactly(1, 2);
        assertThat(afterUnclean.elr()).as("an unclean restart leaves the ELR too").doesNotContain(3);
        assertThat(afterUnclean.leader()).isEqualTo(1);
        c.healFetches(3);
        c.awaitCondition("broker 3 back in the ISR, as the leader has it", WAIT_MS,
                () -> Set.copyOf(partition(1).isr()).equals(Set.of(1, 2, 3)));
        assertThat(send("a-2", -1)).isEqualTo(ok(2, 0));
        awaitEveryReplicaAt(3);
        assertThat(values(log(3))).containsExactly("a-0", "a-1", "a-2");
    }

    @Test
    @DisplayName("FET-3, FOL-6, LOG-10: a follower down while the leader deleted records before offset 8 comes back with LEO 3,"
            + " below the leader's log start; the leader answers OFFSET_OUT_OF_RANGE and the follower starts its log"
            + " afresh at 8, then catches up and rejoins the ISR; the other follower takes the new log start from fetches")
    void fet3_followerBelowTheLeadersLogStartStartsAfreshThere() {
        ReplicationCluster c = start(Settings.FAST, Map.of());
        List<String> written = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            assertThat(send("r-" + i, -1)).isEqualTo(ok(i, 0));
            written.add("r-" + i);
        }
        awaitEveryReplicaAt(3);
        c.halt(3);
        c.awaitCondition("broker 3 out of the ISR", WAIT_MS, () -> c.describe(TP).isr().equals(List.of(1, 2)));
        for (int i = 3; i < 10; i++) {
            assertThat(send("r-" + i, -1)).isEqualTo(ok(i, 0));
            written.add("r-" + i);
        }
        // LOG-10: there is no DeleteRecords request; an embedder calls it on the leader's log, up to the HW.
        assertThat(log(1).highWatermark()).isEqualTo(10);
        log(1).deleteRecordsBefore(8);
        assertThat(log(1).logStartOffset()).isEqualTo(8);
        c.awaitCondition("broker 2 taking log start 8 from the leader", WAIT_MS, () -> log(2).logStartOffset() == 8);

        c.restart(3);
        c.awaitCondition("broker 3's log starting at 8 and ending at 10", WAIT_MS, () -> c.logOn(3, TP)
                .map(l -> l.logStartOffset() == 8 && l.logEndOffset() == 10).orElse(false));
        awaitBackInIsr(3);
        awaitEveryReplicaAt(10);
        List<String> kept = written.subList(8, 10);
        for (int id : c.brokerIds()) {
            assertThat(values(log(id))).as("broker %d's log from its log start", id).containsExactlyElementsOf(kept);
        }
        assertThat(c.consume(TP, 8)).containsExactlyElementsOf(kept);
    }

    @Test
    @DisplayName("INV-1, ISR-8, LDR-2, FOL-8, INV-3: min ISR 2; a network partition isolates the leader with an acks=all record"
            + " in flight; that record is never acknowledged, the controller fences the leader and elects another ISR member"
            + " in epoch 1, acks=all goes on there; the old leader rejoins, drops what only it held and converges; every"
            + " acknowledged record is on every replica")
    void inv1_anIsolatedLeaderLosesNoAcknowledgedRecord() {
        ReplicationCluster c = start(Settings.FAST, Map.of("min.insync.replicas", "2"));
        List<String> acknowledged = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            assertThat(send("a-" + i, -1)).isEqualTo(ok(i, 0));
            acknowledged.add("a-" + i);
        }
        awaitEveryReplicaAt(5);

        c.isolate(1);
        CompletableFuture<ProduceOutcome> inFlight = c.produce(TP, "during", -1, 3_000);
        int leader = awaitLeaderAmong(Set.of(2, 3));
        PartitionRegistration p = c.describe(TP);
        assertThat(p.leaderEpoch()).isEqualTo(1);
        assertThat(p.isr()).doesNotContain(1);
        for (int i = 0; i < 5; i++) {
            assertThat(send("b-" + i, -1)).isEqualTo(ok(5 + i, 1));
            acknowledged.add("b-" + i);
        }
        // Nobody could fetch it from the isolated leader, and its ISR shrink could not reach the controller.
        assertThat(c.await(inFlight, REQUEST_TIMEOUT_MS).error()).isNotEqualTo(Errors.NONE);

        c.rejoin(1);
        awaitBackInIsr(1);
        awaitEveryReplicaAt(10);
        assertThat(c.describe(TP).leader()).isEqualTo(leader);
        assertEveryReplicaAndAConsumerHold(acknowledged);
    }

    @Test
    @DisplayName("CTL-3, CTL-1, INV-1: the controller is killed while records are produced; acks=all goes on at the leader for"
            + " longer than a session timeout; the restarted controller rebuilds the partition from its log and fences"
            + " nobody (a fresh session timeout for every broker): leader, epochs and ISR unchanged, every record kept")
    void ctl3_controllerRestartWhileProducingFencesNobody() {
        ReplicationCluster c = start(Settings.FAST, Map.of("min.insync.replicas", "2"));
        List<String> acknowledged = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            assertThat(send("a-" + i, -1)).isEqualTo(ok(i, 0));
            acknowledged.add("a-" + i);
        }
        awaitEveryReplicaAt(3);
        PartitionRegistration before = c.describe(TP);

        c.haltController();
        long haltedAtMs = c.nowMs();
        int i = 0;
        // The data path needs no controller: no ISR change is due while every follower keeps up.
        while (c.nowMs() - haltedAtMs < Settings.FAST.sessionTimeoutMs()) {
            assertThat(send("b-" + i, -1)).isEqualTo(ok(3 + i, 0));
            acknowledged.add("b-" + i);
            i++;
            c.runFor(200);
        }
        c.restartController();
        long restartedAtMs = c.nowMs();
        assertThat(c.describe(TP)).as("CTL-1: rebuilt from the log").isEqualTo(before);
        assertThat(send("c-0", -1)).isEqualTo(ok(acknowledged.size(), 0));
        acknowledged.add("c-0");
        // CTL-3: every broker's last heartbeat is more than a session timeout old; a controller that did not give
        // each a fresh session timeout would fence them as it starts. 1.5 s covers the brokers' reconnect backoff.
        c.runFor(Math.max(0, restartedAtMs + 1_500 - c.nowMs()));
        PartitionRegistration after = c.describe(TP);
        assertThat(after.leader()).isEqualTo(1);
        assertThat(after.leaderEpoch()).isEqualTo(before.leaderEpoch());
        assertThat(after.isr()).containsExactly(1, 2, 3);
        assertThat(after.partitionEpoch()).as("no ISR change: nobody was fenced").isEqualTo(before.partitionEpoch());
        awaitEveryReplicaAt(acknowledged.size());
        assertThat(c.consume(TP, 0)).containsExactlyElementsOf(acknowledged);
    }

    @Test
    @DisplayName("PRO-3, LDR-2, ISR-8, INV-1, FOL-8: min ISR 2; an acks=all record waits at the leader while both followers are"
            + " cut off; the leader's controlled shutdown elects broker 2 in epoch 1; the waiting call ends"
            + " NOT_LEADER_OR_FOLLOWER, never NONE; acks=all goes on at the new leader, and the record the old leader alone"
            + " held is dropped when it returns; every acknowledged record is on every replica")
    void pro3_acksAllInFlightEndsNotLeaderWhenLeadershipMoves() {
        // A lag bound far above the few milliseconds from the cut to the controlled shutdown, so that on real time a
        // stalled machine cannot shrink the ISR first (the election below needs broker 2 in it).
        ReplicationCluster c = start(Settings.FAST.withLagTimeMaxMs(10_000), Map.of("min.insync.replicas", "2"));
        List<String> acknowledged = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            assertThat(send("a-" + i, -1)).isEqualTo(ok(i, 0));
            acknowledged.add("a-" + i);
        }
        awaitEveryReplicaAt(3);
        c.cutFetches(2);
        c.cutFetches(3);
        CompletableFuture<ProduceOutcome> waiting = c.produce(TP, "waiting", -1, REQUEST_TIMEOUT_MS);
        c.awaitCondition("the record in the leader's log", WAIT_MS, () -> log(1).logEndOffset() == 4);
        assertThat(partition(1).highWatermark()).isEqualTo(3);
        // Within replica.lag.time.max.ms of the cut: the ISR is still 1, 2, 3, so broker 2 is electable.
        assertThat(c.controlledShutdown(1)).isTrue();
        assertThat(c.await(waiting, REQUEST_TIMEOUT_MS * 2).error()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
        PartitionRegistration p = c.describe(TP);
        assertThat(p.leader()).isEqualTo(2);
        assertThat(p.leaderEpoch()).isEqualTo(1);

        c.healFetches(2);
        c.healFetches(3);
        c.awaitCondition("the ISR 2, 3 at the new leader", WAIT_MS, () -> Set.copyOf(partition(2).isr()).equals(Set.of(2, 3)));
        assertThat(send("b-0", -1)).isEqualTo(ok(3, 1));
        acknowledged.add("b-0");
        c.restart(1);
        awaitBackInIsr(1);
        awaitEveryReplicaAt(4);
        assertEveryReplicaAndAConsumerHold(acknowledged);
    }

    // ==================================================================================== helpers

    private ProduceOutcome send(String value, int acks) {
        return cluster.await(cluster.produce(TP, value, acks, REQUEST_TIMEOUT_MS), REQUEST_TIMEOUT_MS * 2);
    }

    private static ProduceOutcome ok(long offset, int leaderEpoch) {
        return new ProduceOutcome(Errors.NONE, offset, leaderEpoch);
    }

    private Partition partition(int brokerId) {
        return cluster.partitionOn(brokerId, TP)
                .orElseThrow(() -> new AssertionError("Broker " + brokerId + " is down or does not host " + TP));
    }

    private Log log(int brokerId) {
        return cluster.logOn(brokerId, TP)
                .orElseThrow(() -> new AssertionError("Broker " + brokerId + " is down or has no log of " + TP));
    }

    /** Waits until every broker runs with LEO and HW {@code offset}. */
    /** Waits until the controller has broker {@code id} back in a full ISR (1, 2, 3). */
    private void awaitBackInIsr(int id) {
        cluster.awaitCondition("broker " + id + " back in the ISR", WAIT_MS,
                () -> Set.copyOf(cluster.describe(TP).isr()).equals(Set.of(1, 2, 3)));
    }

    /** Every broker's log holds exactly {@code values} from offset 0, and a consumer reads exactly them. */
    private void assertEveryReplicaAndAConsumerHold(List<String> values) {
        for (int id : cluster.brokerIds()) {
            assertThat(values(log(id))).as("broker %d's log", id).containsExactlyElementsOf(values);
        }
        assertThat(cluster.consume(TP, 0)).containsExactlyElementsOf(values);
    }

    private void awaitEveryReplicaAt(long offset) {
        cluster.awaitCondition("every replica at LEO and HW " + offset, WAIT_MS, () -> cluster.brokerIds().stream()
                .allMatch(id -> cluster.logOn(id, TP).map(l -> l.logEndOffset() == offset && l.highWatermark() == offset)
                        .orElse(false)));
    }

    /** Waits until the controller names a leader among {@code candidates} that acts as leader of that epoch. */
    private int awaitLeaderAmong(Set<Integer> candidates) {
        int[] leader = {-1};
        cluster.awaitCondition("a leader among " + candidates, WAIT_MS, () -> {
            PartitionRegistration p = cluster.describe(TP);
            leader[0] = p.leader();
            return candidates.contains(p.leader()) && cluster.partitionOn(p.leader(), TP)
                    .map(part -> part.isLeader() && part.leaderEpoch() == p.leaderEpoch()).orElse(false);
        });
        return leader[0];
    }

    /** The entry lines of a log directory's replication-offset-checkpoint (HW-5, LOG-9); empty while it has none. */
    private static List<String> checkpointLines(Path logDir) {
        try {
            return Files.readAllLines(logDir.resolve(OffsetCheckpointFile.REPLICATION_OFFSET_CHECKPOINT));
        } catch (java.io.IOException e) {
            return List.of(); // not written yet
        }
    }

    /**
     * {@link #values} of a log its broker may be truncating or appending to right now (a real-time
     * cluster): empty when the log changed under the read, so that a wait simply checks again.
     */
    private static List<String> valuesWhileChanging(Log log) {
        try {
            return values(log);
        } catch (AssertionError | RuntimeException e) {
            return List.of();
        }
    }

    /** Every record value of {@code log}, from its log start to its LEO. */
    static List<String> values(Log log) {
        List<String> out = new ArrayList<>();
        long offset = log.logStartOffset();
        long end = log.logEndOffset();
        while (offset < end) {
            long next = offset;
            for (RecordBatch batch : log.read(offset, 1024 * 1024, end).records().batches()) {
                for (Record r : batch.records()) {
                    out.add(NettyReplicationCluster.text(r.value()));
                }
                next = batch.nextOffset();
            }
            if (next == offset) {
                throw new AssertionError("No batch at offset " + offset + " of " + log.topicPartition() + " (LEO " + end + ")");
            }
            offset = next;
        }
        return out;
    }
}
