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

package dev.insync.replication.netty.tls;

import dev.insync.replication.core.partition.ReplicaDescription;
import dev.insync.replication.core.produce.Acks;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.RecordsForm;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.Log;
import dev.insync.replication.log.LogConfig;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.SimpleRecord;
import dev.insync.replication.netty.server.ReplicaService;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.netty.ManualScheduler;
import dev.insync.replication.netty.RecordingReplicaService;
import dev.insync.replication.netty.client.ClientConnection;
import dev.insync.replication.netty.client.DisconnectedException;
import dev.insync.replication.netty.client.NetworkClient;
import dev.insync.replication.netty.client.RequestFailedException;
import dev.insync.replication.netty.config.NetworkConfig;
import dev.insync.replication.netty.protocol.Apis;
import dev.insync.replication.netty.protocol.ErrorCodes;
import dev.insync.replication.netty.server.MetadataView;
import dev.insync.replication.netty.server.NettyServer;
import dev.insync.replication.netty.server.ReplicaApiHandlers;
import dev.insync.replication.netty.server.ServedApis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** SEC-1 and SEC-2 over real TLS on loopback, with certificates made for the test by keytool. */
class TlsTest {

    private static final long WAIT_S = 20;
    private static final TopicPartition REP0 = new TopicPartition("rep", 0);

    @TempDir
    static Path certs;
    static Path broker1;
    static Path broker2;
    static Path broker3;
    static Path rogue;
    static Path truststore;

    @BeforeAll
    static void makeCertificates() throws Exception {
        broker1 = Certificates.keystore(certs, "broker-1", "CN=broker-1,OU=insync");
        broker2 = Certificates.keystore(certs, "broker-2", "CN=broker-2,OU=insync");
        broker3 = Certificates.keystore(certs, "broker-3", "CN=broker-3,OU=insync");
        // Same name as broker 2, but not in the truststore.
        rogue = Certificates.keystore(certs, "rogue", "CN=broker-2,OU=insync");
        truststore = Certificates.truststore(certs, "trust", Map.of("broker-1", broker1, "broker-2", broker2,
                "broker-3", broker3));
    }

    private final ManualScheduler scheduler = new ManualScheduler(1_000_000L);
    private final RecordingReplicaService replicas = new RecordingReplicaService().answerAtOnce();
    private final NetworkConfig config = NetworkConfig.builder().numNetworkThreads(1).numIoThreads(1).build();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private NettyServer server;

    @AfterEach
    void close() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private InetSocketAddress startServer(String clientAuth, Map<String, Object> extra) {
        return startServer(clientAuth, extra, replicas);
    }

    private InetSocketAddress startServer(String clientAuth, Map<String, Object> extra, ReplicaService service) {
        Map<String, Object> props = new HashMap<>(Certificates.sslProperties(broker1, truststore, clientAuth));
        props.put("insync.broker.principal.1", "CN=broker-1,OU=insync");
        props.put("insync.broker.principal.2", "CN=broker-2,OU=insync");
        props.put("insync.broker.principal.3", "CN=broker-3,OU=insync");
        props.putAll(extra);
        server = NettyServer.builder().name("tls-server").bindAddress(new InetSocketAddress("127.0.0.1", 0))
                .config(config).scheduler(scheduler).ssl(SslConfig.fromProperties(props).orElseThrow())
                .principals(BrokerPrincipals.fromProperties(props))
                .apis(ReplicaApiHandlers.register(ServedApis.builder(), service, MetadataView.of(List.of(), -1, List.of()))
                        .build())
                .build();
        closeables.add(server);
        return server.start();
    }

    /** A connection presenting {@code keystore} (none if null); plaintext if {@code tls} is false. */
    private ClientConnection connect(InetSocketAddress address, Path keystore, boolean tls) {
        Optional<SslConfig> ssl = tls
                ? SslConfig.fromProperties(Certificates.sslProperties(keystore, truststore, "none")) : Optional.empty();
        NetworkClient client = new NetworkClient("tls-client", config, ssl, scheduler, 1, new Random(1));
        closeables.add(client);
        return client.connection("to-broker-1", () -> Optional.of(address), "test");
    }

    private static FetchRequest fetchAs(int replicaId) {
        return new FetchRequest(replicaId, 1, 0, 1, 1000, Map.of(REP0, new FetchRequest.PartitionData(0, 0, 1000,
                OptionalInt.of(0), OptionalInt.empty())));
    }

    private static FetchResponse get(ClientConnection c, FetchRequest request) throws Exception {
        return c.send(Apis.FETCH, (short) 0, request).get(WAIT_S, TimeUnit.SECONDS);
    }

    /** Answers every fetch with a slice of {@code log} (whatever form was asked for), recording the form. */
    private static ReplicaService sliceAnswers(Log log, List<RecordsForm> forms) {
        return new ReplicaService() {
            @Override
            public CompletionStage<FetchResponse> fetch(FetchRequest request, RecordsForm form) {
                forms.add(form);
                return CompletableFuture.completedFuture(new FetchResponse(Errors.NONE, Map.of(REP0,
                        new FetchResponse.PartitionData(Errors.NONE, log.logEndOffset(), log.logEndOffset(), 0,
                                log.logEndOffset(), log.readFileRecords(0, Integer.MAX_VALUE, log.logEndOffset()),
                                Optional.empty()))));
            }

            @Override
            public CompletionStage<Map<TopicPartition, ProduceResult>> produce(Map<TopicPartition, MemoryRecords> entries,
                                                                               Acks acks, long timeoutMs) {
                return CompletableFuture.failedFuture(new UnsupportedOperationException("fetch only"));
            }

            @Override
            public List<ReplicaDescription> describeReplicas(Optional<List<String>> topics) {
                return List.of();
            }
        };
    }

    @Test
    @DisplayName("NET-3 over TLS the fetch asks for records in the heap and the frame carries them copied, no file region; on plaintext the same answer goes as file regions")
    void tlsFallsBackToACopy() throws Exception {
        Log log = Log.open(certs.resolve("zero-copy-" + System.nanoTime()).resolve("rep-0"), REP0, LogConfig.defaults(),
                0, 0, () -> 0L);
        closeables.add(log::close);
        for (int i = 0; i < 3; i++) {
            log.appendAsLeader(MemoryRecords.withRecords(new SimpleRecord(1000L, null, ("v" + i).getBytes())), 0);
        }
        MemoryRecords expected = log.read(0, Integer.MAX_VALUE, log.logEndOffset()).records();

        List<RecordsForm> tlsForms = new ArrayList<>();
        ClientConnection c = connect(startServer("required", Map.of(), sliceAnswers(log, tlsForms)), broker2, true);
        FetchResponse overTls = get(c, fetchAs(2));
        assertThat(tlsForms).containsExactly(RecordsForm.HEAP);
        assertThat(overTls.partitions().get(REP0).records().toMemoryRecords()).isEqualTo(expected);
        assertThat(server.metrics().fileRegionsWritten()).isZero();

        // Plaintext, on epoll (native sendfile of the DefaultFileRegion, where available) and on NIO (transferTo).
        for (boolean epoll : new boolean[] {true, false}) {
            List<RecordsForm> plainForms = new ArrayList<>();
            NetworkConfig transport = NetworkConfig.builder().numNetworkThreads(1).numIoThreads(1).epollEnabled(epoll)
                    .build();
            NettyServer plain = NettyServer.builder().name("plain-server").bindAddress(new InetSocketAddress("127.0.0.1", 0))
                    .config(transport).scheduler(scheduler)
                    .apis(ReplicaApiHandlers.register(ServedApis.builder(), sliceAnswers(log, plainForms),
                            MetadataView.of(List.of(), -1, List.of())).build())
                    .build();
            closeables.add(plain);
            FetchResponse overPlain = get(connect(plain.start(), null, false), fetchAs(2));
            assertThat(plain.isEpoll()).isEqualTo(epoll && io.netty.channel.epoll.Epoll.isAvailable());
            assertThat(plainForms).containsExactly(RecordsForm.FILE);
            assertThat(overPlain.partitions().get(REP0).records().toMemoryRecords()).isEqualTo(expected);
            assertThat(plain.metrics().fileRegionsWritten()).as("the sendfile region and its guard").isEqualTo(2);
        }
    }

    @Test
    @DisplayName("SEC-2 a broker's certificate fetches as its own replica id; a consumer fetch needs no broker identity")
    void ownIdentityIsServed() throws Exception {
        ClientConnection c = connect(startServer("required", Map.of()), broker2, true);
        assertThat(get(c, fetchAs(2)).partitions()).containsKey(REP0);
        assertThat(get(c, fetchAs(FetchRequest.CONSUMER_REPLICA_ID)).partitions()).containsKey(REP0);
        assertThat(replicas.callCount()).isEqualTo(2);
    }

    @Test
    @DisplayName("SEC-2 broker 3's certificate cannot fetch as replica 2: CLUSTER_AUTHORIZATION_FAILED, nothing reaches the replica manager")
    void otherBrokersIdentityIsRefused() throws Exception {
        ClientConnection c = connect(startServer("required", Map.of()), broker3, true);
        assertThatThrownBy(() -> get(c, fetchAs(2))).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(RequestFailedException.class)
                .satisfies(e -> assertThat(((RequestFailedException) e).errorCode())
                        .isEqualTo(ErrorCodes.CLUSTER_AUTHORIZATION_FAILED));
        assertThat(replicas.callCount()).isZero();
        assertThat(server.metrics().authorizationFailures()).isEqualTo(1);
        // The connection is fine and serves broker 3 as itself.
        assertThat(get(c, fetchAs(3)).partitions()).containsKey(REP0);
        assertThat(replicas.callCount()).isEqualTo(1);
    }

    @Test
    @DisplayName("SEC-1 with ssl.client.auth=required a peer without a certificate is served nothing")
    void noCertificateIsRefused() throws Exception {
        ClientConnection c = connect(startServer("required", Map.of()), null, true);
        assertThatThrownBy(() -> get(c, fetchAs(FetchRequest.CONSUMER_REPLICA_ID)))
                .hasCauseInstanceOf(DisconnectedException.class);
        assertThat(replicas.callCount()).isZero();
    }

    @Test
    @DisplayName("SEC-1 a certificate the truststore does not accept is refused, even with a broker's name in it")
    void untrustedCertificateIsRefused() throws Exception {
        ClientConnection c = connect(startServer("required", Map.of()), rogue, true);
        assertThatThrownBy(() -> get(c, fetchAs(2))).hasCauseInstanceOf(DisconnectedException.class);
        assertThatThrownBy(() -> get(c, fetchAs(FetchRequest.CONSUMER_REPLICA_ID)))
                .hasCauseInstanceOf(DisconnectedException.class);
        assertThat(replicas.callCount()).isZero();
    }

    @Test
    @DisplayName("SEC-1 a plaintext client gets nothing from a TLS listener")
    void plaintextIsRefused() throws Exception {
        ClientConnection c = connect(startServer("required", Map.of()), null, false);
        assertThatThrownBy(() -> get(c, fetchAs(FetchRequest.CONSUMER_REPLICA_ID)))
                .hasCauseInstanceOf(DisconnectedException.class);
        assertThat(replicas.callCount()).isZero();
    }

    @Test
    @DisplayName("SEC-2 with ssl.client.auth=requested an anonymous peer may consume but not claim a broker id")
    void requestedClientAuth() throws Exception {
        InetSocketAddress address = startServer("requested", Map.of());
        ClientConnection anonymous = connect(address, null, true);
        assertThat(get(anonymous, fetchAs(FetchRequest.CONSUMER_REPLICA_ID)).partitions()).containsKey(REP0);
        assertThatThrownBy(() -> get(anonymous, fetchAs(2))).cause().isInstanceOf(RequestFailedException.class);
        ClientConnection broker = connect(address, broker2, true);
        assertThat(get(broker, fetchAs(2)).partitions()).containsKey(REP0);
        assertThat(replicas.callCount()).isEqualTo(2);
    }

    @Test
    @DisplayName("SEC-2 ssl.principal.mapping.rules turn the subject into the principal that is mapped to a broker id")
    void mappingRules() throws Exception {
        InetSocketAddress address = startServer("required", Map.of(
                PrincipalMappingRules.PROPERTY, "RULE:^CN=([^,]+),OU=insync$/$1/U, DEFAULT",
                "insync.broker.principal.2", "BROKER-2",
                "insync.broker.principal.3", "BROKER-3"));
        ClientConnection c = connect(address, broker2, true);
        assertThat(get(c, fetchAs(2)).partitions()).containsKey(REP0);
        assertThatThrownBy(() -> get(c, fetchAs(3))).cause().isInstanceOf(RequestFailedException.class);
    }
}
