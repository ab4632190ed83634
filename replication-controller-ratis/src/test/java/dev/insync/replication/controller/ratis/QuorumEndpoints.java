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

package dev.insync.replication.controller.ratis;

import dev.insync.replication.controller.api.AlterTopicConfigRequest;
import dev.insync.replication.controller.api.ControllerApi;
import dev.insync.replication.controller.api.CreateTopicRequest;
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

import java.net.ConnectException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * In-JVM endpoints of a {@link RatisQuorum}'s nodes, as a network would give them: a call to a node
 * that is down fails like a refused connection; a restarted node is reached again.
 */
final class QuorumEndpoints {

    private QuorumEndpoints() {
    }

    static Map<Integer, ControllerApi> of(RatisQuorum quorum) {
        Map<Integer, ControllerApi> endpoints = new TreeMap<>();
        for (int id = 1; id <= quorum.size; id++) {
            endpoints.put(id, new Endpoint(quorum, id));
        }
        return endpoints;
    }

    private record Endpoint(RatisQuorum quorum, int id) implements ControllerApi {

        private <T> CompletionStage<T> call(Function<ControllerApi, CompletionStage<T>> op) {
            RatisControllerNode node = quorum.nodes.get(id);
            if (node == null) {
                return CompletableFuture.failedFuture(new ConnectException("Controller node " + id + " is down"));
            }
            return op.apply(node.controllerApi());
        }

        @Override
        public CompletionStage<RegisterBrokerResponse> registerBroker(RegisterBrokerRequest request) {
            return call(api -> api.registerBroker(request));
        }

        @Override
        public CompletionStage<HeartbeatResponse> brokerHeartbeat(HeartbeatRequest request) {
            return call(api -> api.brokerHeartbeat(request));
        }

        @Override
        public CompletionStage<AlterPartitionResponse> alterPartition(AlterPartitionRequest request) {
            return call(api -> api.alterPartition(request));
        }

        @Override
        public CompletionStage<MetadataFetchResponse> fetchMetadata(MetadataFetchRequest request) {
            return call(api -> api.fetchMetadata(request));
        }

        @Override
        public CompletionStage<List<PartitionRegistration>> createTopic(CreateTopicRequest request) {
            return call(api -> api.createTopic(request));
        }

        @Override
        public CompletionStage<Void> deleteTopic(String topic) {
            return call(api -> api.deleteTopic(topic));
        }

        @Override
        public CompletionStage<Void> alterTopicConfig(AlterTopicConfigRequest request) {
            return call(api -> api.alterTopicConfig(request));
        }

        @Override
        public CompletionStage<Boolean> fenceBroker(int brokerId) {
            return call(api -> api.fenceBroker(brokerId));
        }

        @Override
        public CompletionStage<TopicDescription> describeTopic(String topic) {
            return call(api -> api.describeTopic(topic));
        }
    }
}
