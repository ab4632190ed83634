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

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.insync.replication.core.fetcher.FakeFollowerPartition.records;
import static org.assertj.core.api.Assertions.assertThat;

/** FET-7 in the follower's fetcher: the session handler drives the requests; partition state is kept as without sessions. */
class ReplicaFetcherSessionTest extends FetcherTestSupport {

    @Override
    boolean fetchSessions() {
        return true;
    }

    private static final int SESSION = 9;

    private final FetcherManager manager = manager(3, 1);
    private FakeFollowerPartition a;
    private FakeFollowerPartition b;

    /** DIV0 and DIV1 at offset 5 (epoch 0), fetched together; the first request is answered opening session 9. */
    private void inSession() {
        a = new FakeFollowerPartition(DIV0).withBatches(batch(0, 4, 0));
        b = new FakeFollowerPartition(DIV1).withBatches(batch(0, 4, 0));
        a.highWatermark = 3;
        b.highWatermark = 3;
        Map<TopicPartition, InitialFetchState> add = new LinkedHashMap<>();
        add.put(DIV0, follow(a, 1, 0));
        add.put(DIV1, follow(b, 1, 0));
        manager.addFetcherForPartitions(add);
        scheduler.runReady();
        FetchRequest first = last();
        assertThat(first.sessionId()).isEqualTo(FetchRequest.NO_SESSION_ID);
        assertThat(first.sessionEpoch()).isEqualTo(FetchRequest.INITIAL_EPOCH);
        assertThat(first.partitions().keySet()).containsExactly(DIV0, DIV1);
        answer(new FetchResponse(Errors.NONE, both(data(3, 0, 5, records()), data(3, 0, 5, records())), SESSION));
    }

    private static Map<TopicPartition, FetchResponse.PartitionData> both(FetchResponse.PartitionData d0,
                                                                        FetchResponse.PartitionData d1) {
        Map<TopicPartition, FetchResponse.PartitionData> m = new LinkedHashMap<>();
        m.put(DIV0, d0);
        m.put(DIV1, d1);
        return m;
    }

    private FetchRequest last() {
        return transport.last().request();
    }

    private void answer(FetchResponse response) {
        transport.last().future().complete(response);
        scheduler.runReady();
    }

    private static FetchResponse inSession(Map<TopicPartition, FetchResponse.PartitionData> partitions) {
        return new FetchResponse(Errors.NONE, partitions, SESSION);
    }

    @Test
    @DisplayName("FET-7 FOL-3 after the full fetch opens a session, idle rounds send no partition; a partition whose"
            + " offset moved is named again, the other is not")
    void fet7IncrementalRequests() {
        inSession();
        FetchRequest idle = last();
        assertThat(idle.sessionId()).isEqualTo(SESSION);
        assertThat(idle.sessionEpoch()).isEqualTo(1);
        assertThat(idle.partitions()).isEmpty();
        assertThat(idle.forgotten()).isEmpty();

        answer(inSession(Map.of(DIV0, data(3, 0, 8, records(batch(5, 7, 0))))));
        assertThat(a.logEndOffset).isEqualTo(8);
        FetchRequest next = last();
        assertThat(next.sessionEpoch()).isEqualTo(2);
        assertThat(next.partitions().keySet()).containsExactly(DIV0);
        assertThat(next.partitions().get(DIV0).fetchOffset()).isEqualTo(8);
        assertThat(manager.fetchState(DIV1).orElseThrow().fetchOffset()).as("left out: unchanged").isEqualTo(5);
    }

    @Test
    @DisplayName("FET-7 FOL-5 an answer naming only an unnamed partition's HW step moves that HW and nothing else")
    void fet7HighWatermarkOfUnnamedPartition() {
        inSession();
        answer(inSession(Map.of(DIV1, data(5, 0, 5, records()))));
        assertThat(b.highWatermark).isEqualTo(5);
        assertThat(a.highWatermark).as("not in the answer: nothing new").isEqualTo(3);
        assertThat(hwChanges).containsExactly(Set.of(DIV1));
        FetchRequest next = last();
        assertThat(next.sessionEpoch()).isEqualTo(2);
        assertThat(next.partitions()).as("an HW step changes no fetch data").isEmpty();
    }

    @Test
    @DisplayName("FET-7 a partition leaving the fetcher is forgotten by the next incremental fetch")
    void fet7RemovedPartitionForgotten() {
        inSession();
        manager.removeFetcherForPartitions(Set.of(DIV1));
        answer(inSession(Map.of()));
        assertThat(last().forgotten()).containsExactly(DIV1);
        assertThat(last().partitions()).isEmpty();
    }

    @Test
    @DisplayName("FET-7 FETCH_SESSION_ID_NOT_FOUND: the next fetch is full at once, with every partition, opening a new session")
    void fet7SessionNotFoundResets() {
        inSession();
        answer(new FetchResponse(Errors.FETCH_SESSION_ID_NOT_FOUND, Map.of()));
        FetchRequest full = last();
        assertThat(full.sessionId()).isEqualTo(FetchRequest.NO_SESSION_ID);
        assertThat(full.sessionEpoch()).isEqualTo(FetchRequest.INITIAL_EPOCH);
        assertThat(full.partitions().keySet()).containsExactly(DIV0, DIV1);
        assertThat(manager.fetchState(DIV0).orElseThrow().state()).as("no backoff").isEqualTo(FetchState.FETCHING);
    }

    @Test
    @DisplayName("FET-7 FOL-6 a failed fetch (broken connection) delays every session partition, then a full fetch replaces the session")
    void fet7TransportErrorResets() {
        inSession();
        transport.last().future().completeExceptionally(new IOException("connection reset"));
        scheduler.runReady();
        assertThat(manager.fetchState(DIV0).orElseThrow().state()).isInstanceOf(FetchState.Delayed.class);
        assertThat(manager.fetchState(DIV1).orElseThrow().state()).isInstanceOf(FetchState.Delayed.class);
        int sent = transport.sent.size();
        scheduler.advance(BACKOFF_MS);
        assertThat(transport.sent).hasSize(sent + 1);
        FetchRequest full = last();
        assertThat(full.sessionId()).as("closes the old session").isEqualTo(SESSION);
        assertThat(full.sessionEpoch()).isEqualTo(FetchRequest.INITIAL_EPOCH);
        assertThat(full.partitions().keySet()).containsExactly(DIV0, DIV1);
    }

    @Test
    @DisplayName("FET-7 FOL-6 a partition error in an incremental answer backs that partition off; it leaves the session"
            + " and rejoins it named once ready")
    void fet7PartitionErrorBacksOff() {
        inSession();
        answer(inSession(Map.of(DIV0, error(Errors.NOT_LEADER_OR_FOLLOWER, -1, -1))));
        assertThat(last().forgotten()).containsExactly(DIV0);
        scheduler.advance(BACKOFF_MS);
        answer(inSession(Map.of()));
        FetchRequest back = transport.sent.stream().map(FakeTransport.Sent::request)
                .filter(r -> r.partitions().containsKey(DIV0)).reduce((x, y) -> y).orElseThrow();
        assertThat(back.isIncremental()).isTrue();
        assertThat(back.partitions().get(DIV0).fetchOffset()).isEqualTo(5);
        assertThat(List.copyOf(back.partitions().keySet())).containsExactly(DIV0);
    }

    @Test
    @DisplayName("FET-7 FOL-3 an idle incremental round of a 1,000-partition fetcher looks at no partition, and a round"
            + " after one partition got records looks at that one alone (O(changed), not O(n))")
    void fet7IdleRoundLooksOnlyAtChangedPartitions() {
        Map<TopicPartition, InitialFetchState> add = new LinkedHashMap<>();
        Map<TopicPartition, FakeFollowerPartition> parts = new LinkedHashMap<>();
        for (int p = 0; p < 1000; p++) {
            TopicPartition tp = new TopicPartition("many", p);
            FakeFollowerPartition fp = new FakeFollowerPartition(tp).withBatches(batch(0, 4, 0));
            fp.highWatermark = 5;
            parts.put(tp, fp);
            add.put(tp, follow(fp, 1, 0));
        }
        manager.addFetcherForPartitions(add);
        scheduler.runReady();
        assertThat(last().partitions()).hasSize(1000);
        Map<TopicPartition, FetchResponse.PartitionData> all = new LinkedHashMap<>();
        parts.keySet().forEach(tp -> all.put(tp, data(5, 0, 5, records())));
        answer(new FetchResponse(Errors.NONE, all, SESSION));
        ReplicaFetcher fetcher = manager.fetchers().get(0);

        long examined = fetcher.examinedByIncrementalBuilds();
        answer(inSession(Map.of()));
        FetchRequest idle = last();
        assertThat(idle.isIncremental()).isTrue();
        assertThat(idle.partitions()).isEmpty();
        assertThat(fetcher.examinedByIncrementalBuilds() - examined).as("an idle round").isZero();

        TopicPartition changed = new TopicPartition("many", 417);
        examined = fetcher.examinedByIncrementalBuilds();
        answer(inSession(Map.of(changed, data(5, 0, 8, records(batch(5, 7, 0))))));
        assertThat(parts.get(changed).logEndOffset).isEqualTo(8);
        FetchRequest next = last();
        assertThat(next.partitions().keySet()).containsExactly(changed);
        assertThat(next.partitions().get(changed).fetchOffset()).isEqualTo(8);
        assertThat(fetcher.examinedByIncrementalBuilds() - examined).as("a round with one changed partition").isEqualTo(1);
    }
}
