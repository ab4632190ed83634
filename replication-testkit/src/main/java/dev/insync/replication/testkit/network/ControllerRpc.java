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

import dev.insync.replication.controller.api.AlterTopicConfigRequest;
import dev.insync.replication.controller.api.ControllerApi;
import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.controller.api.RegisterBrokerRequest;
import dev.insync.replication.controller.api.RegisterBrokerResponse;
import dev.insync.replication.controller.api.TopicDescription;
import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.ControllerChannel;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.metadata.follower.MetadataFetchRequest;
import dev.insync.replication.core.metadata.follower.MetadataFetchResponse;
import dev.insync.replication.testkit.sim.NodeId;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

/**
 * The messages between brokers (or admin clients) and the controller on the {@link InMemoryNetwork}:
 * one {@link ServiceKey} per {@link ControllerApi} call, carrying its request and response records
 * as they are (a network RPC would encode the same records). Errors travel as the exception the
 * controller answered with ({@code NOT_CONTROLLER} with its hint, {@code INVALID_REQUEST} ...), so
 * cuts, loss, delays and pauses act on controller traffic as on any other.
 */
public final class ControllerRpc {

    /** LDR-4/LDR-5: answered with the new broker epoch. */
    public static final ServiceKey<RegisterBrokerRequest, RegisterBrokerResponse> REGISTER_BROKER =
            ServiceKey.of("register-broker", RegisterBrokerRequest.class, RegisterBrokerResponse.class);
    /** LDR-4, §9: the core's {@link HeartbeatRequest}, offline replicas included. */
    public static final ServiceKey<HeartbeatRequest, ControllerChannel.HeartbeatResponse> BROKER_HEARTBEAT =
            ServiceKey.of("broker-heartbeat", HeartbeatRequest.class, ControllerChannel.HeartbeatResponse.class);
    /** ISR-5/ISR-6. */
    public static final ServiceKey<AlterPartitionRequest, AlterPartitionResponse> ALTER_PARTITION =
            ServiceKey.of("alter-partition", AlterPartitionRequest.class, AlterPartitionResponse.class);
    /** CTL-5: the long poll for committed metadata. */
    public static final ServiceKey<MetadataFetchRequest, MetadataFetchResponse> FETCH_METADATA =
            ServiceKey.of("fetch-metadata", MetadataFetchRequest.class, MetadataFetchResponse.class);
    /** Admin: creates a topic, answered with its partitions. */
    public static final ServiceKey<CreateTopicRequest, List<PartitionRegistration>> CREATE_TOPIC =
            ServiceKey.of("create-topic", CreateTopicRequest.class, listOf());
    /** Admin: deletes a topic. */
    public static final ServiceKey<String, Void> DELETE_TOPIC =
            ServiceKey.of("delete-topic", String.class, Void.class);
    /** Admin: changes a topic config. */
    public static final ServiceKey<AlterTopicConfigRequest, Void> ALTER_TOPIC_CONFIG =
            ServiceKey.of("alter-topic-config", AlterTopicConfigRequest.class, Void.class);
    /** Admin: fences a broker now. */
    public static final ServiceKey<Integer, Boolean> FENCE_BROKER =
            ServiceKey.of("fence-broker", Integer.class, Boolean.class);
    /** Admin: describes a topic. */
    public static final ServiceKey<String, TopicDescription> DESCRIBE_TOPIC =
            ServiceKey.of("describe-topic", String.class, TopicDescription.class);

    private ControllerRpc() {
    }

    @SuppressWarnings("unchecked")
    private static Class<List<PartitionRegistration>> listOf() {
        return (Class<List<PartitionRegistration>>) (Class<?>) List.class;
    }

    /**
     * Binds every call of {@code api} on the current incarnation of {@code node} (a controller node).
     * A new incarnation binds again.
     */
    public static void bind(InMemoryNetwork network, NodeId node, ControllerApi api) {
        Objects.requireNonNull(api, "api");
        network.bind(node, REGISTER_BROKER, api::registerBroker);
        network.bind(node, BROKER_HEARTBEAT, api::brokerHeartbeat);
        network.bind(node, ALTER_PARTITION, api::alterPartition);
        network.bind(node, FETCH_METADATA, api::fetchMetadata);
        network.bind(node, CREATE_TOPIC, api::createTopic);
        network.bind(node, DELETE_TOPIC, api::deleteTopic);
        network.bind(node, ALTER_TOPIC_CONFIG, api::alterTopicConfig);
        network.bind(node, FENCE_BROKER, api::fenceBroker);
        network.bind(node, DESCRIBE_TOPIC, api::describeTopic);
    }

    /**
     * A {@link ControllerApi} whose every call travels from {@code from} to the controller node
     * {@code controller} over {@code network}: a lost message leaves its stage incomplete (or failed,
     * in {@link InMemoryNetwork.LossMode#FAIL}); the caller's timeouts and retries are what a real
     * client's would be.
     */
    public static ControllerApi endpoint(InMemoryNetwork network, NodeId from, NodeId controller) {
        Objects.requireNonNull(network, "network");
        return new ControllerApi() {
            @Override
            public CompletionStage<RegisterBrokerResponse> registerBroker(RegisterBrokerRequest request) {
                return network.send(from, controller, REGISTER_BROKER, request);
            }

            @Override
            public CompletionStage<ControllerChannel.HeartbeatResponse> brokerHeartbeat(HeartbeatRequest request) {
                return network.send(from, controller, BROKER_HEARTBEAT, request);
            }

            @Override
            public CompletionStage<AlterPartitionResponse> alterPartition(AlterPartitionRequest request) {
                return network.send(from, controller, ALTER_PARTITION, request);
            }

            @Override
            public CompletionStage<MetadataFetchResponse> fetchMetadata(MetadataFetchRequest request) {
                return network.send(from, controller, FETCH_METADATA, request);
            }

            @Override
            public CompletionStage<List<PartitionRegistration>> createTopic(CreateTopicRequest request) {
                return network.send(from, controller, CREATE_TOPIC, request);
            }

            @Override
            public CompletionStage<Void> deleteTopic(String topic) {
                return network.send(from, controller, DELETE_TOPIC, topic);
            }

            @Override
            public CompletionStage<Void> alterTopicConfig(AlterTopicConfigRequest request) {
                return network.send(from, controller, ALTER_TOPIC_CONFIG, request);
            }

            @Override
            public CompletionStage<Boolean> fenceBroker(int brokerId) {
                return network.send(from, controller, FENCE_BROKER, brokerId);
            }

            @Override
            public CompletionStage<TopicDescription> describeTopic(String topic) {
                return network.send(from, controller, DESCRIBE_TOPIC, topic);
            }

            @Override
            public String toString() {
                return "ControllerApi(" + from + " -> " + controller + ")";
            }
        };
    }

    /**
     * The three {@link ControllerChannel} calls straight over {@code endpoint}, without the retries
     * and redirects of a {@code QuorumControllerChannel} (for tests of a single controller node).
     */
    public static ControllerChannel channel(ControllerApi endpoint) {
        Objects.requireNonNull(endpoint, "endpoint");
        return new ControllerChannel() {
            @Override
            public CompletionStage<AlterPartitionResponse> alterPartition(AlterPartitionRequest request) {
                return endpoint.alterPartition(request);
            }

            @Override
            public CompletionStage<Long> registerBroker(int id, long previousBrokerEpoch,
                                                        java.util.List<dev.insync.replication.core.metadata.Endpoint> endpoints) {
                return endpoint.registerBroker(new RegisterBrokerRequest(id, previousBrokerEpoch, endpoints))
                        .thenApply(RegisterBrokerResponse::brokerEpoch);
            }

            @Override
            public CompletionStage<HeartbeatResponse> heartbeat(HeartbeatRequest request) {
                return endpoint.brokerHeartbeat(request);
            }
        };
    }
}
