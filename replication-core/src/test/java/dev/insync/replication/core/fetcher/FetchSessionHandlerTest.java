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

package dev.insync.replication.core.fetcher;

import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** FET-7: the follower side of a fetch session (full, then incremental; back to full on any error). */
class FetchSessionHandlerTest {

    private static final TopicPartition A = new TopicPartition("t", 0);
    private static final TopicPartition B = new TopicPartition("t", 1);
    private static final TopicPartition C = new TopicPartition("t", 2);
    private static final long EPOCH = 3L;

    private static FetchRequest.PartitionData at(long offset) {
        return FetchRequest.PartitionData.at(offset, 1000).withCurrentLeaderEpoch(0);
    }

    private static FetchRequest full(FetchSessionHandler h, Map<TopicPartition, FetchRequest.PartitionData> parts) {
        FetchRequest.Builder b = FetchRequest.follower(2, EPOCH).session(h.fullFetchSessionId(), h.fullFetchEpoch());
        parts.forEach(b::partition);
        FetchRequest r = b.build();
        h.fullFetchSent(r, EPOCH);
        return r;
    }

    /**
     * The incremental fetch the handler builds for these partitions (all ready): as the fetcher does,
     * the session's partitions no longer fetched are forgotten, then these are added.
     */
    private static FetchRequest incremental(FetchSessionHandler h, Map<TopicPartition, FetchRequest.PartitionData> parts) {
        FetchSessionHandler.Incremental inc = h.incremental();
        for (TopicPartition tp : h.sessionPartitions()) {
            if (!parts.containsKey(tp)) {
                inc.forget(tp);
            }
        }
        FetchRequest.Builder b = FetchRequest.follower(2, EPOCH);
        parts.forEach((tp, d) -> {
            if (inc.add(tp, d)) {
                b.partition(tp, d);
            }
        });
        List<TopicPartition> forgotten = inc.forgotten();
        return b.session(inc.sessionId(), inc.epoch()).forgotten(forgotten).build();
    }

    private static Map<TopicPartition, FetchRequest.PartitionData> parts(Object... tpAndOffset) {
        Map<TopicPartition, FetchRequest.PartitionData> m = new LinkedHashMap<>();
        for (int i = 0; i < tpAndOffset.length; i += 2) {
            m.put((TopicPartition) tpAndOffset[i], at((Long) tpAndOffset[i + 1]));
        }
        return m;
    }

    private static FetchResponse answer(int sessionId, TopicPartition... tps) {
        Map<TopicPartition, FetchResponse.PartitionData> m = new LinkedHashMap<>();
        for (TopicPartition tp : tps) {
            m.put(tp, FetchResponse.PartitionData.error(Errors.NONE));
        }
        return new FetchResponse(Errors.NONE, m, sessionId);
    }

    /** A handler with session 77 open over A@0, B@0. */
    private static FetchSessionHandler opened() {
        FetchSessionHandler h = new FetchSessionHandler(1, true);
        FetchRequest first = full(h, parts(A, 0L, B, 0L));
        assertThat(h.handleResponse(first, answer(77, A, B))).isTrue();
        return h;
    }

    @Test
    @DisplayName("FET-7 the first fetch is full and asks for a session; once the leader opens one, fetches are incremental from epoch 1")
    void fet7FullThenIncremental() {
        FetchSessionHandler h = new FetchSessionHandler(1, true);
        assertThat(h.nextIsIncremental(EPOCH)).isFalse();
        assertThat(h.fullFetchSessionId()).isEqualTo(FetchRequest.NO_SESSION_ID);
        assertThat(h.fullFetchEpoch()).isEqualTo(FetchRequest.INITIAL_EPOCH);
        FetchRequest first = full(h, parts(A, 0L, B, 0L));
        assertThat(h.handleResponse(first, answer(77, A, B))).isTrue();
        assertThat(h.nextIsIncremental(EPOCH)).isTrue();
        FetchRequest next = incremental(h, parts(A, 0L, B, 0L));
        assertThat(next.sessionId()).isEqualTo(77);
        assertThat(next.sessionEpoch()).isEqualTo(1);
        assertThat(h.handleResponse(next, answer(77))).isTrue();
        assertThat(incremental(h, parts(A, 0L, B, 0L)).sessionEpoch()).isEqualTo(2);
    }

    @Test
    @DisplayName("FET-7 an incremental fetch carries only new or changed partitions and forgets those no longer fetched")
    void fet7IncrementalOmitsUnchanged() {
        FetchSessionHandler h = opened();
        FetchRequest idle = incremental(h, parts(A, 0L, B, 0L));
        assertThat(idle.partitions()).isEmpty();
        assertThat(idle.forgotten()).isEmpty();
        assertThat(h.handleResponse(idle, answer(77))).isTrue();

        // A moved on, B is no longer ready (left out), C is new.
        FetchRequest changed = incremental(h, parts(A, 5L, C, 0L));
        assertThat(changed.partitions().keySet()).containsExactly(A, C);
        assertThat(changed.partitions().get(A).fetchOffset()).isEqualTo(5L);
        assertThat(changed.forgotten()).containsExactly(B);
        assertThat(h.sessionPartitions()).containsExactly(A, C);
        assertThat(h.sessionData(A)).isEqualTo(at(5L));
        assertThat(h.sessionData(B)).isNull();
        assertThat(h.handleResponse(changed, answer(77, A))).isTrue();
        // The same data again is not sent again; a new leader epoch or log start is.
        assertThat(incremental(h, parts(A, 5L, C, 0L)).partitions()).isEmpty();
    }

    @Test
    @DisplayName("FET-7 FETCH_SESSION_ID_NOT_FOUND: the next fetch is full and opens a new session (no id to close)")
    void fet7ResetOnSessionNotFound() {
        FetchSessionHandler h = opened();
        FetchRequest next = incremental(h, parts(A, 0L, B, 0L));
        assertThat(h.handleResponse(next, new FetchResponse(Errors.FETCH_SESSION_ID_NOT_FOUND, Map.of()))).isFalse();
        assertThat(h.nextIsIncremental(EPOCH)).isFalse();
        assertThat(h.fullFetchSessionId()).isEqualTo(FetchRequest.NO_SESSION_ID);
        assertThat(h.fullFetchEpoch()).isEqualTo(FetchRequest.INITIAL_EPOCH);
        assertThat(h.sessionPartitions()).isEmpty();
    }

    @Test
    @DisplayName("FET-7 INVALID_FETCH_SESSION_EPOCH, any other error, a lost answer: the next fetch is full and replaces the session")
    void fet7ResetOnErrors() {
        FetchSessionHandler h = opened();
        FetchRequest next = incremental(h, parts(A, 0L, B, 0L));
        assertThat(h.handleResponse(next, new FetchResponse(Errors.INVALID_FETCH_SESSION_EPOCH, Map.of()))).isFalse();
        assertThat(h.nextIsIncremental(EPOCH)).isFalse();
        assertThat(h.fullFetchSessionId()).as("the leader closes 77 when it opens the new one").isEqualTo(77);

        h = opened();
        incremental(h, parts(A, 0L, B, 0L));
        h.handleError(); // no answer, or the connection broke
        assertThat(h.nextIsIncremental(EPOCH)).isFalse();

        h = opened();
        next = incremental(h, parts(A, 0L, B, 0L));
        assertThat(h.handleResponse(next, new FetchResponse(Errors.UNKNOWN_SERVER_ERROR, Map.of(), 77))).isFalse();
        assertThat(h.nextIsIncremental(EPOCH)).isFalse();
    }

    @Test
    @DisplayName("FET-7 an incremental answer for a partition outside the session, or for another session, is not applied")
    void fet7AnswerThatDoesNotFit() {
        FetchSessionHandler h = opened();
        FetchRequest next = incremental(h, parts(A, 0L, B, 0L));
        assertThat(h.handleResponse(next, answer(77, C))).isFalse();
        assertThat(h.nextIsIncremental(EPOCH)).isFalse();

        h = opened();
        next = incremental(h, parts(A, 0L, B, 0L));
        assertThat(h.handleResponse(next, answer(78, A))).isFalse();
        assertThat(h.nextIsIncremental(EPOCH)).isFalse();
    }

    @Test
    @DisplayName("FET-7 a new broker epoch of the follower (a new incarnation) makes the next fetch full")
    void fet7NewBrokerEpochResets() {
        FetchSessionHandler h = opened();
        assertThat(h.nextIsIncremental(EPOCH)).isTrue();
        assertThat(h.nextIsIncremental(EPOCH + 1)).isFalse();
        assertThatThrownBy(h::incremental).isInstanceOf(IllegalStateException.class);
    }

    @Test
    @DisplayName("FET-7 a leader that declines (session id 0) is asked again with the next full fetch")
    void fet7Declined() {
        FetchSessionHandler h = new FetchSessionHandler(1, true);
        FetchRequest first = full(h, parts(A, 0L));
        assertThat(h.handleResponse(first, answer(FetchRequest.NO_SESSION_ID, A))).isTrue();
        assertThat(h.nextIsIncremental(EPOCH)).isFalse();
        assertThat(h.fullFetchEpoch()).isEqualTo(FetchRequest.INITIAL_EPOCH);
    }

    @Test
    @DisplayName("FET-7 insync.fetch.sessions.enabled=false: every fetch is full and sessionless (id 0, epoch -1)")
    void fet7Disabled() {
        FetchSessionHandler h = new FetchSessionHandler(1, false);
        FetchRequest first = full(h, parts(A, 0L));
        assertThat(first.sessionId()).isEqualTo(FetchRequest.NO_SESSION_ID);
        assertThat(first.sessionEpoch()).isEqualTo(FetchRequest.FINAL_EPOCH);
        assertThat(h.handleResponse(first, answer(FetchRequest.NO_SESSION_ID, A))).isTrue();
        assertThat(h.nextIsIncremental(EPOCH)).isFalse();
    }
}
