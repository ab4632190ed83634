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

package dev.insync.replication.netty.client;

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.core.time.ThreadScheduler;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.netty.RecordingReplicaService;
import dev.insync.replication.netty.RecordingReplicaService.FetchCall;
import dev.insync.replication.netty.RecordingReplicaService.ProduceCall;
import dev.insync.replication.netty.config.NetworkConfig;
import dev.insync.replication.netty.protocol.BrokerEndpoint;
import dev.insync.replication.netty.server.MetadataView;
import dev.insync.replication.netty.server.NettyServer;
import dev.insync.replication.netty.server.ReplicaApiHandlers;
import dev.insync.replication.netty.server.ServedApis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * KIP-320 over sockets: two real servers on loopback whose Metadata answers and replica calls the
 * test scripts. Broker 1 is stale (it still names itself leader in an older epoch, as a leader cut
 * off from the controller does); the client, once it has seen broker 2 lead in a newer epoch, never
 * sends broker 1 a produce or a fetch on that stale answer and asks again instead.
 */
class InsyncClientLeaderEpochTest {

    private static final long WAIT_MS = 20_000;
    private static final TopicPartition TP = new TopicPartition("t", 0);

    /** One scripted broker: a real server whose Metadata answers come from {@link #view}. */
    private static final class ScriptedBroker implements AutoCloseable {
        final RecordingReplicaService service = new RecordingReplicaService();
        final AtomicInteger metadataAnswers = new AtomicInteger();
        volatile MetadataView view = MetadataView.of(List.of(), -1, List.of());
        final NettyServer server;
        final InetSocketAddress address;

        ScriptedBroker(String name, ThreadScheduler scheduler) {
            server = NettyServer.builder().name(name).bindAddress(new InetSocketAddress("127.0.0.1", 0))
                    .config(NetworkConfig.builder().numNetworkThreads(1).numIoThreads(1).build()).scheduler(scheduler)
                    .apis(ReplicaApiHandlers.register(ServedApis.builder(), service, new MetadataView() {
                        @Override
                        public List<BrokerEndpoint> brokers() {
                            metadataAnswers.incrementAndGet();
                            return view.brokers();
                        }

                        @Override
                        public int controllerId() {
                            return -1;
                        }

                        @Override
                        public Collection<String> topicNames() {
                            return view.topicNames();
                        }

                        @Override
                        public List<PartitionRegistration> partitions(String topic) {
                            return view.partitions(topic);
                        }
                    }).build())
                    .build();
            address = server.start();
        }

        long produces() {
            return service.calls().stream().filter(c -> c instanceof ProduceCall).count();
        }

        long fetches() {
            return service.calls().stream().filter(c -> c instanceof FetchCall).count();
        }

        <T> T call(Class<T> type, int index) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
            for (int n = index + 1; ; n++) {
                List<T> of = service.awaitCalls(n, Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())))
                        .stream().filter(type::isInstance).map(type::cast).toList();
                if (of.size() > index) {
                    return of.get(index);
                }
            }
        }

        @Override
        public void close() {
            server.close();
        }
    }

    private final ThreadScheduler scheduler = new ThreadScheduler();
    private final ScriptedBroker broker1 = new ScriptedBroker("stale-1", scheduler);
    private final ScriptedBroker broker2 = new ScriptedBroker("fresh-2", scheduler);
    private final List<BrokerEndpoint> endpoints = List.of(new BrokerEndpoint(1, "127.0.0.1", broker1.address.getPort()),
            new BrokerEndpoint(2, "127.0.0.1", broker2.address.getPort()));
    private InsyncClient client;

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        broker1.close();
        broker2.close();
        scheduler.close();
    }

    private MetadataView leads(int leader, int leaderEpoch) {
        return MetadataView.of(endpoints, -1, List.of(PartitionRegistration.builder(TP).replicas(1, 2).isr(1, 2)
                .leader(leader).leaderEpoch(leaderEpoch).build()));
    }

    /** A client that bootstraps from broker 2 (so it sees epoch 5 first), then asks every broker it learns of. */
    private InsyncClient client() {
        return client(10);
    }

    private InsyncClient client(long retryBackoffMs) {
        client = InsyncClient.builder(Map.of("bootstrap.servers", "127.0.0.1:" + broker2.address.getPort(),
                "linger.ms", 0, "retry.backoff.ms", retryBackoffMs, "retry.backoff.max.ms", Math.max(200, retryBackoffMs),
                "request.timeout.ms", 5_000, "delivery.timeout.ms", 15_000)).build();
        return client;
    }

    @Test
    @DisplayName("KIP-951 PRO-5: a batch refused by the epoch-5 leader is resent as soon as Metadata names a leader in epoch 6,"
            + " not after its retry.backoff.ms; the new leader's answer completes it")
    void newerLeaderEndsTheRetryBackoff() throws Exception {
        long backoffMs = 4_000;
        broker1.view = leads(2, 5);
        broker2.view = leads(2, 5);
        long builtNs = System.nanoTime();
        client = InsyncClient.builder(Map.of("bootstrap.servers", "127.0.0.1:" + broker2.address.getPort(),
                "linger.ms", 0, "retry.backoff.ms", backoffMs, "retry.backoff.max.ms", backoffMs,
                "request.timeout.ms", 30_000, "delivery.timeout.ms", 60_000)).build();
        CompletableFuture<RecordMetadata> f = client.send(TP, null, "v".getBytes());
        ProduceCall first = broker2.call(ProduceCall.class, 0);
        // The refusal asks for Metadata, which the client asks at most once per retry.backoff.ms: refused
        // once that long has passed since the bootstrap answer, the refresh goes at once and only the
        // batch's own backoff is left to skip. This waits for time to pass, not for another thread.
        long heldMs = backoffMs - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - builtNs);
        if (heldMs > 0) {
            Thread.sleep(heldMs);
        }
        broker1.view = leads(1, 6);
        broker2.view = leads(1, 6);
        long refusedNs = System.nanoTime();
        first.answer().complete(Map.of(TP, ProduceResult.failed(Errors.NOT_LEADER_OR_FOLLOWER)));

        ProduceCall resent = broker1.call(ProduceCall.class, 0);
        long resentAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - refusedNs);
        assertThat(resentAfterMs).as("resent to the epoch-6 leader before the %d ms backoff ended", backoffMs)
                .isLessThan(backoffMs / 2);
        assertThat(resent.entries().get(TP)).as("the same batch").isEqualTo(first.entries().get(TP));
        resent.answer().complete(Map.of(TP, new ProduceResult(Errors.NONE, 7L, -1L, 6)));
        assertThat(f.get(WAIT_MS, TimeUnit.MILLISECONDS)).isEqualTo(new RecordMetadata(TP, 7L, 6));
        assertThat(broker2.produces()).as("no second produce to the old leader").isEqualTo(1);
    }

    @Test
    @DisplayName("KIP-320 PRO-5: after FENCED_LEADER_EPOCH from the epoch-5 leader, a stale broker's answer (itself leader in"
            + " epoch 4) is not used; the client asks again and resends to the epoch-5 leader; the stale broker gets no produce")
    void staleLeaderIsNotUsedForProduce() throws Exception {
        broker1.view = leads(1, 4);
        broker2.view = leads(2, 5);
        CompletableFuture<RecordMetadata> f = client().send(TP, null, "v".getBytes());
        ProduceCall first = broker2.call(ProduceCall.class, 0);
        first.answer().complete(Map.of(TP, ProduceResult.failed(Errors.FENCED_LEADER_EPOCH)));

        ProduceCall second = broker2.call(ProduceCall.class, 1);
        assertThat(broker1.metadataAnswers.get()).as("the stale broker was asked and answered").isPositive();
        assertThat(second.entries().get(TP)).as("the same batch, resent").isEqualTo(first.entries().get(TP));
        second.answer().complete(Map.of(TP, new ProduceResult(Errors.NONE, 3L, -1L, 5)));
        assertThat(f.get(WAIT_MS, TimeUnit.MILLISECONDS)).isEqualTo(new RecordMetadata(TP, 3L, 5));
        assertThat(broker1.produces()).as("never a produce to the replaced leader").isZero();
        assertThat(client.knownLeaderEpoch(TP).get(WAIT_MS, TimeUnit.MILLISECONDS)).isEqualTo(OptionalInt.of(5));
    }

    @Test
    @DisplayName("PRO-5 a partition a refresh names without a leader (an election under way) is asked for again when its"
            + " batch's retry backoff ends, so the batch goes out once a leader is named instead of waiting out delivery.timeout.ms")
    void leaderlessPartitionIsAskedForAgain() throws Exception {
        // retry.backoff.ms 1 s paces both the batch's retry and Metadata: the leaderless answer comes back
        // while the batch still backs off, so only the sender, when the batch is ready, can ask again.
        MetadataView leaderless = MetadataView.of(endpoints, -1, List.of(PartitionRegistration.builder(TP).replicas(1, 2)
                .isr(1, 2).leader(PartitionRegistration.NO_LEADER).leaderEpoch(6).build()));
        broker1.view = leads(2, 5);
        broker2.view = leads(2, 5);
        long backoffMs = 1_000;
        CompletableFuture<RecordMetadata> f = client(backoffMs).send(TP, null, "v".getBytes());
        long sentNs = System.nanoTime();
        ProduceCall first = broker2.call(ProduceCall.class, 0);
        broker1.view = leaderless;
        broker2.view = leaderless;
        // Let the first Metadata answer age past the backoff, so NOT_LEADER_OR_FOLLOWER's refresh leaves at once
        // (a fixed wait for the client's pacing to allow it, not a race: nothing is observed during it).
        TimeUnit.NANOSECONDS.sleep(Math.max(0, sentNs + TimeUnit.MILLISECONDS.toNanos(backoffMs + 100) - System.nanoTime()));
        int answeredBefore = broker1.metadataAnswers.get() + broker2.metadataAnswers.get();
        first.answer().complete(Map.of(TP, ProduceResult.failed(Errors.NOT_LEADER_OR_FOLLOWER)));
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (broker1.metadataAnswers.get() + broker2.metadataAnswers.get() == answeredBefore) {
            assertThat(System.nanoTime()).as("the client refreshes after NOT_LEADER_OR_FOLLOWER").isLessThan(deadline);
            Thread.onSpinWait();
        }
        // The refresh named no leader; a leader is elected meanwhile, and nothing else will make the client ask.
        broker1.view = leads(2, 7);
        broker2.view = leads(2, 7);

        ProduceCall second = broker2.call(ProduceCall.class, 1);
        assertThat(second.entries().get(TP)).as("the same batch, resent").isEqualTo(first.entries().get(TP));
        second.answer().complete(Map.of(TP, new ProduceResult(Errors.NONE, 0L, -1L, 7)));
        assertThat(f.get(5, TimeUnit.SECONDS)).isEqualTo(new RecordMetadata(TP, 0L, 7));
    }

    @Test
    @DisplayName("PRO-5 a refresh that names a partition without a leader while nothing of it waits (every replica fenced at"
            + " once) does not strand it: the next send asks for its leader again, and goes out once one is named,"
            + " instead of waiting out delivery.timeout.ms on the leaderless route")
    void leaderlessRouteIsAskedForAgainOnTheNextSend() throws Exception {
        broker1.view = leads(2, 5);
        broker2.view = leads(2, 5);
        InsyncClient c = client();
        CompletableFuture<RecordMetadata> first = c.send(TP, null, "a".getBytes());
        broker2.call(ProduceCall.class, 0).answer().complete(Map.of(TP, new ProduceResult(Errors.NONE, 0L, -1L, 5)));
        assertThat(first.get(WAIT_MS, TimeUnit.MILLISECONDS)).isEqualTo(new RecordMetadata(TP, 0L, 5));
        // Every replica is fenced (its heartbeats went to a paused controller): a refresh names no leader.
        MetadataView leaderless = MetadataView.of(endpoints, -1, List.of(PartitionRegistration.builder(TP).replicas(1, 2)
                .isr(List.of()).elr(List.of(1, 2)).leader(PartitionRegistration.NO_LEADER).leaderEpoch(6).build()));
        broker1.view = leaderless;
        broker2.view = leaderless;
        c.metadata().get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertThat(c.knownLeaders().get(WAIT_MS, TimeUnit.MILLISECONDS)).containsEntry(TP, PartitionRegistration.NO_LEADER);
        // Broker 2 is elected again; nothing tells the client but a Metadata answer it asks for.
        broker1.view = leads(2, 7);
        broker2.view = leads(2, 7);

        CompletableFuture<RecordMetadata> second = c.send(TP, null, "b".getBytes());
        ProduceCall resent = broker2.call(ProduceCall.class, 1);
        resent.answer().complete(Map.of(TP, new ProduceResult(Errors.NONE, 1L, -1L, 7)));
        assertThat(second.get(WAIT_MS, TimeUnit.MILLISECONDS)).isEqualTo(new RecordMetadata(TP, 1L, 7));
        assertThat(broker1.produces()).isZero();
    }

    @Test
    @DisplayName("PRO-5 a record that never found a leader fails at delivery.timeout.ms as not written, saying what it waited"
            + " for (no leader named), so a stall explains itself")
    void unsentRecordSaysWhatItWaitedFor() throws Exception {
        MetadataView leaderless = MetadataView.of(endpoints, -1, List.of(PartitionRegistration.builder(TP).replicas(1, 2)
                .isr(List.of()).elr(List.of(1, 2)).leader(PartitionRegistration.NO_LEADER).leaderEpoch(6).build()));
        broker1.view = leaderless;
        broker2.view = leaderless;
        client = InsyncClient.builder(Map.of("bootstrap.servers", "127.0.0.1:" + broker2.address.getPort(),
                "linger.ms", 0, "retry.backoff.ms", 10, "request.timeout.ms", 200, "delivery.timeout.ms", 400)).build();
        CompletableFuture<RecordMetadata> f = client.send(TP, null, "v".getBytes());
        Throwable failure = f.handle((r, e) -> e).get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertThat(failure).isInstanceOf(ProduceFailedException.class);
        ProduceFailedException pf = (ProduceFailedException) failure;
        assertThat(pf.error()).isEqualTo(Errors.REQUEST_TIMED_OUT);
        assertThat(pf.written()).isEqualTo(ProduceFailedException.Written.NO);
        assertThat(pf.getMessage()).contains("not sent within delivery.timeout.ms (400 ms) after 0 attempts",
                "no leader known for " + TP + " (the last Metadata answer named none), highest leader epoch seen 6");
        assertThat(broker1.produces() + broker2.produces()).isZero();
    }

    @Test
    @DisplayName("KIP-320 FET-2: a fetch carries the routed leader epoch; FENCED_LEADER_EPOCH makes the client learn the leader"
            + " again, and the next fetch goes to the new leader with the new epoch")
    void fetchFollowsTheNewestEpoch() throws Exception {
        broker1.view = leads(2, 5);
        broker2.view = leads(2, 5);
        InsyncClient c = client();
        CompletableFuture<FetchResult> first = c.fetch(TP, 0);
        FetchCall call = broker2.call(FetchCall.class, 0);
        assertThat(call.request().partitions().get(TP).currentLeaderEpoch()).isEqualTo(OptionalInt.of(5));
        // Broker 1 was elected in epoch 6 meanwhile; broker 2 fences the fetch (FET-2).
        broker1.view = leads(1, 6);
        broker2.view = leads(1, 6);
        call.answer().complete(new FetchResponse(Errors.NONE,
                Map.of(TP, FetchResponse.PartitionData.error(Errors.FENCED_LEADER_EPOCH))));
        assertThat(first.get(WAIT_MS, TimeUnit.MILLISECONDS).error()).isEqualTo(Errors.FENCED_LEADER_EPOCH);

        CompletableFuture<FetchResult> second = c.fetch(TP, 0);
        FetchCall atNewLeader = broker1.call(FetchCall.class, 0);
        assertThat(atNewLeader.request().partitions().get(TP).currentLeaderEpoch()).isEqualTo(OptionalInt.of(6));
        atNewLeader.answer().complete(RecordingReplicaService.emptyAnswer(atNewLeader.request()));
        assertThat(second.get(WAIT_MS, TimeUnit.MILLISECONDS).error()).isEqualTo(Errors.NONE);
        assertThat(broker2.fetches()).as("nothing more to the fenced leader").isEqualTo(1);

        // Broker 1 goes away and broker 2, behind the controller, names itself leader in epoch 5 again: the
        // refresh it answers (broker 1 refuses the connection) leaves the client on broker 1, epoch 6.
        broker2.view = leads(2, 5);
        int answeredBefore = broker2.metadataAnswers.get();
        broker1.close();
        c.metadata().get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertThat(broker2.metadataAnswers.get()).as("the stale answer came from broker 2").isGreaterThan(answeredBefore);
        assertThat(c.knownLeaderEpoch(TP).get(WAIT_MS, TimeUnit.MILLISECONDS)).isEqualTo(OptionalInt.of(6));
        assertThat(c.knownLeaders().get(WAIT_MS, TimeUnit.MILLISECONDS)).containsEntry(TP, 1);
    }
}
