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

import dev.insync.replication.controller.api.RegisterBrokerRequest;
import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.core.metadata.follower.MetadataFetchRequest;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.netty.ManualScheduler;
import dev.insync.replication.netty.RecordingControllerApi;
import dev.insync.replication.netty.client.NettyControllerApi;
import dev.insync.replication.netty.client.NetworkClient;
import dev.insync.replication.netty.client.RequestFailedException;
import dev.insync.replication.netty.config.NetworkConfig;
import dev.insync.replication.netty.protocol.ControllerApis;
import dev.insync.replication.netty.protocol.ErrorCodes;
import dev.insync.replication.netty.server.ControllerApiHandlers;
import dev.insync.replication.netty.server.NettyServer;
import dev.insync.replication.netty.server.ServedApis;
import org.assertj.core.api.ThrowableAssert;
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
import java.util.Random;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * SEC-2 for the controller's requests over real TLS with keytool certificates: registration,
 * heartbeat and AlterPartition reach the controller only from the principal of the broker id they
 * claim; a claim of another id is answered CLUSTER_AUTHORIZATION_FAILED and never reaches it.
 */
class ControllerTlsTest {

    private static final long WAIT_S = 20;

    @TempDir
    static Path certs;
    static Path broker1;
    static Path broker2;
    static Path truststore;

    @BeforeAll
    static void makeCertificates() throws Exception {
        broker1 = Certificates.keystore(certs, "broker-1", "CN=broker-1,OU=insync");
        broker2 = Certificates.keystore(certs, "broker-2", "CN=broker-2,OU=insync");
        truststore = Certificates.truststore(certs, "trust", Map.of("broker-1", broker1, "broker-2", broker2));
    }

    private final ManualScheduler scheduler = new ManualScheduler(1_000_000L);
    private final RecordingControllerApi controller = new RecordingControllerApi();
    private final NetworkConfig config = NetworkConfig.builder().numNetworkThreads(1).numIoThreads(1).build();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private NettyServer server;

    @AfterEach
    void close() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private InetSocketAddress startController() {
        Map<String, Object> props = new HashMap<>(Certificates.sslProperties(broker1, truststore, "required"));
        props.put("insync.broker.principal.1", "CN=broker-1,OU=insync");
        props.put("insync.broker.principal.2", "CN=broker-2,OU=insync");
        server = NettyServer.builder().name("tls-controller").bindAddress(new InetSocketAddress("127.0.0.1", 0))
                .config(config).scheduler(scheduler).ssl(SslConfig.fromProperties(props).orElseThrow())
                .principals(BrokerPrincipals.fromProperties(props))
                .apis(ControllerApiHandlers.register(ServedApis.builder(), controller).build()).build();
        closeables.add(server);
        return server.start();
    }

    private NettyControllerApi connectAs(InetSocketAddress address, Path keystore) {
        NetworkClient client = new NetworkClient("tls-broker", config,
                SslConfig.fromProperties(Certificates.sslProperties(keystore, truststore, "none")), scheduler, 1,
                new Random(1));
        closeables.add(client);
        NettyControllerApi api = new NettyControllerApi(0, () -> Optional.of(address), client, "broker");
        closeables.add(api);
        return api;
    }

    private static <T> T get(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(WAIT_S, TimeUnit.SECONDS);
    }

    private static void refused(ThrowableAssert.ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOf(ExecutionException.class).cause()
                .isInstanceOf(RequestFailedException.class)
                .satisfies(e -> assertThat(((RequestFailedException) e).errorCode())
                        .isEqualTo(ErrorCodes.CLUSTER_AUTHORIZATION_FAILED));
    }

    @Test
    @DisplayName("SEC-2 broker 2's certificate registers, heartbeats and alters partitions as broker 2 only; as broker 1 it is refused and nothing reaches the controller")
    void controllerRequestsClaimTheirBrokerId() throws Exception {
        NettyControllerApi asBroker2 = connectAs(startController(), broker2);
        TopicPartition tp = new TopicPartition("t", 0);
        AlterPartitionRequest alter1 = new AlterPartitionRequest(1, 5, List.of(new AlterPartitionRequest.Item(tp, 0, 0,
                List.of(new AlterPartitionRequest.BrokerState(1, 5)), false)));

        refused(() -> get(asBroker2.registerBroker(new RegisterBrokerRequest(1, -1))));
        refused(() -> get(asBroker2.brokerHeartbeat(new HeartbeatRequest(1, 5, 3, false))));
        refused(() -> get(asBroker2.alterPartition(alter1)));
        assertThat(controller.calls()).isEmpty();
        assertThat(server.metrics().authorizationFailures()).isEqualTo(3);

        // Its own id, and requests that claim none (the metadata long poll, reads), are served on the same connection.
        assertThat(get(asBroker2.registerBroker(new RegisterBrokerRequest(2, -1))).brokerEpoch()).isEqualTo(1);
        assertThat(get(asBroker2.brokerHeartbeat(new HeartbeatRequest(2, 1, 0, false))).fenced()).isFalse();
        get(asBroker2.alterPartition(new AlterPartitionRequest(2, 1, List.of())));
        get(asBroker2.fetchMetadata(new MetadataFetchRequest(2, -1, 0, 10)));
        assertThat(controller.calls()).extracting(RecordingControllerApi.Call::apiKey).containsExactly(
                ControllerApis.BROKER_REGISTRATION_KEY, ControllerApis.BROKER_HEARTBEAT_KEY,
                ControllerApis.ALTER_PARTITION_KEY, ControllerApis.METADATA_FETCH_KEY);
    }
}
