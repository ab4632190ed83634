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

import dev.insync.replication.controller.api.AlterTopicConfigRequest;
import dev.insync.replication.controller.api.ControllerApi;
import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.controller.api.NotControllerException;
import dev.insync.replication.controller.api.RegisterBrokerRequest;
import dev.insync.replication.controller.api.RegisterBrokerResponse;
import dev.insync.replication.controller.api.TopicDescription;
import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.ControllerChannel.HeartbeatResponse;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.metadata.follower.MetadataFetchRequest;
import dev.insync.replication.core.metadata.follower.MetadataFetchResponse;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import dev.insync.replication.netty.protocol.Api;
import dev.insync.replication.netty.protocol.ControllerApis;
import dev.insync.replication.netty.protocol.ControllerReply;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * {@link ControllerApi} of one controller node over TCP: what a broker's
 * {@code QuorumControllerChannel} (one endpoint per node) and an administrator's tools call.
 *
 * <p>Two connections to the node: one for the metadata long poll ({@link #fetchMetadata}), which may
 * be held for its {@code maxWaitMs}, and one for everything else, so that a heartbeat's answer never
 * waits behind a parked poll (answers on a connection are ordered, NET-2). {@code request.timeout.ms}
 * of the client must exceed the polls' {@code maxWaitMs}.
 *
 * <p>Outcomes: the node's answer; {@link NotControllerException} ({@code NOT_CONTROLLER} with the
 * active controller's id when the node named one, CTL-4) or an {@link ApiException} with the
 * node's error and message; or a transport failure ({@link DisconnectedException},
 * {@link java.util.concurrent.TimeoutException} after {@code request.timeout.ms},
 * {@link RequestFailedException} for a request refused as a whole, such as SEC-2's
 * CLUSTER_AUTHORIZATION_FAILED). This class does not retry: the quorum channel does, at another node.
 */
public final class NettyControllerApi implements ControllerApi, AutoCloseable {

    private final int controllerId;
    private final ClientConnection requests;
    private final ClientConnection metadata;

    /**
     * @param controllerId the node's id (in errors and connection names)
     * @param address      where the node listens, asked on every connection attempt
     * @param client       loops, TLS and timeouts (not closed by {@link #close()})
     * @param clientId     the request header's client id, e.g. {@code broker-2}
     */
    public NettyControllerApi(int controllerId, Supplier<Optional<InetSocketAddress>> address, NetworkClient client,
                              String clientId) {
        this.controllerId = controllerId;
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(client, "client");
        this.requests = client.connection(clientId + "->controller-" + controllerId, address, clientId);
        this.metadata = client.connection(clientId + "->controller-" + controllerId + "-metadata", address, clientId);
    }

    /** The node this talks to. */
    public int controllerId() {
        return controllerId;
    }

    @Override
    public CompletionStage<RegisterBrokerResponse> registerBroker(RegisterBrokerRequest request) {
        return call(requests, ControllerApis.BROKER_REGISTRATION, request);
    }

    @Override
    public CompletionStage<HeartbeatResponse> brokerHeartbeat(HeartbeatRequest request) {
        return call(requests, ControllerApis.BROKER_HEARTBEAT, request);
    }

    @Override
    public CompletionStage<AlterPartitionResponse> alterPartition(AlterPartitionRequest request) {
        return call(requests, ControllerApis.ALTER_PARTITION, request);
    }

    @Override
    public CompletionStage<MetadataFetchResponse> fetchMetadata(MetadataFetchRequest request) {
        return call(metadata, ControllerApis.METADATA_FETCH, request);
    }

    @Override
    public CompletionStage<List<PartitionRegistration>> createTopic(CreateTopicRequest request) {
        return call(requests, ControllerApis.CREATE_TOPICS, request);
    }

    @Override
    public CompletionStage<Void> deleteTopic(String topic) {
        return call(requests, ControllerApis.DELETE_TOPICS, topic);
    }

    @Override
    public CompletionStage<Void> alterTopicConfig(AlterTopicConfigRequest request) {
        return call(requests, ControllerApis.INCREMENTAL_ALTER_CONFIGS, request);
    }

    @Override
    public CompletionStage<Boolean> fenceBroker(int brokerId) {
        return call(requests, ControllerApis.FENCE_BROKER, brokerId);
    }

    @Override
    public CompletionStage<TopicDescription> describeTopic(String topic) {
        return call(requests, ControllerApis.DESCRIBE_TOPIC_PARTITIONS, topic);
    }

    private <Q, T> CompletionStage<T> call(ClientConnection connection, Api<Q, ControllerReply<T>> api, Q request) {
        return connection.send(api, api.maxVersion(), request).thenCompose(reply -> {
            if (reply.error() == Errors.NONE) {
                return CompletableFuture.completedFuture(reply.value());
            }
            return CompletableFuture.failedFuture(toException(reply));
        });
    }

    private ApiException toException(ControllerReply<?> reply) {
        if (reply.error() == Errors.NOT_CONTROLLER) {
            int hint = reply.activeControllerId();
            return new NotControllerException(controllerId,
                    hint == ControllerReply.NO_CONTROLLER ? OptionalInt.empty() : OptionalInt.of(hint));
        }
        String message = reply.errorMessage() != null ? reply.errorMessage() : reply.error().message();
        return new ApiException(reply.error(), "Controller node " + controllerId + ": " + message);
    }

    /** Closes both connections; calls in flight fail with {@link DisconnectedException}. */
    @Override
    public void close() {
        requests.close();
        metadata.close();
    }

    @Override
    public String toString() {
        return "NettyControllerApi(controller " + controllerId + ")";
    }
}
