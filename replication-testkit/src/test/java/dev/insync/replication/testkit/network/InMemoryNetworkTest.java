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

package dev.insync.replication.testkit.network;

import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.log.Errors;
import dev.insync.replication.testkit.sim.EventLoop;
import dev.insync.replication.testkit.sim.NodeId;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

class InMemoryNetworkTest {

    private static final NodeId A = NodeId.broker(1);
    private static final NodeId B = NodeId.broker(2);
    private static final ServiceKey<Integer, Integer> ECHO = ServiceKey.of("echo", Integer.class, Integer.class);

    private final EventLoop loop = EventLoop.withSeed(11);
    private final InMemoryNetwork network = new InMemoryNetwork(loop);
    private final List<Integer> received = new ArrayList<>();

    private void bindEcho(NodeId node) {
        network.bind(node, ECHO, n -> {
            received.add(n);
            return CompletableFuture.completedFuture(n * 10);
        });
    }

    @Test
    @DisplayName("a request is handled on the receiver after the link delay and the response comes back the same way")
    void roundTrip() {
        network.setDefaultLink(LinkConfig.fixed(3));
        bindEcho(B);
        List<String> handledAt = new ArrayList<>();
        network.bind(A, ECHO, n -> CompletableFuture.completedFuture(0));
        network.bind(B, ServiceKey.of("where", Integer.class, String.class),
                n -> CompletableFuture.completedFuture(loop.currentNode() + "@" + loop.nowMs()));
        CompletableFuture<String> where = network.send(A, B, ServiceKey.of("where", Integer.class, String.class), 1);
        CompletableFuture<Integer> echo = network.send(A, B, ECHO, 7);
        where.thenAccept(w -> handledAt.add(w + " answered@" + loop.nowMs() + " on " + loop.currentNode()));

        loop.runFor(100);

        assertThat(echo).isCompletedWithValue(70);
        assertThat(handledAt).containsExactly("broker-2@3 answered@6 on broker-1");
    }

    @Test
    @DisplayName("messages on one link are delivered in send order even with random delays (TCP ordering)")
    void fifoPerLink() {
        network.setLink(A, B, LinkConfig.uniform(1, 50));
        bindEcho(B);
        List<Integer> answers = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            network.send(A, B, ECHO, i).thenAccept(answers::add);
        }
        loop.runFor(10_000);
        assertThat(received).hasSize(200).isSorted();
        assertThat(answers).hasSize(200).isSorted();
    }

    @Test
    @DisplayName("random delays are drawn from the seeded source: the same seed gives the same delivery times")
    void delaysAreSeeded() {
        assertThat(deliveryTimes(5)).isEqualTo(deliveryTimes(5)).isNotEqualTo(deliveryTimes(6));
    }

    private static List<Long> deliveryTimes(long seed) {
        EventLoop run = EventLoop.withSeed(seed);
        InMemoryNetwork net = new InMemoryNetwork(run);
        net.setDefaultLink(LinkConfig.uniform(0, 100));
        List<Long> times = new ArrayList<>();
        net.bind(B, ECHO, n -> {
            times.add(run.nowMs());
            return CompletableFuture.completedFuture(n);
        });
        for (int i = 0; i < 20; i++) {
            net.send(A, B, ECHO, i);
        }
        run.runFor(1_000);
        return times;
    }

    @Test
    @DisplayName("a two-way partition loses messages both ways until healed")
    void twoWayPartition() {
        bindEcho(A);
        bindEcho(B);
        network.partition(A, B);
        CompletableFuture<Integer> ab = network.send(A, B, ECHO, 1);
        CompletableFuture<Integer> ba = network.send(B, A, ECHO, 2);
        loop.runFor(1_000);
        assertThat(ab).isNotDone();
        assertThat(ba).isNotDone();
        assertThat(received).isEmpty();
        assertThat(network.messagesLost()).isEqualTo(2);

        network.heal(A, B);
        CompletableFuture<Integer> after = network.send(A, B, ECHO, 3);
        loop.runFor(1_000);
        assertThat(after).isCompletedWithValue(30);
    }

    @Test
    @DisplayName("a one-way partition delivers the request but loses the response")
    void oneWayPartition() {
        bindEcho(B);
        network.partitionOneWay(B, A);
        CompletableFuture<Integer> sent = network.send(A, B, ECHO, 4);
        loop.runFor(1_000);
        assertThat(received).containsExactly(4);
        assertThat(sent).isNotDone();
        assertThat(network.isPartitioned(A, B)).isFalse();
        assertThat(network.isPartitioned(B, A)).isTrue();
    }

    @Test
    @DisplayName("a cut also loses messages already in flight, and in FAIL mode the sender sees an error")
    void cutInFlightFailMode() {
        network.setLossMode(InMemoryNetwork.LossMode.FAIL);
        network.setDefaultLink(LinkConfig.fixed(10));
        bindEcho(B);
        CompletableFuture<Integer> inFlight = network.send(A, B, ECHO, 5);
        loop.runFor(5);
        network.isolate(B);
        loop.runFor(100);
        assertThat(received).isEmpty();
        assertThat(inFlight).isCompletedExceptionally();
        assertThat(inFlight).failsWithin(java.time.Duration.ZERO).withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .havingCause().isInstanceOf(NetworkException.class)
                .withMessageContaining("echo").withMessageContaining("broker-1").withMessageContaining("broker-2");

        network.rejoin(B);
        assertThat(network.send(A, B, ECHO, 6)).satisfies(f -> {
            loop.runFor(100);
            assertThat(f).isCompletedWithValue(60);
        });
    }

    @Test
    @DisplayName("a drop probability of one loses every message; zero loses none")
    void drops() {
        bindEcho(B);
        network.setLink(A, B, LinkConfig.DEFAULT.withDropProbability(1.0));
        CompletableFuture<Integer> lost = network.send(A, B, ECHO, 1);
        network.setLink(A, B, LinkConfig.DEFAULT);
        CompletableFuture<Integer> kept = network.send(A, B, ECHO, 2);
        loop.runFor(100);
        assertThat(lost).isNotDone();
        assertThat(kept).isCompletedWithValue(20);
    }

    @Test
    @DisplayName("messages to a paused receiver queue and are delivered in order on resume")
    void pausedReceiverQueues() {
        bindEcho(B);
        loop.pause(B);
        for (int i = 0; i < 5; i++) {
            network.send(A, B, ECHO, i);
        }
        loop.runFor(12_000);
        assertThat(received).isEmpty();
        loop.resume(B);
        loop.runFor(10);
        assertThat(received).containsExactly(0, 1, 2, 3, 4);
    }

    @Test
    @DisplayName("a killed receiver loses in-flight messages; its restarted incarnation must bind again")
    void killedReceiver() {
        network.setDefaultLink(LinkConfig.fixed(10));
        bindEcho(B);
        CompletableFuture<Integer> inFlight = network.send(A, B, ECHO, 1);
        loop.runFor(5);
        loop.kill(B);
        loop.start(B);
        CompletableFuture<Integer> unbound = network.send(A, B, ECHO, 2);
        loop.runFor(100);
        assertThat(received).isEmpty();
        assertThat(inFlight).isNotDone();
        assertThat(unbound).isNotDone();

        bindEcho(B);
        CompletableFuture<Integer> rebound = network.send(A, B, ECHO, 3);
        loop.runFor(100);
        assertThat(rebound).isCompletedWithValue(30);
    }

    @Test
    @DisplayName("a killed sender never sees the response to its old request")
    void killedSender() {
        network.setDefaultLink(LinkConfig.fixed(10));
        bindEcho(B);
        List<Integer> callbacks = new ArrayList<>();
        network.send(A, B, ECHO, 1).thenAccept(callbacks::add);
        loop.runFor(15);
        loop.kill(A);
        loop.start(A);
        loop.runFor(100);
        assertThat(received).containsExactly(1);
        assertThat(callbacks).isEmpty();
    }

    @Test
    @DisplayName("the ReplicaTransport adapter carries a fetch to the leader's bound handler and back")
    void replicaTransport() {
        List<Integer> fetchers = new ArrayList<>();
        network.bindFetchHandler(1, request -> {
            fetchers.add(request.replicaId());
            return CompletableFuture.completedFuture(new FetchResponse(Errors.NONE, Map.of()));
        });
        CompletableFuture<FetchResponse> response = network.transportFor(3)
                .fetch(1, new FetchRequest(3, 5L, 500, 1, 1024, Map.of())).toCompletableFuture();
        loop.runFor(10);
        assertThat(fetchers).containsExactly(3);
        assertThat(response).isCompletedWithValueMatching(r -> r.error() == Errors.NONE);
    }

    @Test
    @DisplayName("NET-2 fetches are served on the receiver's network-fetch executor, in send order per link; a"
            + " fetcher's answer comes straight onto the fetcher's own executor, and a killed fetcher never sees it")
    void fetchExecutors() {
        network.setDefaultLink(LinkConfig.fixed(2));
        List<String> events = new ArrayList<>();
        loop.setTraceListener((timeMs, seq, node, label) -> events.add(timeMs + " " + node + " " + label));
        List<Long> served = new ArrayList<>();
        network.bindFetchHandler(1, request -> {
            served.add(request.brokerEpoch());
            return CompletableFuture.completedFuture(new FetchResponse(Errors.NONE, Map.of()));
        });
        java.util.concurrent.Executor fetcher = loop.forNode(NodeId.broker(3)).newSerialExecutor("fetcher");
        List<String> answers = new ArrayList<>();
        for (long epoch = 1; epoch <= 3; epoch++) {
            long e = epoch;
            network.transportFor(3).fetch(1, 0, new FetchRequest(3, e, 500, 1, 1024, Map.of()), fetcher,
                    (response, error) -> answers.add(e + " " + loop.currentNode() + " " + response.error()));
        }
        loop.runFor(10);
        assertThat(served).containsExactly(1L, 2L, 3L);
        assertThat(answers).containsExactly("1 broker-3 NONE", "2 broker-3 NONE", "3 broker-3 NONE");
        assertThat(events).containsExactly("2 broker-1 network-fetch", "2 broker-1 network-fetch",
                "2 broker-1 network-fetch", "4 broker-3 fetcher", "4 broker-3 fetcher", "4 broker-3 fetcher");

        // A killed sender's fetcher executor belongs to the dead incarnation: the late answer is dropped.
        network.transportFor(3).fetch(1, 0, new FetchRequest(3, 9L, 500, 1, 1024, Map.of()), fetcher,
                (response, error) -> answers.add("late"));
        loop.runFor(3);
        loop.kill(NodeId.broker(3));
        loop.start(NodeId.broker(3));
        loop.runFor(10);
        assertThat(served).containsExactly(1L, 2L, 3L, 9L);
        assertThat(answers).doesNotContain("late");
    }
}
