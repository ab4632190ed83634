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

import dev.insync.replication.netty.TestControllerMessages;
import io.netty.buffer.ByteBufAllocator;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static dev.insync.replication.netty.protocol.CodecRoundTripTest.requestRoundTrip;
import static dev.insync.replication.netty.protocol.CodecRoundTripTest.responseRoundTrip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    @DisplayName("NET-1 admin apis round trip: CreateTopics, IncrementalAlterConfigs, DescribeTopicPartitions, FenceBroker")
    void admin() {
        requestRoundTrip(ControllerApis.CREATE_TOPICS, TestControllerMessages::createTopicRequest);
        responseRoundTrip(ControllerApis.CREATE_TOPICS,
                r -> TestControllerMessages.reply(r, TestControllerMessages::partitions));
        requestRoundTrip(ControllerApis.INCREMENTAL_ALTER_CONFIGS, TestControllerMessages::alterTopicConfigRequest);
        responseRoundTrip(ControllerApis.INCREMENTAL_ALTER_CONFIGS, r -> TestControllerMessages.reply(r, x -> null));
        requestRoundTrip(ControllerApis.DESCRIBE_TOPIC_PARTITIONS, dev.insync.replication.netty.TestMessages::topic);
        responseRoundTrip(ControllerApis.DESCRIBE_TOPIC_PARTITIONS,
                r -> TestControllerMessages.reply(r, TestControllerMessages::topicDescription));
        requestRoundTrip(ControllerApis.FENCE_BROKER, r -> r.nextInt(1000));
        responseRoundTrip(ControllerApis.FENCE_BROKER, r -> TestControllerMessages.reply(r, x -> x.nextBoolean()));
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
