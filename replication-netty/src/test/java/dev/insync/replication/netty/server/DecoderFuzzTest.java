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

import dev.insync.replication.core.config.ReplicationConfig;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.metrics.InMemoryReplicationMetrics;
import dev.insync.replication.core.produce.Acks;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.server.ReplicaManager;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.LogDirectory;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.netty.InTestController;
import dev.insync.replication.netty.ManualScheduler;
import dev.insync.replication.netty.RecordingReplicaService;
import dev.insync.replication.netty.RecordingReplicaService.FetchCall;
import dev.insync.replication.netty.RecordingReplicaService.ProduceCall;
import dev.insync.replication.netty.TestMessages;
import dev.insync.replication.netty.config.NetworkConfig;
import dev.insync.replication.netty.protocol.Api;
import dev.insync.replication.netty.protocol.ApiVersionsRequest;
import dev.insync.replication.netty.protocol.Apis;
import dev.insync.replication.netty.protocol.MalformedFrameException;
import dev.insync.replication.netty.protocol.MetadataRequest;
import dev.insync.replication.netty.protocol.ProduceRequest;
import dev.insync.replication.netty.protocol.RequestHeader;
import dev.insync.replication.netty.protocol.WireReader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * NET-1 fuzzing with fixed seeds: random frames and mutations of valid ones go through the
 * server's real pipeline on EmbeddedChannel. No exception escapes; a frame either closes its
 * connection (counted), is answered with an error, or reaches a handler as exactly the request whose
 * canonical encoding it is; and with a real ReplicaManager behind the server, no log changes.
 */
class DecoderFuzzTest {

    private static final int FRAMES = 4000;
    private static final TopicPartition REP0 = new TopicPartition("rep", 0);

    private static final List<Function<Random, ByteBuf>> VALID = List.of(
            r -> TestMessages.requestFrame(Apis.FETCH, r.nextInt(), TestMessages.fetchRequest(r)),
            r -> TestMessages.requestFrame(Apis.PRODUCE, r.nextInt(), TestMessages.produceRequest(r)),
            r -> TestMessages.requestFrame(Apis.METADATA, r.nextInt(), TestMessages.metadataRequest(r)),
            r -> TestMessages.requestFrame(Apis.API_VERSIONS, r.nextInt(), new ApiVersionsRequest()),
            r -> TestMessages.requestFrame(Apis.DESCRIBE_REPLICAS, r.nextInt(), TestMessages.metadataRequest(r)));

    private static final short[] KEYS = {Apis.PRODUCE_KEY, Apis.FETCH_KEY, Apis.METADATA_KEY, Apis.API_VERSIONS_KEY,
            Apis.DESCRIBE_REPLICAS_KEY};

    /** One fuzzed frame: random bytes, a valid header with a random body, or a mutated valid frame. */
    static byte[] fuzzFrame(Random r, List<Function<Random, ByteBuf>> valid) {
        int kind = r.nextInt(8);
        if (kind == 0) {
            byte[] body = new byte[r.nextInt(64)];
            r.nextBytes(body);
            return withSize(body);
        }
        if (kind == 1) {
            ByteBuf b = Unpooled.buffer();
            b.writeShort(KEYS[r.nextInt(KEYS.length)]).writeShort(r.nextInt(4) == 0 ? r.nextInt(3) : 0)
                    .writeInt(r.nextInt()).writeShort(r.nextBoolean() ? -1 : 0);
            byte[] rest = new byte[r.nextInt(120)];
            r.nextBytes(rest);
            b.writeBytes(rest);
            return withSize(TestMessages.bytes(b));
        }
        byte[] frame = TestMessages.bytes(valid.get(r.nextInt(valid.size())).apply(r));
        byte[] body = Arrays.copyOfRange(frame, 4, frame.length);
        switch (r.nextInt(4)) {
            case 0 -> body = Arrays.copyOf(body, r.nextInt(body.length + 1)); // truncated
            case 1 -> { // bytes appended
                byte[] extra = new byte[1 + r.nextInt(8)];
                r.nextBytes(extra);
                byte[] longer = Arrays.copyOf(body, body.length + extra.length);
                System.arraycopy(extra, 0, longer, body.length, extra.length);
                body = longer;
            }
            default -> { // 1 to 4 bytes overwritten
                int n = 1 + r.nextInt(4);
                for (int i = 0; i < n && body.length > 0; i++) {
                    body[r.nextInt(body.length)] = (byte) r.nextInt(256);
                }
            }
        }
        byte[] out = withSize(body);
        if (r.nextInt(20) == 0) {
            out[r.nextInt(4)] = (byte) r.nextInt(256); // now and then the size itself
        }
        return out;
    }

    private static byte[] withSize(byte[] body) {
        byte[] out = new byte[body.length + 4];
        Unpooled.wrappedBuffer(out).setInt(0, body.length);
        System.arraycopy(body, 0, out, 4, body.length);
        return out;
    }

    @Test
    @DisplayName("NET-1 fuzzed frames: nothing escapes, and only a frame that is a request's canonical encoding reaches a handler")
    void fuzzAgainstRecordingHandler() {
        RecordingReplicaService replicas = new RecordingReplicaService().answerAtOnce();
        EmbeddedServer s = new EmbeddedServer(replicas, NetworkConfig.builder().socketRequestMaxBytes(4096).build());
        Random r = new Random(0x5EED);
        int closed = 0;
        int dispatched = 0;
        for (int i = 0; i < FRAMES; i++) {
            byte[] frame = fuzzFrame(r, VALID);
            long badBefore = s.metrics().malformedFrames() + s.metrics().oversizedFrames();
            int callsBefore = replicas.callCount();
            EmbeddedChannel ch = s.connect();
            ch.writeInbound(Unpooled.wrappedBuffer(frame));
            ch.runPendingTasks();
            ch.checkException(); // nothing reached the end of the pipeline unhandled
            List<Object> calls = replicas.calls().subList(callsBefore, replicas.callCount());
            long badAfter = s.metrics().malformedFrames() + s.metrics().oversizedFrames();
            if (!ch.isActive()) {
                closed++;
                assertThat(calls).as("frame %d closed its connection yet reached a handler", i).isEmpty();
                assertThat(badAfter).as("frame %d closed its connection uncounted", i).isEqualTo(badBefore + 1);
            } else {
                assertThat(badAfter).isEqualTo(badBefore);
                assertThat(calls).hasSizeLessThanOrEqualTo(1);
                if (calls.size() == 1) {
                    dispatched++;
                    assertThat(canonical(frame, calls.get(0))).as("frame %d reached a handler", i).isEqualTo(frame);
                }
            }
            ch.finishAndReleaseAll();
        }
        // The mix really exercises both sides.
        assertThat(closed).isGreaterThan(FRAMES / 4);
        assertThat(dispatched).isGreaterThan(FRAMES / 20);
    }

    /** The canonical frame of the request a handler received, with the fuzzed frame's header. */
    private static byte[] canonical(byte[] frame, Object call) {
        RequestHeader h = RequestHeader.read(new WireReader(Unpooled.wrappedBuffer(frame, 4, frame.length - 4)));
        if (call instanceof FetchCall f) {
            return TestMessages.bytes(TestMessages.requestFrame(Apis.FETCH, h.apiVersion(), h.correlationId(),
                    h.clientId(), f.request()));
        }
        ProduceCall p = (ProduceCall) call;
        return TestMessages.bytes(TestMessages.requestFrame(Apis.PRODUCE, h.apiVersion(), h.correlationId(),
                h.clientId(), new ProduceRequest((short) p.acks().code(), (int) p.timeoutMs(), p.entries())));
    }

    @Test
    @DisplayName("NET-1 the response decoders meet random and mutated bodies with MalformedFrameException or a value, nothing else")
    void fuzzResponseDecoders() {
        Random r = new Random(77);
        List<Api<?, ?>> apis = List.of(Apis.FETCH, Apis.PRODUCE, Apis.METADATA, Apis.API_VERSIONS, Apis.DESCRIBE_REPLICAS);
        List<Function<Random, ByteBuf>> valid = List.of(
                x -> TestMessages.responseFrame(Apis.FETCH, 1, TestMessages.fetchResponse(x)),
                x -> TestMessages.responseFrame(Apis.PRODUCE, 1, TestMessages.produceResponse(x)),
                x -> TestMessages.responseFrame(Apis.METADATA, 1, TestMessages.metadataResponse(x)),
                x -> TestMessages.responseFrame(Apis.DESCRIBE_REPLICAS, 1, TestMessages.describeReplicasResponse(x)));
        int failures = 0;
        for (int i = 0; i < FRAMES; i++) {
            byte[] frame = fuzzFrame(r, valid);
            ByteBuf body = Unpooled.wrappedBuffer(frame, 4, frame.length - 4);
            body.skipBytes(Math.min(body.readableBytes(), 6)); // response header
            Api<?, ?> api = apis.get(r.nextInt(apis.size()));
            try {
                WireReader in = new WireReader(body);
                api.responseCodec().read((short) 0, in);
                in.expectEnd("body");
            } catch (MalformedFrameException e) {
                failures++;
            }
        }
        assertThat(failures).isGreaterThan(FRAMES / 4);
    }

    // ------------------------------------------------------------------ a real ReplicaManager behind the server

    @TempDir
    Path tmp;

    @Test
    @DisplayName("NET-1 fuzzed and corrupt frames against a real ReplicaManager change no log, HW or offset")
    void fuzzAgainstRealReplicaManager() throws Exception {
        ManualScheduler scheduler = new ManualScheduler(1_000_000L);
        ReplicationConfig config = ReplicationConfig.defaults();
        LogDirectory dir = LogDirectory.open(tmp.resolve("broker-1"), config.logConfig(), scheduler.time()::milliseconds);
        InTestController controller = new InTestController(Runnable::run);
        ReplicaManager rm = ReplicaManager.builder(1).config(config).logDirectory(dir).scheduler(scheduler)
                .transport((leader, req) -> CompletableFuture.failedFuture(new IOException("no network in this test")))
                .controller(controller).brokerEpoch(() -> 1L).metrics(new InMemoryReplicationMetrics()).build();
        rm.startup();
        try {
            controller.addBroker(1, 1L, rm);
            controller.setPartition(new PartitionRegistration(REP0, List.of(1), List.of(1), List.of(), List.of(), 1, 0, 0,
                    false));
            scheduler.advance(0);
            Map<TopicPartition, ProduceResult> first = rm.produce(Map.of(REP0, TestMessages.validRecords(new Random(3), 5)),
                    Acks.LEADER, 30_000).get();
            assertThat(first.get(REP0).error()).isEqualTo(Errors.NONE);
            scheduler.advance(config.replicaHighWatermarkCheckpointIntervalMs()); // HW-5's checkpoint is written once
            Map<String, byte[]> filesBefore = files(dir.path());
            long leo = dir.log(REP0).orElseThrow().logEndOffset();
            long hw = dir.log(REP0).orElseThrow().highWatermark();
            long logStart = dir.log(REP0).orElseThrow().logStartOffset();
            assertThat(leo).isEqualTo(5);

            // Valid-looking requests that must still change nothing: consumer and foreign-replica fetches,
            // metadata, and produces whose record bytes are corrupt (CRC-covered bytes changed) or random.
            List<Function<Random, ByteBuf>> seeds = List.of(
                    r -> TestMessages.requestFrame(Apis.FETCH, r.nextInt(), new FetchRequest(r.nextBoolean() ? -1 : 2,
                            1, 0, 1, 1 << 20, Map.of(REP0, new FetchRequest.PartitionData(r.nextInt(6), 0, 1 << 20,
                            OptionalInt.of(0), OptionalInt.empty())))),
                    r -> TestMessages.requestFrame(Apis.METADATA, r.nextInt(), MetadataRequest.allTopics()),
                    r -> TestMessages.requestFrame(Apis.PRODUCE, r.nextInt(), new ProduceRequest((short) 1, 1000,
                            Map.of(REP0, corrupt(r, TestMessages.validRecords(r, 1 + r.nextInt(3)))))),
                    r -> TestMessages.requestFrame(Apis.PRODUCE, r.nextInt(), new ProduceRequest((short) -1, 1000,
                            Map.of(REP0, r.nextBoolean()
                                    ? corrupt(r, TestMessages.validRecords(r, 2)) : randomBytes(r)))));
            EmbeddedServer s = new EmbeddedServer(ReplicaApiHandlers.register(ServedApis.builder(),
                    ReplicaService.of(rm), MetadataView.of(List.of(), -1, List.of(controller.partition(REP0)))).build(),
                    NetworkConfig.builder().socketRequestMaxBytes(1 << 16).build());
            Random r = new Random(0xC0FFEE);
            for (int i = 0; i < FRAMES / 2; i++) {
                byte[] frame = r.nextInt(4) == 0 ? TestMessages.bytes(seeds.get(r.nextInt(seeds.size())).apply(r))
                        : fuzzFrame(r, seeds);
                EmbeddedChannel ch = s.connect();
                ch.writeInbound(Unpooled.wrappedBuffer(frame));
                ch.runPendingTasks();
                ch.checkException();
                ch.finishAndReleaseAll();
            }
            scheduler.advance(10_000); // parked fetches and purgatories run out
            assertThat(dir.log(REP0).orElseThrow().logEndOffset()).isEqualTo(leo);
            assertThat(dir.log(REP0).orElseThrow().highWatermark()).isEqualTo(hw);
            assertThat(dir.log(REP0).orElseThrow().logStartOffset()).isEqualTo(logStart);
            Map<String, byte[]> filesAfter = files(dir.path());
            assertThat(filesAfter.keySet()).isEqualTo(filesBefore.keySet());
            filesBefore.forEach((name, bytes) -> assertThat(filesAfter.get(name)).as(name).isEqualTo(bytes));
            assertThat(s.metrics().malformedFrames()).isPositive();

            // And the broker still works: a good produce appends at the end.
            assertThat(rm.produce(Map.of(REP0, TestMessages.validRecords(r, 1)), Acks.LEADER, 1000).get().get(REP0).baseOffset())
                    .isEqualTo(5);
        } finally {
            rm.shutdown();
        }
    }

    /** A valid batch with one CRC-covered byte (after the CRC field) changed: the log must refuse it (LOG-5). */
    private static dev.insync.replication.log.record.MemoryRecords corrupt(Random r,
                                                                           dev.insync.replication.log.record.MemoryRecords valid) {
        byte[] b = new byte[valid.sizeInBytes()];
        valid.buffer().get(b);
        int crcEnd = 8 + 4 + 4 + 1 + 4; // baseOffset, batchLength, partitionLeaderEpoch, magic, crc
        int pos = crcEnd + r.nextInt(b.length - crcEnd);
        b[pos] = (byte) (b[pos] ^ (1 + r.nextInt(255)));
        return dev.insync.replication.log.record.MemoryRecords.readableRecords(java.nio.ByteBuffer.wrap(b));
    }

    private static dev.insync.replication.log.record.MemoryRecords randomBytes(Random r) {
        byte[] b = new byte[1 + r.nextInt(100)];
        r.nextBytes(b);
        return dev.insync.replication.log.record.MemoryRecords.readableRecords(java.nio.ByteBuffer.wrap(b));
    }

    /** Every file under {@code root} except the lock, by relative path. */
    private static Map<String, byte[]> files(Path root) throws IOException {
        Map<String, byte[]> out = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.filter(Files::isRegularFile).toList()) {
                if (!p.getFileName().toString().equals(LogDirectory.LOCK_FILE_NAME)) {
                    out.put(root.relativize(p).toString(), Files.readAllBytes(p));
                }
            }
        }
        return out;
    }
}
