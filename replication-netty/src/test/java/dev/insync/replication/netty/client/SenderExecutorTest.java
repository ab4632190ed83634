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

package dev.insync.replication.netty.client;

import dev.insync.replication.core.time.ThreadScheduler;
import dev.insync.replication.netty.config.NetworkConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link SenderExecutor} on a real client event loop (the one {@link InsyncClient} uses): an answer
 * runs at once only outside a sender task, never nested in one.
 */
class SenderExecutorTest {

    private static final long WAIT_MS = 10_000;

    private final ThreadScheduler scheduler = new ThreadScheduler();
    private final NetworkClient network = new NetworkClient("sender-test", NetworkConfig.builder().build(),
            Optional.empty(), scheduler, 1, new Random(1));
    private final SenderExecutor sender = SenderExecutor.onEventLoop(network.loop());

    @AfterEach
    void stop() {
        network.close();
        scheduler.close();
    }

    @Test
    @DisplayName("NET-2 an answer completed inside a sender task (a request refused at once) runs after that task ends, not nested in it")
    void net2AnswerInsideATaskIsQueuedNotNested() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        sender.execute(() -> {
            events.add("task starts");
            sender.runAnswer(() -> {
                events.add("answer");
                done.complete(null);
            });
            events.add("task ends");
        });
        done.get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertThat(events).containsExactly("task starts", "task ends", "answer");
    }

    @Test
    @DisplayName("NET-2 an answer read on the event loop outside a sender task runs right there, before tasks queued earlier; from another thread it is queued in order")
    void net2AnswerOnTheLoopRunsAtOnce() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        CompletableFuture<Thread> loopThread = new CompletableFuture<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        // A plain loop task stands for the connection's read of an answer: it is no sender task.
        network.loop().execute(() -> {
            loopThread.complete(Thread.currentThread());
            sender.execute(() -> events.add("queued task"));
            sender.runAnswer(() -> events.add("answer read on the loop"));
            sender.execute(() -> done.complete(null));
        });
        done.get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertThat(events).containsExactly("answer read on the loop", "queued task");

        List<Thread> ranOn = new ArrayList<>();
        CompletableFuture<Void> fromOutside = new CompletableFuture<>();
        sender.runAnswer(() -> {
            ranOn.add(Thread.currentThread());
            fromOutside.complete(null);
        });
        fromOutside.get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertThat(ranOn).containsExactly(loopThread.get());
        assertThat(sender.inSenderThread()).isFalse();
    }

    @Test
    @DisplayName("PRO-5 once the event loop stopped a task is refused, so the client fails the work itself")
    void pro5StoppedLoopRefuses() {
        network.close();
        assertThatThrownBy(() -> sender.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
        assertThatThrownBy(() -> sender.runAnswer(() -> { })).isInstanceOf(RejectedExecutionException.class);
    }
}
