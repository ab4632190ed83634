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

import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.netty.TestMessages;
import dev.insync.replication.netty.config.NetworkConfig;
import dev.insync.replication.netty.protocol.Apis;
import dev.insync.replication.netty.protocol.MetadataRequest;
import dev.insync.replication.netty.protocol.MetadataResponse;
import dev.insync.replication.netty.protocol.ProduceRequest;
import dev.insync.replication.netty.protocol.ProduceResponse;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code insync.network.inline.handlers}: a non-blocking handler runs on the event loop that read
 * its request when the connection has nothing queued; otherwise, and for every other handler, the
 * call goes to the request pool, and NET-2's order holds either way.
 */
class InlineHandlersTest {

    private static final TopicPartition REP0 = new TopicPartition("rep", 0);

    /** A request pool that runs nothing until the test says so. */
    private static final class ManualPool implements Executor {
        final Queue<Runnable> tasks = new ArrayDeque<>();

        @Override
        public void execute(Runnable task) {
            tasks.add(task);
        }

        void runAll() {
            Runnable t;
            while ((t = tasks.poll()) != null) {
                t.run();
            }
        }
    }

    private final ManualPool pool = new ManualPool();
    private final List<String> handled = new ArrayList<>();
    private EmbeddedChannel ch;

    @AfterEach
    void close() {
        if (ch != null) {
            ch.finishAndReleaseAll();
            ch.checkException();
        }
    }

    /** Produce served as non-blocking, Metadata as an ordinary (pool) handler; both answer at once. */
    private EmbeddedChannel connect(boolean inline) {
        ServedApis apis = ServedApis.builder()
                .addNonBlocking(Apis.PRODUCE, (ctx, request) -> {
                    handled.add("produce");
                    return CompletableFuture.completedFuture(new ProduceResponse(Map.of()));
                })
                .add(Apis.METADATA, (ctx, request) -> {
                    handled.add("metadata");
                    return CompletableFuture.completedFuture(new MetadataResponse(List.of(), -1, List.of()));
                })
                .build();
        EmbeddedServer s = new EmbeddedServer(apis, NetworkConfig.builder().inlineHandlers(inline).build(), pool);
        ch = s.connect();
        return ch;
    }

    private static ByteBuf produce(int correlationId) {
        return TestMessages.requestFrame(Apis.PRODUCE, correlationId,
                new ProduceRequest((short) 1, 30_000, Map.of(REP0, TestMessages.validRecords(new Random(1), 2))));
    }

    private static ByteBuf metadata(int correlationId) {
        return TestMessages.requestFrame(Apis.METADATA, correlationId, MetadataRequest.allTopics());
    }

    @Test
    @DisplayName("a non-blocking handler runs on the event loop that read the request, with no trip to the request pool")
    void nonBlockingHandlerRunsInline() {
        connect(true).writeInbound(produce(1));
        assertThat(handled).containsExactly("produce");
        assertThat(pool.tasks).isEmpty();
        assertThat(EmbeddedServer.correlationIds(EmbeddedServer.responses(ch))).containsExactly(1);
    }

    @Test
    @DisplayName("an ordinary handler, and every handler with inline.handlers=false, runs on the request pool")
    void poolWhenNotInline() {
        connect(true).writeInbound(metadata(1));
        assertThat(handled).isEmpty();
        pool.runAll();
        assertThat(handled).containsExactly("metadata");

        handled.clear();
        connect(false).writeInbound(produce(2));
        assertThat(handled).isEmpty();
        assertThat(pool.tasks).hasSize(1);
        pool.runAll();
        assertThat(handled).containsExactly("produce");
        assertThat(EmbeddedServer.correlationIds(EmbeddedServer.responses(ch))).containsExactly(2);
    }

    @Test
    @DisplayName("NET-2 a non-blocking request behind a queued pool call waits for it: handlers run and answers leave in arrival order")
    void net2InlineNeverOvertakesAQueuedCall() {
        connect(true);
        ch.writeInbound(metadata(1));
        ch.writeInbound(produce(2));
        assertThat(handled).isEmpty(); // the produce did not overtake the metadata queued in the pool
        pool.runAll();
        assertThat(handled).containsExactly("metadata", "produce");
        ch.writeInbound(produce(3)); // the queue is empty again: inline
        assertThat(handled).containsExactly("metadata", "produce", "produce");
        assertThat(pool.tasks).isEmpty();
        assertThat(EmbeddedServer.correlationIds(EmbeddedServer.responses(ch))).containsExactly(1, 2, 3);
    }

    @Test
    @DisplayName("num.network.threads defaults to half the available processors, at least 1, and is read from properties")
    void networkThreadsDefaultFollowsTheProcessors() {
        int expected = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
        assertThat(NetworkConfig.defaultNumNetworkThreads()).isEqualTo(expected);
        assertThat(NetworkConfig.defaults().numNetworkThreads()).isEqualTo(expected);
        assertThat(NetworkConfig.fromProperties(Map.of()).numNetworkThreads()).isEqualTo(expected);
        assertThat(NetworkConfig.fromProperties(Map.of("num.network.threads", "3")).numNetworkThreads()).isEqualTo(3);
        assertThatThrownBy(() -> NetworkConfig.fromProperties(Map.of("num.network.threads", "0")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("num.network.threads");
    }

    @Test
    @DisplayName("insync.network.inline.handlers is on by default, read from properties, and a value other than true/false is refused")
    void inlineHandlersProperty() {
        assertThat(NetworkConfig.defaults().inlineHandlers()).isTrue();
        assertThat(NetworkConfig.fromProperties(Map.of("insync.network.inline.handlers", "FALSE")).inlineHandlers()).isFalse();
        assertThatThrownBy(() -> NetworkConfig.fromProperties(Map.of("insync.network.inline.handlers", "no")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("insync.network.inline.handlers").hasMessageContaining("'no'");
        assertThatThrownBy(() -> NetworkConfig.fromProperties(Map.of("insync.network.epoll.enabled", "yes")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("insync.network.epoll.enabled");
    }
}
