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

import dev.insync.replication.core.partition.ReplicaDescription;
import dev.insync.replication.core.produce.Acks;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.core.rpc.RecordsForm;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.netty.server.ReplicaService;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A {@link ReplicaService} that records every call and answers with futures the test completes
 * (or at once with fixed answers when {@link #answerAtOnce} is set). Thread-safe.
 */
public final class RecordingReplicaService implements ReplicaService {

    /** One produce call. */
    public record ProduceCall(Map<TopicPartition, MemoryRecords> entries, Acks acks, long timeoutMs,
                              CompletableFuture<Map<TopicPartition, ProduceResult>> answer) {
    }

    /** One fetch call, with the form its records were asked in (NET-3). */
    public record FetchCall(FetchRequest request, RecordsForm form, CompletableFuture<FetchResponse> answer) {
    }

    private final List<Object> calls = new ArrayList<>();
    private volatile boolean answerAtOnce;

    /** Answer every call at once: fetches with an empty NONE answer per partition, produces with offset 0. */
    public RecordingReplicaService answerAtOnce() {
        answerAtOnce = true;
        return this;
    }

    /** From now on leaves fetch answers to the test (each call's {@code answer}). */
    public RecordingReplicaService answerLater() {
        answerAtOnce = false;
        return this;
    }

    @Override
    public CompletionStage<FetchResponse> fetch(FetchRequest request, RecordsForm form) {
        FetchCall call = new FetchCall(request, form, new CompletableFuture<>());
        record(call);
        if (answerAtOnce) {
            call.answer().complete(emptyAnswer(request));
        }
        return call.answer();
    }

    @Override
    public CompletionStage<Map<TopicPartition, ProduceResult>> produce(Map<TopicPartition, MemoryRecords> entries,
                                                                       Acks acks, long timeoutMs) {
        ProduceCall call = new ProduceCall(new LinkedHashMap<>(entries), acks, timeoutMs, new CompletableFuture<>());
        record(call);
        if (answerAtOnce) {
            Map<TopicPartition, ProduceResult> r = new LinkedHashMap<>();
            entries.keySet().forEach(tp -> r.put(tp, new ProduceResult(Errors.NONE, 0L, -1L, 0)));
            call.answer().complete(r);
        }
        return call.answer();
    }

    /** Hosts nothing. */
    @Override
    public List<ReplicaDescription> describeReplicas(Optional<List<String>> topics) {
        return List.of();
    }

    private synchronized void record(Object call) {
        calls.add(call);
        notifyAll();
    }

    /** A NONE answer with no records for every partition of {@code request}. */
    public static FetchResponse emptyAnswer(FetchRequest request) {
        Map<TopicPartition, FetchResponse.PartitionData> m = new LinkedHashMap<>();
        request.partitions().keySet().forEach(tp -> m.put(tp, new FetchResponse.PartitionData(Errors.NONE, 0L, 0L, 0L,
                0L, MemoryRecords.EMPTY, java.util.Optional.empty())));
        return new FetchResponse(Errors.NONE, m);
    }

    public synchronized List<Object> calls() {
        return List.copyOf(calls);
    }

    public synchronized int callCount() {
        return calls.size();
    }

    /** Waits (bounded, real time) until at least {@code n} calls were made; returns them. */
    public synchronized List<Object> awaitCalls(int n, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (calls.size() < n) {
            long leftMs = (deadline - System.nanoTime()) / 1_000_000L;
            if (leftMs <= 0) {
                throw new AssertionError("Only " + calls.size() + " calls after " + timeoutMs + " ms, wanted " + n);
            }
            wait(leftMs);
        }
        return List.copyOf(calls);
    }
}
