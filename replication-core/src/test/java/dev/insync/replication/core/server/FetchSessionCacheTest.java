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

import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** FET-7: the leader's bounded fetch-session cache and a session's epochs. */
class FetchSessionCacheTest {

    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final long EVICTION_MS = 120_000L;
    private static final FetchRequest.PartitionData DATA = FetchRequest.PartitionData.at(0L, 100);

    @Test
    @DisplayName("FET-7 at most max.incremental.fetch.session.cache.slots sessions; a full cache opens none and evicts no active one")
    void fet7SlotsBound() {
        FetchSessionCache cache = new FetchSessionCache(2, EVICTION_MS);
        FetchSession a = cache.open(1, 10L, 0L, 99L).session();
        FetchSession b = cache.open(2, 20L, 1L, 99L).session();
        FetchSessionCache.Opened third = cache.open(3, 30L, 2L, 99L);
        assertThat(third.session()).as("the cache is full of active sessions").isNull();
        assertThat(third.ended()).isEmpty();
        assertThat(cache.size()).isEqualTo(2);
        assertThat(cache.get(a.id)).isSameAs(a);
        assertThat(cache.get(b.id)).isSameAs(b);
        assertThat(new FetchSessionCache(0, EVICTION_MS).open(1, 10L, 0L, 99L).session())
                .as("zero slots: sessions never open").isNull();
    }

    @Test
    @DisplayName("FET-7 a session unused for min.incremental.fetch.session.eviction.ms is evicted when a session opens")
    void fet7IdleSessionsEvicted() {
        FetchSessionCache cache = new FetchSessionCache(2, EVICTION_MS);
        FetchSession old = cache.open(1, 10L, 0L, 99L).session();
        FetchSession used = cache.open(2, 20L, 0L, 99L).session();
        assertThat(used.tryAccept(1, 100_000L)).isTrue(); // used at 100 s, old never since 0
        old.put(TP, DATA);
        cache.index(TP, old);
        FetchSessionCache.Opened opened = cache.open(3, 30L, EVICTION_MS - 1, 99L);
        assertThat(opened.session()).as("nothing idle long enough yet").isNull();
        opened = cache.open(3, 30L, EVICTION_MS, 99L);
        assertThat(opened.ended()).containsExactly(old);
        assertThat(opened.session()).isNotNull();
        assertThat(cache.get(old.id)).isNull();
        assertThat(cache.get(used.id)).isSameAs(used);
        assertThat(cache.sessionsOf(TP)).as("an evicted session leaves the partition index").isEmpty();
    }

    @Test
    @DisplayName("FET-7 a restarted follower (newer broker epoch) ends its old incarnation's sessions; another follower's stay")
    void fet7NewIncarnationEndsOldSessions() {
        FetchSessionCache cache = new FetchSessionCache(10, EVICTION_MS);
        FetchSession old = cache.open(1, 10L, 0L, 99L).session();
        FetchSession otherFetcherSameEpoch = cache.open(1, 10L, 0L, 99L).session();
        FetchSession otherFollower = cache.open(2, 5L, 0L, 99L).session();
        FetchSessionCache.Opened restarted = cache.open(1, 11L, 1L, 99L);
        assertThat(restarted.ended()).containsExactly(old, otherFetcherSameEpoch);
        assertThat(cache.get(otherFollower.id)).isSameAs(otherFollower);
        assertThat(restarted.session().brokerEpoch).isEqualTo(11L);
        assertThat(restarted.session().replicaId).isEqualTo(1);
    }

    @Test
    @DisplayName("FET-7 session ids are never 0, unique while open, and differ between leader incarnations (seeds)")
    void fet7Ids() {
        FetchSessionCache cache = new FetchSessionCache(1000, EVICTION_MS);
        Set<Integer> ids = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            int id = cache.open(i, 1L, 0L, 7L).session().id;
            assertThat(id).isPositive();
            assertThat(ids.add(id)).isTrue();
        }
        int firstOfSeed7 = new FetchSessionCache(1, EVICTION_MS).open(1, 1L, 0L, 7L).session().id;
        int firstOfSeed8 = new FetchSessionCache(1, EVICTION_MS).open(1, 1L, 0L, 8L).session().id;
        assertThat(firstOfSeed7).isNotEqualTo(firstOfSeed8);
        assertThat(new FetchSessionCache(1, EVICTION_MS).open(1, 1L, 0L, 7L).session().id)
                .as("repeatable for a seed (INV-6)").isEqualTo(firstOfSeed7);
    }

    @Test
    @DisplayName("FET-7 an incremental fetch must carry the session's next epoch: 1 after opening, then one more each time,"
            + " 1 after Integer.MAX_VALUE; a closed session accepts none")
    void fet7Epochs() {
        FetchSession s = new FetchSession(5, 1, 10L, 0L);
        assertThat(s.tryAccept(2, 1L)).isFalse();
        assertThat(s.tryAccept(0, 1L)).isFalse();
        assertThat(s.tryAccept(1, 1L)).isTrue();
        assertThat(s.tryAccept(1, 1L)).as("the same epoch twice").isFalse();
        assertThat(s.tryAccept(2, 1L)).isTrue();
        assertThat(s.nextEpoch()).isEqualTo(3);
        assertThat(FetchRequest.nextEpoch(Integer.MAX_VALUE)).isEqualTo(1);
        s.close();
        assertThat(s.tryAccept(3, 1L)).isFalse();
        assertThatThrownBy(() -> new FetchSession(FetchRequest.NO_SESSION_ID, 1, 1L, 0L))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("FET-7 the partition index lists each holding session once and forgets removed ones")
    void fet7PartitionIndex() {
        FetchSessionCache cache = new FetchSessionCache(10, EVICTION_MS);
        FetchSession a = cache.open(1, 1L, 0L, 1L).session();
        FetchSession b = cache.open(2, 1L, 0L, 1L).session();
        a.put(TP, DATA);
        b.put(TP, DATA);
        cache.index(TP, a);
        cache.index(TP, a);
        cache.index(TP, b);
        assertThat(cache.sessionsOf(TP)).containsExactly(a, b);
        cache.unindex(TP, a);
        assertThat(cache.sessionsOf(TP)).containsExactly(b);
        assertThat(cache.remove(b)).isTrue();
        assertThat(cache.sessionsOf(TP)).isEmpty();
        cache.index(TP, b);
        assertThat(cache.sessionsOf(TP)).as("a removed session is not indexed again").isEmpty();
    }
}
