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

import io.netty.channel.EventLoop;

import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Where {@link InsyncClient}'s sender tasks run, one at a time in submission order: either the
 * client's network event loop (real threads: a send is one hand-off, caller to event loop, its write
 * needs no second one, and an answer read on that loop is handled there), or a serial executor of
 * the client's {@code Scheduler} (manual or simulated time: a test runs each task when it chooses).
 *
 * <p>A sender task never runs nested inside another: {@link #runAnswer} runs an answer's task at
 * once only when called on the event loop outside any sender task (the loop read the answer), and
 * queues it otherwise, so a connection future completing synchronously inside a sender task (a
 * request refused at once, a write that failed) never re-enters the batches or the in-flight
 * bookkeeping halfway through that task.
 */
final class SenderExecutor implements Executor {

    private final Executor executor;
    /** The event loop the tasks run on, or {@code null} when {@link #executor} is a scheduler's serial executor. */
    private final EventLoop loop;
    /** A sender task is running (confined to {@link #loop}). */
    private boolean running;

    private SenderExecutor(Executor executor, EventLoop loop) {
        this.executor = executor;
        this.loop = loop;
    }

    /** Sender tasks on {@code loop}, the thread of the client's connections. */
    static SenderExecutor onEventLoop(EventLoop loop) {
        Objects.requireNonNull(loop, "loop");
        return new SenderExecutor(loop, loop);
    }

    /** Sender tasks on a serial executor (a scheduler's): every task, answers too, is queued on it. */
    static SenderExecutor onSerialExecutor(Executor serial) {
        return new SenderExecutor(Objects.requireNonNull(serial, "serial"), null);
    }

    /** Whether tasks run on the network event loop. */
    boolean onEventLoop() {
        return loop != null;
    }

    /** Whether the calling thread is the one sender tasks run on (only known of an event loop). */
    boolean inSenderThread() {
        return loop != null && loop.inEventLoop();
    }

    /**
     * Queues {@code task} behind every task handed over before it.
     *
     * @throws java.util.concurrent.RejectedExecutionException once the executor stopped
     */
    @Override
    public void execute(Runnable task) {
        if (loop == null) {
            executor.execute(task);
        } else {
            loop.execute(() -> run(task));
        }
    }

    /**
     * Runs {@code task}, the handling of an answer read on a connection: at once when called on the
     * event loop outside a sender task, else queued as {@link #execute} does.
     *
     * @throws java.util.concurrent.RejectedExecutionException once the executor stopped
     */
    void runAnswer(Runnable task) {
        if (loop != null && loop.inEventLoop() && !running) {
            run(task);
        } else {
            execute(task);
        }
    }

    private void run(Runnable task) {
        // Only reached on the loop, and never while a task runs (runAnswer queues then), so never nested.
        assert !running : "a sender task nested in another";
        running = true;
        try {
            task.run();
        } finally {
            running = false;
        }
    }
}
