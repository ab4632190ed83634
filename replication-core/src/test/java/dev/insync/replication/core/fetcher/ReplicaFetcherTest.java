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
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.epoch.EpochEndOffset;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;

import static dev.insync.replication.core.fetcher.FakeFollowerPartition.records;
import static org.assertj.core.api.Assertions.assertThat;

class ReplicaFetcherTest extends FetcherTestSupport {

    private final FetcherManager manager = manager(3, 1);

    private FakeFollowerPartition followed(TopicPartition tp, int leaderEpoch, FakeFollowerPartition.Batch... batches) {
        FakeFollowerPartition p = new FakeFollowerPartition(tp).withBatches(batches);
        p.highWatermark = p.logEndOffset;
        manager.addFetcherForPartitions(Map.of(tp, follow(p, 1, leaderEpoch)));
        scheduler.runReady();
        return p;
    }

    /** Both partitions added together, so they share the first request. */
    private FakeFollowerPartition[] followedTogether(int leaderEpoch, FakeFollowerPartition.Batch... batches) {
        FakeFollowerPartition a = new FakeFollowerPartition(DIV0).withBatches(batches);
        FakeFollowerPartition b = new FakeFollowerPartition(DIV1).withBatches(batches);
        a.highWatermark = a.logEndOffset;
        b.highWatermark = b.logEndOffset;
        Map<TopicPartition, InitialFetchState> add = new LinkedHashMap<>();
        add.put(DIV0, follow(a, 1, leaderEpoch));
        add.put(DIV1, follow(b, 1, leaderEpoch));
        manager.addFetcherForPartitions(add);
        scheduler.runReady();
        return new FakeFollowerPartition[] {a, b};
    }

    private PartitionFetchState state(TopicPartition tp) {
        return manager.fetchState(tp).orElseThrow();
    }

    private void answer(FetchResponse response) {
        transport.last().future().complete(response);
        scheduler.runReady();
    }

    @Test
    @DisplayName("FOL-3 the request carries replicaId, brokerEpoch, wait/min/max bytes and per-partition positions")
    void fol3RequestFields() {
        FakeFollowerPartition p = new FakeFollowerPartition(DIV0).withBatches(batch(0, 4, 0), batch(5, 9, 2));
        p.highWatermark = 8;
        p.logStartOffset = 3;
        FakeFollowerPartition noEpochs = new FakeFollowerPartition(DIV1);
        Map<TopicPartition, InitialFetchState> add = new LinkedHashMap<>();
        add.put(DIV0, follow(p, 1, 4));
        add.put(DIV1, follow(noEpochs, 1, 4));
        manager.addFetcherForPartitions(add);
        scheduler.runReady();

        FetchRequest req = transport.last().request();
        assertThat(transport.last().leaderId()).isEqualTo(1);
        assertThat(req.replicaId()).isEqualTo(3);
        assertThat(req.brokerEpoch()).isEqualTo(42L);
        assertThat(req.maxWaitMs()).isEqualTo(FetcherConfig.DEFAULT_FETCH_WAIT_MAX_MS);
        assertThat(req.minBytes()).isEqualTo(FetcherConfig.DEFAULT_FETCH_MIN_BYTES);
        assertThat(req.maxBytes()).isEqualTo(FetcherConfig.DEFAULT_FETCH_RESPONSE_MAX_BYTES);
        assertThat(req.partitions().get(DIV0)).isEqualTo(new FetchRequest.PartitionData(10, 3,
                FetcherConfig.DEFAULT_FETCH_MAX_BYTES, OptionalInt.of(4), OptionalInt.of(2)));
        // No epoch information: lastFetchedEpoch absent.
        assertThat(req.partitions().get(DIV1).lastFetchedEpoch()).isEmpty();
        assertThat(req.partitions().get(DIV1).currentLeaderEpoch()).hasValue(4);
    }

    @Test
    @DisplayName("FOL-3 brokerEpoch is read when the request is built")
    void fol3BrokerEpochSupplier() {
        FakeFollowerPartition p = followed(DIV0, 0, batch(0, 4, 0));
        brokerEpoch = 77L;
        answer(response(DIV0, data(5, 0, 5, records())));
        assertThat(transport.sent).hasSize(2);
        assertThat(transport.sent.get(0).request().brokerEpoch()).isEqualTo(42L);
        assertThat(transport.last().request().brokerEpoch()).isEqualTo(77L);
        assertThat(p.logEndOffset).isEqualTo(5);
    }

    @Test
    @DisplayName("FOL-2 one fetch per round; the next round starts as soon as the answer is processed")
    void fol2Loop() {
        followed(DIV0, 0, batch(0, 4, 0));
        assertThat(transport.sent).hasSize(1);
        scheduler.advance(10_000); // no answer yet: no second request while one is out (before the timeout)
        assertThat(transport.sent).hasSize(1);
        answer(response(DIV0, data(5, 0, 5, records())));
        assertThat(transport.sent).hasSize(2);
        assertThat(transport.last().request().partitions().get(DIV0).fetchOffset()).isEqualTo(5);
    }

    @Test
    @DisplayName("FOL-2 with nothing to fetch the fetcher waits replica.fetch.backoff.ms, scheduled not slept")
    void fol2IdleBackoff() {
        FakeFollowerPartition p = followed(DIV0, 0, batch(0, 4, 0));
        answer(response(DIV0, error(Errors.NOT_LEADER_OR_FOLLOWER, -1, -1)));
        // Only partition delayed: the next round sends nothing until the backoff has passed.
        assertThat(transport.sent).hasSize(1);
        assertThat(state(DIV0).state()).isEqualTo(new FetchState.Delayed(scheduler.nowMs() + BACKOFF_MS));
        scheduler.advance(BACKOFF_MS - 1);
        assertThat(transport.sent).hasSize(1);
        scheduler.advance(1);
        assertThat(transport.sent).hasSize(2);
        assertThat(state(DIV0).state()).isEqualTo(FetchState.FETCHING);
        assertThat(p.calls).isEmpty();
    }

    @Test
    @DisplayName("FOL-2 a partition added while the fetcher idles wakes it at once")
    void fol2AddWakesIdleFetcher() {
        followed(DIV0, 0, batch(0, 4, 0));
        answer(response(DIV0, error(Errors.UNKNOWN_LEADER_EPOCH, -1, -1)));
        assertThat(transport.sent).hasSize(1);
        followed(DIV1, 0, batch(0, 1, 0));
        assertThat(transport.sent).hasSize(2);
        assertThat(transport.last().request().partitions().keySet()).containsExactly(DIV1);
    }

    @Test
    @DisplayName("FOL-2 a transport failure backs the partitions off")
    void fol2TransportFailureBacksOff() {
        followed(DIV0, 0, batch(0, 4, 0));
        transport.last().future().completeExceptionally(new IOException("connection refused"));
        scheduler.runReady();
        assertThat(transport.sent).hasSize(1);
        assertThat(state(DIV0).state()).isInstanceOf(FetchState.Delayed.class);
        scheduler.advance(BACKOFF_MS);
        assertThat(transport.sent).hasSize(2);
    }

    @Test
    @DisplayName("FOL-2 a lost response (stage never completes) is retried after the request timeout")
    void fol2LostResponseRetried() {
        followed(DIV0, 0, batch(0, 4, 0));
        FetcherConfig cfg = FetcherConfig.defaults(3);
        scheduler.advance(cfg.lostResponseTimeoutMs() - 1);
        assertThat(transport.sent).hasSize(1);
        scheduler.advance(1);
        assertThat(state(DIV0).state()).isInstanceOf(FetchState.Delayed.class);
        scheduler.advance(BACKOFF_MS);
        assertThat(transport.sent).hasSize(2);
        // The late answer to the abandoned fetch is ignored.
        transport.sent.get(0).future().complete(response(DIV0, data(9, 0, 9, records(batch(5, 8, 0)))));
        scheduler.runReady();
        assertThat(state(DIV0).fetchOffset()).isEqualTo(5);
    }

    @Test
    @DisplayName("FOL-2 a fetch is given up the lost-response timeout after its own send, though the fetches before"
            + " it were answered; answered rounds schedule no timer of their own")
    void fol2LostResponseTimedFromItsOwnSend() {
        followed(DIV0, 0, batch(0, 4, 0));
        FetcherConfig cfg = FetcherConfig.defaults(3);
        long timersBefore = scheduler.timersScheduled();
        for (int i = 0; i < 50; i++) {
            scheduler.advance(100);
            answer(response(DIV0, data(5, 0, 5, records())));
        }
        assertThat(transport.sent).hasSize(51);
        assertThat(scheduler.timersScheduled() - timersBefore).as("no timer per round").isZero();
        // The 51st fetch, sent now, is never answered.
        scheduler.advance(cfg.lostResponseTimeoutMs() - 1);
        assertThat(state(DIV0).state()).isEqualTo(FetchState.FETCHING);
        assertThat(transport.sent).hasSize(51);
        scheduler.advance(1);
        assertThat(state(DIV0).state()).isInstanceOf(FetchState.Delayed.class);
        scheduler.advance(BACKOFF_MS);
        assertThat(transport.sent).hasSize(52);
    }

    @Test
    @DisplayName("FOL-4 records are appended with appendAsFollower at the LEO; lastFetchedEpoch follows the log")
    void fol4Append() {
        FakeFollowerPartition p = followed(DIV0, 1, batch(0, 4, 0));
        answer(response(DIV0, data(7, 0, 10, records(batch(5, 6, 0), batch(7, 9, 1)))));
        assertThat(p.calls).containsExactly("append@5");
        assertThat(p.logEndOffset).isEqualTo(10);
        assertThat(p.latestEpoch()).hasValue(1);
        assertThat(state(DIV0)).isEqualTo(new PartitionFetchState(10, 1, OptionalInt.of(1), FetchState.FETCHING));
        assertThat(transport.last().request().partitions().get(DIV0).fetchOffset()).isEqualTo(10);
        assertThat(transport.last().request().partitions().get(DIV0).lastFetchedEpoch()).hasValue(1);
        assertThat(manager.maxLag()).isZero();
    }

    @TempDir
    java.nio.file.Path tmp;

    @Test
    @DisplayName("FOL-6 NET-3 records left in the leader's segment file that changed before they were read here: backed off like a leader-side error, nothing appended, not failed")
    void fol6GoneFileRecordsBackOff() {
        dev.insync.replication.log.Log leaderLog = dev.insync.replication.log.Log.open(tmp.resolve("div-0"), DIV0,
                dev.insync.replication.log.LogConfig.defaults(), 0, 0, () -> 0L);
        try {
            for (int i = 0; i < 2; i++) {
                leaderLog.appendAsLeader(dev.insync.replication.log.record.MemoryRecords.withRecords(
                        new dev.insync.replication.log.record.SimpleRecord(1L, null, new byte[] {1}),
                        new dev.insync.replication.log.record.SimpleRecord(1L, null, new byte[] {2}),
                        new dev.insync.replication.log.record.SimpleRecord(1L, null, new byte[] {3})), 0);
            }
            dev.insync.replication.log.record.Records slice = leaderLog.readFileRecords(5, 1 << 20, 6);
            assertThat(slice.sizeInBytes()).isPositive();
            leaderLog.truncateTo(3); // the leader became a follower and cut its log after the read
            FakeFollowerPartition p = followed(DIV0, 0, batch(0, 4, 0));
            answer(response(DIV0, new FetchResponse.PartitionData(Errors.NONE, 6, 6, 0, 6, slice,
                    java.util.Optional.empty())));
            assertThat(p.calls).isEmpty();
            assertThat(state(DIV0).state()).isEqualTo(new FetchState.Delayed(scheduler.nowMs() + BACKOFF_MS));
            assertThat(state(DIV0).fetchOffset()).isEqualTo(5);
            assertThat(manager.failedPartitions()).isEmpty();
        } finally {
            leaderLog.close();
        }
    }

    @Test
    @DisplayName("FOL-6 an answer whose fetch offset is no longer current is ignored")
    void fol6StaleAnswerIgnored() {
        FakeFollowerPartition p = followed(DIV0, 0, batch(0, 4, 0));
        FakeTransport.Sent first = transport.last();
        // Leadership moved and came back in a new epoch meanwhile; the log was truncated to 3.
        manager.removeFetcherForPartitions(Set.of(DIV0));
        p.truncateTo(3);
        manager.addFetcherForPartitions(Map.of(DIV0, follow(p, 1, 1)));
        p.calls.clear();
        first.future().complete(response(DIV0, data(9, 0, 9, records(batch(5, 8, 0)))));
        scheduler.runReady();
        assertThat(p.calls).noneMatch(c -> c.startsWith("append"));
        assertThat(p.logEndOffset).isEqualTo(3);
    }

    @Test
    @DisplayName("FOL-6 records are appended only when the fetch offset equals the LEO")
    void fol6AppendOnlyAtLeo() {
        FakeFollowerPartition p = followed(DIV0, 0, batch(0, 4, 0));
        p.truncateTo(2); // someone else moved the LEO under the fetcher
        p.calls.clear();
        answer(response(DIV0, data(9, 0, 9, records(batch(5, 8, 0)))));
        assertThat(p.calls).isEmpty();
        assertThat(state(DIV0).fetchOffset()).isEqualTo(2);
        assertThat(transport.last().request().partitions().get(DIV0).fetchOffset()).isEqualTo(2);
    }

    @Test
    @DisplayName("FOL-5 the follower HW is the leader's, clamped to [logStart, LEO], even when lower")
    void fol5FollowerHighWatermark() {
        FakeFollowerPartition p = followed(DIV0, 0, batch(0, 9, 0));
        p.highWatermark = 10;
        // Leader HW beyond our LEO after the append: clamped to the LEO.
        answer(response(DIV0, data(50, 0, 50, records(batch(10, 11, 0)))));
        assertThat(p.highWatermark).isEqualTo(12);
        assertThat(hwChanges).containsExactly(Set.of(DIV0));
        // Leader HW lower than ours (a new leader that does not know yet): taken anyway.
        answer(response(DIV0, data(6, 0, 50, records())));
        assertThat(p.highWatermark).isEqualTo(6);
        assertThat(hwChanges).hasSize(2);
        // Unchanged HW: no report.
        answer(response(DIV0, data(6, 0, 50, records())));
        assertThat(hwChanges).hasSize(2);
        assertThat(manager.maxLag()).isZero();
    }

    @Test
    @DisplayName("FOL-2 FOL-3 an idle round sends the same request again; after records for one partition the next"
            + " request carries every partition, that one at its new LEO and last fetched epoch")
    void fol3RequestKeptAcrossIdleRoundsAndRebuiltOnChange() {
        FakeFollowerPartition[] both = followedTogether(3, batch(0, 4, 1));
        FetchRequest first = transport.last().request();
        assertThat(first.partitions().keySet()).containsExactly(DIV0, DIV1);

        answer(response(Map.of(DIV0, data(5, 0, 5, records()), DIV1, data(5, 0, 5, records()))));
        FetchRequest idle = transport.last().request();
        assertThat(transport.sent).hasSize(2);
        assertThat(idle).as("nothing changed: the same request").isSameAs(first);

        answer(response(Map.of(DIV0, data(5, 0, 8, records(batch(5, 7, 3))), DIV1, data(5, 0, 5, records()))));
        FetchRequest next = transport.last().request();
        assertThat(next).isNotSameAs(first);
        assertThat(next.partitions().keySet()).containsExactly(DIV0, DIV1);
        assertThat(next.partitions().get(DIV0)).isEqualTo(new FetchRequest.PartitionData(8, 0,
                FetcherConfig.DEFAULT_FETCH_MAX_BYTES, OptionalInt.of(3), OptionalInt.of(3)));
        assertThat(next.partitions().get(DIV1)).isEqualTo(new FetchRequest.PartitionData(5, 0,
                FetcherConfig.DEFAULT_FETCH_MAX_BYTES, OptionalInt.of(3), OptionalInt.of(1)));
        assertThat(next.partitions().get(DIV1)).isSameAs(first.partitions().get(DIV1));
        assertThat(both[0].logEndOffset).isEqualTo(8);

        // A log start offset that moved locally reaches the next request although nothing was fetched.
        both[1].logStartOffset = 2;
        answer(response(Map.of(DIV0, data(8, 0, 8, records()), DIV1, data(5, 0, 5, records()))));
        assertThat(transport.last().request().partitions().get(DIV1).logStartOffset()).isEqualTo(2);
        assertThat(transport.last().request().partitions().get(DIV0).fetchOffset()).isEqualTo(8);
    }

    @Test
    @DisplayName("FOL-2 FOL-3 a partition delayed by an error leaves the request and comes back after the backoff;"
            + " a removed one leaves it")
    void fol3RequestFollowsDelaysAndRemovals() {
        followedTogether(3, batch(0, 4, 1));
        answer(response(Map.of(DIV0, error(Errors.NOT_LEADER_OR_FOLLOWER, -1, -1), DIV1, data(5, 0, 5, records()))));
        assertThat(transport.last().request().partitions().keySet()).containsExactly(DIV1);
        scheduler.advance(BACKOFF_MS);
        answer(response(Map.of(DIV1, data(5, 0, 5, records()))));
        assertThat(transport.last().request().partitions().keySet()).containsExactly(DIV0, DIV1);

        manager.removeFetcherForPartitions(Set.of(DIV0));
        answer(response(Map.of(DIV0, data(5, 0, 5, records()), DIV1, data(5, 0, 5, records()))));
        assertThat(transport.last().request().partitions().keySet()).containsExactly(DIV1);
    }

    @Test
    @DisplayName("FET-4 FOL-5 the next fetch, which acknowledges what was just appended, leaves before the HW change"
            + " is reported")
    void fet4NextFetchLeavesBeforeTheHighWatermarkReport() {
        FakeFollowerPartition p = followed(DIV0, 0, batch(0, 9, 0));
        int sentBefore = transport.sent.size();
        answer(response(DIV0, data(12, 0, 12, records(batch(10, 11, 0)))));
        assertThat(p.highWatermark).isEqualTo(12);
        assertThat(hwChanges).containsExactly(Set.of(DIV0));
        assertThat(fetchesSentAtHwReport).as("fetches sent when the HW change was reported")
                .containsExactly(sentBefore + 1);
        assertThat(transport.last().request().partitions().get(DIV0).fetchOffset()).isEqualTo(12);
    }

    @Test
    @DisplayName("FOL-5 an empty answer re-applies the leader HW whenever it, or the local HW, differs from the"
            + " last one applied")
    void fol5EmptyAnswersStillApplyHighWatermarkChanges() {
        FakeFollowerPartition p = followed(DIV0, 0, batch(0, 9, 0));
        answer(response(DIV0, data(8, 0, 10, records())));
        assertThat(p.highWatermark).isEqualTo(8);
        answer(response(DIV0, data(8, 0, 10, records())));
        assertThat(p.highWatermark).isEqualTo(8);
        answer(response(DIV0, data(10, 0, 10, records())));
        assertThat(p.highWatermark).isEqualTo(10);
        // Something else moved the local HW: the same leader HW is applied again (FOL-5 takes it every time).
        p.highWatermark = 3;
        answer(response(DIV0, data(10, 0, 10, records())));
        assertThat(p.highWatermark).isEqualTo(10);
        assertThat(hwChanges).hasSize(3);
    }

    @Test
    @DisplayName("FOL-5 LOG-10 the follower's log start offset follows the leader's")
    void fol5LogStartFollowsLeader() {
        FakeFollowerPartition p = followed(DIV0, 0, batch(0, 9, 0));
        answer(response(DIV0, data(10, 4, 10, records())));
        assertThat(p.logStartOffset).isEqualTo(4);
        assertThat(transport.last().request().partitions().get(DIV0).logStartOffset()).isEqualTo(4);
    }

    @Test
    @DisplayName("FOL-6 FENCED_LEADER_EPOCH in the current epoch marks the partition failed until re-added")
    void fol6FencedCurrentEpoch() {
        FakeFollowerPartition[] both = followedTogether(2, batch(0, 4, 0));
        FakeFollowerPartition p = both[0];
        FakeFollowerPartition other = both[1];
        answer(response(Map.of(DIV0, error(Errors.FENCED_LEADER_EPOCH, -1, -1),
                DIV1, data(5, 0, 6, records(batch(5, 5, 0))))));
        assertThat(state(DIV0).state()).isInstanceOf(FetchState.Failed.class);
        assertThat(manager.failedPartitions()).containsExactly(DIV0);
        assertThat(failures).containsKey(DIV0);
        assertThat(other.logEndOffset).isEqualTo(6);
        assertThat(transport.last().request().partitions().keySet()).containsExactly(DIV1);
        scheduler.advance(5 * BACKOFF_MS);
        assertThat(transport.sent.stream().skip(1).allMatch(s -> !s.request().partitions().containsKey(DIV0))).isTrue();

        // Newer metadata adds it back, even in the same epoch (a failed state is never kept).
        manager.addFetcherForPartitions(Map.of(DIV0, follow(p, 1, 3)));
        assertThat(manager.failedPartitions()).isEmpty();
        assertThat(state(DIV0).state()).isEqualTo(FetchState.FETCHING);
    }

    @Test
    @DisplayName("FOL-6 FENCED_LEADER_EPOCH for an older epoch than the fetcher's only backs off")
    void fol6FencedOlderEpochBacksOff() {
        FakeFollowerPartition p = followed(DIV0, 2, batch(0, 4, 0));
        FakeTransport.Sent first = transport.last();
        // The metadata moved to epoch 3 at the same fetch offset while the fetch was out.
        manager.addFetcherForPartitions(Map.of(DIV0, follow(p, 1, 3)));
        first.future().complete(response(DIV0, error(Errors.FENCED_LEADER_EPOCH, -1, -1)));
        scheduler.runReady();
        assertThat(state(DIV0).state()).isInstanceOf(FetchState.Delayed.class);
        assertThat(manager.failedPartitions()).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(value = Errors.class, names = {"NOT_LEADER_OR_FOLLOWER", "UNKNOWN_LEADER_EPOCH",
            "UNKNOWN_TOPIC_OR_PARTITION", "CORRUPT_MESSAGE"})
    @DisplayName("FOL-6 retriable errors delay the partition by replica.fetch.backoff.ms")
    void fol6RetriableErrorsBackOff(Errors err) {
        FakeFollowerPartition p = followed(DIV0, 0, batch(0, 4, 0));
        answer(response(DIV0, error(err, -1, -1)));
        assertThat(state(DIV0).state()).isEqualTo(new FetchState.Delayed(scheduler.nowMs() + BACKOFF_MS));
        assertThat(state(DIV0).fetchOffset()).isEqualTo(5);
        assertThat(manager.failedPartitions()).isEmpty();
        assertThat(p.calls).isEmpty();
    }

    @Test
    @DisplayName("FOL-6 OFFSET_OUT_OF_RANGE with the leader's LEO below ours truncates to it")
    void fol6OutOfRangeTruncates() {
        FakeFollowerPartition p = followed(DIV0, 0, batch(0, 4, 0), batch(5, 9, 0));
        answer(response(DIV0, error(Errors.OFFSET_OUT_OF_RANGE, 0, 5)));
        assertThat(p.calls).containsExactly("truncateTo 5");
        assertThat(p.logEndOffset).isEqualTo(5);
        assertThat(transport.last().request().partitions().get(DIV0).fetchOffset()).isEqualTo(5);
    }

    @Test
    @DisplayName("FOL-6 OFFSET_OUT_OF_RANGE with the leader's log start above our LEO restarts the log there")
    void fol6OutOfRangeRestartsLog() {
        FakeFollowerPartition p = followed(DIV0, 0, batch(0, 4, 0));
        answer(response(DIV0, error(Errors.OFFSET_OUT_OF_RANGE, 100, 120)));
        assertThat(p.calls).containsExactly("truncateFullyAndStartAt 100");
        assertThat(transport.last().request().partitions().get(DIV0).fetchOffset()).isEqualTo(100);
        assertThat(transport.last().request().partitions().get(DIV0).logStartOffset()).isEqualTo(100);
    }

    @Test
    @DisplayName("FOL-6 OFFSET_OUT_OF_RANGE within the leader's range keeps the log and fetches from the LEO")
    void fol6OutOfRangeKeepsLog() {
        FakeFollowerPartition p = followed(DIV0, 0, batch(0, 4, 0));
        answer(response(DIV0, error(Errors.OFFSET_OUT_OF_RANGE, 0, 20)));
        assertThat(p.calls).isEmpty();
        // Same position again: backed off rather than spun on.
        assertThat(state(DIV0).state()).isInstanceOf(FetchState.Delayed.class);
        scheduler.advance(BACKOFF_MS);
        assertThat(transport.last().request().partitions().get(DIV0).fetchOffset()).isEqualTo(5);
    }

    @Test
    @DisplayName("FOL-6 a storage error marks only that partition failed; the others keep fetching")
    void fol6StorageErrorFailsOnePartition() {
        FakeFollowerPartition[] both = followedTogether(0, batch(0, 4, 0));
        FakeFollowerPartition bad = both[0];
        FakeFollowerPartition good = both[1];
        bad.failNextAppend = new ApiException(Errors.KAFKA_STORAGE_ERROR, "disk gone for div-0");
        answer(response(Map.of(DIV0, data(6, 0, 6, records(batch(5, 5, 0))),
                DIV1, data(6, 0, 6, records(batch(5, 5, 0))))));
        assertThat(state(DIV0).state()).isInstanceOf(FetchState.Failed.class);
        assertThat(failures.get(DIV0)).contains("KAFKA_STORAGE_ERROR");
        assertThat(good.logEndOffset).isEqualTo(6);
        assertThat(transport.last().request().partitions().keySet()).containsExactly(DIV1);
    }

    @Test
    @DisplayName("FOL-6 an unexpected exception marks only that partition failed")
    void fol6UnexpectedExceptionFailsPartition() {
        FakeFollowerPartition bad = followed(DIV0, 0, batch(0, 4, 0));
        bad.failNextAppend = new UncheckedIOException(new IOException("EIO on div-0"));
        answer(response(DIV0, data(6, 0, 6, records(batch(5, 5, 0)))));
        assertThat(manager.failedPartitions()).containsExactly(DIV0);
        assertThat(failures.get(DIV0)).contains("EIO");
    }

    @Test
    @DisplayName("FOL-6 invalid records from the leader (CORRUPT_MESSAGE on append) back off, not fail")
    void fol6CorruptRecordsBackOff() {
        FakeFollowerPartition p = followed(DIV0, 0, batch(0, 4, 0));
        p.failNextAppend = new ApiException(Errors.CORRUPT_MESSAGE, "CRC mismatch at offset 5 of div-0");
        answer(response(DIV0, data(6, 0, 6, records(batch(5, 5, 0)))));
        assertThat(state(DIV0).state()).isInstanceOf(FetchState.Delayed.class);
        assertThat(manager.failedPartitions()).isEmpty();
    }

    @Test
    @DisplayName("FOL-7 a log without epoch information is truncated to its HW before it fetches")
    void fol7TruncatingToHighWatermark() {
        FakeFollowerPartition p = new FakeFollowerPartition(DIV0).withBatches(batch(0, 4, -1), batch(5, 9, -1));
        p.highWatermark = 5;
        manager.addFetcherForPartitions(Map.of(DIV0, follow(p, 1, 0)));
        assertThat(state(DIV0).state()).isEqualTo(FetchState.TRUNCATING);
        assertThat(state(DIV0).fetchOffset()).isEqualTo(5);
        scheduler.runReady();
        assertThat(p.calls).containsExactly("truncateTo 5");
        assertThat(p.logEndOffset).isEqualTo(5);
        FetchRequest.PartitionData sent = transport.last().request().partitions().get(DIV0);
        assertThat(sent.fetchOffset()).isEqualTo(5);
        assertThat(sent.lastFetchedEpoch()).isEmpty();
    }

    @Test
    @DisplayName("FOL-7 re-adding a partition with the same leader epoch keeps its fetch state")
    void fol7ReAddSameEpochKeepsState() {
        FakeFollowerPartition p = followed(DIV0, 5, batch(0, 4, 0));
        answer(response(DIV0, data(5, 0, 8, records(batch(5, 7, 5)))));
        PartitionFetchState before = state(DIV0);
        // Stale initOffset (e.g. computed from an older view) must not reset a same-epoch state.
        manager.addFetcherForPartitions(Map.of(DIV0, new InitialFetchState(p, 1, 5, 2)));
        assertThat(state(DIV0)).isEqualTo(before);
        manager.addFetcherForPartitions(Map.of(DIV0, new InitialFetchState(p, 1, 6, 8)));
        assertThat(state(DIV0).currentLeaderEpoch()).isEqualTo(6);
    }

    @Test
    @DisplayName("FOL-8 divergingEpoch: no records, truncate to min(follower end, leader end, LEO), fetch from the new LEO")
    void fol8DivergenceTruncates() {
        // SCN-3: broker 1 holds ok (epoch 0, 0..9) and lost (epoch 0, 10..14); the new leader's epoch 0 ended at 10.
        FakeFollowerPartition p = followed(DIV0, 1, batch(0, 9, 0), batch(10, 14, 0));
        p.highWatermark = 12;
        answer(response(DIV0, new FetchResponse.PartitionData(Errors.NONE, 13, 13, 0, 13,
                records(batch(10, 12, 1)), java.util.Optional.of(new EpochEndOffset(0, 10)))));
        assertThat(p.calls).containsExactly("truncateTo 10");
        assertThat(p.logEndOffset).isEqualTo(10);
        assertThat(p.highWatermark).isEqualTo(10);
        assertThat(hwChanges).containsExactly(Set.of(DIV0));
        FetchRequest.PartitionData next = transport.last().request().partitions().get(DIV0);
        assertThat(next.fetchOffset()).isEqualTo(10);
        assertThat(next.lastFetchedEpoch()).hasValue(0);
        // The next answer carries the new leader's records.
        answer(response(DIV0, data(13, 0, 13, records(batch(10, 12, 1)))));
        assertThat(p.batches).extracting(FakeFollowerPartition.Batch::epoch).containsExactly(0, 1);
        assertThat(p.logEndOffset).isEqualTo(13);
    }

    @Test
    @DisplayName("FOL-8 follower unaware of the leader's epoch truncates to its earlier epoch's end and asks again")
    void fol8UnknownEpochTruncatesTwice() {
        // Follower: epoch 0 [0..4], epoch 2 [5..14]. Leader knows epochs 0, 1 (not 2) and says epoch 1 ends at 8.
        FakeFollowerPartition p = followed(DIV0, 3, batch(0, 4, 0), batch(5, 14, 2));
        answer(response(DIV0, diverging(8, new EpochEndOffset(1, 8))));
        assertThat(p.logEndOffset).isEqualTo(5); // end of epoch 0, the largest below 1
        assertThat(transport.last().request().partitions().get(DIV0).lastFetchedEpoch()).hasValue(0);
        // Leader: epoch 0 ended at 5 as well; nothing more to cut.
        answer(response(DIV0, data(8, 0, 8, records(batch(5, 7, 1)))));
        assertThat(p.logEndOffset).isEqualTo(8);
    }

    @Test
    @DisplayName("FOL-8 divergingEpoch with endOffset -1 truncates to the current fetch offset")
    void fol8UndefinedEndOffset() {
        FakeFollowerPartition p = followed(DIV0, 1, batch(0, 9, 0));
        answer(response(DIV0, diverging(5, new EpochEndOffset(0, -1))));
        assertThat(p.calls).containsExactly("truncateTo 10");
        assertThat(p.logEndOffset).isEqualTo(10);
        assertThat(state(DIV0).state()).isEqualTo(FetchState.FETCHING);
    }

    @Test
    @DisplayName("FOL-2 partitions keep their add order in the request")
    void fol2RequestOrder() {
        FakeFollowerPartition a = new FakeFollowerPartition(DIV1);
        FakeFollowerPartition b = new FakeFollowerPartition(DIV0);
        Map<TopicPartition, InitialFetchState> add = new LinkedHashMap<>();
        add.put(DIV1, follow(a, 1, 0));
        add.put(DIV0, follow(b, 1, 0));
        manager.addFetcherForPartitions(add);
        scheduler.runReady();
        assertThat(List.copyOf(transport.last().request().partitions().keySet())).containsExactly(DIV1, DIV0);
    }

    @Test
    @DisplayName("FOL-2 idle with only delayed partitions, the fetcher wakes when the first of them is ready, not a full backoff later")
    void fol2IdleWaitEndsWithTheEarliestDelay() {
        followedTogether(0, batch(0, 4, 0));
        long t0 = scheduler.nowMs();
        answer(response(Map.of(DIV0, error(Errors.NOT_LEADER_OR_FOLLOWER, -1, -1), DIV1, data(5, 0, 5, records()))));
        assertThat(transport.last().request().partitions().keySet()).containsExactly(DIV1);
        scheduler.advance(BACKOFF_MS / 2);
        // DIV1 errs too: nothing is ready; DIV0 is ready at t0 + backoff, DIV1 half a backoff later.
        answer(response(DIV1, error(Errors.NOT_LEADER_OR_FOLLOWER, -1, -1)));
        int sent = transport.sent.size();
        scheduler.advance(BACKOFF_MS / 2 - 1);
        assertThat(transport.sent).hasSize(sent);
        scheduler.advance(1);
        assertThat(scheduler.nowMs()).isEqualTo(t0 + BACKOFF_MS);
        assertThat(transport.sent).hasSize(sent + 1);
        assertThat(transport.last().request().partitions().keySet()).containsExactly(DIV0);
    }

    @Test
    @DisplayName("FOL-6 an answer arriving after its partition was removed from the fetcher is not applied")
    void fol6AnswerAfterRemovalNotApplied() {
        FakeFollowerPartition[] both = followedTogether(0, batch(0, 4, 0));
        FakeTransport.Sent inFlight = transport.last();
        Map<TopicPartition, PartitionFetchState> removed = manager.removeFetcherForPartitions(Set.of(DIV0));
        assertThat(removed).containsOnlyKeys(DIV0);
        assertThat(removed.get(DIV0).fetchOffset()).isEqualTo(5);
        inFlight.future().complete(response(Map.of(DIV0, data(9, 0, 9, records(batch(5, 8, 0))),
                DIV1, data(9, 0, 9, records(batch(5, 8, 0))))));
        scheduler.runReady();
        assertThat(both[0].calls).isEmpty();
        assertThat(both[0].logEndOffset).isEqualTo(5);
        assertThat(both[1].logEndOffset).isEqualTo(9);
        assertThat(transport.last().request().partitions().keySet()).containsExactly(DIV1);
        // Removing a partition the fetcher does not hold returns nothing.
        assertThat(manager.removeFetcherForPartitions(Set.of(DIV0))).isEmpty();
    }

    @Test
    @DisplayName("FET-6 FOL-2 an answer that omits a requested partition applies the others; the omitted one is fetched again")
    void fet6AnswerMissingAPartition() {
        FakeFollowerPartition[] both = followedTogether(0, batch(0, 4, 0));
        assertThat(List.copyOf(transport.last().request().partitions().keySet())).containsExactly(DIV0, DIV1);
        answer(response(DIV0, data(7, 0, 7, records(batch(5, 6, 0)))));
        assertThat(both[0].logEndOffset).isEqualTo(7);
        assertThat(both[1].logEndOffset).isEqualTo(5);
        FetchRequest next = transport.last().request();
        assertThat(transport.sent).hasSize(2);
        assertThat(next.partitions().get(DIV0).fetchOffset()).isEqualTo(7);
        assertThat(next.partitions().get(DIV1).fetchOffset()).isEqualTo(5);
    }

    @Test
    @DisplayName("FOL-6 a failed partition is reported with its error: fenced, storage error, anything else unknown")
    void fol6FailureReportsItsError() {
        FakeFollowerPartition fenced = followed(DIV0, 0, batch(0, 4, 0));
        answer(response(DIV0, error(Errors.FENCED_LEADER_EPOCH, -1, -1)));
        assertThat(failures.get(DIV0)).startsWith("FENCED_LEADER_EPOCH ");

        failures.clear();
        manager.addFetcherForPartitions(Map.of(DIV0, follow(fenced, 1, 1)));
        scheduler.runReady();
        fenced.failNextAppend = new UncheckedIOException(new IOException("EIO on div-0"));
        answer(response(DIV0, data(6, 0, 6, records(batch(5, 5, 0)))));
        assertThat(failures.get(DIV0)).startsWith("KAFKA_STORAGE_ERROR ");

        failures.clear();
        manager.addFetcherForPartitions(Map.of(DIV0, follow(fenced, 1, 2)));
        scheduler.runReady();
        fenced.failNextAppend = new IllegalStateException("a bug");
        answer(response(DIV0, data(6, 0, 6, records(batch(5, 5, 0)))));
        assertThat(failures.get(DIV0)).startsWith("UNKNOWN_SERVER_ERROR ").contains("a bug");
    }

    @Test
    @DisplayName("FOL-6 FOL-7 a partition failed in an epoch and added again in the same epoch fetches again (a failed state is never kept)")
    void fol6FailedPartitionReAddedInSameEpochFetches() {
        FakeFollowerPartition p = followed(DIV0, 4, batch(0, 4, 0));
        p.failNextAppend = new UncheckedIOException(new IOException("EIO on div-0"));
        answer(response(DIV0, data(6, 0, 6, records(batch(5, 5, 0)))));
        assertThat(state(DIV0).isFailed()).isTrue();
        manager.addFetcherForPartitions(Map.of(DIV0, follow(p, 1, 4)));
        scheduler.runReady();
        assertThat(state(DIV0).isFailed()).isFalse();
        assertThat(state(DIV0).state()).isEqualTo(FetchState.FETCHING);
        assertThat(transport.last().request().partitions()).containsKey(DIV0);
    }

    @Test
    @DisplayName("FOL-5 an answer without records appends nothing and re-reports no unchanged HW")
    void fol5EmptyAnswerAppendsNothing() {
        FakeFollowerPartition p = followed(DIV0, 0, batch(0, 9, 0));
        p.calls.clear();
        answer(response(DIV0, data(10, 0, 10, records())));
        answer(response(DIV0, data(10, 0, 10, records())));
        assertThat(p.calls).isEmpty();
        assertThat(hwChanges).isEmpty();
    }

    @Test
    @DisplayName("FOL-6 OFFSET_OUT_OF_RANGE within the leader's range after the LEO moved under the fetcher: fetch again from the LEO at once")
    void fol6OutOfRangeFetchesFromMovedLeo() {
        FakeFollowerPartition p = followed(DIV0, 0, batch(0, 4, 0));
        p.truncateTo(2);
        p.calls.clear();
        answer(response(DIV0, error(Errors.OFFSET_OUT_OF_RANGE, 0, 20)));
        assertThat(p.calls).isEmpty();
        assertThat(state(DIV0).state()).isEqualTo(FetchState.FETCHING);
        assertThat(transport.sent).hasSize(2);
        assertThat(transport.last().request().partitions().get(DIV0).fetchOffset()).isEqualTo(2);
    }

    @Test
    @DisplayName("FOL-6 OFFSET_OUT_OF_RANGE from a leader whose log is empty (LEO 0) truncates ours to 0")
    void fol6OutOfRangeLeaderLogEmpty() {
        FakeFollowerPartition p = followed(DIV0, 0, batch(0, 4, 0));
        answer(response(DIV0, error(Errors.OFFSET_OUT_OF_RANGE, 0, 0)));
        assertThat(p.calls).containsExactly("truncateTo 0");
        assertThat(p.logEndOffset).isZero();
        assertThat(transport.last().request().partitions().get(DIV0).fetchOffset()).isZero();
    }

    @Test
    @DisplayName("FOL-5 a leader HW above our LEO is applied again after every append, clamped to the new LEO")
    void fol5HighWatermarkReappliedAfterEachAppend() {
        FakeFollowerPartition p = followed(DIV0, 0, batch(0, 9, 0));
        answer(response(DIV0, data(50, 0, 50, records(batch(10, 11, 0)))));
        assertThat(p.highWatermark).isEqualTo(12);
        answer(response(DIV0, data(50, 0, 50, records(batch(12, 13, 0)))));
        assertThat(p.highWatermark).isEqualTo(14);
        assertThat(hwChanges).containsExactly(Set.of(DIV0), Set.of(DIV0));
    }

    @Test
    @DisplayName("FOL-6 FOL-5 restarting the log at the leader's log start reports the follower's HW change")
    void fol6OutOfRangeRestartReportsHighWatermark() {
        FakeFollowerPartition p = followed(DIV0, 0, batch(0, 4, 0));
        answer(response(DIV0, error(Errors.OFFSET_OUT_OF_RANGE, 100, 120)));
        assertThat(p.highWatermark).isEqualTo(100);
        assertThat(hwChanges).containsExactly(Set.of(DIV0));
    }

    @Test
    @DisplayName("FOL-6 a log start offset that cannot be read fails that partition alone, reported with its error")
    void fol6UnreadableLogStartFailsPartition() {
        FakeFollowerPartition[] both = followedTogether(0, batch(0, 4, 0));
        both[0].failLogStartOffset = new UncheckedIOException(new IOException("EIO reading div-0"));
        answer(response(Map.of(DIV0, data(5, 0, 5, records()), DIV1, data(5, 0, 5, records()))));
        assertThat(state(DIV0).isFailed()).isTrue();
        assertThat(failures.get(DIV0)).startsWith("KAFKA_STORAGE_ERROR ").contains("EIO reading div-0");
        assertThat(manager.failedPartitions()).containsExactly(DIV0);
        assertThat(transport.last().request().partitions().keySet()).containsExactly(DIV1);
    }

    @Test
    @DisplayName("FOL-7 FOL-6 a failed truncation to the HW fails that partition, reported; it is not fetched")
    void fol7FailedTruncationFailsPartition() {
        FakeFollowerPartition p = new FakeFollowerPartition(DIV0).withBatches(batch(0, 9, -1)).withHighWatermark(6);
        p.failNextTruncate = new UncheckedIOException(new IOException("EIO truncating div-0"));
        manager.addFetcherForPartitions(Map.of(DIV0, follow(p, 1, 0)));
        scheduler.runReady();
        assertThat(state(DIV0).isFailed()).isTrue();
        assertThat(failures.get(DIV0)).startsWith("KAFKA_STORAGE_ERROR ").contains("EIO truncating div-0");
        assertThat(transport.sent).isEmpty();
    }

    @Test
    @DisplayName("FOL-8 a follower whose epoch E ends before the leader's end for E truncates to its own end")
    void fol8FollowerEndBelowLeaderEnd() {
        // Follower: epoch 0 [0..4], epoch 2 [5..7], epoch 3 [8..12]; the leader says its epoch 2 ended at 10.
        FakeFollowerPartition p = followed(DIV0, 4, batch(0, 4, 0), batch(5, 7, 2), batch(8, 12, 3));
        answer(response(DIV0, diverging(5, new EpochEndOffset(2, 10))));
        assertThat(p.calls).containsExactly("truncateTo 8");
        assertThat(p.logEndOffset).isEqualTo(8);
    }

    @Test
    @DisplayName("The MaxLag gauge (Kafka's ReplicaFetcherManager MaxLag) is the largest leader HW minus fetch position over the partitions, 0 once caught up")
    void fol1MaxLag() {
        followedTogether(0, batch(0, 4, 0));
        answer(response(Map.of(DIV0, data(20, 0, 20, records(batch(5, 6, 0))), DIV1, data(9, 0, 9, records(batch(5, 5, 0))))));
        assertThat(manager.maxLag()).isEqualTo(13);
        assertThat(manager.fetcherFor(DIV0).orElseThrow().maxLag()).isEqualTo(13);
        answer(response(Map.of(DIV0, data(7, 0, 7, records()), DIV1, data(6, 0, 6, records()))));
        assertThat(manager.maxLag()).isZero();
    }
}
