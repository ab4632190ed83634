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
import dev.insync.replication.core.partition.ReplicaDescription;
import dev.insync.replication.core.produce.Acks;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.core.rpc.RecordsForm;
import dev.insync.replication.core.server.ReplicaManager;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.LogDirectory;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.Records;
import dev.insync.replication.log.segment.FileRecords;
import dev.insync.replication.netty.InTestController;
import dev.insync.replication.netty.ManualScheduler;
import dev.insync.replication.netty.TestMessages;
import dev.insync.replication.netty.config.NetworkConfig;
import dev.insync.replication.netty.protocol.Apis;
import io.netty.buffer.ByteBuf;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.FileRegion;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * NET-3 on the server's real pipeline (EmbeddedChannel) with a real ReplicaManager and log
 * directory: a plaintext fetch answer carries each partition's records as file regions over the
 * segment file, and the buffers written hold every byte of the frame except the records; so the
 * record bytes never entered the heap on the leader's fetch path.
 */
class ZeroCopyFetchTest {

    private static final TopicPartition A = new TopicPartition("zc", 0);
    private static final TopicPartition B = new TopicPartition("zc", 1);

    @TempDir
    Path tmp;

    private final ManualScheduler scheduler = new ManualScheduler(1_000_000L);
    private final ReplicationConfig config = ReplicationConfig.defaults();
    private ReplicaManager rm;
    private LogDirectory dir;

    /** The answers the server encoded, as the replica manager returned them. */
    private final List<FetchResponse> answers = new CopyOnWriteArrayList<>();
    private final List<RecordsForm> forms = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        if (rm != null) {
            rm.shutdown();
        }
    }

    private EmbeddedServer startBroker() throws Exception {
        dir = LogDirectory.open(tmp.resolve("broker-1"), config.logConfig(), scheduler.time()::milliseconds);
        InTestController controller = new InTestController(Runnable::run);
        rm = ReplicaManager.builder(1).config(config).logDirectory(dir).scheduler(scheduler)
                .transport((leader, req) -> CompletableFuture.failedFuture(new IOException("no network in this test")))
                .controller(controller).brokerEpoch(() -> 1L).metrics(new InMemoryReplicationMetrics()).build();
        rm.startup();
        controller.addBroker(1, 1L, rm);
        controller.addBroker(2, 1L, null);
        for (TopicPartition tp : List.of(A, B)) {
            controller.setPartition(new PartitionRegistration(tp, List.of(1, 2), List.of(1), List.of(), List.of(), 1, 0,
                    0, false));
        }
        scheduler.advance(0);
        Random r = new Random(5);
        for (int i = 0; i < 3; i++) {
            for (TopicPartition tp : List.of(A, B)) {
                Map<TopicPartition, ProduceResult> done = rm.produce(Map.of(tp, TestMessages.validRecords(r, 2 + i)),
                        Acks.ALL, 30_000).get();
                assertThat(done.get(tp).error()).isEqualTo(Errors.NONE);
            }
        }
        ReplicaService real = ReplicaService.of(rm);
        ReplicaService recording = new ReplicaService() {
            @Override
            public CompletionStage<FetchResponse> fetch(FetchRequest request, RecordsForm form) {
                forms.add(form);
                return real.fetch(request, form).thenApply(a -> {
                    answers.add(a);
                    return a;
                });
            }

            @Override
            public CompletionStage<Map<TopicPartition, ProduceResult>> produce(Map<TopicPartition, MemoryRecords> entries,
                                                                               Acks acks, long timeoutMs) {
                return real.produce(entries, acks, timeoutMs);
            }

            @Override
            public List<ReplicaDescription> describeReplicas(java.util.Optional<List<String>> topics) {
                return real.describeReplicas(topics);
            }
        };
        return new EmbeddedServer(recording, NetworkConfig.defaults());
    }

    private static FetchRequest fetch(int replicaId) {
        Map<TopicPartition, FetchRequest.PartitionData> m = new LinkedHashMap<>();
        for (TopicPartition tp : List.of(A, B)) {
            m.put(tp, new FetchRequest.PartitionData(0, 0, 1 << 20, OptionalInt.of(0), OptionalInt.empty()));
        }
        return new FetchRequest(replicaId, 1L, 0, 1, 1 << 20, m);
    }

    @Test
    @DisplayName("NET-3 follower and consumer fetches on plaintext: a file region per partition's records, every other byte in buffers, the same answer as a heap read")
    void recordsGoAsFileRegions() throws Exception {
        EmbeddedServer s = startBroker();
        for (int replicaId : new int[] {2, FetchRequest.CONSUMER_REPLICA_ID}) {
            answers.clear();
            EmbeddedChannel ch = s.connect();
            ch.writeInbound(TestMessages.requestFrame(Apis.FETCH, 7, fetch(replicaId)));
            ch.runPendingTasks();

            assertThat(forms).last().isEqualTo(RecordsForm.FILE);
            assertThat(answers).hasSize(1);
            FetchResponse answer = answers.get(0);
            List<Integer> sizes = new ArrayList<>();
            for (TopicPartition tp : List.of(A, B)) {
                Records records = answer.partitions().get(tp).records();
                assertThat(records).as("the read copied nothing: %s", tp).isInstanceOf(FileRecords.class);
                sizes.add(records.sizeInBytes());
            }

            List<Object> messages = new ArrayList<>();
            Object m;
            while ((m = ch.readOutbound()) != null) {
                messages.add(m);
            }
            List<FileRegion> bulk = messages.stream().filter(x -> x instanceof DefaultFileRegion)
                    .map(x -> (FileRegion) x).toList();
            List<FileRegion> regions = messages.stream().filter(x -> x instanceof FileRegion).map(x -> (FileRegion) x)
                    .toList();
            assertThat(bulk).as("one sendfile region per partition").hasSize(2);
            assertThat(bulk.get(0).count() + 1).isEqualTo((long) sizes.get(0));
            assertThat(bulk.get(1).count() + 1).isEqualTo((long) sizes.get(1));
            long regionBytes = regions.stream().mapToLong(FileRegion::count).sum();
            long bufferBytes = messages.stream().filter(x -> x instanceof ByteBuf).mapToLong(x -> ((ByteBuf) x).readableBytes())
                    .sum();
            assertThat(regionBytes).isEqualTo((long) sizes.get(0) + sizes.get(1));

            // What a socket receives decodes to the answer a heap read gives.
            ByteArrayOutputStream wire = new ByteArrayOutputStream();
            for (Object x : messages) {
                if (x instanceof ByteBuf b) {
                    byte[] a = new byte[b.readableBytes()];
                    b.getBytes(b.readerIndex(), a);
                    wire.write(a);
                } else {
                    EmbeddedServer.transferAll((FileRegion) x, wire);
                }
                ReferenceCountUtil.release(x);
            }
            byte[] bytes = wire.toByteArray();
            assertThat(bytes.length).isEqualTo(bufferBytes + regionBytes);
            FetchResponse heap = rm.fetch(fetch(replicaId), RecordsForm.HEAP).get();
            byte[] expected = TestMessages.bytes(TestMessages.responseFrame(Apis.FETCH, 7, heap));
            assertThat(bytes).isEqualTo(expected);
            assertThat(bufferBytes).as("the buffers hold the frame minus the record bytes")
                    .isEqualTo((long) expected.length - sizes.get(0) - sizes.get(1));
            ch.finishAndReleaseAll();
        }
        assertThat(s.metrics().fileRegionsWritten()).isEqualTo(8);
    }

    @Test
    @DisplayName("NET-3 a segment deleted between the read and the encoding: the request is answered as failed, nothing half-sent, the connection stays")
    void deletedBeforeEncodingFailsTheRequest() throws Exception {
        EmbeddedServer s = startBroker();
        FileRecords stale = (FileRecords) rm.fetch(fetch(2), RecordsForm.FILE).get().partitions().get(A).records();
        ReplicaService staleAnswers = new ReplicaService() {
            @Override
            public CompletionStage<FetchResponse> fetch(FetchRequest request, RecordsForm form) {
                return CompletableFuture.completedFuture(new FetchResponse(Errors.NONE, Map.of(A,
                        new FetchResponse.PartitionData(Errors.NONE, 0, 0, 0, 0, stale, java.util.Optional.empty()))));
            }

            @Override
            public CompletionStage<Map<TopicPartition, ProduceResult>> produce(Map<TopicPartition, MemoryRecords> entries,
                                                                               Acks acks, long timeoutMs) {
                throw new UnsupportedOperationException();
            }

            @Override
            public List<ReplicaDescription> describeReplicas(java.util.Optional<List<String>> topics) {
                return List.of();
            }
        };
        EmbeddedServer stub = new EmbeddedServer(staleAnswers, NetworkConfig.defaults());
        rm.shutdown(); // closes the logs: the slice's segment can no longer be opened for sending
        rm = null;
        EmbeddedChannel ch = stub.connect();
        ch.writeInbound(TestMessages.requestFrame(Apis.FETCH, 9, fetch(2)));
        List<EmbeddedServer.Response> out = EmbeddedServer.responses(ch);
        assertThat(out).hasSize(1);
        assertThat(out.get(0).header().correlationId()).isEqualTo(9);
        assertThat(out.get(0).header().errorCode()).isEqualTo(Errors.UNKNOWN_SERVER_ERROR.code());
        assertThat(ch.isActive()).isTrue();
        assertThat(stub.metrics().recordsUnavailable()).isEqualTo(1);
        assertThat(s.metrics().fileRegionsWritten()).isZero();
        ch.finishAndReleaseAll();
    }
}
