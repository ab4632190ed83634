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

package dev.insync.replication.netty.protocol;

import dev.insync.replication.controller.api.RegisterBrokerRequest;
import dev.insync.replication.core.metadata.BrokerRegistration;
import dev.insync.replication.core.metadata.Endpoint;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.follower.MetadataFetchResponse;
import dev.insync.replication.core.metadata.follower.MetadataImage;
import dev.insync.replication.netty.TestControllerMessages;
import io.netty.buffer.ByteBufAllocator;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static dev.insync.replication.netty.protocol.CodecRoundTripTest.requestRoundTrip;
import static dev.insync.replication.netty.protocol.CodecRoundTripTest.responseRoundTrip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * NET-1 for the controller's apis: every request survives encode then decode unchanged and
 * re-encodes to the same bytes; every answer, successful or failed (NOT_CONTROLLER with its hint,
 * other errors with their messages), decodes to what was encoded.
 */
class ControllerCodecRoundTripTest {

    @Test
    @DisplayName("NET-1 BrokerRegistration request and reply round trip")
    void registration() {
        requestRoundTrip(ControllerApis.BROKER_REGISTRATION, TestControllerMessages::registerBrokerRequest);
        responseRoundTrip(ControllerApis.BROKER_REGISTRATION,
                r -> TestControllerMessages.reply(r, TestControllerMessages::registerBrokerResponse));
    }

    @Test
    @DisplayName("NET-1 BrokerHeartbeat request (offline replicas, controlled shutdown) and reply round trip")
    void heartbeat() {
        requestRoundTrip(ControllerApis.BROKER_HEARTBEAT, TestControllerMessages::heartbeatRequest);
        responseRoundTrip(ControllerApis.BROKER_HEARTBEAT,
                r -> TestControllerMessages.reply(r, TestControllerMessages::heartbeatResponse));
    }

    @Test
    @DisplayName("NET-1 AlterPartition request (items, ISR with broker epochs, recovered) and reply round trip")
    void alterPartition() {
        requestRoundTrip(ControllerApis.ALTER_PARTITION, TestControllerMessages::alterPartitionRequest);
        responseRoundTrip(ControllerApis.ALTER_PARTITION,
                r -> TestControllerMessages.reply(r, TestControllerMessages::alterPartitionResponse));
    }

    @Test
    @DisplayName("NET-1 metadata-log fetch request and reply round trip: image, deltas, brokers, partitions, deletions, min ISR")
    void metadataFetch() {
        requestRoundTrip(ControllerApis.METADATA_FETCH, TestControllerMessages::metadataFetchRequest);
        responseRoundTrip(ControllerApis.METADATA_FETCH,
                r -> TestControllerMessages.reply(r, TestControllerMessages::metadataFetchResponse));
    }

    @Test
    @DisplayName("NET-1 admin apis round trip: CreateTopics, DeleteTopics, IncrementalAlterConfigs, DescribeTopicPartitions, FenceBroker")
    void admin() {
        requestRoundTrip(ControllerApis.CREATE_TOPICS, TestControllerMessages::createTopicRequest);
        responseRoundTrip(ControllerApis.CREATE_TOPICS,
                r -> TestControllerMessages.reply(r, TestControllerMessages::partitions));
        requestRoundTrip(ControllerApis.INCREMENTAL_ALTER_CONFIGS, TestControllerMessages::alterTopicConfigRequest);
        responseRoundTrip(ControllerApis.INCREMENTAL_ALTER_CONFIGS, r -> TestControllerMessages.reply(r, x -> null));
        requestRoundTrip(ControllerApis.DESCRIBE_TOPIC_PARTITIONS, dev.insync.replication.netty.TestMessages::topic);
        responseRoundTrip(ControllerApis.DESCRIBE_TOPIC_PARTITIONS,
                r -> TestControllerMessages.reply(r, TestControllerMessages::topicDescription));
        requestRoundTrip(ControllerApis.DELETE_TOPICS, dev.insync.replication.netty.TestMessages::topic);
        responseRoundTrip(ControllerApis.DELETE_TOPICS, r -> TestControllerMessages.reply(r, x -> null));
        requestRoundTrip(ControllerApis.FENCE_BROKER, r -> r.nextInt(1000));
        responseRoundTrip(ControllerApis.FENCE_BROKER, r -> TestControllerMessages.reply(r, x -> x.nextBoolean()));
    }

    @Test
    @DisplayName("LDR-4 NET-1 BrokerRegistration and MetadataFetch v1 carry endpoints, MetadataFetch v2 topic ids; older versions decode without them")
    void endpointVersions() {
        qt().withFixedSeed(62L).withExamples(300).forAll(longs().all()).checkAssert(seed -> {
            Random r = new Random(seed);
            RegisterBrokerRequest request = TestControllerMessages.registerBrokerRequest(r);
            MessageCodec<RegisterBrokerRequest> codec = ControllerApis.BROKER_REGISTRATION.requestCodec();
            assertThat(read(codec, (short) 1, write(codec, (short) 1, request))).isEqualTo(request);
            // v0: broker id and previous epoch only, read with no endpoints.
            RegisterBrokerRequest bare = new RegisterBrokerRequest(request.brokerId(), request.previousBrokerEpoch());
            byte[] v0 = write(codec, (short) 0, bare);
            assertThat(v0).hasSize(4 + 8);
            assertThat(read(codec, (short) 0, v0)).isEqualTo(bare);
            if (!request.endpoints().isEmpty()) {
                assertThatThrownBy(() -> write(codec, (short) 0, request)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("cannot carry the endpoints");
            }

            MessageCodec<ControllerReply<MetadataFetchResponse>> fetch = ControllerApis.METADATA_FETCH.responseCodec();
            MetadataFetchResponse response = TestControllerMessages.metadataFetchResponse(r);
            ControllerReply<MetadataFetchResponse> reply = ControllerReply.ok(response);
            assertThat(read(fetch, (short) 2, write(fetch, (short) 2, reply))).isEqualTo(reply);
            // v1 has no topic ids: a broker of that build knows topics by name alone.
            assertThat(read(fetch, (short) 1, write(fetch, (short) 1, reply)))
                    .isEqualTo(ControllerReply.ok(withoutTopicIds(response)));
            // A v0 reader gets every broker without endpoints, everything else unchanged.
            assertThat(read(fetch, (short) 0, write(fetch, (short) 0, reply)))
                    .isEqualTo(ControllerReply.ok(withoutEndpoints(withoutTopicIds(response))));
        });
    }

    @Test
    @DisplayName("LDR-4 NET-1 a bad endpoint on the wire (port 0, repeated listener name) is malformed, not a registration")
    void badEndpoints() {
        MessageCodec<RegisterBrokerRequest> codec = ControllerApis.BROKER_REGISTRATION.requestCodec();
        byte[] good = write(codec, (short) 1, new RegisterBrokerRequest(2, -1,
                List.of(new Endpoint("PLAINTEXT", "PLAINTEXT", "h", 9092))));
        byte[] portZero = good.clone();
        java.util.Arrays.fill(portZero, portZero.length - 4, portZero.length, (byte) 0);
        assertThatThrownBy(() -> read(codec, (short) 1, portZero)).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("port 0");
        byte[] dup = write(codec, (short) 1, new RegisterBrokerRequest(2, -1,
                List.of(new Endpoint("AAAAA", "PLAINTEXT", "h", 9092), new Endpoint("BBBBB", "PLAINTEXT", "h", 9093))));
        // The second listener renamed to the first's name, byte for byte.
        byte[] dupped = new String(dup, StandardCharsets.ISO_8859_1).replace("BBBBB", "AAAAA")
                .getBytes(StandardCharsets.ISO_8859_1);
        assertThatThrownBy(() -> read(codec, (short) 1, dupped)).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("twice");
    }

    private static MetadataFetchResponse withoutTopicIds(MetadataFetchResponse r) {
        return new MetadataFetchResponse(r.afterOffset(),
                r.image().map(i -> new MetadataImage(i.offset(), i.brokers(), i.partitions(), i.minInsyncReplicasByTopic())),
                r.deltas().stream().map(d -> new MetadataDelta(d.offset(), d.brokers(), d.partitions(),
                        d.deletedPartitions(), d.minInsyncReplicasByTopic())).toList());
    }

    private static MetadataFetchResponse withoutEndpoints(MetadataFetchResponse r) {
        return new MetadataFetchResponse(r.afterOffset(),
                r.image().map(i -> new MetadataImage(i.offset(), bare(i.brokers()), i.partitions(), i.minInsyncReplicasByTopic())),
                r.deltas().stream().map(d -> new MetadataDelta(d.offset(), bare(d.brokers()), d.partitions(),
                        d.deletedPartitions(), d.minInsyncReplicasByTopic())).toList());
    }

    private static List<BrokerRegistration> bare(List<BrokerRegistration> brokers) {
        return brokers.stream().map(b -> new BrokerRegistration(b.brokerId(), b.brokerEpoch(), b.fenced(),
                b.inControlledShutdown())).toList();
    }

    private static <T> byte[] write(MessageCodec<T> codec, short version, T message) {
        WireWriter out = new WireWriter(ByteBufAllocator.DEFAULT);
        codec.write(message, version, out);
        io.netty.buffer.ByteBuf buf = out.finish();
        try {
            byte[] bytes = new byte[buf.readableBytes()];
            buf.getBytes(buf.readerIndex(), bytes);
            return bytes;
        } finally {
            buf.release();
        }
    }

    private static <T> T read(MessageCodec<T> codec, short version, byte[] bytes) {
        WireReader in = new WireReader(io.netty.buffer.Unpooled.wrappedBuffer(bytes));
        T value = codec.read(version, in);
        in.expectEnd("test body");
        return value;
    }

    @Test
    @DisplayName("SEC-2 registration, heartbeat and AlterPartition claim the broker id they carry; a negative one cannot be sent")
    void claims() {
        java.util.Random r = new java.util.Random(3);
        var reg = TestControllerMessages.registerBrokerRequest(r);
        assertThat(ControllerApis.BROKER_REGISTRATION.claimedBrokerId(reg)).isEqualTo(reg.brokerId());
        var hb = TestControllerMessages.heartbeatRequest(r);
        assertThat(ControllerApis.BROKER_HEARTBEAT.claimedBrokerId(hb)).isEqualTo(hb.brokerId());
        var ap = TestControllerMessages.alterPartitionRequest(r);
        assertThat(ControllerApis.ALTER_PARTITION.claimedBrokerId(ap)).isEqualTo(ap.brokerId());
        assertThat(ControllerApis.METADATA_FETCH.claimedBrokerId(TestControllerMessages.metadataFetchRequest(r)))
                .isEqualTo(Api.NO_BROKER_CLAIM);
        // -1 would read as "no claim" and skip the identity check: it is refused on both sides.
        assertThatThrownBy(() -> Frames.request(ByteBufAllocator.DEFAULT, new RequestHeader(
                ControllerApis.BROKER_REGISTRATION_KEY, (short) 0, 1, "c"), ControllerApis.BROKER_REGISTRATION,
                new dev.insync.replication.controller.api.RegisterBrokerRequest(-1, -1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("NET-1 config maps go sorted and must come sorted: a repeated or out-of-order name is malformed")
    void mapsAreCanonical() {
        var request = dev.insync.replication.controller.api.CreateTopicRequest.withPlacement("t", 1, 1,
                Map.of("b", "2", "a", "1"));
        var frame = dev.insync.replication.netty.TestMessages.requestFrame(ControllerApis.CREATE_TOPICS, 1, request);
        byte[] bytes = dev.insync.replication.netty.TestMessages.bytes(frame);
        // Swap the two names' first letters: "b" then "a".
        int a = indexOf(bytes, (byte) 'a');
        int b = indexOf(bytes, (byte) 'b');
        bytes[a] = 'b';
        bytes[b] = 'a';
        var in = new WireReader(io.netty.buffer.Unpooled.wrappedBuffer(bytes, 4, bytes.length - 4));
        RequestHeader.read(in);
        assertThatThrownBy(() -> ControllerApis.CREATE_TOPICS.requestCodec().read((short) 0, in))
                .isInstanceOf(MalformedFrameException.class).hasMessageContaining("does not follow");
        assertThat(List.of(a, b)).doesNotContain(-1);
    }

    private static int indexOf(byte[] bytes, byte value) {
        // The config names are the last strings of the frame: search from the end.
        for (int i = bytes.length - 1; i >= 0; i--) {
            if (bytes[i] == value && bytes[i - 1] == 1 && bytes[i - 2] == 0) {
                return i;
            }
        }
        return -1;
    }
}
