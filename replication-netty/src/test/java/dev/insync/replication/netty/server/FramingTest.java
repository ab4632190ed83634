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

import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.netty.RecordingReplicaService;
import dev.insync.replication.netty.TestMessages;
import dev.insync.replication.netty.config.NetworkConfig;
import dev.insync.replication.netty.protocol.ApiVersionsRequest;
import dev.insync.replication.netty.protocol.ApiVersionsResponse;
import dev.insync.replication.netty.protocol.Apis;
import dev.insync.replication.netty.protocol.ErrorCodes;
import dev.insync.replication.netty.protocol.MetadataRequest;
import dev.insync.replication.netty.protocol.MetadataResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** NET-1 on the server's real pipeline: bounds, malformed frames, unknown apis and versions. */
class FramingTest {

    private final RecordingReplicaService replicas = new RecordingReplicaService().answerAtOnce();
    private final List<EmbeddedChannel> channels = new ArrayList<>();

    private EmbeddedServer server(int maxFrameBytes) {
        return new EmbeddedServer(replicas, NetworkConfig.builder().socketRequestMaxBytes(maxFrameBytes).build());
    }

    private EmbeddedChannel connect(EmbeddedServer s) {
        EmbeddedChannel ch = s.connect();
        channels.add(ch);
        return ch;
    }

    @AfterEach
    void close() {
        channels.forEach(ch -> {
            ch.finishAndReleaseAll();
            ch.checkException();
        });
    }

    private static FetchRequest consumerFetch() {
        return new FetchRequest(FetchRequest.CONSUMER_REPLICA_ID, -1, 0, 1, 1000,
                Map.of(new TopicPartition("rep", 0), new FetchRequest.PartitionData(0, -1, 1000, OptionalInt.empty(),
                        OptionalInt.empty())));
    }

    /** A frame with this header and raw body bytes. */
    private static ByteBuf frame(int apiKey, int version, int correlationId, byte[] body) {
        ByteBuf b = Unpooled.buffer();
        b.writeInt(2 + 2 + 4 + 2 + body.length).writeShort(apiKey).writeShort(version).writeInt(correlationId)
                .writeShort(-1).writeBytes(body);
        return b;
    }

    @Test
    @DisplayName("NET-1 a frame over socket.request.max.bytes is refused when its size arrives and the connection closed")
    void oversizedFrame() {
        EmbeddedServer s = server(1024);
        EmbeddedChannel ch = connect(s);
        // Only the size: the server must not wait for (or buffer) the 2000 bytes it announces.
        ch.writeInbound(Unpooled.buffer().writeInt(2000));
        assertThat(ch.isActive()).isFalse();
        assertThat(s.metrics().oversizedFrames()).isEqualTo(1);
        assertThat(replicas.callCount()).isZero();
    }

    @Test
    @DisplayName("NET-1 a frame of exactly socket.request.max.bytes is read")
    void frameAtTheBound() {
        ByteBuf f = TestMessages.requestFrame(Apis.FETCH, 1, consumerFetch());
        EmbeddedServer s = server(f.readableBytes() - 4);
        EmbeddedChannel ch = connect(s);
        ch.writeInbound(f);
        assertThat(EmbeddedServer.correlationIds(EmbeddedServer.responses(ch))).containsExactly(1);
        assertThat(replicas.callCount()).isEqualTo(1);
    }

    @Test
    @DisplayName("NET-1 the default socket.request.max.bytes is Kafka's 104857600")
    void defaultBound() {
        assertThat(NetworkConfig.defaults().socketRequestMaxBytes()).isEqualTo(104_857_600);
        assertThat(NetworkConfig.fromProperties(Map.of("socket.request.max.bytes", "2048")).socketRequestMaxBytes())
                .isEqualTo(2048);
    }

    @Test
    @DisplayName("NET-1 a negative frame size closes the connection and counts as malformed")
    void negativeSize() {
        EmbeddedServer s = server(1024);
        EmbeddedChannel ch = connect(s);
        ch.writeInbound(Unpooled.buffer().writeInt(-5).writeInt(0));
        assertThat(ch.isActive()).isFalse();
        assertThat(s.metrics().malformedFrames()).isEqualTo(1);
    }

    @Test
    @DisplayName("NET-1 malformed frames close the connection, are counted and never reach a handler")
    void malformedFrames() {
        byte[] validFetchBody = body(TestMessages.requestFrame(Apis.FETCH, 1, consumerFetch()));
        byte[] trailing = java.util.Arrays.copyOf(validFetchBody, validFetchBody.length + 1);
        byte[] truncated = java.util.Arrays.copyOf(validFetchBody, validFetchBody.length - 3);
        byte[] hugeCount = Unpooled.buffer().writeInt(-1).writeLong(-1).writeInt(0).writeInt(1).writeInt(1000)
                .writeInt(1_000_000_000).array();
        List<ByteBuf> bad = List.of(
                Unpooled.buffer().writeInt(3).writeBytes(new byte[3]), // shorter than a header
                frame(Apis.FETCH_KEY, 0, 1, trailing),
                frame(Apis.FETCH_KEY, 0, 1, truncated),
                frame(Apis.FETCH_KEY, 0, 1, java.util.Arrays.copyOf(hugeCount, 28)),
                badClientId());
        EmbeddedServer s = server(1 << 20);
        for (ByteBuf f : bad) {
            EmbeddedChannel ch = connect(s);
            ch.writeInbound(f);
            assertThat(ch.isActive()).as("connection after %s", f).isFalse();
        }
        assertThat(s.metrics().malformedFrames()).isEqualTo(bad.size());
        assertThat(replicas.callCount()).isZero();
    }

    @Test
    @DisplayName("NET-1 a fetch naming one partition twice is malformed")
    void duplicatePartition() {
        // Two blocks for topic "rep" with partition 0 each; the second block is also a repeat of the first topic.
        ByteBuf body = Unpooled.buffer().writeInt(-1).writeLong(-1).writeInt(0).writeInt(1).writeInt(1000);
        body.writeInt(1).writeShort(3).writeBytes("rep".getBytes(StandardCharsets.UTF_8)).writeInt(2);
        for (int i = 0; i < 2; i++) {
            body.writeInt(0).writeLong(0).writeLong(-1).writeInt(100).writeByte(0).writeByte(0);
        }
        byte[] bytes = new byte[body.readableBytes()];
        body.readBytes(bytes);
        EmbeddedServer s = server(1 << 20);
        EmbeddedChannel ch = connect(s);
        ch.writeInbound(frame(Apis.FETCH_KEY, 0, 9, bytes));
        assertThat(ch.isActive()).isFalse();
        assertThat(s.metrics().malformedFrames()).isEqualTo(1);
        assertThat(replicas.callCount()).isZero();
    }

    private static ByteBuf badClientId() {
        ByteBuf b = Unpooled.buffer();
        b.writeInt(2 + 2 + 4 + 2 + 2).writeShort(Apis.API_VERSIONS_KEY).writeShort(0).writeInt(1).writeShort(2)
                .writeByte(0xC3).writeByte(0x28); // not UTF-8
        return b;
    }

    private static byte[] body(ByteBuf frame) {
        // size, api key, version, correlation id, client id "test-client" (2 + 11 bytes)
        frame.skipBytes(4 + 2 + 2 + 4 + 2 + "test-client".length());
        return TestMessages.bytes(frame);
    }

    @Test
    @DisplayName("NET-1 an unknown api key is answered UNSUPPORTED_VERSION and the connection stays usable")
    void unknownApi() {
        EmbeddedServer s = server(1 << 20);
        EmbeddedChannel ch = connect(s);
        ch.writeInbound(frame(999, 0, 5, new byte[]{1, 2, 3}));
        ch.writeInbound(TestMessages.requestFrame(Apis.API_VERSIONS, 6, new ApiVersionsRequest()));
        var responses = EmbeddedServer.responses(ch);
        assertThat(EmbeddedServer.correlationIds(responses)).containsExactly(5, 6);
        assertThat(responses.get(0).header().errorCode()).isEqualTo(ErrorCodes.UNSUPPORTED_VERSION);
        assertThat(responses.get(0).body()).isEmpty();
        assertThat(responses.get(1).header().errorCode()).isZero();
        ApiVersionsResponse versions = Apis.API_VERSIONS.responseCodec().read((short) 0, responses.get(1).bodyReader());
        assertThat(versions.apis()).extracting(ApiVersionsResponse.ApiVersion::apiKey)
                .containsExactly(Apis.PRODUCE_KEY, Apis.FETCH_KEY, Apis.METADATA_KEY, Apis.API_VERSIONS_KEY,
                        Apis.DESCRIBE_REPLICAS_KEY);
        assertThat(ch.isActive()).isTrue();
        assertThat(s.metrics().unsupportedRequests()).isEqualTo(1);
    }

    @Test
    @DisplayName("NET-1 an unknown version of a known api is answered UNSUPPORTED_VERSION, its body unread, and the next request served")
    void unknownVersion() {
        EmbeddedServer s = server(1 << 20);
        EmbeddedChannel ch = connect(s);
        ch.writeInbound(frame(Apis.FETCH_KEY, 7, 1, new byte[]{9, 9, 9}));
        ch.writeInbound(TestMessages.requestFrame(Apis.FETCH, 2, consumerFetch()));
        var responses = EmbeddedServer.responses(ch);
        assertThat(EmbeddedServer.correlationIds(responses)).containsExactly(1, 2);
        assertThat(responses.get(0).header().errorCode()).isEqualTo(ErrorCodes.UNSUPPORTED_VERSION);
        assertThat(responses.get(1).header().errorCode()).isZero();
        assertThat(replicas.callCount()).isEqualTo(1);
        assertThat(ch.isActive()).isTrue();
    }

    @Test
    @DisplayName("NET-1 a failing handler is answered UNKNOWN_SERVER_ERROR and the connection stays usable")
    void failingHandler() {
        ServedApis apis = ServedApis.builder()
                .add(Apis.METADATA, (ctx, r) -> {
                    if (r.topics().isPresent()) {
                        throw new IllegalStateException("boom");
                    }
                    return CompletableFuture.completedFuture(new MetadataResponse(List.of(), 3, List.of()));
                }).build();
        EmbeddedServer s = new EmbeddedServer(apis, NetworkConfig.defaults());
        EmbeddedChannel ch = connect(s);
        ch.writeInbound(TestMessages.requestFrame(Apis.METADATA, 1, MetadataRequest.of(List.of("x"))));
        ch.writeInbound(TestMessages.requestFrame(Apis.METADATA, 2, MetadataRequest.allTopics()));
        var responses = EmbeddedServer.responses(ch);
        assertThat(EmbeddedServer.correlationIds(responses)).containsExactly(1, 2);
        assertThat(responses.get(0).header().errorCode()).isEqualTo(Errors.UNKNOWN_SERVER_ERROR.code());
        assertThat(Apis.METADATA.responseCodec().read((short) 0, responses.get(1).bodyReader()).controllerId())
                .isEqualTo(3);
        assertThat(s.metrics().handlerFailures()).isEqualTo(1);
    }
}
