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

package dev.insync.replication.core.replica;

import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReplicaTest {

    private static final TopicPartition TP = new TopicPartition("rep", 0);

    private static Replica replicaWith(ReplicaState state) {
        Replica replica = new Replica(2, TP);
        // establish a previous fetch: LEO, leader LEO at that fetch, fetch time, lastCaughtUp
        replica.resetReplicaState(0L, 0L, true, false);
        replica.updateFetchStateOrThrow(state.logEndOffset(), state.logStartOffset(), state.lastFetchTimeMs(),
                state.lastFetchLeaderLogEndOffset(), state.brokerEpoch());
        return replica;
    }

    @ParameterizedTest(name = "FET-4 fetchOffset {0}, leader LEO {1} -> lastCaughtUpTimeMs {2}")
    @DisplayName("FET-4 lastCaughtUpTimeMs branches")
    @CsvSource({
            // previous fetch: at t=1000, follower LEO 5, leader LEO then 10, lastCaughtUp 0 (never)
            // branch 1: fetchOffset >= leader LEO now -> fetch time (2000)
            "10, 10, 2000",
            "12, 10, 2000",
            // branch 2: below leader LEO now but >= leader LEO of previous fetch (10) -> previous fetch time (1000)
            "10, 15, 1000",
            "11, 15, 1000",
            // branch 3: below both -> unchanged (0)
            "9, 15, 0",
    })
    void fet4LastCaughtUpBranches(long fetchOffset, long leaderEndOffset, long expectedCaughtUp) {
        Replica replica = replicaWith(new ReplicaState(0L, 5L, 10L, 1000L, 0L, 7L));
        // the previous fetch itself (offset 5 < leader LEO 10, first fetch) left lastCaughtUp unchanged at 0
        assertThat(replica.stateSnapshot().lastCaughtUpTimeMs()).isZero();

        replica.updateFetchStateOrThrow(fetchOffset, 0L, 2000L, leaderEndOffset, 7L);

        ReplicaState s = replica.stateSnapshot();
        assertThat(s.lastCaughtUpTimeMs()).isEqualTo(expectedCaughtUp);
        assertThat(s.logEndOffset()).as("FET-4: the fetch offset is the follower's LEO").isEqualTo(fetchOffset);
        assertThat(s.lastFetchTimeMs()).isEqualTo(2000L);
        assertThat(s.lastFetchLeaderLogEndOffset()).isEqualTo(Math.max(10L, leaderEndOffset));
        assertThat(s.brokerEpoch()).isEqualTo(7L);
    }

    @Test
    @DisplayName("FET-4 lastCaughtUpTimeMs never goes back and lastFetchLeaderLogEndOffset keeps the max")
    void fet4Monotonic() {
        Replica replica = new Replica(2, TP);
        replica.updateFetchStateOrThrow(10L, 0L, 5000L, 10L, 1L);
        assertThat(replica.stateSnapshot().lastCaughtUpTimeMs()).isEqualTo(5000L);
        // a fetch read with an older clock value cannot move lastCaughtUp back
        replica.updateFetchStateOrThrow(10L, 0L, 4000L, 10L, 1L);
        assertThat(replica.stateSnapshot().lastCaughtUpTimeMs()).isEqualTo(5000L);
        // leader LEO reported lower than before (not possible in one epoch, but the max is kept)
        replica.updateFetchStateOrThrow(8L, 0L, 6000L, 8L, 1L);
        assertThat(replica.stateSnapshot().lastFetchLeaderLogEndOffset()).isEqualTo(10L);
    }

    @Test
    @DisplayName("FET-4 a steady trickle of writes does not keep a follower behind (second branch)")
    void fet4Trickle() {
        Replica replica = new Replica(2, TP);
        long leaderLeo = 0;
        long now = 0;
        for (int i = 0; i < 50; i++) {
            long followerLeo = leaderLeo;          // the follower holds everything the leader had at its last fetch
            leaderLeo += 1;                        // one more record arrived meanwhile
            now += 100;
            replica.updateFetchStateOrThrow(followerLeo, 0L, now, leaderLeo, 1L);
        }
        // never equal to the leader's LEO, yet it counts as caught up as of the previous fetch
        assertThat(replica.stateSnapshot().lastCaughtUpTimeMs()).isEqualTo(now - 100);
        assertThat(replica.stateSnapshot().isCaughtUp(leaderLeo, now, 30_000L)).isTrue();
    }

    @Test
    @DisplayName("FET-4 a fetch with an older broker epoch is refused with NOT_LEADER_OR_FOLLOWER and changes nothing")
    void fet4StaleBrokerEpoch() {
        Replica replica = new Replica(2, TP);
        replica.updateFetchStateOrThrow(10L, 0L, 1000L, 10L, 5L);
        ReplicaState before = replica.stateSnapshot();
        assertThatThrownBy(() -> replica.updateFetchStateOrThrow(12L, 0L, 2000L, 12L, 4L))
                .isInstanceOf(ApiException.class)
                .satisfies(e -> assertThat(((ApiException) e).error()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER))
                .hasMessageContaining("rep-0");
        assertThat(replica.stateSnapshot()).isEqualTo(before);
    }

    @ParameterizedTest(name = "ISR-1 isCaughtUp(leaderLEO={0}, now={1}) with LEO 10, lastCaughtUp 1000, lag 5000 = {2}")
    @DisplayName("ISR-1 isCaughtUp: equal LEO or within the lag time, never message counts")
    @CsvSource({
            "10, 1000000, true",   // equal LEO: caught up however long ago
            "11, 6000, true",      // exactly lag time
            "11, 6001, false",     // just past
            "1000000, 2000, true", // a huge message lag does not matter within the lag time
    })
    void isr1IsCaughtUp(long leaderEndOffset, long now, boolean expected) {
        ReplicaState state = new ReplicaState(0L, 10L, 10L, 1000L, 1000L, 1L);
        assertThat(state.isCaughtUp(leaderEndOffset, now, 5000L)).isEqualTo(expected);
    }

    @Test
    @DisplayName("LDR-1 newly leader: LEO, log start, leader LEO and broker epoch unknown; caught up now only if in ISR")
    void ldr1NewLeaderReset() {
        Replica inIsr = new Replica(2, TP);
        inIsr.updateFetchStateOrThrow(10L, 3L, 1000L, 10L, 9L);
        Replica outOfIsr = new Replica(3, TP);
        outOfIsr.updateFetchStateOrThrow(10L, 3L, 1000L, 10L, 9L);

        inIsr.resetReplicaState(5000L, 20L, true, true);
        outOfIsr.resetReplicaState(5000L, 20L, true, false);

        assertThat(inIsr.stateSnapshot()).isEqualTo(new ReplicaState(-1L, -1L, -1L, 0L, 5000L, -1L));
        assertThat(outOfIsr.stateSnapshot()).isEqualTo(new ReplicaState(-1L, -1L, -1L, 0L, 0L, -1L));
    }

    @Test
    @DisplayName("LDR-1 re-elected leader: keeps LEO, log start and broker epoch; leader LEO = LEO; times now if in ISR")
    void ldr1ReElectedReset() {
        Replica inIsr = new Replica(2, TP);
        inIsr.updateFetchStateOrThrow(10L, 3L, 1000L, 10L, 9L);
        Replica outOfIsr = new Replica(3, TP);
        outOfIsr.updateFetchStateOrThrow(8L, 2L, 1000L, 10L, 4L);

        inIsr.resetReplicaState(5000L, 20L, false, true);
        outOfIsr.resetReplicaState(5000L, 20L, false, false);

        assertThat(inIsr.stateSnapshot()).isEqualTo(new ReplicaState(3L, 10L, 20L, 5000L, 5000L, 9L));
        assertThat(outOfIsr.stateSnapshot()).isEqualTo(new ReplicaState(2L, 8L, 20L, 0L, 0L, 4L));
    }
}
