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

import dev.insync.replication.netty.TestMessages;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * Every request and response survives encode then decode unchanged, partition order included, and
 * what decodes re-encodes to the same bytes (the decoders accept only canonical frames).
 */
class CodecRoundTripTest {

    private static final int EXAMPLES = 300;

    static <Q> void requestRoundTrip(Api<Q, ?> api, Function<Random, Q> gen) {
        qt().withFixedSeed(api.key() * 7919L + 1).withExamples(EXAMPLES).forAll(longs().all()).checkAssert(seed -> {
            Q request = gen.apply(new Random(seed));
            int correlationId = new Random(seed).nextInt();
            ByteBuf frame = TestMessages.requestFrame(api, correlationId, request);
            byte[] bytes = new byte[frame.readableBytes()];
            frame.getBytes(0, bytes);
            try {
                assertThat(frame.readInt()).isEqualTo(frame.readableBytes());
                WireReader in = new WireReader(frame);
                RequestHeader header = RequestHeader.read(in);
                assertThat(header).isEqualTo(new RequestHeader(api.key(), api.maxVersion(), correlationId, "test-client"));
                Q decoded = api.requestCodec().read(header.apiVersion(), in);
                in.expectEnd("body");
                assertSame(decoded, request);
                assertThat(TestMessages.bytes(TestMessages.requestFrame(api, correlationId, decoded))).isEqualTo(bytes);
            } finally {
                frame.release();
            }
        });
    }

    static <R> void responseRoundTrip(Api<?, R> api, Function<Random, R> gen) {
        qt().withFixedSeed(api.key() * 104729L + 3).withExamples(EXAMPLES).forAll(longs().all()).checkAssert(seed -> {
            R response = gen.apply(new Random(seed));
            ByteBuf frame = TestMessages.responseFrame(api, 42, response);
            try {
                assertThat(frame.readInt()).isEqualTo(frame.readableBytes());
                WireReader in = new WireReader(frame);
                assertThat(ResponseHeader.read(in)).isEqualTo(new ResponseHeader(42, (short) 0));
                R decoded = api.responseCodec().read(api.maxVersion(), in);
                in.expectEnd("body");
                assertSame(decoded, response);
            } finally {
                frame.release();
            }
        });
    }

    /** Records compare partition maps as maps; the order is part of the contract, so compare it too. */
    private static void assertSame(Object decoded, Object original) {
        assertThat(decoded).isEqualTo(original);
        if (!decoded.getClass().isRecord()) {
            return; // a String or Integer body
        }
        for (var accessor : decoded.getClass().getRecordComponents()) {
            try {
                Object a = accessor.getAccessor().invoke(decoded);
                Object b = accessor.getAccessor().invoke(original);
                if (a instanceof Map<?, ?> ma && b instanceof Map<?, ?> mb) {
                    assertThat(new ArrayList<>(ma.keySet())).isEqualTo(new ArrayList<>(mb.keySet()));
                }
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(e);
            }
        }
    }

    @Test
    @DisplayName("NET-1 Fetch request (replica and consumer) round trip keeps every field and the partition order")
    void fetchRequest() {
        requestRoundTrip(Apis.FETCH, TestMessages::fetchRequest);
    }

    @Test
    @DisplayName("NET-1 Fetch response round trip: errors, HW, LSO, log start, LEO, divergingEpoch, records")
    void fetchResponse() {
        responseRoundTrip(Apis.FETCH, TestMessages::fetchResponse);
    }

    @Test
    @DisplayName("NET-1 Produce request round trip: acks, timeout, per-partition records")
    void produceRequest() {
        requestRoundTrip(Apis.PRODUCE, TestMessages::produceRequest);
    }

    @Test
    @DisplayName("NET-1 Produce response round trip")
    void produceResponse() {
        responseRoundTrip(Apis.PRODUCE, TestMessages::produceResponse);
    }

    @Test
    @DisplayName("NET-1 Metadata request round trip (all topics or a list)")
    void metadataRequest() {
        requestRoundTrip(Apis.METADATA, TestMessages::metadataRequest);
    }

    @Test
    @DisplayName("NET-1 Metadata response round trip: leader, epochs, replicas, ISR, ELR, LastKnownElr, brokers")
    void metadataResponse() {
        responseRoundTrip(Apis.METADATA, TestMessages::metadataResponse);
    }

    @Test
    @DisplayName("NET-1 DescribeReplicas request (Metadata's layout) and response round trip: leadership, epoch, ISR, HW, LEO, log start, epoch cache")
    void describeReplicas() {
        requestRoundTrip(Apis.DESCRIBE_REPLICAS, TestMessages::metadataRequest);
        responseRoundTrip(Apis.DESCRIBE_REPLICAS, TestMessages::describeReplicasResponse);
    }

    @Test
    @DisplayName("NET-1 ApiVersions request and response round trip")
    void apiVersions() {
        requestRoundTrip(Apis.API_VERSIONS, r -> new ApiVersionsRequest());
        responseRoundTrip(Apis.API_VERSIONS, TestMessages::apiVersionsResponse);
    }

    @Test
    @DisplayName("NET-1 an error response is a bare header with the request-level code")
    void errorResponse() {
        ByteBuf frame = Frames.errorResponse(ByteBufAllocator.DEFAULT, 7, ErrorCodes.UNSUPPORTED_VERSION);
        try {
            assertThat(frame.readInt()).isEqualTo(ResponseHeader.SIZE);
            WireReader in = new WireReader(frame);
            assertThat(ResponseHeader.read(in)).isEqualTo(new ResponseHeader(7, ErrorCodes.UNSUPPORTED_VERSION));
            in.expectEnd("error response");
        } finally {
            frame.release();
        }
    }

    @Test
    @DisplayName("NET-3 seam: a fetch response's record bytes are their own buffer, written last in each partition, not copied")
    void recordsAreNotCopied() {
        var records = TestMessages.validRecords(new Random(1), 3);
        var tp = new dev.insync.replication.log.TopicPartition("rep", 0);
        var response = new dev.insync.replication.core.rpc.FetchResponse(dev.insync.replication.log.Errors.NONE,
                Map.of(tp, new dev.insync.replication.core.rpc.FetchResponse.PartitionData(
                        dev.insync.replication.log.Errors.NONE, 1, 1, 0, 3, records, java.util.Optional.empty())));
        ByteBuf frame = Frames.response(ByteBufAllocator.DEFAULT, 1, Apis.FETCH, (short) 0, response);
        try {
            var composite = (io.netty.buffer.CompositeByteBuf) frame;
            assertThat(composite.numComponents()).isEqualTo(2);
            ByteBuf last = composite.component(1);
            assertThat(last.readableBytes()).isEqualTo(records.sizeInBytes());
            assertThat(last.nioBuffer()).isEqualTo(records.buffer());
            // The int32 just before the record bytes is their length.
            assertThat(composite.getInt(composite.readableBytes() - records.sizeInBytes() - 4))
                    .isEqualTo(records.sizeInBytes());
        } finally {
            frame.release();
        }
    }
}
