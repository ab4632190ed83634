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

import dev.insync.replication.netty.RecordingControllerApi;
import dev.insync.replication.netty.TestControllerMessages;
import dev.insync.replication.netty.TestMessages;
import dev.insync.replication.netty.config.NetworkConfig;
import dev.insync.replication.netty.protocol.Api;
import dev.insync.replication.netty.protocol.ControllerApis;
import dev.insync.replication.netty.protocol.MalformedFrameException;
import dev.insync.replication.netty.protocol.RequestHeader;
import dev.insync.replication.netty.protocol.WireReader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * NET-1 fuzzing of the controller's decoders with fixed seeds, through a controller server's real
 * pipeline on EmbeddedChannel: random frames and mutations of valid ones. Nothing escapes; a frame
 * closes its connection (counted), is answered with an error, or reaches the controller as exactly
 * the request whose canonical encoding it is, so a recording controller sees nothing else.
 */
class ControllerDecoderFuzzTest {

    private static final int FRAMES = 4000;

    private static final List<Function<Random, ByteBuf>> VALID = List.of(
            r -> TestMessages.requestFrame(ControllerApis.BROKER_REGISTRATION, r.nextInt(),
                    TestControllerMessages.registerBrokerRequest(r)),
            r -> TestMessages.requestFrame(ControllerApis.BROKER_HEARTBEAT, r.nextInt(),
                    TestControllerMessages.heartbeatRequest(r)),
            r -> TestMessages.requestFrame(ControllerApis.ALTER_PARTITION, r.nextInt(),
                    TestControllerMessages.alterPartitionRequest(r)),
            r -> TestMessages.requestFrame(ControllerApis.METADATA_FETCH, r.nextInt(),
                    TestControllerMessages.metadataFetchRequest(r)),
            r -> TestMessages.requestFrame(ControllerApis.CREATE_TOPICS, r.nextInt(),
                    TestControllerMessages.createTopicRequest(r)),
            r -> TestMessages.requestFrame(ControllerApis.INCREMENTAL_ALTER_CONFIGS, r.nextInt(),
                    TestControllerMessages.alterTopicConfigRequest(r)),
            r -> TestMessages.requestFrame(ControllerApis.DESCRIBE_TOPIC_PARTITIONS, r.nextInt(), TestMessages.topic(r)),
            r -> TestMessages.requestFrame(ControllerApis.FENCE_BROKER, r.nextInt(), r.nextInt(1000)));

    @Test
    @DisplayName("NET-1 fuzzed controller frames: nothing escapes, and only a request's canonical encoding reaches the controller")
    void fuzzAgainstRecordingController() {
        RecordingControllerApi controller = new RecordingControllerApi();
        EmbeddedServer s = new EmbeddedServer(ControllerApiHandlers.register(ServedApis.builder(), controller).build(),
                NetworkConfig.builder().socketRequestMaxBytes(4096).build());
        Random r = new Random(0xC0DE);
        int closed = 0;
        int dispatched = 0;
        Set<Short> reached = new HashSet<>();
        for (int i = 0; i < FRAMES; i++) {
            byte[] frame = DecoderFuzzTest.fuzzFrame(r, VALID);
            long badBefore = s.metrics().malformedFrames() + s.metrics().oversizedFrames();
            int callsBefore = controller.calls().size();
            EmbeddedChannel ch = s.connect();
            ch.writeInbound(Unpooled.wrappedBuffer(frame));
            ch.runPendingTasks();
            ch.checkException();
            List<RecordingControllerApi.Call> calls = controller.calls().subList(callsBefore, controller.calls().size());
            long badAfter = s.metrics().malformedFrames() + s.metrics().oversizedFrames();
            if (!ch.isActive()) {
                closed++;
                assertThat(calls).as("frame %d closed its connection yet reached the controller", i).isEmpty();
                assertThat(badAfter).as("frame %d closed its connection uncounted", i).isEqualTo(badBefore + 1);
            } else {
                assertThat(badAfter).isEqualTo(badBefore);
                assertThat(calls).hasSizeLessThanOrEqualTo(1);
                if (calls.size() == 1) {
                    dispatched++;
                    reached.add(calls.get(0).apiKey());
                    assertThat(canonical(frame, calls.get(0))).as("frame %d reached the controller", i).isEqualTo(frame);
                }
                // At most one answer (an error or the controller's); none while a frame's size asks for more bytes.
                List<EmbeddedServer.Response> answers = EmbeddedServer.responses(ch);
                assertThat(answers).hasSizeLessThanOrEqualTo(1);
                if (calls.size() == 1) {
                    assertThat(answers).hasSize(1);
                    assertThat(answers.get(0).header().errorCode()).isZero();
                }
            }
            ch.finishAndReleaseAll();
        }
        assertThat(closed).isGreaterThan(FRAMES / 4);
        assertThat(dispatched).isGreaterThan(FRAMES / 20);
        assertThat(reached).as("every controller api was reached by some frame").hasSize(8);
    }

    @SuppressWarnings("unchecked")
    private static byte[] canonical(byte[] frame, RecordingControllerApi.Call call) {
        RequestHeader h = RequestHeader.read(new WireReader(Unpooled.wrappedBuffer(frame, 4, frame.length - 4)));
        Api<Object, ?> api = (Api<Object, ?>) ControllerApis.ALL.api(call.apiKey()).orElseThrow();
        return TestMessages.bytes(TestMessages.requestFrame(api, h.apiVersion(), h.correlationId(), h.clientId(),
                call.request()));
    }

    @Test
    @DisplayName("NET-1 the controller reply decoders meet random and mutated bodies with MalformedFrameException or a value, nothing else")
    void fuzzReplyDecoders() {
        Random r = new Random(91);
        List<Api<?, ?>> apis = List.copyOf(ControllerApis.ALL.apis());
        List<Function<Random, ByteBuf>> valid = List.of(
                x -> TestMessages.responseFrame(ControllerApis.BROKER_REGISTRATION, 1,
                        TestControllerMessages.reply(x, TestControllerMessages::registerBrokerResponse)),
                x -> TestMessages.responseFrame(ControllerApis.BROKER_HEARTBEAT, 1,
                        TestControllerMessages.reply(x, TestControllerMessages::heartbeatResponse)),
                x -> TestMessages.responseFrame(ControllerApis.ALTER_PARTITION, 1,
                        TestControllerMessages.reply(x, TestControllerMessages::alterPartitionResponse)),
                x -> TestMessages.responseFrame(ControllerApis.METADATA_FETCH, 1,
                        TestControllerMessages.reply(x, TestControllerMessages::metadataFetchResponse)),
                x -> TestMessages.responseFrame(ControllerApis.DESCRIBE_TOPIC_PARTITIONS, 1,
                        TestControllerMessages.reply(x, TestControllerMessages::topicDescription)));
        int failures = 0;
        int values = 0;
        for (int i = 0; i < FRAMES; i++) {
            byte[] frame = DecoderFuzzTest.fuzzFrame(r, valid);
            ByteBuf body = Unpooled.wrappedBuffer(frame, 4, frame.length - 4);
            body.skipBytes(Math.min(body.readableBytes(), 6)); // response header
            Api<?, ?> api = apis.get(r.nextInt(apis.size()));
            try {
                WireReader in = new WireReader(body);
                api.responseCodec().read((short) 0, in);
                in.expectEnd("body");
                values++;
            } catch (MalformedFrameException e) {
                failures++;
            }
        }
        assertThat(failures).isGreaterThan(FRAMES / 4);
        assertThat(values).isPositive();
    }
}
