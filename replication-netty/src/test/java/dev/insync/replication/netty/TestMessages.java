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

package dev.insync.replication.netty;

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.partition.ReplicaDescription;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.epoch.EpochEndOffset;
import dev.insync.replication.log.epoch.EpochEntry;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.SimpleRecord;
import dev.insync.replication.netty.protocol.Api;
import dev.insync.replication.netty.protocol.ApiVersionsResponse;
import dev.insync.replication.netty.protocol.BrokerEndpoint;
import dev.insync.replication.netty.protocol.DescribeReplicasResponse;
import dev.insync.replication.netty.protocol.Frames;
import dev.insync.replication.netty.protocol.MetadataRequest;
import dev.insync.replication.netty.protocol.MetadataResponse;
import dev.insync.replication.netty.protocol.ProduceRequest;
import dev.insync.replication.netty.protocol.ProduceResponse;
import dev.insync.replication.netty.protocol.RequestHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import java.util.UUID;

/** Random valid messages (for round trips and as the seeds of mutated frames), and frame helpers. */
public final class TestMessages {

    private static final String[] TOPICS = {"rep", "a", "topic-with-dashes", "t.x_1", "日本", "a".repeat(249)};
    private static final Errors[] ERRORS = Errors.values();

    private TestMessages() {
    }

    public static String topic(Random r) {
        return TOPICS[r.nextInt(TOPICS.length)];
    }

    /** Up to {@code max} distinct partitions, in an order where a topic may come back after another. */
    public static List<TopicPartition> partitions(Random r, int max) {
        int n = r.nextInt(max + 1);
        List<TopicPartition> out = new ArrayList<>();
        while (out.size() < n) {
            TopicPartition tp = new TopicPartition(topic(r), r.nextInt(8));
            if (!out.contains(tp)) {
                out.add(tp);
            }
        }
        return out;
    }

    static OptionalInt optionalInt(Random r) {
        return r.nextBoolean() ? OptionalInt.of(r.nextInt()) : OptionalInt.empty();
    }

    /** Bytes that need not be valid batches: the wire does not look inside them. */
    public static MemoryRecords anyRecords(Random r) {
        if (r.nextInt(3) == 0) {
            return MemoryRecords.EMPTY;
        }
        if (r.nextBoolean()) {
            return validRecords(r, 1 + r.nextInt(3));
        }
        byte[] b = new byte[r.nextInt(64)];
        r.nextBytes(b);
        return MemoryRecords.readableRecords(ByteBuffer.wrap(b));
    }

    /** One valid batch of {@code n} records. */
    public static MemoryRecords validRecords(Random r, int n) {
        SimpleRecord[] records = new SimpleRecord[n];
        for (int i = 0; i < n; i++) {
            records[i] = new SimpleRecord(1000L + i, null, ("v" + r.nextInt(1000)).getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(records);
    }

    public static FetchRequest fetchRequest(Random r) {
        Map<TopicPartition, FetchRequest.PartitionData> m = new LinkedHashMap<>();
        for (TopicPartition tp : partitions(r, 6)) {
            m.put(tp, new FetchRequest.PartitionData(r.nextLong(), r.nextLong(), r.nextInt(), optionalInt(r),
                    optionalInt(r), r.nextBoolean() ? Optional.of(new UUID(r.nextLong(), r.nextLong())) : Optional.empty()));
        }
        int replicaId = r.nextBoolean() ? FetchRequest.CONSUMER_REPLICA_ID : r.nextInt(10);
        // FET-7: sessionless, opening, incremental (with forgotten partitions) or closing.
        int kind = r.nextInt(4);
        int sessionId = kind == 0 ? FetchRequest.NO_SESSION_ID : 1 + r.nextInt(Integer.MAX_VALUE);
        int sessionEpoch = switch (kind) {
            case 1 -> FetchRequest.INITIAL_EPOCH;
            case 2 -> 1 + r.nextInt(Integer.MAX_VALUE);
            default -> FetchRequest.FINAL_EPOCH;
        };
        List<TopicPartition> forgotten = new ArrayList<>();
        if (kind == 2) {
            for (TopicPartition tp : partitions(r, 4)) {
                if (!m.containsKey(tp)) {
                    forgotten.add(tp);
                }
            }
        }
        return new FetchRequest(replicaId, r.nextLong(), r.nextInt(), r.nextInt(), r.nextInt(), m, sessionId,
                sessionEpoch, forgotten);
    }

    public static FetchResponse fetchResponse(Random r) {
        Map<TopicPartition, FetchResponse.PartitionData> m = new LinkedHashMap<>();
        for (TopicPartition tp : partitions(r, 6)) {
            Optional<EpochEndOffset> diverging = r.nextBoolean() ? Optional.empty()
                    : Optional.of(new EpochEndOffset(r.nextInt(), r.nextLong()));
            m.put(tp, new FetchResponse.PartitionData(ERRORS[r.nextInt(ERRORS.length)], r.nextLong(), r.nextLong(),
                    r.nextLong(), r.nextLong(), anyRecords(r), diverging));
        }
        int sessionId = r.nextBoolean() ? FetchRequest.NO_SESSION_ID : r.nextInt(Integer.MAX_VALUE);
        return new FetchResponse(ERRORS[r.nextInt(ERRORS.length)], m, sessionId);
    }

    public static ProduceRequest produceRequest(Random r) {
        Map<TopicPartition, MemoryRecords> m = new LinkedHashMap<>();
        for (TopicPartition tp : partitions(r, 4)) {
            m.put(tp, anyRecords(r));
        }
        short[] acks = {-1, 0, 1, (short) r.nextInt()};
        return new ProduceRequest(acks[r.nextInt(acks.length)], r.nextInt(), m);
    }

    public static ProduceResponse produceResponse(Random r) {
        Map<TopicPartition, ProduceResult> m = new LinkedHashMap<>();
        for (TopicPartition tp : partitions(r, 4)) {
            m.put(tp, new ProduceResult(ERRORS[r.nextInt(ERRORS.length)], r.nextLong(), r.nextLong(), r.nextInt()));
        }
        return new ProduceResponse(m);
    }

    public static MetadataRequest metadataRequest(Random r) {
        if (r.nextBoolean()) {
            return MetadataRequest.allTopics();
        }
        List<String> topics = new ArrayList<>();
        int n = r.nextInt(4);
        for (int i = 0; i < n; i++) {
            topics.add(topic(r));
        }
        return MetadataRequest.of(topics);
    }

    static List<Integer> ids(Random r) {
        List<Integer> ids = new ArrayList<>();
        int n = r.nextInt(4);
        for (int i = 0; i < n; i++) {
            ids.add(r.nextInt(6));
        }
        return ids;
    }

    /** Replicas with leaders and followers, HW at or below LEO (or, rarely, above: the codec keeps what it is given). */
    public static DescribeReplicasResponse describeReplicasResponse(Random r) {
        List<ReplicaDescription> replicas = new ArrayList<>();
        for (TopicPartition tp : partitions(r, 5)) {
            boolean leader = r.nextBoolean();
            long logStart = r.nextInt(100);
            long leo = logStart + r.nextInt(1000);
            long hw = r.nextInt(20) == 0 ? leo + 1 : logStart + (leo == logStart ? 0 : r.nextInt((int) (leo - logStart) + 1));
            List<EpochEntry> epochs = new ArrayList<>();
            long start = logStart;
            for (int e = r.nextInt(3), n = r.nextInt(4); n > 0; n--, e += 1 + r.nextInt(3)) {
                epochs.add(new EpochEntry(e, start));
                start += r.nextInt(50);
            }
            replicas.add(new ReplicaDescription(tp, leader, r.nextInt(10) - 1, leader ? ids(r) : List.of(), hw, leo,
                    logStart, epochs));
        }
        return new DescribeReplicasResponse(replicas);
    }

    public static MetadataResponse metadataResponse(Random r) {
        List<BrokerEndpoint> brokers = new ArrayList<>();
        int nb = r.nextInt(4);
        for (int i = 0; i < nb; i++) {
            brokers.add(new BrokerEndpoint(i, r.nextBoolean() ? "127.0.0.1" : "broker-" + i + ".example", r.nextInt(65536)));
        }
        List<MetadataResponse.TopicMetadata> topics = new ArrayList<>();
        int nt = r.nextInt(3);
        for (int t = 0; t < nt; t++) {
            String name = topic(r);
            List<PartitionRegistration> parts = new ArrayList<>();
            int np = r.nextInt(4);
            for (int p = 0; p < np; p++) {
                parts.add(new PartitionRegistration(new TopicPartition(name, p), ids(r), ids(r), ids(r), ids(r),
                        r.nextInt(5) - 1, r.nextInt(), r.nextInt(), r.nextBoolean()));
            }
            topics.add(new MetadataResponse.TopicMetadata(ERRORS[r.nextInt(ERRORS.length)], name, parts));
        }
        return new MetadataResponse(brokers, r.nextInt(5) - 1, topics);
    }

    public static ApiVersionsResponse apiVersionsResponse(Random r) {
        List<ApiVersionsResponse.ApiVersion> v = new ArrayList<>();
        int n = r.nextInt(5);
        for (int i = 0; i < n; i++) {
            v.add(new ApiVersionsResponse.ApiVersion((short) r.nextInt(100), (short) 0, (short) r.nextInt(3)));
        }
        return new ApiVersionsResponse(v);
    }

    /** A whole request frame (size prefix included) as a heap buffer. */
    public static <Q> ByteBuf requestFrame(Api<Q, ?> api, int correlationId, Q request) {
        return requestFrame(api, api.maxVersion(), correlationId, "test-client", request);
    }

    public static <Q> ByteBuf requestFrame(Api<Q, ?> api, short version, int correlationId, String clientId, Q request) {
        ByteBuf frame = Frames.request(ByteBufAllocator.DEFAULT, new RequestHeader(api.key(), version, correlationId,
                clientId), api, request);
        try {
            return Unpooled.copiedBuffer(frame);
        } finally {
            frame.release();
        }
    }

    /** A whole response frame as a heap buffer. */
    public static <R> ByteBuf responseFrame(Api<?, R> api, int correlationId, R response) {
        ByteBuf frame = Frames.response(ByteBufAllocator.DEFAULT, correlationId, api, api.maxVersion(), response);
        try {
            return Unpooled.copiedBuffer(frame);
        } finally {
            frame.release();
        }
    }

    /** The bytes of a buffer (which is released). */
    public static byte[] bytes(ByteBuf buf) {
        try {
            byte[] b = new byte[buf.readableBytes()];
            buf.getBytes(buf.readerIndex(), b);
            return b;
        } finally {
            buf.release();
        }
    }
}
