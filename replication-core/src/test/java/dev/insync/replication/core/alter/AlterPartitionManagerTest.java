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

package dev.insync.replication.core.alter;

import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionRequest.BrokerState;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.AlterPartitionResponse.PartitionResult;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AlterPartitionManagerTest {

    private static final long BACKOFF_MS = 50;

    private final ManualScheduler scheduler = new ManualScheduler(1_000);
    private final FakeControllerChannel channel = new FakeControllerChannel();
    private final AtomicLong brokerEpoch = new AtomicLong(7);
    private final AlterPartitionManager manager = new AlterPartitionManager(1, brokerEpoch::get, channel,
            scheduler.newSerialExecutor("AlterPartitionSender-1"), scheduler, BACKOFF_MS);

    private static final TopicPartition P0 = new TopicPartition("rep", 0);
    private static final TopicPartition P1 = new TopicPartition("rep", 1);
    private static final TopicPartition P2 = new TopicPartition("rep", 2);
    private static final TopicPartition P3 = new TopicPartition("other", 0);

    private static AlterPartitionRequest.Item item(TopicPartition tp, int... isr) {
        List<BrokerState> members = java.util.Arrays.stream(isr).mapToObj(id -> new BrokerState(id, 100 + id)).toList();
        return new AlterPartitionRequest.Item(tp, 0, 0, members, false);
    }

    private static PartitionResult ok(AlterPartitionRequest.Item item) {
        return new PartitionResult(Errors.NONE, 1, item.leaderEpoch(), item.newIsrIds(), item.partitionEpoch() + 1);
    }

    private static AlterPartitionResponse okFor(AlterPartitionRequest request) {
        Map<TopicPartition, PartitionResult> m = new HashMap<>();
        request.items().forEach(i -> m.put(i.topicPartition(), ok(i)));
        return new AlterPartitionResponse(Errors.NONE, m);
    }

    private static List<TopicPartition> partitionsOf(AlterPartitionRequest request) {
        return request.items().stream().map(AlterPartitionRequest.Item::topicPartition).toList();
    }

    @Test
    @DisplayName("ISR-5 proposals queued while a request is in flight go out together in the next request")
    void batchesWhileInFlight() {
        CompletableFuture<PartitionResult> f0 = manager.submit(item(P0, 1, 2));
        scheduler.runReady();
        assertThat(channel.alterCalls).hasSize(1);
        assertThat(partitionsOf(channel.lastAlter().request())).containsExactly(P0);

        CompletableFuture<PartitionResult> f1 = manager.submit(item(P1, 1, 2));
        CompletableFuture<PartitionResult> f2 = manager.submit(item(P2, 1, 3));
        CompletableFuture<PartitionResult> f3 = manager.submit(item(P3, 1));
        scheduler.runReady();
        assertThat(channel.alterCalls).as("one request in flight per broker").hasSize(1);
        assertThat(manager.outstandingCount()).isEqualTo(4);

        channel.alterCalls.get(0).response().complete(okFor(channel.alterCalls.get(0).request()));
        scheduler.runReady();
        assertThat(f0).isCompletedWithValue(ok(item(P0, 1, 2)));
        assertThat(channel.alterCalls).hasSize(2);
        AlterPartitionRequest second = channel.alterCalls.get(1).request();
        assertThat(partitionsOf(second)).containsExactly(P1, P2, P3);
        assertThat(second.brokerId()).isEqualTo(1);
        assertThat(second.brokerEpoch()).isEqualTo(7);
        assertThat(f1).isNotDone();

        channel.alterCalls.get(1).response().complete(okFor(second));
        scheduler.runReady();
        assertThat(f1).isCompletedWithValue(ok(item(P1, 1, 2)));
        assertThat(f2).isCompletedWithValue(ok(item(P2, 1, 3)));
        assertThat(f3).isCompletedWithValue(ok(item(P3, 1)));
        assertThat(manager.outstandingCount()).isZero();
        assertThat(manager.isRequestInFlight()).isFalse();
        assertThat(channel.alterCalls).hasSize(2);
    }

    @Test
    @DisplayName("ISR-5 at most one request in flight per broker while it goes unanswered")
    void oneInFlightEvenIfNeverAnswered() {
        manager.submit(item(P0, 1, 2));
        scheduler.runReady();
        for (int i = 0; i < 5; i++) {
            manager.submit(item(new TopicPartition("t" + i, 0), 1));
            scheduler.advance(AlterPartitionManager.DEFAULT_REQUEST_TIMEOUT_MS / 6);
        }
        assertThat(channel.alterCalls).hasSize(1);
        assertThat(manager.isRequestInFlight()).isTrue();
        assertThat(manager.outstandingCount()).isEqualTo(6);
    }

    @Test
    @DisplayName("ISR-5 a second proposal for a partition with one outstanding is refused with OPERATION_NOT_ATTEMPTED")
    void duplicateSubmitRefused() {
        CompletableFuture<PartitionResult> first = manager.submit(item(P0, 1, 2));
        CompletableFuture<PartitionResult> unsentDuplicate = manager.submit(item(P0, 1));
        assertThat(unsentDuplicate).isCompletedExceptionally();
        assertThatThrownBy(unsentDuplicate::get).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(ApiException.class)
                .satisfies(e -> assertThat(((ApiException) e).error()).isEqualTo(Errors.OPERATION_NOT_ATTEMPTED))
                .hasMessageContaining("rep-0");

        scheduler.runReady();
        CompletableFuture<PartitionResult> inFlightDuplicate = manager.submit(item(P0, 1, 3));
        assertThat(inFlightDuplicate).isCompletedExceptionally();
        // The first proposal is untouched and is the one that was sent.
        assertThat(channel.lastAlter().request().items()).containsExactly(item(P0, 1, 2));
        channel.lastAlter().response().complete(okFor(channel.lastAlter().request()));
        scheduler.runReady();
        assertThat(first).isCompletedWithValue(ok(item(P0, 1, 2)));

        // Once answered, the partition may propose again.
        CompletableFuture<PartitionResult> again = manager.submit(item(P0, 1));
        scheduler.runReady();
        assertThat(again).isNotDone();
        assertThat(channel.alterCalls).hasSize(2);
    }

    @Test
    @DisplayName("ISR-5 STALE_BROKER_EPOCH on the request is resent after the backoff with the current broker epoch")
    void requestLevelErrorResentAfterBackoff() {
        CompletableFuture<PartitionResult> f0 = manager.submit(item(P0, 1, 2));
        scheduler.runReady();
        channel.lastAlter().response().complete(new AlterPartitionResponse(Errors.STALE_BROKER_EPOCH, Map.of()));
        scheduler.runReady();
        assertThat(f0).isNotDone();
        assertThat(channel.alterCalls).hasSize(1);

        brokerEpoch.set(9); // re-registered meanwhile
        CompletableFuture<PartitionResult> f1 = manager.submit(item(P1, 1)); // queued during the backoff
        scheduler.runReady();
        assertThat(channel.alterCalls).as("nothing is sent during the backoff").hasSize(1);
        scheduler.advance(BACKOFF_MS - 1);
        assertThat(channel.alterCalls).hasSize(1);
        scheduler.advance(1);
        assertThat(channel.alterCalls).hasSize(2);
        AlterPartitionRequest resent = channel.lastAlter().request();
        assertThat(resent.brokerEpoch()).isEqualTo(9);
        assertThat(partitionsOf(resent)).containsExactly(P0, P1);

        channel.lastAlter().response().complete(okFor(resent));
        scheduler.runReady();
        assertThat(f0).isCompletedWithValue(ok(item(P0, 1, 2)));
        assertThat(f1).isCompletedWithValue(ok(item(P1, 1)));
    }

    @Test
    @DisplayName("ISR-5 a transport failure is resent after the backoff and requests never time out")
    void transportFailureResent() {
        CompletableFuture<PartitionResult> f0 = manager.submit(item(P0, 1, 2));
        scheduler.runReady();
        for (int attempt = 1; attempt <= 3; attempt++) {
            channel.lastAlter().response().completeExceptionally(new IOException("connection reset (test)"));
            scheduler.runReady();
            assertThat(channel.alterCalls).hasSize(attempt);
            scheduler.advance(BACKOFF_MS);
            assertThat(channel.alterCalls).hasSize(attempt + 1);
            assertThat(f0).isNotDone();
        }
        assertThat(manager.requestsSent()).isEqualTo(4);
        channel.lastAlter().response().complete(okFor(channel.lastAlter().request()));
        scheduler.runReady();
        assertThat(f0).isCompletedWithValue(ok(item(P0, 1, 2)));
    }

    @Test
    @DisplayName("ISR-5 a request lost on the way is resent after the request timeout; the late answer is ignored")
    void lostRequestResentAfterTimeout() {
        CompletableFuture<PartitionResult> f0 = manager.submit(item(P0, 1, 2));
        scheduler.runReady();
        assertThat(channel.alterCalls).hasSize(1);
        FakeControllerChannel.AlterCall lost = channel.lastAlter();
        scheduler.advance(AlterPartitionManager.DEFAULT_REQUEST_TIMEOUT_MS - 1);
        assertThat(channel.alterCalls).hasSize(1);
        scheduler.advance(1 + BACKOFF_MS);
        assertThat(channel.alterCalls).hasSize(2);
        lost.response().complete(new AlterPartitionResponse(Errors.NONE,
                Map.of(P0, PartitionResult.failed(Errors.INVALID_UPDATE_VERSION))));
        scheduler.runReady();
        assertThat(f0).isNotDone();
        channel.lastAlter().response().complete(okFor(channel.lastAlter().request()));
        scheduler.runReady();
        assertThat(f0).isCompletedWithValue(ok(item(P0, 1, 2)));
    }

    @Test
    @DisplayName("ISR-5 per-partition errors complete each partition's own future normally with that error")
    void perPartitionErrorsGoToTheRightFuture() {
        CompletableFuture<PartitionResult> f0 = manager.submit(item(P0, 1, 2));
        CompletableFuture<PartitionResult> f1 = manager.submit(item(P1, 1, 2));
        CompletableFuture<PartitionResult> f2 = manager.submit(item(P2, 1, 2));
        CompletableFuture<PartitionResult> f3 = manager.submit(item(P3, 1, 2));
        scheduler.runReady();
        assertThat(channel.alterCalls).hasSize(1);
        assertThat(partitionsOf(channel.lastAlter().request())).containsExactly(P0, P1, P2, P3);
        channel.lastAlter().response().complete(new AlterPartitionResponse(Errors.NONE, Map.of(
                P0, PartitionResult.failed(Errors.INELIGIBLE_REPLICA),
                P1, ok(item(P1, 1, 2)),
                P2, PartitionResult.failed(Errors.FENCED_LEADER_EPOCH))));
        scheduler.runReady();
        assertThat(f0.join().error()).isEqualTo(Errors.INELIGIBLE_REPLICA);
        assertThat(f1.join()).isEqualTo(ok(item(P1, 1, 2)));
        assertThat(f2.join().error()).isEqualTo(Errors.FENCED_LEADER_EPOCH);
        assertThat(f3.join().error()).as("omitted from the response").isEqualTo(Errors.UNKNOWN_SERVER_ERROR);
        assertThat(manager.outstandingCount()).isZero();
    }

    @Test
    @DisplayName("ISR-5 ordering is deterministic: items in submission order, callbacks may resubmit")
    void orderingIsDeterministicAndCallbacksMayResubmit() {
        List<TopicPartition> order = List.of(P3, P1, P0, P2);
        CompletableFuture<PartitionResult> f = null;
        for (TopicPartition tp : order) {
            CompletableFuture<PartitionResult> fut = manager.submit(item(tp, 1));
            if (tp.equals(P1)) {
                f = fut;
            }
        }
        // A Partition resubmits from its callback on "any other error" (ISR-5).
        f.thenAccept(r -> manager.submit(item(P1, 1, 2)));
        scheduler.runReady();
        assertThat(partitionsOf(channel.lastAlter().request())).containsExactlyElementsOf(order);
        Map<TopicPartition, PartitionResult> results = new HashMap<>();
        order.forEach(tp -> results.put(tp, PartitionResult.failed(Errors.NOT_CONTROLLER)));
        channel.lastAlter().response().complete(new AlterPartitionResponse(Errors.NONE, results));
        scheduler.runReady();
        assertThat(channel.alterCalls).hasSize(2);
        assertThat(channel.lastAlter().request().items()).containsExactly(item(P1, 1, 2));
    }

    @Test
    void closeFailsOutstandingFuturesAndStopsRetries() {
        CompletableFuture<PartitionResult> f0 = manager.submit(item(P0, 1, 2));
        scheduler.runReady();
        channel.lastAlter().response().complete(new AlterPartitionResponse(Errors.STALE_BROKER_EPOCH, Map.of()));
        scheduler.runReady();
        manager.close();
        scheduler.advance(BACKOFF_MS * 10);
        assertThat(channel.alterCalls).hasSize(1);
        assertThatThrownBy(f0::join).cause().isInstanceOf(ApiException.class);
        assertThat(manager.submit(item(P1, 1))).isCompletedExceptionally();
    }

    @Test
    void rejectsNegativeBackoff() {
        assertThatThrownBy(() -> new AlterPartitionManager(1, () -> 1, channel, Runnable::run, scheduler, -1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("broker 1");
    }
}
