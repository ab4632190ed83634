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

package dev.insync.replication.core.server;

import dev.insync.replication.core.config.ReplicationConfig;
import dev.insync.replication.core.metadata.BrokerRegistration;
import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.core.produce.Acks;
import dev.insync.replication.core.replica.ReplicaState;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;

import static dev.insync.replication.core.server.TestCluster.records;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * FET-7 on the leader: fetch sessions over the live {@link ReplicaManager#fetch} path. Followers'
 * fetches are sent by hand here (broker 1 leads), except in the end-to-end tests, where real
 * fetchers replicate.
 */
class ReplicaManagerFetchSessionTest extends TestClusterCase {


    private static ReplicationConfig defaults() {
        return ReplicationConfig.builder().replicaLagTimeMaxMs(5000).fetchSessionsEnabled(true).build();
    }

    private Partition partition(int broker, TopicPartition tp) {
        return rm(broker).partition(tp).orElseThrow();
    }

    private static FetchRequest.PartitionData at(long offset) {
        return new FetchRequest.PartitionData(offset, 0, 1 << 20, OptionalInt.of(0), OptionalInt.empty());
    }

    /** A full fetch of follower {@code replicaId} that opens a session over {@code offsets}. */
    private static FetchRequest open(int replicaId, long brokerEpoch, int maxWaitMs, Map<TopicPartition, Long> offsets) {
        FetchRequest.Builder b = FetchRequest.follower(replicaId, brokerEpoch).maxWaitMs(maxWaitMs)
                .session(FetchRequest.NO_SESSION_ID, FetchRequest.INITIAL_EPOCH);
        offsets.forEach((tp, o) -> b.partition(tp, at(o)));
        return b.build();
    }

    private static FetchRequest incremental(int replicaId, long brokerEpoch, int sessionId, int epoch, int maxWaitMs,
                                            Map<TopicPartition, Long> named, List<TopicPartition> forgotten) {
        FetchRequest.Builder b = FetchRequest.follower(replicaId, brokerEpoch).maxWaitMs(maxWaitMs)
                .session(sessionId, epoch).forgotten(forgotten);
        named.forEach((tp, o) -> b.partition(tp, at(o)));
        return b.build();
    }

    private static Map<TopicPartition, Long> offsets(Object... tpAndOffset) {
        Map<TopicPartition, Long> m = new LinkedHashMap<>();
        for (int i = 0; i < tpAndOffset.length; i += 2) {
            m.put((TopicPartition) tpAndOffset[i], ((Number) tpAndOffset[i + 1]).longValue());
        }
        return m;
    }

    private static FetchResponse done(CompletableFuture<FetchResponse> f) {
        assertThat(f).isDone();
        return f.join();
    }

    /** Broker 1 leads REP0 and REP1 over {@code replicas}; follower 2 opened a session at offset 0 of both. */
    private int openSessionOfFollower2(List<Integer> replicas) {
        cluster(defaults(), 1);
        cluster.setPartition(REP0, replicas, replicas, 1, 0, 0);
        cluster.setPartition(REP1, replicas, replicas, 1, 0, 0);
        FetchResponse full = done(rm(1).fetch(open(2, 1L, 0, offsets(REP0, 0, REP1, 0))));
        assertThat(full.error()).isEqualTo(Errors.NONE);
        assertThat(full.sessionId()).isPositive();
        assertThat(full.partitions().keySet()).as("a full fetch answers every partition").containsExactly(REP0, REP1);
        return full.sessionId();
    }

    @Test
    @DisplayName("FET-7 an incremental fetch of caught-up partitions answers none of them and reads no log")
    void fet7IncrementalOmitsUnchangedPartitions() {
        int session = openSessionOfFollower2(List.of(1, 2));
        long reads = rm(1).partitionReads();
        for (int epoch = 1; epoch <= 3; epoch++) {
            FetchResponse r = done(rm(1).fetch(incremental(2, 1L, session, epoch, 0, Map.of(), List.of())));
            assertThat(r.error()).isEqualTo(Errors.NONE);
            assertThat(r.sessionId()).isEqualTo(session);
            assertThat(r.partitions()).as("nothing new in epoch %d", epoch).isEmpty();
        }
        assertThat(rm(1).partitionReads()).as("idle session partitions are not read").isEqualTo(reads);
        assertThat(rm(1).fetchSession(session).isIdle(REP0)).isTrue();
    }

    @Test
    @DisplayName("FET-7 FOL-5 an incremental answer carries records of the partition that got them, and later the HW"
            + " step of a partition it did not name, also when it was parked meanwhile")
    void fet7HighWatermarkChangeReported() {
        int session = openSessionOfFollower2(List.of(1, 2, 3));
        rm(1).produce(Map.of(REP0, records("a", "b")), Acks.LEADER, 30_000);

        FetchResponse withData = done(rm(1).fetch(incremental(2, 1L, session, 1, 0, Map.of(), List.of())));
        assertThat(withData.partitions().keySet()).containsExactly(REP0);
        assertThat(withData.partitions().get(REP0).records().batches()).hasSize(1);
        assertThat(withData.partitions().get(REP0).highWatermark()).isZero();

        FetchResponse acked = done(rm(1).fetch(incremental(2, 1L, session, 2, 0, offsets(REP0, 2), List.of())));
        assertThat(acked.partitions().keySet()).as("the named partition is answered").containsExactly(REP0);
        assertThat(acked.partitions().get(REP0).highWatermark()).as("follower 3 has not fetched").isZero();

        CompletableFuture<FetchResponse> parked = rm(1).fetch(incremental(2, 1L, session, 3, 500, Map.of(), List.of()));
        assertThat(parked).isNotDone();
        rm(1).fetch(new FetchRequest(3, 1L, 0, 1, 1 << 20, Map.of(REP0, at(2), REP1, at(0)))).join();
        assertThat(partition(1, REP0).highWatermark()).isEqualTo(2);
        assertThat(parked).as("an HW step does not wake a follower's fetch (FET-5)").isNotDone();
        cluster.run(500);
        FetchResponse expired = done(parked);
        assertThat(expired.partitions().keySet()).containsExactly(REP0);
        FetchResponse.PartitionData rep0 = expired.partitions().get(REP0);
        assertThat(rep0.highWatermark()).isEqualTo(2);
        assertThat(rep0.records().sizeInBytes()).isZero();

        FetchResponse after = done(rm(1).fetch(incremental(2, 1L, session, 4, 0, Map.of(), List.of())));
        assertThat(after.partitions()).as("the HW was told; nothing new since").isEmpty();
    }

    @Test
    @DisplayName("FET-7 LOG-10 a leader log-start move of an idle partition is reported by the next incremental answer")
    void fet7LogStartMoveReported() {
        int session = openSessionOfFollower2(List.of(1, 2));
        rm(1).produce(Map.of(REP0, records("a", "b", "c")), Acks.LEADER, 30_000);
        assertThat(done(rm(1).fetch(incremental(2, 1L, session, 1, 0, Map.of(), List.of()))).partitions())
                .containsOnlyKeys(REP0);
        FetchResponse acked = done(rm(1).fetch(incremental(2, 1L, session, 2, 0, offsets(REP0, 3), List.of())));
        assertThat(acked.partitions().get(REP0).highWatermark()).isEqualTo(3);
        assertThat(done(rm(1).fetch(incremental(2, 1L, session, 3, 0, Map.of(), List.of()))).partitions()).isEmpty();

        rm(1).logDirectory().log(REP0).orElseThrow().deleteRecordsBefore(2);
        FetchResponse moved = done(rm(1).fetch(incremental(2, 1L, session, 4, 0, Map.of(), List.of())));
        assertThat(moved.partitions().keySet()).containsExactly(REP0);
        assertThat(moved.partitions().get(REP0).logStartOffset()).isEqualTo(2);
        assertThat(moved.partitions().get(REP0).records().sizeInBytes()).isZero();
    }

    @Test
    @DisplayName("FET-7 FET-5 a parked incremental fetch is woken by an append to any one of its partitions and answers that one")
    void fet7ParkedFetchWokenByDataOnOnePartition() {
        int session = openSessionOfFollower2(List.of(1, 2));
        CompletableFuture<FetchResponse> parked = rm(1).fetch(incremental(2, 1L, session, 1, 500, Map.of(), List.of()));
        assertThat(parked).isNotDone();
        assertThat(rm(1).pendingFetchCount()).isEqualTo(1);

        rm(1).produce(Map.of(REP1, records("x")), Acks.LEADER, 30_000);
        FetchResponse r = done(parked);
        assertThat(r.partitions().keySet()).containsExactly(REP1);
        assertThat(r.partitions().get(REP1).records().batches()).hasSize(1);
        assertThat(r.partitions().get(REP1).logEndOffset()).isEqualTo(1);
        assertThat(rm(1).pendingFetchCount()).isZero();
    }

    @Test
    @DisplayName("FET-7 FET-2 a leader move or a removed partition is answered with its error, at once for a parked fetch,"
            + " and again on every later fetch")
    void fet7LeaderMoveAnsweredWithError() {
        int session = openSessionOfFollower2(List.of(1, 2));
        CompletableFuture<FetchResponse> parked = rm(1).fetch(incremental(2, 1L, session, 1, 500, Map.of(), List.of()));
        assertThat(parked).isNotDone();

        cluster.setPartition(REP0, List.of(1, 2), List.of(1, 2), 2, 1, 1); // broker 2 leads now
        FetchResponse moved = done(parked);
        assertThat(moved.partitions().keySet()).containsExactly(REP0);
        assertThat(moved.partitions().get(REP0).error()).isEqualTo(Errors.FENCED_LEADER_EPOCH);

        FetchResponse again = done(rm(1).fetch(incremental(2, 1L, session, 2, 0, Map.of(), List.of())));
        assertThat(again.partitions().keySet()).containsExactly(REP0);
        assertThat(again.partitions().get(REP0).error()).isEqualTo(Errors.FENCED_LEADER_EPOCH);

        cluster.setPartition(REP1, List.of(2, 3), List.of(2, 3), 2, 1, 1); // broker 1 no longer hosts REP1
        FetchResponse removed = done(rm(1).fetch(incremental(2, 1L, session, 3, 500, Map.of(), List.of(REP0))));
        assertThat(removed.partitions().keySet()).containsExactly(REP1);
        assertThat(removed.partitions().get(REP1).error()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
    }

    @Test
    @DisplayName("FET-7 session errors: an unknown id, another follower's session or broker epoch is FETCH_SESSION_ID_NOT_FOUND;"
            + " a wrong epoch is INVALID_FETCH_SESSION_EPOCH and changes nothing")
    void fet7SessionErrors() {
        int session = openSessionOfFollower2(List.of(1, 2, 3));
        assertThat(done(rm(1).fetch(incremental(2, 1L, session + 1, 1, 0, Map.of(), List.of()))).error())
                .isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND);
        assertThat(done(rm(1).fetch(incremental(3, 1L, session, 1, 0, Map.of(), List.of()))).error())
                .as("another follower").isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND);
        assertThat(done(rm(1).fetch(incremental(2, 2L, session, 1, 0, Map.of(), List.of()))).error())
                .as("another broker epoch").isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND);
        FetchResponse wrongEpoch = done(rm(1).fetch(incremental(2, 1L, session, 2, 0, offsets(REP0, 5), List.of())));
        assertThat(wrongEpoch.error()).isEqualTo(Errors.INVALID_FETCH_SESSION_EPOCH);
        assertThat(wrongEpoch.partitions()).isEmpty();
        FetchResponse right = done(rm(1).fetch(incremental(2, 1L, session, 1, 0, Map.of(), List.of())));
        assertThat(right.error()).isEqualTo(Errors.NONE);
        assertThat(right.partitions()).as("the refused fetch changed nothing").isEmpty();
    }

    @Test
    @DisplayName("FET-7 FET-2 a restarted follower (newer registered broker epoch) cannot use its old incarnation's session")
    void fet7RestartedFollowerCannotUseOldSession() {
        cluster(defaults(), 1);
        cluster.publish(List.of(new BrokerRegistration(2, 5L, false, false, List.of())), List.of());
        cluster.setPartition(REP0, List.of(1, 2), List.of(1, 2), 1, 0, 0);
        int session = done(rm(1).fetch(open(2, 5L, 0, offsets(REP0, 0)))).sessionId();
        assertThat(session).isPositive();
        cluster.publish(List.of(new BrokerRegistration(2, 6L, false, false, List.of())), List.of());
        assertThat(done(rm(1).fetch(incremental(2, 5L, session, 1, 0, Map.of(), List.of()))).error())
                .as("the old incarnation").isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND);
        assertThat(done(rm(1).fetch(incremental(2, 6L, session, 1, 0, Map.of(), List.of()))).error())
                .as("the new incarnation with the old id").isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND);
        assertThat(rm(1).fetchSession(session)).isNull();
    }

    @Test
    @DisplayName("FET-7 FET-1 consumers fetch without a session: a consumer asking for one is answered in full with id 0;"
            + " a follower closing its session (epoch -1) is answered in full without one")
    void fet7ConsumersAndClosingAreSessionless() {
        int session = openSessionOfFollower2(List.of(1, 2));
        rm(1).produce(Map.of(REP0, records("a")), Acks.LEADER, 30_000);
        FetchRequest consumer = FetchRequest.consumer().session(FetchRequest.NO_SESSION_ID, FetchRequest.INITIAL_EPOCH)
                .partition(REP0, FetchRequest.PartitionData.at(0, 1 << 20)).build();
        FetchResponse c = done(rm(1).fetch(consumer));
        assertThat(c.sessionId()).isEqualTo(FetchRequest.NO_SESSION_ID);
        assertThat(c.partitions().keySet()).containsExactly(REP0);
        assertThat(rm(1).fetchSessionCount()).isEqualTo(1);

        FetchRequest close = FetchRequest.follower(2, 1L).session(session, FetchRequest.FINAL_EPOCH)
                .partition(REP0, at(0)).partition(REP1, at(0)).build();
        FetchResponse closed = done(rm(1).fetch(close));
        assertThat(closed.sessionId()).isEqualTo(FetchRequest.NO_SESSION_ID);
        assertThat(closed.partitions().keySet()).containsExactly(REP0, REP1);
        assertThat(rm(1).fetchSessionCount()).isZero();
    }

    @Test
    @DisplayName("FET-7 FET-4 ISR-1 the fetches that skipped an idle partition are recorded before the leader's LEO moves,"
            + " so a follower idle for longer than replica.lag.time.max.ms stays in the ISR after the next append")
    void fet7IdleFetchesRecordedBeforeTheLeoMoves() {
        int session = openSessionOfFollower2(List.of(1, 2));
        for (int epoch = 1; epoch <= 20; epoch++) {
            cluster.run(1000);
            assertThat(done(rm(1).fetch(incremental(2, 1L, session, epoch, 0, Map.of(), List.of()))).partitions()).isEmpty();
        }
        long now = cluster.scheduler.time().milliseconds();
        ReplicaState before = partition(1, REP0).remoteReplicaState(2).orElseThrow();
        assertThat(before.lastFetchTimeMs()).as("skipped fetches are not recorded one by one").isLessThan(now);

        rm(1).produce(Map.of(REP0, records("x")), Acks.LEADER, 30_000);
        ReplicaState recorded = partition(1, REP0).remoteReplicaState(2).orElseThrow();
        assertThat(recorded.lastFetchTimeMs()).isEqualTo(now);
        assertThat(recorded.lastCaughtUpTimeMs()).isEqualTo(now);
        assertThat(recorded.logEndOffset()).isZero();

        cluster.run(2000); // the follower does not fetch: 2 s behind, within the 5 s lag time
        rm(1).maybeShrinkIsr();
        assertThat(partition(1, REP0).isr()).containsExactly(1, 2);
        assertThat(cluster.alterRequests).isEmpty();
    }

    @Test
    @DisplayName("FET-7 LDR-2 real fetchers replicate in a session: idle rounds read no leader log, data and HW still arrive")
    void fet7FetchersUseSessions() {
        cluster(defaults(), 1, 2);
        cluster.setPartition(REP0, List.of(1, 2), List.of(1, 2), 1, 0, 0);
        cluster.setPartition(REP1, List.of(1, 2), List.of(1, 2), 1, 0, 0);
        cluster.run(0);
        rm(1).produce(Map.of(REP0, records("a", "b")), Acks.ALL, 30_000);
        cluster.run(1000);
        assertThat(rm(1).fetchSessionCount()).isEqualTo(1);
        long reads = rm(1).partitionReads();
        cluster.run(5000); // ten idle rounds of 500 ms
        assertThat(rm(1).partitionReads()).as("idle session partitions are not read").isEqualTo(reads);

        rm(1).produce(Map.of(REP1, records("c")), Acks.ALL, 30_000);
        cluster.run(1000);
        assertThat(partition(2, REP0).logEndOffset()).isEqualTo(2);
        assertThat(partition(2, REP0).highWatermark()).isEqualTo(2);
        assertThat(partition(2, REP1).logEndOffset()).isEqualTo(1);
        assertThat(partition(2, REP1).highWatermark()).isEqualTo(1);
        assertThat(rm(1).partitionReads() - reads).as("only REP1 was read").isLessThanOrEqualTo(4);
    }

    @Test
    @DisplayName("FET-7 insync.fetch.sessions.enabled=false: no session is opened and replication works as before")
    void fet7SessionsOff() {
        cluster(ReplicationConfig.builder().replicaLagTimeMaxMs(5000).fetchSessionsEnabled(false).build(), 1, 2);
        cluster.setPartition(REP0, List.of(1, 2), List.of(1, 2), 1, 0, 0);
        cluster.run(0);
        rm(1).produce(Map.of(REP0, records("a", "b")), Acks.ALL, 30_000);
        cluster.run(1000);
        assertThat(rm(1).fetchSessionCount()).isZero();
        assertThat(partition(2, REP0).highWatermark()).isEqualTo(2);
        assertThat(done(rm(1).fetch(open(3, 1L, 0, offsets(REP0, 0)))).sessionId())
                .as("a leader with sessions off declines").isEqualTo(FetchRequest.NO_SESSION_ID);
    }

    private List<TestCluster.DeliveredFetch> fetchesOf(int replicaId) {
        synchronized (cluster.deliveredFetches) {
            return cluster.deliveredFetches.stream().filter(f -> f.replicaId() == replicaId).toList();
        }
    }

    @Test
    @DisplayName("ISR-1 FET-7 FET-4 a follower frozen right after its last fetch of an idle session partition leaves the ISR"
            + " no sooner than replica.lag.time.max.ms after that fetch, and within 1.5 times it; its idle rounds stay"
            + " incremental")
    void isr1Fet7FrozenIdleFollowerLeavesIsrNoSoonerThanLagAfterItsLastFetch() {
        long lagMs = 1000;
        cluster(ReplicationConfig.builder().replicaLagTimeMaxMs(lagMs).fetchSessionsEnabled(true).build(), 1, 2, 3);
        cluster.setPartition(REP0, List.of(1, 2, 3), List.of(1, 2, 3), 1, 0, 0);
        cluster.run(0);
        rm(1).produce(Map.of(REP0, records("a", "b")), Acks.ALL, 30_000);
        cluster.run(2000);
        assertThat(partition(3, REP0).highWatermark()).isEqualTo(2);
        int fetchesBefore = fetchesOf(3).size();
        cluster.run(3000); // idle rounds: the partition is not read, each fetch is an empty incremental one
        List<TestCluster.DeliveredFetch> idle = fetchesOf(3).subList(fetchesBefore, fetchesOf(3).size());
        assertThat(idle).as("idle rounds of follower 3").hasSizeGreaterThan(3)
                .allSatisfy(f -> assertThat(f.incremental()).as("an idle session never falls back to full fetches").isTrue());

        // Freeze follower 3 right after the leader accepted one of its fetches: its last caught-up fetch.
        int seen = fetchesOf(3).size();
        for (int i = 0; i < 2000 && fetchesOf(3).size() == seen; i++) {
            cluster.run(1);
        }
        long lastFetchMs = fetchesOf(3).get(fetchesOf(3).size() - 1).atMs();
        cluster.unreachable.add(3);
        rm(1).produce(Map.of(REP0, records("c")), Acks.LEADER, 30_000);
        assertThat(partition(1, REP0).remoteReplicaState(3).orElseThrow().lastCaughtUpTimeMs())
                .as("FET-4: the skipped fetch is recorded with its own time before the LEO moves").isEqualTo(lastFetchMs);

        long shrunkAtMs = -1;
        for (int i = 0; i < 3000 && shrunkAtMs < 0; i++) {
            cluster.run(1);
            if (cluster.alterRequests.stream().flatMap(r -> r.items().stream())
                    .anyMatch(item -> item.topicPartition().equals(REP0) && !item.newIsrIds().contains(3))) {
                shrunkAtMs = cluster.scheduler.time().milliseconds();
            }
        }
        assertThat(shrunkAtMs).as("the shrink was proposed").isPositive();
        assertThat(shrunkAtMs - lastFetchMs).as("ISR-1: lag is time since the last caught-up fetch")
                .isGreaterThan(lagMs).isLessThanOrEqualTo(lagMs * 3 / 2 + 1);
    }

    @Test
    @DisplayName("FET-7 an idle round of a 1,000-partition session looks at no partition, and a round with one changed"
            + " partition looks at that one alone (O(changed), not O(n))")
    void fet7IdleRoundExaminesOnlyChangedPartitions() {
        cluster(defaults(), 1);
        Map<TopicPartition, Long> all = new LinkedHashMap<>();
        for (int p = 0; p < 1000; p++) {
            TopicPartition tp = new TopicPartition("many", p);
            cluster.setPartition(tp, List.of(1, 2), List.of(1, 2), 1, 0, 0);
            all.put(tp, 0L);
        }
        int session = done(rm(1).fetch(open(2, 1L, 0, all))).sessionId();
        FetchSession s = rm(1).fetchSession(session);
        assertThat(done(rm(1).fetch(incremental(2, 1L, session, 1, 0, Map.of(), List.of()))).partitions()).isEmpty();

        long examined = s.examined();
        assertThat(done(rm(1).fetch(incremental(2, 1L, session, 2, 0, Map.of(), List.of()))).partitions()).isEmpty();
        assertThat(s.examined() - examined).as("an idle round").isZero();

        TopicPartition changed = new TopicPartition("many", 417);
        rm(1).produce(Map.of(changed, records("x")), Acks.LEADER, 30_000);
        examined = s.examined();
        FetchResponse r = done(rm(1).fetch(incremental(2, 1L, session, 3, 0, Map.of(), List.of())));
        assertThat(r.partitions().keySet()).containsExactly(changed);
        assertThat(s.examined() - examined).as("a round with one changed partition").isEqualTo(1);

        // A log start move is not an append: the log tells the session, which looks at that partition alone.
        FetchResponse acked = done(rm(1).fetch(incremental(2, 1L, session, 4, 0, offsets(changed, 1), List.of())));
        assertThat(acked.partitions().get(changed).highWatermark()).isEqualTo(1);
        assertThat(done(rm(1).fetch(incremental(2, 1L, session, 5, 0, Map.of(), List.of()))).partitions()).isEmpty();
        rm(1).logDirectory().log(changed).orElseThrow().deleteRecordsBefore(1);
        examined = s.examined();
        FetchResponse moved = done(rm(1).fetch(incremental(2, 1L, session, 6, 0, Map.of(), List.of())));
        assertThat(moved.partitions().keySet()).containsExactly(changed);
        assertThat(moved.partitions().get(changed).logStartOffset()).isEqualTo(1);
        assertThat(s.examined() - examined).as("the re-check and the read of that one").isLessThanOrEqualTo(2);
    }

    @Test
    @DisplayName("FET-7 FET-5 PRO-4 a follower fetch that raises the HW and then parks reads the partition once: its own"
            + " answer carries the new HW, so only the other sessions are woken")
    void fet7FetchRaisingTheHwReadsOnce() {
        int session = openSessionOfFollower2(List.of(1, 2));
        rm(1).produce(Map.of(REP0, records("a")), Acks.LEADER, 30_000);
        assertThat(done(rm(1).fetch(incremental(2, 1L, session, 1, 0, Map.of(), List.of()))).partitions())
                .containsOnlyKeys(REP0);
        long reads = rm(1).partitionReads();
        CompletableFuture<FetchResponse> parked = rm(1).fetch(incremental(2, 1L, session, 2, 500, offsets(REP0, 1),
                List.of()));
        assertThat(partition(1, REP0).highWatermark()).isEqualTo(1);
        assertThat(parked).isNotDone();
        assertThat(rm(1).partitionReads() - reads).as("read once, not again when it parked").isEqualTo(1);
        cluster.run(500);
        FetchResponse expired = done(parked);
        assertThat(expired.partitions().keySet()).containsExactly(REP0);
        assertThat(expired.partitions().get(REP0).highWatermark()).isEqualTo(1);
        assertThat(rm(1).partitionReads() - reads).as("nor when it expired").isEqualTo(1);
    }

    @Test
    @DisplayName("FET-5 FET-7 a parked session fetch woken by an append reads the appended partition once and answers"
            + " within the append, on the appending thread")
    void fet5WokenSessionFetchReadsOnceOnTheAppendingThread() {
        int session = openSessionOfFollower2(List.of(1, 2));
        assertThat(done(rm(1).fetch(incremental(2, 1L, session, 1, 0, Map.of(), List.of()))).partitions()).isEmpty();
        CompletableFuture<FetchResponse> parked = rm(1).fetch(incremental(2, 1L, session, 2, 500, Map.of(), List.of()));
        assertThat(parked).isNotDone();
        CompletableFuture<Thread> answeredOn = parked.thenApply(r -> Thread.currentThread());
        long reads = rm(1).partitionReads();

        rm(1).produce(Map.of(REP1, records("x")), Acks.LEADER, 30_000);

        assertThat(answeredOn).as("answered before the produce returned, not by a later task").isDone();
        assertThat(answeredOn.join()).as("on the thread that appended").isSameAs(Thread.currentThread());
        assertThat(rm(1).partitionReads() - reads)
                .as("the wake's read is the answer: REP1 is not read again when the fetch completes").isEqualTo(1);
        FetchResponse r = parked.join();
        assertThat(r.partitions().keySet()).containsExactly(REP1);
        assertThat(r.partitions().get(REP1).records().batches()).hasSize(1);
        assertThat(r.partitions().get(REP1).logEndOffset()).isEqualTo(1);
        assertThat(r.partitions().get(REP1).highWatermark()).isZero();
    }

    @Test
    @DisplayName("FET-5 FET-7 HW-1 an HW step by one follower's fetch reads no other session's parked fetch; that"
            + " fetch's next answer carries the new HW")
    void fet5HwStepDoesNotReadOtherParkedSessionFetches() {
        int session2 = openSessionOfFollower2(List.of(1, 2, 3));
        FetchResponse full3 = done(rm(1).fetch(open(3, 1L, 0, offsets(REP0, 0, REP1, 0))));
        int session3 = full3.sessionId();
        assertThat(session3).isPositive().isNotEqualTo(session2);
        rm(1).produce(Map.of(REP0, records("a")), Acks.LEADER, 30_000);
        assertThat(done(rm(1).fetch(incremental(2, 1L, session2, 1, 0, Map.of(), List.of()))).partitions())
                .containsOnlyKeys(REP0);
        assertThat(done(rm(1).fetch(incremental(3, 1L, session3, 1, 0, Map.of(), List.of()))).partitions())
                .containsOnlyKeys(REP0);
        CompletableFuture<FetchResponse> parked2 = rm(1).fetch(incremental(2, 1L, session2, 2, 500, offsets(REP0, 1),
                List.of()));
        assertThat(parked2).isNotDone();
        assertThat(partition(1, REP0).highWatermark()).as("follower 3 has not acknowledged").isZero();
        long reads = rm(1).partitionReads();

        CompletableFuture<FetchResponse> parked3 = rm(1).fetch(incremental(3, 1L, session3, 2, 500, offsets(REP0, 1),
                List.of()));

        assertThat(partition(1, REP0).highWatermark()).as("HW-1: every ISR member has offset 0").isEqualTo(1);
        assertThat(parked3).isNotDone();
        assertThat(parked2).as("an HW step cannot satisfy a follower's fetch").isNotDone();
        assertThat(rm(1).partitionReads() - reads).as("only follower 3's own read of REP0").isEqualTo(1);

        rm(1).produce(Map.of(REP0, records("b")), Acks.LEADER, 30_000);
        FetchResponse woken = done(parked2);
        assertThat(woken.partitions().keySet()).containsExactly(REP0);
        assertThat(woken.partitions().get(REP0).records().batches()).hasSize(1);
        assertThat(woken.partitions().get(REP0).highWatermark()).as("the HW step is told with the next answer")
                .isEqualTo(1);
        assertThat(done(parked3).partitions().get(REP0).highWatermark()).isEqualTo(1);
        assertThat(rm(1).partitionReads() - reads).as("and each woken fetch read REP0 once").isEqualTo(3);
    }
}
