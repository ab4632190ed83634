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

package dev.insync.replication.netty.server;

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
import dev.insync.replication.netty.TestMessages;
import dev.insync.replication.netty.config.NetworkConfig;
import dev.insync.replication.netty.protocol.ControllerApis;
import dev.insync.replication.netty.protocol.ControllerReply;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import static org.assertj.core.api.Assertions.assertThat;

/** How a controller's outcomes become replies on the wire (CTL-4's NOT_CONTROLLER and its hint among them). */
class ControllerApiHandlersTest {

    /** Registration fails NOT_CONTROLLER (node 2 is active), topic creation throws, describe fails oddly. */
    private static final class Refusing implements ControllerApi {
        @Override
        public CompletionStage<RegisterBrokerResponse> registerBroker(RegisterBrokerRequest request) {
            return CompletableFuture.failedFuture(new NotControllerException(0, OptionalInt.of(2)));
        }

        @Override
        public CompletionStage<HeartbeatResponse> brokerHeartbeat(HeartbeatRequest request) {
            return CompletableFuture.failedFuture(new NotControllerException(0, OptionalInt.empty()));
        }

        @Override
        public CompletionStage<AlterPartitionResponse> alterPartition(AlterPartitionRequest request) {
            return CompletableFuture.completedFuture(new AlterPartitionResponse(Errors.STALE_BROKER_EPOCH, Map.of()));
        }

        @Override
        public CompletionStage<MetadataFetchResponse> fetchMetadata(MetadataFetchRequest request) {
            return new CompletableFuture<>(); // never answers
        }

        @Override
        public CompletionStage<List<PartitionRegistration>> createTopic(CreateTopicRequest request) {
            throw new ApiException(Errors.INVALID_REQUEST, "Topic " + request.topic() + " has no replicas");
        }

        @Override
        public CompletionStage<Void> deleteTopic(String topic) {
            return CompletableFuture.failedFuture(new ApiException(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Unknown topic " + topic));
        }

        @Override
        public CompletionStage<Void> alterTopicConfig(AlterTopicConfigRequest request) {
            return CompletableFuture.failedFuture(new ApiException(Errors.REQUEST_TIMED_OUT, "busy"));
        }

        @Override
        public CompletionStage<Boolean> fenceBroker(int brokerId) {
            return CompletableFuture.completedFuture(true);
        }

        @Override
        public CompletionStage<TopicDescription> describeTopic(String topic) {
            return CompletableFuture.failedFuture(new IllegalStateException("a bug"));
        }
    }

    private final EmbeddedServer server = new EmbeddedServer(
            ControllerApiHandlers.register(ServedApis.builder(), new Refusing()).build(), NetworkConfig.defaults());

    private <Q, T> ControllerReply<T> ask(dev.insync.replication.netty.protocol.Api<Q, ControllerReply<T>> api, Q request) {
        EmbeddedChannel ch = server.connect();
        ch.writeInbound(TestMessages.requestFrame(api, 5, request));
        List<EmbeddedServer.Response> out = EmbeddedServer.responses(ch);
        assertThat(out).hasSize(1);
        assertThat(out.get(0).header().errorCode()).isZero();
        ControllerReply<T> reply = api.responseCodec().read((short) 0, out.get(0).bodyReader());
        ch.finishAndReleaseAll();
        return reply;
    }

    @Test
    @DisplayName("CTL-4 NOT_CONTROLLER travels with the active controller's id, or -1 when the node knows none")
    void notControllerWithHint() {
        ControllerReply<RegisterBrokerResponse> r = ask(ControllerApis.BROKER_REGISTRATION, new RegisterBrokerRequest(1, -1));
        assertThat(r.error()).isEqualTo(Errors.NOT_CONTROLLER);
        assertThat(r.activeControllerId()).isEqualTo(2);
        assertThat(r.errorMessage()).contains("not the active controller");
        ControllerReply<HeartbeatResponse> h = ask(ControllerApis.BROKER_HEARTBEAT, new HeartbeatRequest(1, 1, 0, false));
        assertThat(h.error()).isEqualTo(Errors.NOT_CONTROLLER);
        assertThat(h.activeControllerId()).isEqualTo(ControllerReply.NO_CONTROLLER);
    }

    @Test
    @DisplayName("CTL-4 the controller's own errors keep their code and message, thrown or failed; an answer's error stays in the value")
    void controllerErrors() {
        ControllerReply<List<PartitionRegistration>> c = ask(ControllerApis.CREATE_TOPICS,
                CreateTopicRequest.withAssignment("t", List.of(List.of()), Map.of()));
        assertThat(c.error()).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(c.errorMessage()).isEqualTo("Topic t has no replicas");
        ControllerReply<Void> busy = ask(ControllerApis.INCREMENTAL_ALTER_CONFIGS,
                new AlterTopicConfigRequest("t", "min.insync.replicas", "2"));
        assertThat(busy.error()).isEqualTo(Errors.REQUEST_TIMED_OUT);
        ControllerReply<AlterPartitionResponse> stale = ask(ControllerApis.ALTER_PARTITION,
                new AlterPartitionRequest(1, 1, List.of()));
        assertThat(stale.error()).isEqualTo(Errors.NONE);
        assertThat(stale.value().error()).isEqualTo(Errors.STALE_BROKER_EPOCH);
        assertThat(ask(ControllerApis.FENCE_BROKER, 3).value()).isTrue();
    }

    @Test
    @DisplayName("NET-1 a controller failure that is not an ApiException is the request-level UNKNOWN_SERVER_ERROR; the connection stays")
    void otherFailures() {
        EmbeddedChannel ch = server.connect();
        ch.writeInbound(TestMessages.requestFrame(ControllerApis.DESCRIBE_TOPIC_PARTITIONS, 8, "t"));
        List<EmbeddedServer.Response> out = EmbeddedServer.responses(ch);
        assertThat(out).singleElement().satisfies(r -> {
            assertThat(r.header().correlationId()).isEqualTo(8);
            assertThat(r.header().errorCode()).isEqualTo(Errors.UNKNOWN_SERVER_ERROR.code());
        });
        assertThat(ch.isActive()).isTrue();
        ch.finishAndReleaseAll();
    }
}
