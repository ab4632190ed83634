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

import dev.insync.replication.core.ActionSequences;
import dev.insync.replication.core.config.ReplicationConfig;
import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.core.produce.Acks;
import dev.insync.replication.log.Log;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.quicktheories.core.Gen;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.insync.replication.core.server.TestCluster.records;
import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

/**
 * FET-7: fetch sessions change what goes over the wire, never where replication ends. For random
 * sequences of leader appends, log-start moves, time steps and cut links, the same run on a cluster
 * whose fetchers use sessions and on one whose fetchers send full fetches ends, once links heal and
 * writes stop, with the same log end, HW and log start on every follower of every partition, equal
 * to the leader's. Along the way no follower's HW passes its LEO or the leader's HW (INV-4, FOL-5).
 */
class FetchSessionEquivalenceTest {

    private static final int PARTITIONS = 3;
    private static final List<Integer> REPLICAS = List.of(1, 2, 3);

    @TempDir
    Path tmp;

    private final AtomicInteger runs = new AtomicInteger();

    /** One step of a run. */
    private sealed interface Action permits Append, MoveLogStart, Advance, Cut, Heal {
    }

    private record Append(int partition, int count) implements Action {
    }

    /** The leader deletes records before a point at or below its HW (LOG-10). */
    private record MoveLogStart(int partition, int back) implements Action {
    }

    private record Advance(long ms) implements Action {
    }

    /** Follower {@code broker} cannot reach the leader (its fetches fail, its session resets). */
    private record Cut(int broker) implements Action {
    }

    private record Heal() implements Action {
    }

    private static Gen<Action> actions() {
        Gen<Action> append = integers().between(0, PARTITIONS - 1).zip(integers().between(1, 3), Append::new);
        Gen<Action> logStart = integers().between(0, PARTITIONS - 1).zip(integers().between(0, 1), MoveLogStart::new);
        Gen<Action> advance = integers().between(0, 4).map(i -> new Advance(new long[] {0, 50, 250, 500, 800}[i]));
        Gen<Action> cut = integers().between(2, 3).map(Cut::new);
        Gen<Action> heal = integers().between(0, 0).map(i -> new Heal());
        return integers().between(0, 99).flatMap(pick -> {
            if (pick < 30) {
                return append;
            }
            if (pick < 50) {
                return logStart;
            }
            if (pick < 90) {
                return advance;
            }
            if (pick < 95) {
                return cut;
            }
            return heal;
        });
    }

    private static TopicPartition tp(int p) {
        return new TopicPartition("eq", p);
    }

    /** What one follower ended with for one partition. */
    private record End(int broker, TopicPartition tp, long logEndOffset, long highWatermark, long logStartOffset) {
    }

    private List<End> run(List<Action> actions, boolean sessions) {
        Path root = tmp.resolve("run-" + runs.incrementAndGet());
        TestCluster cluster = new TestCluster(root, ReplicationConfig.builder().replicaLagTimeMaxMs(5000)
                .fetchSessionsEnabled(sessions).build());
        try {
            for (int b : REPLICAS) {
                cluster.start(b);
            }
            for (int p = 0; p < PARTITIONS; p++) {
                cluster.setPartition(tp(p), REPLICAS, REPLICAS, 1, 0, 0);
            }
            cluster.run(0);
            ReplicaManager leader = cluster.managers.get(1);
            for (Action action : actions) {
                if (action instanceof Append a) {
                    String[] values = new String[a.count()];
                    java.util.Arrays.fill(values, "v");
                    leader.produce(java.util.Map.of(tp(a.partition()), records(values)), Acks.LEADER, 30_000);
                } else if (action instanceof MoveLogStart m) {
                    Log log = leader.logDirectory().log(tp(m.partition())).orElseThrow();
                    long target = Math.max(log.logStartOffset(), log.highWatermark() - m.back());
                    log.deleteRecordsBefore(target);
                } else if (action instanceof Advance adv) {
                    cluster.run(adv.ms());
                } else if (action instanceof Cut c) {
                    cluster.unreachable.add(c.broker());
                } else {
                    cluster.unreachable.clear();
                }
                checkBounds(cluster);
            }
            cluster.unreachable.clear();
            cluster.run(20_000);
            checkBounds(cluster);
            List<End> ends = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                Partition lead = cluster.managers.get(1).partition(tp(p)).orElseThrow();
                ends.add(new End(1, tp(p), lead.logEndOffset(), lead.highWatermark(), lead.localLog().logStartOffset()));
                for (int b : List.of(2, 3)) {
                    Partition f = cluster.managers.get(b).partition(tp(p)).orElseThrow();
                    ends.add(new End(b, tp(p), f.logEndOffset(), f.highWatermark(), f.localLog().logStartOffset()));
                }
            }
            return ends;
        } finally {
            List.copyOf(cluster.managers.keySet()).forEach(id -> cluster.stop(id, false));
        }
    }

    private static void checkBounds(TestCluster cluster) {
        for (int p = 0; p < PARTITIONS; p++) {
            Partition lead = cluster.managers.get(1).partition(tp(p)).orElseThrow();
            for (int b : List.of(2, 3)) {
                Partition f = cluster.managers.get(b).partition(tp(p)).orElseThrow();
                assertThat(f.highWatermark()).as("INV-4 follower %d HW of %s within its LEO", b, tp(p))
                        .isLessThanOrEqualTo(f.logEndOffset());
                assertThat(f.highWatermark()).as("FOL-5 follower %d HW of %s within the leader's", b, tp(p))
                        .isLessThanOrEqualTo(lead.highWatermark());
            }
        }
    }

    @Test
    @DisplayName("FET-7 FOL-5 LOG-10 followers fetching in sessions end with the LEO, HW and log start of followers"
            + " fetching in full, the leader's, for random appends, log-start moves, time steps and cut links")
    void fet7SessionsEndWhereFullFetchesEnd() {
        qt().withFixedSeed(227L).withExamples(60).forAll(ActionSequences.of(actions(), 1, 30)).checkAssert(actions -> {
            List<End> withSessions = run(actions, true);
            List<End> withFullFetches = run(actions, false);
            assertThat(withSessions).isEqualTo(withFullFetches);
            for (End end : withSessions) {
                End leader = withSessions.stream().filter(e -> e.broker() == 1 && e.tp().equals(end.tp())).findFirst()
                        .orElseThrow();
                assertThat(end.logEndOffset()).as("%s", end).isEqualTo(leader.logEndOffset());
                assertThat(end.highWatermark()).as("%s", end).isEqualTo(leader.highWatermark());
                assertThat(end.logStartOffset()).as("%s", end).isEqualTo(leader.logStartOffset());
            }
        });
    }
}
