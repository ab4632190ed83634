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

import dev.insync.replication.core.produce.Acks;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.netty.RecordingReplicaService;
import dev.insync.replication.netty.RecordingReplicaService.FetchCall;
import dev.insync.replication.netty.RecordingReplicaService.ProduceCall;
import dev.insync.replication.netty.TestMessages;
import dev.insync.replication.netty.config.NetworkConfig;
import dev.insync.replication.netty.protocol.Apis;
import dev.insync.replication.netty.protocol.MetadataRequest;
import dev.insync.replication.netty.protocol.ProduceRequest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** NET-2 on the server's real pipeline: answer order, the in-flight bound, idle connections. */
class OrderAndBoundsTest {

    private static final TopicPartition REP0 = new TopicPartition("rep", 0);
    private final RecordingReplicaService replicas = new RecordingReplicaService();
    private EmbeddedChannel ch;

    @AfterEach
    void close() {
        if (ch != null) {
            ch.finishAndReleaseAll();
            ch.checkException();
        }
    }

    private static ByteBuf fetch(int correlationId) {
        return TestMessages.requestFrame(Apis.FETCH, correlationId, new FetchRequest(2, 1, 500, 1, 1000,
                Map.of(REP0, new FetchRequest.PartitionData(0, 0, 1000, OptionalInt.of(0), OptionalInt.empty()))));
    }

    private static ByteBuf produce(int correlationId, int acks) {
        return TestMessages.requestFrame(Apis.PRODUCE, correlationId,
                new ProduceRequest((short) acks, 30_000, Map.of(REP0, TestMessages.validRecords(new Random(1), 2))));
    }

    private static Map<TopicPartition, ProduceResult> produced(long offset) {
        return Map.of(REP0, new ProduceResult(Errors.NONE, offset, -1, 0));
    }

    @Test
    @DisplayName("NET-2 a produce that completes before an earlier parked fetch is answered after it")
    void answersFollowRequestOrder() {
        EmbeddedServer s = new EmbeddedServer(replicas, NetworkConfig.defaults());
        ch = s.connect();
        ch.writeInbound(fetch(1));
        ch.writeInbound(produce(2, 1));
        List<Object> calls = replicas.calls();
        assertThat(calls).hasSize(2); // both dispatched: the parked fetch does not hold the produce back
        ((ProduceCall) calls.get(1)).answer().complete(produced(7));
        assertThat(EmbeddedServer.responses(ch)).isEmpty(); // held behind the fetch
        FetchCall fetch = (FetchCall) calls.get(0);
        fetch.answer().complete(RecordingReplicaService.emptyAnswer(fetch.request()));
        var responses = EmbeddedServer.responses(ch);
        assertThat(EmbeddedServer.correlationIds(responses)).containsExactly(1, 2);
        assertThat(Apis.PRODUCE.responseCodec().read((short) 0, responses.get(1).bodyReader()).partitions())
                .isEqualTo(produced(7));
    }

    @Test
    @DisplayName("PRO-1 a produce with acks other than 0, 1, -1 is answered INVALID_REQUIRED_ACKS per partition and never reaches the broker")
    void pro1InvalidAcksAnsweredAtTheWire() {
        EmbeddedServer s = new EmbeddedServer(replicas, NetworkConfig.defaults());
        ch = s.connect();
        ch.writeInbound(produce(5, 2));
        ch.writeInbound(produce(6, -2));
        assertThat(replicas.calls()).isEmpty();
        var responses = EmbeddedServer.responses(ch);
        assertThat(EmbeddedServer.correlationIds(responses)).containsExactly(5, 6);
        for (var response : responses) {
            assertThat(Apis.PRODUCE.responseCodec().read((short) 0, response.bodyReader()).partitions())
                    .isEqualTo(Map.of(REP0, ProduceResult.failed(Errors.INVALID_REQUIRED_ACKS)));
        }
    }

    @Test
    @DisplayName("NET-2 an acks=0 produce is dispatched in order but answered with nothing")
    void acksZeroHasNoAnswer() {
        EmbeddedServer s = new EmbeddedServer(replicas, NetworkConfig.defaults());
        ch = s.connect();
        ch.writeInbound(fetch(1));
        ch.writeInbound(produce(2, 0));
        ch.writeInbound(TestMessages.requestFrame(Apis.METADATA, 3, MetadataRequest.allTopics()));
        List<Object> calls = replicas.calls();
        assertThat(calls).hasSize(2);
        assertThat(((ProduceCall) calls.get(1)).acks()).isEqualTo(Acks.NONE);
        ((ProduceCall) calls.get(1)).answer().complete(produced(0));
        FetchCall fetch = (FetchCall) calls.get(0);
        fetch.answer().complete(RecordingReplicaService.emptyAnswer(fetch.request()));
        assertThat(EmbeddedServer.correlationIds(EmbeddedServer.responses(ch))).containsExactly(1, 3);
    }

    @Test
    @DisplayName("NET-2 at queued.max.requests in flight the server stops reading and dispatching; below it, it resumes")
    void inFlightBound() {
        EmbeddedServer s = new EmbeddedServer(replicas, NetworkConfig.builder().queuedMaxRequests(2).build());
        ch = s.connect();
        // Five requests arrive in one read, before autoRead can take effect.
        ByteBuf five = Unpooled.buffer();
        for (int i = 1; i <= 5; i++) {
            ByteBuf f = fetch(i);
            five.writeBytes(f);
            f.release();
        }
        ch.writeInbound(five);
        assertThat(replicas.callCount()).isEqualTo(2);
        assertThat(ch.config().isAutoRead()).isFalse();

        complete(0);
        assertThat(replicas.callCount()).isEqualTo(3);
        assertThat(ch.config().isAutoRead()).isFalse(); // 2 in flight again, 1 waiting
        complete(2); // out of order: the third finishes before the second; nothing can leave yet
        assertThat(replicas.callCount()).isEqualTo(3);
        complete(1);
        assertThat(replicas.callCount()).isEqualTo(5);
        assertThat(ch.config().isAutoRead()).isFalse();
        complete(3);
        assertThat(ch.config().isAutoRead()).isTrue(); // one in flight, nothing waiting
        complete(4);
        assertThat(EmbeddedServer.correlationIds(EmbeddedServer.responses(ch))).containsExactly(1, 2, 3, 4, 5);
        assertThat(ch.config().isAutoRead()).isTrue();
    }

    private void complete(int call) {
        FetchCall f = (FetchCall) replicas.calls().get(call);
        f.answer().complete(RecordingReplicaService.emptyAnswer(f.request()));
        ch.runPendingTasks();
    }

    @Test
    @DisplayName("NET-2 the default queued.max.requests is Kafka's 500 and connections.max.idle.ms 600000")
    void defaults() {
        assertThat(NetworkConfig.defaults().queuedMaxRequests()).isEqualTo(500);
        assertThat(NetworkConfig.defaults().connectionsMaxIdleMs()).isEqualTo(600_000L);
    }

    @Test
    @DisplayName("NET-2 a connection idle for connections.max.idle.ms is closed; one with a request in flight is not")
    void idleConnectionsClose() {
        EmbeddedServer s = new EmbeddedServer(replicas, NetworkConfig.defaults());
        ch = s.connect();
        s.scheduler.advance(599_999);
        ch.runPendingTasks();
        assertThat(ch.isActive()).isTrue();
        // Activity at 599 999 ms restarts the clock: a request that parks.
        ch.writeInbound(fetch(1));
        s.scheduler.advance(1);
        ch.runPendingTasks();
        assertThat(ch.isActive()).isTrue();
        s.scheduler.advance(700_000);
        ch.runPendingTasks();
        assertThat(ch.isActive()).as("a parked request keeps its connection").isTrue();
        complete(0);
        assertThat(EmbeddedServer.correlationIds(EmbeddedServer.responses(ch))).containsExactly(1);
        s.scheduler.advance(599_999);
        ch.runPendingTasks();
        assertThat(ch.isActive()).isTrue();
        s.scheduler.advance(600_000);
        ch.runPendingTasks();
        assertThat(ch.isActive()).isFalse();
        assertThat(s.metrics().idleConnectionsClosed()).isEqualTo(1);
    }
}
