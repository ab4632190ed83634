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

import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.netty.ManualScheduler;
import dev.insync.replication.netty.RecordingReplicaService;
import dev.insync.replication.netty.RecordingReplicaService.FetchCall;
import dev.insync.replication.netty.RecordingReplicaService.ProduceCall;
import dev.insync.replication.netty.TestMessages;
import dev.insync.replication.netty.config.NetworkConfig;
import dev.insync.replication.netty.protocol.ApiVersionsRequest;
import dev.insync.replication.netty.protocol.ApiVersionsResponse;
import dev.insync.replication.netty.protocol.Apis;
import dev.insync.replication.netty.protocol.ErrorCodes;
import dev.insync.replication.netty.protocol.FetchRequestCodec;
import dev.insync.replication.netty.protocol.ProduceRequest;
import dev.insync.replication.netty.protocol.ProduceResponse;
import dev.insync.replication.netty.server.MetadataView;
import dev.insync.replication.netty.server.NettyServer;
import dev.insync.replication.netty.server.ReplicaApiHandlers;
import dev.insync.replication.netty.server.ServedApis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** NET-1 and NET-2 over real loopback sockets: a NettyServer and ClientConnections, timers on manual time. */
class ClientConnectionTest {

    private static final long WAIT_S = 10;
    private static final TopicPartition REP0 = new TopicPartition("rep", 0);

    private final ManualScheduler scheduler = new ManualScheduler(1_000_000L);
    private final RecordingReplicaService replicas = new RecordingReplicaService();
    private final NetworkConfig config = NetworkConfig.builder().numNetworkThreads(1).numIoThreads(2).build();
    private NettyServer server;
    private NetworkClient client;

    private InetSocketAddress startServer(NetworkConfig serverConfig) {
        server = NettyServer.builder().name("test-server").bindAddress(new InetSocketAddress("127.0.0.1", 0))
                .config(serverConfig).scheduler(scheduler)
                .apis(ReplicaApiHandlers.register(ServedApis.builder(), replicas, MetadataView.of(List.of(), -1, List.of()))
                        .build())
                .build();
        return server.start();
    }

    private ClientConnection connect(InetSocketAddress address) {
        if (client == null) {
            client = new NetworkClient("test-client", config, Optional.empty(), scheduler, 1, new Random(42));
        }
        return client.connection("to-test-server", () -> Optional.of(address), "test");
    }

    @AfterEach
    void close() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static FetchRequest fetch() {
        return new FetchRequest(2, 1, 500, 1, 1000, Map.of(REP0, new FetchRequest.PartitionData(0, 0, 1000,
                OptionalInt.of(0), OptionalInt.empty())));
    }

    @Test
    @DisplayName("NET-2 over a socket: a produce finished before an earlier parked fetch is answered after it")
    void orderOverSocket() throws Exception {
        ClientConnection c = connect(startServer(config));
        List<String> completions = new CopyOnWriteArrayList<>();
        CompletableFuture<FetchResponse> fetch = c.send(Apis.FETCH, (short) 0, fetch());
        fetch.whenComplete((r, e) -> completions.add("fetch"));
        CompletableFuture<ProduceResponse> produce = c.send(Apis.PRODUCE, (short) 0, new ProduceRequest((short) 1,
                1000, Map.of(REP0, TestMessages.validRecords(new Random(1), 1))));
        produce.whenComplete((r, e) -> completions.add("produce"));
        List<Object> calls = replicas.awaitCalls(2, WAIT_S * 1000);
        ((ProduceCall) calls.get(1)).answer().complete(Map.of(REP0, new ProduceResult(Errors.NONE, 3, -1, 0)));
        FetchCall f = (FetchCall) calls.get(0);
        f.answer().complete(RecordingReplicaService.emptyAnswer(f.request()));
        assertThat(produce.get(WAIT_S, TimeUnit.SECONDS).partitions().get(REP0).baseOffset()).isEqualTo(3);
        assertThat(fetch.get(WAIT_S, TimeUnit.SECONDS).partitions()).containsKey(REP0);
        assertThat(completions).containsExactly("fetch", "produce");
    }

    @Test
    @DisplayName("NET-1 over a socket: an unknown version is answered UNSUPPORTED_VERSION and the same connection serves ApiVersions next")
    void unsupportedVersionOverSocket() throws Exception {
        InetSocketAddress address = startServer(config);
        // A client that believes in a Fetch v9: speak it by hand on a plain socket.
        try (Socket s = new Socket()) {
            s.connect(address, 5000);
            s.setSoTimeout(5000);
            byte[] unknown = TestMessages.bytes(io.netty.buffer.Unpooled.buffer().writeInt(10).writeShort(Apis.FETCH_KEY)
                    .writeShort(9).writeInt(77).writeShort(-1));
            byte[] versions = TestMessages.bytes(TestMessages.requestFrame(Apis.API_VERSIONS, 78, new ApiVersionsRequest()));
            s.getOutputStream().write(unknown);
            s.getOutputStream().write(versions);
            InputStream in = s.getInputStream();
            java.io.DataInputStream data = new java.io.DataInputStream(in);
            assertThat(data.readInt()).isEqualTo(6);
            assertThat(data.readInt()).isEqualTo(77);
            assertThat(data.readShort()).isEqualTo(ErrorCodes.UNSUPPORTED_VERSION);
            int size = data.readInt();
            assertThat(data.readInt()).isEqualTo(78);
            assertThat(data.readShort()).isZero();
            byte[] body = new byte[size - 6];
            data.readFully(body);
            ApiVersionsResponse v = Apis.API_VERSIONS.responseCodec().read((short) 0,
                    new dev.insync.replication.netty.protocol.WireReader(io.netty.buffer.Unpooled.wrappedBuffer(body)));
            assertThat(v.apis()).contains(new ApiVersionsResponse.ApiVersion(Apis.FETCH_KEY, (short) 0,
                    FetchRequestCodec.TOPIC_IDS_VERSION));
        }
        assertThat(replicas.callCount()).isZero();
    }

    @Test
    @DisplayName("NET-2 a request unanswered for request.timeout.ms fails with a timeout and the connection is dropped")
    void requestTimeout() throws Exception {
        ClientConnection c = connect(startServer(config));
        CompletableFuture<FetchResponse> fetch = c.send(Apis.FETCH, (short) 0, fetch());
        replicas.awaitCalls(1, WAIT_S * 1000); // the request (and its timer) is out
        scheduler.advance(config.requestTimeoutMs() - 1);
        assertThat(fetch).isNotDone();
        scheduler.advance(1);
        assertThatThrownBy(() -> fetch.get(WAIT_S, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(TimeoutException.class).hasMessageContaining("request.timeout.ms");
        // The next request reconnects once the backoff passed and is served.
        scheduler.advance(config.reconnectBackoffMaxMs() * 2);
        replicas.answerAtOnce();
        CompletableFuture<FetchResponse> next = sendWhenReconnected(c);
        assertThat(next.get(WAIT_S, TimeUnit.SECONDS).partitions()).containsKey(REP0);
        assertThat(c.connectAttempts().get(WAIT_S, TimeUnit.SECONDS)).isEqualTo(2);
    }

    @Test
    @DisplayName("NET-2 each request times out at its own deadline, watched by one timer per connection rather than one per request")
    void oneTimerWatchesEveryRequest() throws Exception {
        ClientConnection c = connect(startServer(config));
        long armedBefore = scheduler.armedCount();
        for (int i = 1; i <= 20; i++) {
            CompletableFuture<FetchResponse> f = c.send(Apis.FETCH, (short) 0, fetch());
            answer(i);
            assertThat(f.get(WAIT_S, TimeUnit.SECONDS).partitions()).containsKey(REP0);
        }
        // The server arms its connection's idle check; the client armed one timer for all twenty requests.
        assertThat(scheduler.armedCount() - armedBefore).isLessThanOrEqualTo(2);

        // A request started 10 s later is not timed out at the first request's deadline, but at its own.
        scheduler.advance(10_000);
        CompletableFuture<FetchResponse> late = c.send(Apis.FETCH, (short) 0, fetch());
        replicas.awaitCalls(21, WAIT_S * 1000);
        scheduler.advance(config.requestTimeoutMs() - 10_000);
        onLoop(c);
        assertThat(late).isNotDone();
        scheduler.advance(10_000 - 1);
        onLoop(c);
        assertThat(late).isNotDone();
        scheduler.advance(1);
        assertThatThrownBy(() -> late.get(WAIT_S, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(TimeoutException.class).hasMessageContaining("request.timeout.ms");
    }

    /** Answers the {@code n}th fetch call once the server made it. */
    private void answer(int n) throws InterruptedException {
        FetchCall call = (FetchCall) replicas.awaitCalls(n, WAIT_S * 1000)
                .get(n - 1);
        call.answer().complete(RecordingReplicaService.emptyAnswer(call.request()));
    }

    /** Returns once the connection's event loop ran everything handed to it before (a timer that just fired). */
    private static void onLoop(ClientConnection c) throws Exception {
        c.connectAttempts().get(WAIT_S, TimeUnit.SECONDS);
    }

    /** The old channel's close is seen asynchronously; until then a send may still fail on it. */
    private CompletableFuture<FetchResponse> sendWhenReconnected(ClientConnection c) throws Exception {
        for (int attempt = 0; attempt < 50; attempt++) {
            CompletableFuture<FetchResponse> f = c.send(Apis.FETCH, (short) 0, fetch());
            try {
                f.get(WAIT_S, TimeUnit.SECONDS);
                return f;
            } catch (ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(DisconnectedException.class);
                scheduler.advance(config.reconnectBackoffMaxMs() * 2);
            }
        }
        throw new AssertionError("never reconnected");
    }

    @Test
    @DisplayName("NET-2 reconnect.backoff.ms doubles per failure up to reconnect.backoff.max.ms, with 20% jitter; sends fail fast meanwhile")
    void reconnectBackoff() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            port = s.getLocalPort(); // closed again: connections are refused
        }
        ClientConnection c = connect(new InetSocketAddress("127.0.0.1", port));
        // The connection draws its jitter from this seeded sequence, in order.
        Random expectedJitter = new Random(42);
        ReconnectBackoff backoff = new ReconnectBackoff(config.reconnectBackoffMs(), config.reconnectBackoffMaxMs());
        for (int failure = 0; failure < 7; failure++) {
            assertThatThrownBy(() -> c.send(Apis.API_VERSIONS, (short) 0, new ApiVersionsRequest()).get(WAIT_S, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(DisconnectedException.class).hasMessageContaining("cannot connect");
            assertThat(c.connectAttempts().get(WAIT_S, TimeUnit.SECONDS)).isEqualTo(failure + 1);
            long waitMs = backoff.backoffMs(failure, expectedJitter.nextDouble());
            long term = Math.min(config.reconnectBackoffMaxMs(), config.reconnectBackoffMs() << failure);
            assertThat(waitMs).isBetween(Math.round(term * 0.8), Math.round(term * 1.2));
            scheduler.advance(waitMs - 1);
            assertThatThrownBy(() -> c.send(Apis.API_VERSIONS, (short) 0, new ApiVersionsRequest()).get(WAIT_S, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(DisconnectedException.class).hasMessageContaining("backing off");
            assertThat(c.connectAttempts().get(WAIT_S, TimeUnit.SECONDS)).as("no attempt while backing off")
                    .isEqualTo(failure + 1);
            scheduler.advance(1);
        }
    }

    @Test
    @DisplayName("NET-2 the backoff's exponential term and its jitter bounds")
    void backoffFunction() {
        ReconnectBackoff b = new ReconnectBackoff(50, 1000);
        assertThat(List.of(b.termMs(0), b.termMs(1), b.termMs(2), b.termMs(3), b.termMs(4), b.termMs(5), b.termMs(30)))
                .containsExactly(50L, 100L, 200L, 400L, 800L, 1000L, 1000L);
        assertThat(b.backoffMs(0, 0.0)).isEqualTo(40);
        assertThat(b.backoffMs(0, 0.999999)).isEqualTo(60);
        assertThat(b.backoffMs(10, 0.999999)).isEqualTo(1200);
        assertThat(NetworkConfig.defaults().reconnectBackoffMs()).isEqualTo(50);
        assertThat(NetworkConfig.defaults().reconnectBackoffMaxMs()).isEqualTo(1000);
        assertThat(NetworkConfig.defaults().requestTimeoutMs()).isEqualTo(30_000);
    }

    @Test
    @DisplayName("NET-2 over a socket: the server closes a connection idle for connections.max.idle.ms")
    void idleCloseOverSocket() throws Exception {
        InetSocketAddress address = startServer(config);
        try (Socket s = new Socket()) {
            s.connect(address, 5000);
            s.setSoTimeout((int) TimeUnit.SECONDS.toMillis(WAIT_S));
            scheduler.awaitScheduled(1, WAIT_S * 1000); // the server armed the connection's idle check
            scheduler.advance(config.connectionsMaxIdleMs());
            assertThat(s.getInputStream().read()).as("end of stream").isEqualTo(-1);
        }
        assertThat(server.metrics().idleConnectionsClosed()).isEqualTo(1);
    }

    @Test
    @DisplayName("NET-1 over a socket: a frame over socket.request.max.bytes closes the connection; the server serves others")
    void oversizedOverSocket() throws Exception {
        InetSocketAddress address = startServer(config.toBuilder().socketRequestMaxBytes(1024).build());
        try (Socket s = new Socket()) {
            s.connect(address, 5000);
            s.setSoTimeout((int) TimeUnit.SECONDS.toMillis(WAIT_S));
            s.getOutputStream().write(new byte[]{0, 0, 0x10, 0}); // 4096 bytes announced
            assertThat(s.getInputStream().read()).isEqualTo(-1);
        }
        assertThat(server.metrics().oversizedFrames()).isEqualTo(1);
        ClientConnection c = connect(address);
        assertThat(c.send(Apis.API_VERSIONS, (short) 0, new ApiVersionsRequest()).get(WAIT_S, TimeUnit.SECONDS).apis())
                .isNotEmpty();
    }

    @Test
    @DisplayName("Server and client run on epoll where it is available and on NIO when it is switched off")
    void epollOrNio() throws Exception {
        replicas.answerAtOnce();
        for (boolean epoll : new boolean[]{true, false}) {
            NetworkConfig c = config.toBuilder().epollEnabled(epoll).build();
            try (NettyServer s = NettyServer.builder().name("transport-" + epoll)
                    .bindAddress(new InetSocketAddress("127.0.0.1", 0)).config(c).scheduler(scheduler)
                    .apis(ServedApis.builder().build()).build();
                 NetworkClient nc = new NetworkClient("transport-client", c, Optional.empty(), scheduler, 1, new Random(3))) {
                InetSocketAddress address = s.start();
                assertThat(s.isEpoll()).isEqualTo(epoll && io.netty.channel.epoll.Epoll.isAvailable());
                ClientConnection conn = nc.connection("t", () -> Optional.of(address), "t");
                assertThat(conn.send(Apis.API_VERSIONS, (short) 0, new ApiVersionsRequest()).get(WAIT_S, TimeUnit.SECONDS)
                        .apis()).extracting(ApiVersionsResponse.ApiVersion::apiKey).containsExactly(Apis.API_VERSIONS_KEY);
            }
        }
        if (System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
            assertThat(io.netty.channel.epoll.Epoll.isAvailable()).as("native epoll on Linux: %s",
                    io.netty.channel.epoll.Epoll.unavailabilityCause()).isTrue();
        }
    }

    @Test
    @DisplayName("NET-2 an acks=0 produce completes once written; nothing comes back for it")
    void acksZeroOverSocket() throws Exception {
        replicas.answerAtOnce();
        ClientConnection c = connect(startServer(config));
        CompletableFuture<ProduceResponse> p = c.send(Apis.PRODUCE, (short) 0, new ProduceRequest((short) 0, 1000,
                Map.of(REP0, TestMessages.validRecords(new Random(2), 1))));
        assertThat(p.get(WAIT_S, TimeUnit.SECONDS)).isNull();
        // The connection's correlation stays right: the next request gets its own answer.
        assertThat(c.send(Apis.FETCH, (short) 0, fetch()).get(WAIT_S, TimeUnit.SECONDS).partitions()).containsKey(REP0);
        assertThat(replicas.awaitCalls(2, WAIT_S * 1000)).hasSize(2);
    }
}
