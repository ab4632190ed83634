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

import dev.insync.replication.core.fetcher.FetcherManager;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.netty.ManualScheduler;
import dev.insync.replication.netty.RecordingReplicaService;
import dev.insync.replication.netty.config.NetworkConfig;
import dev.insync.replication.netty.server.MetadataView;
import dev.insync.replication.netty.server.NettyServer;
import dev.insync.replication.netty.server.ReplicaApiHandlers;
import dev.insync.replication.netty.server.ServedApis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** Where a follower's fetch answer is taken: on the event loop that read it, or on the fetcher's executor. */
class NettyReplicaTransportTest {

    private static final long WAIT_S = 10;
    private static final TopicPartition REP0 = new TopicPartition("rep", 0);

    private final ManualScheduler scheduler = new ManualScheduler(1_000_000L);
    private final RecordingReplicaService replicas = new RecordingReplicaService().answerAtOnce();
    private NettyServer server;
    private NetworkClient client;
    private NettyReplicaTransport transport;

    @AfterEach
    void close() {
        if (transport != null) {
            transport.close();
        }
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private void start(boolean inline) {
        start(inline, 1);
    }

    private void start(boolean inline, int numReplicaFetchers) {
        NetworkConfig config = NetworkConfig.builder().numNetworkThreads(1).numIoThreads(1).inlineHandlers(inline).build();
        server = NettyServer.builder().name("leader").bindAddress(new InetSocketAddress("127.0.0.1", 0))
                .config(config).scheduler(scheduler)
                .apis(ReplicaApiHandlers.register(ServedApis.builder(), replicas, MetadataView.of(List.of(), -1, List.of()))
                        .build())
                .build();
        InetSocketAddress address = server.start();
        client = new NetworkClient("follower-loop", config, Optional.empty(), scheduler, 1, new Random(7));
        transport = new NettyReplicaTransport(2, numReplicaFetchers, leaderId -> Optional.of(address), client);
    }

    private static FetchRequest fetch() {
        return new FetchRequest(2, 1, 500, 1, 1000, Map.of(REP0, new FetchRequest.PartitionData(0, 0, 1000,
                OptionalInt.of(0), OptionalInt.empty())));
    }

    /** Fetches once and returns the name of the thread that took the answer; counts the executor's tasks. */
    private String answerThread(AtomicInteger executorTasks) throws Exception {
        Executor fetcherExecutor = task -> {
            executorTasks.incrementAndGet();
            Thread t = new Thread(task, "fetcher-thread");
            t.start();
        };
        CompletableFuture<String> thread = new CompletableFuture<>();
        transport.fetch(1, 0, fetch(), fetcherExecutor, (FetchResponse response, Throwable error) -> {
            if (error != null) {
                thread.completeExceptionally(error);
            } else {
                thread.complete(Thread.currentThread().getName());
            }
        });
        return thread.get(WAIT_S, TimeUnit.SECONDS);
    }

    @Test
    @DisplayName("FET-4 with inline.handlers the follower takes its answer on the event loop that read it, its executor untouched")
    void fet4AnswerOnTheEventLoop() throws Exception {
        start(true);
        // Answered only once the transport has sent and returned: an answer that is already there when
        // fetch returns goes to the executor by design (never back into a fetcher that is still sending).
        replicas.answerLater();
        AtomicInteger tasks = new AtomicInteger();
        Executor fetcherExecutor = task -> {
            tasks.incrementAndGet();
            new Thread(task, "fetcher-thread").start();
        };
        CompletableFuture<String> thread = new CompletableFuture<>();
        transport.fetch(1, 0, fetch(), fetcherExecutor, (FetchResponse response, Throwable error) ->
                thread.complete(error != null ? "error " + error : Thread.currentThread().getName()));
        RecordingReplicaService.FetchCall call = (RecordingReplicaService.FetchCall) replicas
                .awaitCalls(1, WAIT_S * 1000).get(0);
        call.answer().complete(RecordingReplicaService.emptyAnswer(call.request()));
        assertThat(thread.get(WAIT_S, TimeUnit.SECONDS)).startsWith("follower-loop");
        assertThat(tasks).hasValue(0);
    }

    @Test
    @DisplayName("FET-4 without inline.handlers the answer is a task of the fetcher's executor")
    void fet4AnswerOnTheExecutor() throws Exception {
        start(false);
        AtomicInteger tasks = new AtomicInteger();
        assertThat(answerThread(tasks)).isEqualTo("fetcher-thread");
        assertThat(tasks).hasValue(1);
    }

    @Test
    @DisplayName("FET-7 an idle incremental fetch naming no partition is sent over its fetcher's connection and answered"
            + " (refused before: every idle session round failed, backed off and reopened the session)")
    void fet7EmptyIncrementalFetchIsSentOverTheFetchersConnection() throws Exception {
        start(true, 2);
        int fetcherId = FetcherManager.fetcherId(REP0, 2);
        FetchRequest opening = FetchRequest.follower(2, 1L).maxWaitMs(0)
                .session(FetchRequest.NO_SESSION_ID, FetchRequest.INITIAL_EPOCH)
                .partition(REP0, new FetchRequest.PartitionData(0, 0, 1000, OptionalInt.of(0), OptionalInt.empty()))
                .build();
        FetchRequest idle = FetchRequest.follower(2, 1L).maxWaitMs(0).session(7, 1).build();
        assertThat(idle.partitionCount()).isZero();
        Executor direct = Runnable::run;
        for (FetchRequest request : List.of(opening, idle)) {
            CompletableFuture<FetchResponse> answer = new CompletableFuture<>();
            transport.fetch(1, fetcherId, request, direct, (response, error) -> {
                if (error != null) {
                    answer.completeExceptionally(error);
                } else {
                    answer.complete(response);
                }
            });
            assertThat(answer.get(WAIT_S, TimeUnit.SECONDS).error()).isEqualTo(Errors.NONE);
        }
        List<Object> calls = replicas.awaitCalls(2, WAIT_S * 1000);
        FetchRequest received = ((RecordingReplicaService.FetchCall) calls.get(1)).request();
        assertThat(received.partitionCount()).isZero();
        assertThat(received.sessionId()).isEqualTo(7);
        assertThat(received.sessionEpoch()).isEqualTo(1);
        assertThat(transport.connectionCount()).as("both over fetcher %d's one connection", fetcherId).isEqualTo(1);
    }
}
