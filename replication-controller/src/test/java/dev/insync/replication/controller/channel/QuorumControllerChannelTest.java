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

package dev.insync.replication.controller.channel;

import dev.insync.replication.controller.ManualScheduler;
import dev.insync.replication.controller.api.AlterTopicConfigRequest;
import dev.insync.replication.controller.api.ControllerApi;
import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.controller.api.NotControllerException;
import dev.insync.replication.controller.api.RegisterBrokerRequest;
import dev.insync.replication.controller.api.RegisterBrokerResponse;
import dev.insync.replication.controller.api.TopicDescription;
import dev.insync.replication.core.alter.AlterPartitionManager;
import dev.insync.replication.core.broker.BrokerLifecycleManager;
import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.AlterPartitionResponse.PartitionResult;
import dev.insync.replication.core.metadata.ControllerChannel.HeartbeatResponse;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.metadata.follower.MetadataFetchRequest;
import dev.insync.replication.core.metadata.follower.MetadataFetchResponse;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The broker's way to a controller quorum, on a manual clock with scripted controller endpoints. */
class QuorumControllerChannelTest {

    private static final QuorumControllerChannel.Settings SETTINGS = new QuorumControllerChannel.Settings(100, 400, 1000, 3);

    /** A scripted controller node: each request takes the next scripted answer, or hangs if none is left. */
    static final class FakeController implements ControllerApi {
        final int nodeId;
        final List<String> calls = new ArrayList<>();
        final Deque<CompletableFuture<Object>> script = new ArrayDeque<>();
        final List<CompletableFuture<Object>> hung = new ArrayList<>();

        FakeController(int nodeId) {
            this.nodeId = nodeId;
        }

        FakeController answers(Object value) {
            script.add(CompletableFuture.completedFuture(value));
            return this;
        }

        FakeController fails(Throwable error) {
            script.add(CompletableFuture.failedFuture(error));
            return this;
        }

        FakeController notController(OptionalInt hint) {
            return fails(new NotControllerException(nodeId, hint));
        }

        @SuppressWarnings("unchecked")
        private <T> CompletionStage<T> next(String call) {
            calls.add(call);
            CompletableFuture<Object> f = script.poll();
            if (f == null) {
                f = new CompletableFuture<>();
                hung.add(f);
            }
            return (CompletionStage<T>) f;
        }

        @Override
        public CompletionStage<RegisterBrokerResponse> registerBroker(RegisterBrokerRequest request) {
            return next("register-" + request.brokerId());
        }

        @Override
        public CompletionStage<HeartbeatResponse> brokerHeartbeat(HeartbeatRequest request) {
            return next("heartbeat-" + request.metadataOffset());
        }

        @Override
        public CompletionStage<AlterPartitionResponse> alterPartition(AlterPartitionRequest request) {
            return next("alter");
        }

        @Override
        public CompletionStage<MetadataFetchResponse> fetchMetadata(MetadataFetchRequest request) {
            return next("fetch-" + request.afterOffset());
        }

        @Override
        public CompletionStage<List<PartitionRegistration>> createTopic(CreateTopicRequest request) {
            return next("create");
        }

        @Override
        public CompletionStage<Void> deleteTopic(String topic) {
            return next("delete");
        }

        @Override
        public CompletionStage<Void> alterTopicConfig(AlterTopicConfigRequest request) {
            return next("config");
        }

        @Override
        public CompletionStage<Boolean> fenceBroker(int brokerId) {
            return next("fence");
        }

        @Override
        public CompletionStage<TopicDescription> describeTopic(String topic) {
            return next("describe");
        }
    }

    private final ManualScheduler scheduler = new ManualScheduler(0);
    private final FakeController c1 = new FakeController(1);
    private final FakeController c2 = new FakeController(2);
    private final FakeController c3 = new FakeController(3);
    private final QuorumControllerChannel channel =
            new QuorumControllerChannel(Map.of(1, c1, 2, c2, 3, c3), scheduler, SETTINGS);

    private static final HeartbeatResponse OK = new HeartbeatResponse(Errors.NONE, false, false);

    private static <T> T done(CompletionStage<T> stage) throws Exception {
        CompletableFuture<T> f = stage.toCompletableFuture();
        assertThat(f).isDone();
        return f.get();
    }

    private static Throwable failure(CompletionStage<?> stage) {
        CompletableFuture<?> f = stage.toCompletableFuture();
        assertThat(f).isCompletedExceptionally();
        try {
            f.get();
            throw new AssertionError("not failed");
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    @DisplayName("CTL-4 NOT_CONTROLLER with a hint: the request goes on to the hinted node at once, and later writes go there first")
    void ctl4RedirectToHint() throws Exception {
        c1.notController(OptionalInt.of(3));
        c3.answers(OK).answers(OK);
        CompletionStage<HeartbeatResponse> first = channel.heartbeat(new HeartbeatRequest(7, 5, 10, false));
        scheduler.runReady();
        assertThat(done(first)).isEqualTo(OK);
        assertThat(c1.calls).containsExactly("heartbeat-10");
        assertThat(c2.calls).isEmpty();
        assertThat(c3.calls).containsExactly("heartbeat-10");
        assertThat(channel.knownActiveController()).hasValue(3);

        CompletionStage<HeartbeatResponse> second = channel.heartbeat(new HeartbeatRequest(7, 5, 11, false));
        scheduler.runReady();
        assertThat(done(second)).isEqualTo(OK);
        assertThat(c1.calls).hasSize(1);
        assertThat(c3.calls).containsExactly("heartbeat-10", "heartbeat-11");
    }

    @Test
    @DisplayName("CTL-4 no node active: every node once per round, a doubling backoff between rounds, then the NOT_CONTROLLER error")
    void ctl4RoundsWithBackoffThenRetriableError() throws Exception {
        for (FakeController c : List.of(c1, c2, c3)) {
            for (int i = 0; i < 3; i++) {
                c.notController(OptionalInt.empty());
            }
        }
        CompletionStage<Long> epoch = channel.registerBroker(7, -1);
        scheduler.runReady();
        assertThat(c1.calls).hasSize(1);
        assertThat(c2.calls).hasSize(1);
        assertThat(c3.calls).hasSize(1);
        assertThat(epoch.toCompletableFuture()).isNotDone();
        scheduler.advance(99);
        assertThat(c1.calls.size() + c2.calls.size() + c3.calls.size()).isEqualTo(3);
        scheduler.advance(1); // the first backoff: 100 ms
        assertThat(c1.calls.size() + c2.calls.size() + c3.calls.size()).isEqualTo(6);
        scheduler.advance(199);
        assertThat(c1.calls.size() + c2.calls.size() + c3.calls.size()).isEqualTo(6);
        scheduler.advance(1); // doubled: 200 ms
        assertThat(c1.calls.size() + c2.calls.size() + c3.calls.size()).isEqualTo(9);
        Throwable error = failure(epoch);
        assertThat(error).isInstanceOf(ApiException.class);
        assertThat(((ApiException) error).error()).isEqualTo(Errors.NOT_CONTROLLER);
        assertThat(((ApiException) error).error().isRetriable()).isTrue();
    }

    @Test
    @DisplayName("CTL-4 the active controller dies (transport failure): the next node is tried at once and its hint followed")
    void ctl4TransportFailureMovesOn() throws Exception {
        c1.answers(OK).fails(new IOException("connection refused"));
        c2.notController(OptionalInt.of(3));
        c3.answers(OK);
        CompletionStage<HeartbeatResponse> warmUp = channel.heartbeat(new HeartbeatRequest(7, 5, 1, false));
        scheduler.runReady();
        done(warmUp);
        CompletionStage<HeartbeatResponse> hb = channel.heartbeat(new HeartbeatRequest(7, 5, 2, false));
        scheduler.runReady();
        assertThat(done(hb)).isEqualTo(OK);
        assertThat(c1.calls).containsExactly("heartbeat-1", "heartbeat-2");
        assertThat(c2.calls).containsExactly("heartbeat-2");
        assertThat(c3.calls).containsExactly("heartbeat-2");
        assertThat(channel.knownActiveController()).hasValue(3);
    }

    @Test
    @DisplayName("CTL-4 an attempt unanswered within request.timeout.ms counts as failed; its late answer is ignored")
    void ctl4UnansweredAttemptTimesOut() throws Exception {
        c2.answers(OK);
        CompletionStage<HeartbeatResponse> hb = channel.heartbeat(new HeartbeatRequest(7, 5, 3, false));
        scheduler.runReady();
        assertThat(c1.hung).hasSize(1);
        assertThat(c2.calls).isEmpty();
        scheduler.advance(1000);
        assertThat(done(hb)).isEqualTo(OK);
        assertThat(c2.calls).containsExactly("heartbeat-3");
        c1.hung.get(0).complete(new HeartbeatResponse(Errors.STALE_BROKER_EPOCH, true, false));
        scheduler.runReady();
        assertThat(done(hb)).isEqualTo(OK);
        assertThat(channel.knownActiveController()).hasValue(2);
    }

    @Test
    @DisplayName("CTL-4 order: a newer heartbeat supersedes one still being retried, which is never sent again")
    void newerRequestSupersedesOlder() throws Exception {
        for (FakeController c : List.of(c1, c2, c3)) {
            c.notController(OptionalInt.empty());
        }
        CompletionStage<HeartbeatResponse> old = channel.heartbeat(new HeartbeatRequest(7, 5, 1, false));
        scheduler.runReady(); // a round failed: backing off
        c1.answers(OK);
        CompletionStage<HeartbeatResponse> newer = channel.heartbeat(new HeartbeatRequest(7, 5, 2, false));
        scheduler.runReady();
        assertThat(((ApiException) failure(old)).error()).isEqualTo(Errors.OPERATION_NOT_ATTEMPTED);
        assertThat(done(newer)).isEqualTo(OK);
        scheduler.advance(1000);
        assertThat(c1.calls).containsExactly("heartbeat-1", "heartbeat-2");
        assertThat(c2.calls).containsExactly("heartbeat-1");
        assertThat(c3.calls).containsExactly("heartbeat-1");
    }

    @Test
    @DisplayName("CTL-3 CTL-4 the active controller is paused (its connection stays open, it answers nothing): the broker's"
            + " next heartbeat, which supersedes the unanswered one, goes to another node and reaches the new active"
            + " controller within two heartbeat intervals, long before broker.session.timeout.ms; later ones go there")
    void ctl3HeartbeatsLeaveAPausedActiveController() throws Exception {
        long intervalMs = 300;
        c1.answers(new RegisterBrokerResponse(Errors.NONE, 42)).answers(OK);
        BrokerLifecycleManager lifecycle = BrokerLifecycleManager.builder(7, channel, scheduler)
                .heartbeatIntervalMs(intervalMs).build();
        CompletableFuture<Long> registered = lifecycle.start();
        scheduler.runReady();
        assertThat(registered).isCompletedWithValue(42L);
        assertThat(c1.calls).containsExactly("register-7", "heartbeat--1");
        assertThat(channel.knownActiveController()).hasValue(1);

        // Node 1 is paused: every request to it hangs. Node 3 was elected; node 2 knows it.
        for (int i = 0; i < 10; i++) {
            c2.notController(OptionalInt.of(3));
            c3.answers(OK);
        }
        scheduler.advance(intervalMs); // this heartbeat goes to node 1, the last known active one, and hangs
        assertThat(c1.calls).hasSize(3);
        assertThat(c1.hung).hasSize(1);
        assertThat(c3.calls).isEmpty();
        scheduler.advance(intervalMs); // unanswered: the next one goes on to node 2, which points at node 3
        assertThat(c2.calls).containsExactly("heartbeat--1");
        assertThat(c3.calls).containsExactly("heartbeat--1");
        assertThat(channel.knownActiveController()).hasValue(3);
        scheduler.advance(3 * intervalMs);
        assertThat(c3.calls).hasSize(4);
        assertThat(c1.calls).as("nothing more to the paused node").hasSize(3);
        assertThat(c2.calls).hasSize(1);
        lifecycle.close();
    }

    @Test
    @DisplayName("CTL-4 ISR-5 an AlterPartition waiting on an active controller that was then paused goes to the new active"
            + " controller as soon as another request (a heartbeat) gets an answer there, not after request.timeout.ms")
    void ctl4WaitingAlterPartitionFollowsTheNewActiveController() throws Exception {
        c1.answers(OK);
        CompletionStage<HeartbeatResponse> first = channel.heartbeat(new HeartbeatRequest(7, 5, 1, false));
        scheduler.runReady();
        assertThat(done(first)).isEqualTo(OK);
        assertThat(channel.knownActiveController()).hasValue(1);
        TopicPartition tp = new TopicPartition("t", 0);
        AlterPartitionRequest request = new AlterPartitionRequest(7, 5, List.of(new AlterPartitionRequest.Item(tp, 3, 4,
                List.of(new AlterPartitionRequest.BrokerState(7, 5), new AlterPartitionRequest.BrokerState(8, 6)), false)));
        CompletionStage<AlterPartitionResponse> alter = channel.alterPartition(request);
        scheduler.runReady();
        assertThat(c1.calls).containsExactly("heartbeat-1", "alter"); // node 1 is paused: it hangs

        PartitionResult committed = new PartitionResult(Errors.NONE, 7, 3, List.of(7, 8), 5);
        AlterPartitionResponse response = new AlterPartitionResponse(Errors.NONE, Map.of(tp, committed));
        channel.heartbeat(new HeartbeatRequest(7, 5, 2, false));
        scheduler.runReady();
        assertThat(c1.calls).containsExactly("heartbeat-1", "alter", "heartbeat-2");
        // The lifecycle manager gives up on the heartbeat after an interval; the next one finds node 3 via node 2.
        c2.notController(OptionalInt.of(3));
        c3.answers(OK).answers(response);
        scheduler.advance(300);
        CompletionStage<HeartbeatResponse> third = channel.heartbeat(new HeartbeatRequest(7, 5, 3, false));
        scheduler.runReady();
        assertThat(done(third)).isEqualTo(OK);
        assertThat(c3.calls).containsExactly("heartbeat-3", "alter");
        assertThat(done(alter)).isEqualTo(response);
        assertThat(scheduler.time().milliseconds()).as("long before the attempt's request timeout")
                .isLessThan(SETTINGS.requestTimeoutMs());
        c1.hung.forEach(f -> f.complete(new AlterPartitionResponse(Errors.NOT_CONTROLLER, Map.of())));
        scheduler.runReady();
        assertThat(done(alter)).as("the paused node's late answer is ignored").isEqualTo(response);
    }

    @Test
    @DisplayName("A controller's non-retriable error is answered at once, without trying other nodes")
    void nonRetriableErrorIsFinal() {
        c1.fails(new ApiException(Errors.INVALID_REQUEST, "bad"));
        CompletionStage<HeartbeatResponse> hb = channel.heartbeat(new HeartbeatRequest(7, 5, 1, false));
        scheduler.runReady();
        assertThat(((ApiException) failure(hb)).error()).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(c2.calls).isEmpty();
        assertThat(c3.calls).isEmpty();
    }

    @Test
    @DisplayName("CTL-5 metadata fetches prefer the active controller, fall back to the others on failure, and move on from a node left unanswered")
    void ctl5FetchFallback() throws Exception {
        c1.notController(OptionalInt.of(3));
        c3.answers(OK);
        CompletionStage<HeartbeatResponse> warmUp = channel.heartbeat(new HeartbeatRequest(7, 5, 1, false));
        scheduler.runReady();
        done(warmUp);
        assertThat(channel.knownActiveController()).hasValue(3);
        MetadataFetchResponse empty = new MetadataFetchResponse(4, Optional.empty(), List.of());
        c3.fails(new IOException("reset"));
        c1.answers(empty);
        CompletionStage<MetadataFetchResponse> f1 = channel.fetchMetadata(new MetadataFetchRequest(7, 4, 500, 10));
        scheduler.runReady();
        assertThat(done(f1)).isEqualTo(empty);
        assertThat(c3.calls).containsSubsequence("heartbeat-1", "fetch-4");
        assertThat(c1.calls).contains("fetch-4");
        // Node 1 now serves fetches; one it leaves unanswered is abandoned by the follower, the next goes elsewhere.
        CompletionStage<MetadataFetchResponse> f2 = channel.fetchMetadata(new MetadataFetchRequest(7, 4, 500, 10));
        scheduler.runReady();
        assertThat(f2.toCompletableFuture()).isNotDone();
        c2.answers(empty);
        CompletionStage<MetadataFetchResponse> f3 = channel.fetchMetadata(new MetadataFetchRequest(7, 4, 500, 10));
        scheduler.runReady();
        assertThat(done(f3)).isEqualTo(empty);
        assertThat(c2.calls).contains("fetch-4");
    }

    @Test
    @DisplayName("CTL-5 a fetch every node fails fails once, for the follower's backoff")
    void ctl5FetchAllFail() {
        for (FakeController c : List.of(c1, c2, c3)) {
            c.fails(new IOException("down"));
        }
        CompletionStage<MetadataFetchResponse> f = channel.fetchMetadata(new MetadataFetchRequest(7, -1, 500, 10));
        scheduler.runReady();
        assertThat(failure(f)).isInstanceOf(IOException.class);
        assertThat(c1.calls.size() + c2.calls.size() + c3.calls.size()).isEqualTo(3);
    }

    @Test
    @DisplayName("ISR-5 over the quorum: a request every node refuses fails request-level; the AlterPartition manager resends it after its backoff until the new active controller answers")
    void isr5AlterPartitionManagerResendsThroughChannel() throws Exception {
        for (FakeController c : List.of(c1, c2, c3)) {
            for (int i = 0; i < SETTINGS.maxRounds(); i++) {
                c.notController(OptionalInt.empty());
            }
        }
        c1.notController(OptionalInt.of(2)); // after the election, node 1 knows the new active controller
        TopicPartition tp = new TopicPartition("t", 0);
        PartitionResult committed = new PartitionResult(Errors.NONE, 7, 3, List.of(7, 8), 5);
        c2.answers(new AlterPartitionResponse(Errors.NONE, Map.of(tp, committed)));
        AlterPartitionManager manager = new AlterPartitionManager(7, () -> 11L, channel,
                scheduler.newSerialExecutor("alter"), scheduler, 500);
        CompletableFuture<PartitionResult> result = manager.submit(new AlterPartitionRequest.Item(tp, 3, 4,
                List.of(new AlterPartitionRequest.BrokerState(7, 11), new AlterPartitionRequest.BrokerState(8, 12)), false));
        scheduler.runReady();
        scheduler.advance(100);
        scheduler.advance(200); // the channel's three rounds are over: the request failed
        assertThat(result).isNotDone();
        assertThat(manager.isRequestInFlight()).isFalse();
        assertThat(manager.requestsSent()).isEqualTo(1);
        scheduler.advance(500); // the manager's backoff: resent, node 2 is active now
        assertThat(result).isDone();
        assertThat(result.get()).isEqualTo(committed);
        assertThat(manager.requestsSent()).isEqualTo(2);
        assertThat(channel.knownActiveController()).hasValue(2);
    }

    @Test
    @DisplayName("Closing fails requests being retried and refuses new ones")
    void close() {
        for (FakeController c : List.of(c1, c2, c3)) {
            c.notController(OptionalInt.empty());
        }
        CompletionStage<HeartbeatResponse> hb = channel.heartbeat(new HeartbeatRequest(7, 5, 1, false));
        scheduler.runReady();
        channel.close();
        scheduler.runReady();
        assertThat(((ApiException) failure(hb)).error()).isEqualTo(Errors.OPERATION_NOT_ATTEMPTED);
        CompletionStage<HeartbeatResponse> later = channel.heartbeat(new HeartbeatRequest(7, 5, 2, false));
        scheduler.runReady();
        assertThat(((ApiException) failure(later)).error()).isEqualTo(Errors.OPERATION_NOT_ATTEMPTED);
        assertThatThrownBy(() -> new QuorumControllerChannel(Map.of(), scheduler, SETTINGS))
                .hasMessageContaining("at least one");
    }
}
