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

package dev.insync.replication.core.rpc;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;

/**
 * How a follower's fetcher reaches a leader broker. Asynchronous: the stage completes with the
 * response, or exceptionally on a transport failure; it may never complete if the link is cut, so
 * callers keep their own timeouts (as over TCP).
 */
public interface ReplicaTransport {

    /** Sends {@code request} to broker {@code leaderId}. */
    CompletionStage<FetchResponse> fetch(int leaderId, FetchRequest request);

    /**
     * Sends fetcher {@code fetcherId}'s {@code request} to broker {@code leaderId} and runs
     * {@code onAnswer} with the response (or the failure) as a task of {@code executor}, the fetcher's
     * own (a shut-down executor drops it). The request may name no partition at all: an idle round of
     * a fetch session (FET-7) sends an empty incremental fetch, which the leader parks and answers with
     * what changed. A transport that keeps one connection per (leader, fetcher) sends it over
     * {@code fetcherId}'s connection, so that one fetcher's requests stay in order. By default the
     * answer is handed to {@code executor} from wherever {@link #fetch(int, FetchRequest)}'s stage
     * completes (a network thread); a transport that delivers answers onto executors itself (the
     * in-memory network) overrides this to deliver straight onto {@code executor}, one thread hand-off
     * fewer per fetch. A failure to send at all is answered the same way, never thrown.
     */
    default void fetch(int leaderId, int fetcherId, FetchRequest request, Executor executor,
                       BiConsumer<FetchResponse, Throwable> onAnswer) {
        CompletionStage<FetchResponse> stage;
        try {
            stage = fetch(leaderId, request);
        } catch (RuntimeException e) {
            handOver(executor, () -> onAnswer.accept(null, e));
            return;
        }
        stage.whenComplete((response, error) -> handOver(executor, () -> onAnswer.accept(response, error)));
    }

    /** Runs {@code task} on {@code executor}; an executor that is shutting down drops it. */
    private static void handOver(Executor executor, Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException shuttingDown) {
            // The fetcher is stopping: nobody waits for this answer any more.
        }
    }
}
