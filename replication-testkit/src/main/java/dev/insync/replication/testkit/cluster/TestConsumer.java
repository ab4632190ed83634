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

package dev.insync.replication.testkit.cluster;

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.Record;
import dev.insync.replication.log.record.RecordBatch;
import dev.insync.replication.testkit.network.InMemoryNetwork;
import dev.insync.replication.testkit.sim.NodeId;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * A consumer client of an {@link InMemoryCluster}: fetches from the partition's leader as a consumer
 * (replicaId -1), so it only ever sees records below the HW (FET-1). It keeps a position per
 * partition, starting at 0.
 *
 * <p>A poll that gets no answer within its timeout ends with nothing, and the answer, if it arrives
 * later, is discarded without moving the position: a real client that timed out a request has
 * closed it. So the position only ever moves past records the poll returned (or, when the position
 * fell below the leader's log start, to that log start: {@code auto.offset.reset=earliest}).
 *
 * <p>By default every poll asks the controller who leads; with {@link #cacheLeaders(boolean)} the
 * client keeps the leader it last used until an error or a timeout, as Kafka's clients keep their
 * metadata, and so may read from a deposed leader that does not know it yet.
 */
public final class TestConsumer {

    /** Bytes one poll asks for. */
    public static final int MAX_BYTES = 1024 * 1024;
    /** How long a poll waits for an answer before returning nothing (the default). */
    public static final long POLL_TIMEOUT_MS = 2_000;

    private final InMemoryCluster cluster;
    private final String name;
    private final NodeId node;
    private final Scheduler scheduler;
    private final Executor executor;
    private final Map<TopicPartition, Long> positions = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Integer> cachedLeaders = new ConcurrentHashMap<>();
    private final boolean moveOnLateAnswer;
    private volatile boolean cacheLeaders;
    private volatile int maxBytes = MAX_BYTES;

    TestConsumer(InMemoryCluster cluster, String name, NodeId node, Scheduler scheduler) {
        this.cluster = cluster;
        this.name = name;
        this.node = node;
        this.scheduler = scheduler;
        this.executor = scheduler.newSerialExecutor("consumer-" + name);
        this.moveOnLateAnswer = cluster.mutations().contains(Mutation.CONSUMER_MOVES_ON_LATE_ANSWER);
    }

    /** This client's name. */
    public String name() {
        return name;
    }

    /** Whether to keep using the last leader until it fails (Kafka clients' metadata cache); default false. */
    public TestConsumer cacheLeaders(boolean enabled) {
        this.cacheLeaders = enabled;
        if (!enabled) {
            cachedLeaders.clear();
        }
        return this;
    }

    /** Bytes one poll asks for (default {@link #MAX_BYTES}); at least one batch comes back whatever it is (LOG-3). */
    public TestConsumer maxBytes(int bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("A poll asks for at least 1 byte, got " + bytes + " for consumer " + name);
        }
        this.maxBytes = bytes;
        return this;
    }

    /** The next offset this consumer will read. */
    public long position(String topic, int partition) {
        return positions.getOrDefault(new TopicPartition(topic, partition), 0L);
    }

    /** Moves the position. */
    public void seek(String topic, int partition, long offset) {
        positions.put(new TopicPartition(topic, partition), offset);
    }

    /**
     * {@link #pollBytes} with keys and values decoded as UTF-8: one fetch from the leader at the
     * current position with the default timeout; the records it returned (empty on an error or a
     * timeout).
     */
    public CompletableFuture<List<ConsumedRecord>> poll(String topic, int partition) {
        return startPoll(topic, partition, POLL_TIMEOUT_MS).outcome().thenApply(PollOutcome::textRecords);
    }

    /**
     * One fetch from the leader at the current position with the default timeout ({@link #POLL_TIMEOUT_MS}),
     * records byte for byte with their headers; empty on an error or a timeout. Completes on this
     * client's executor.
     */
    public CompletableFuture<List<ConsumedBytes>> pollBytes(String topic, int partition) {
        return startPoll(topic, partition, POLL_TIMEOUT_MS).outcome().thenApply(PollOutcome::records);
    }

    /**
     * A poll under way: the broker it was sent to (-1 when no leader was known) and the position it
     * reads from, both decided when {@link #startPoll} is called, and its outcome.
     */
    public record PendingPoll(int broker, long position, CompletableFuture<PollOutcome> outcome) {
    }

    /**
     * Starts one fetch at the current position; the outcome completes on this client's executor,
     * at the latest {@code timeoutMs} later.
     */
    public PendingPoll startPoll(String topic, int partition, long timeoutMs) {
        TopicPartition tp = new TopicPartition(topic, partition);
        long position = position(topic, partition);
        int leader = leaderFor(tp);
        CompletableFuture<PollOutcome> result = new CompletableFuture<>();
        if (leader == PartitionRegistration.NO_LEADER) {
            result.complete(new PollOutcome(Errors.NOT_LEADER_OR_FOLLOWER, false, List.of(), position));
            return new PendingPoll(leader, position, result);
        }
        executor.execute(() -> {
            int bytes = maxBytes;
            FetchRequest request = new FetchRequest(FetchRequest.CONSUMER_REPLICA_ID, -1L, 0, 1, bytes,
                    Map.of(tp, new FetchRequest.PartitionData(position, -1L, bytes, OptionalInt.empty(),
                            OptionalInt.empty())));
            Scheduler.Cancellable timeout = scheduler.schedule(executor, () -> {
                cachedLeaders.remove(tp);
                result.complete(new PollOutcome(Errors.REQUEST_TIMED_OUT, true, List.of(), position));
            }, timeoutMs);
            cluster.network().send(node, NodeId.broker(leader), InMemoryNetwork.FETCH, request)
                    .whenComplete((response, error) -> executor.execute(() -> {
                        timeout.cancel();
                        if (result.isDone()) {
                            if (moveOnLateAnswer && error == null) {
                                accept(tp, position, response); // Mutation: the bug this class used to have
                            }
                            return; // the client gave up on this request: its answer is not used
                        }
                        if (error != null) {
                            cachedLeaders.remove(tp);
                            result.complete(new PollOutcome(Errors.NETWORK_EXCEPTION, false, List.of(), position));
                        } else {
                            result.complete(accept(tp, position, response));
                        }
                    }));
        });
        return new PendingPoll(leader, position, result);
    }

    private int leaderFor(TopicPartition tp) {
        if (cacheLeaders) {
            Integer cached = cachedLeaders.get(tp);
            if (cached != null) {
                return cached;
            }
        }
        int leader = cluster.controller().partition(tp).map(PartitionRegistration::leader)
                .orElse(PartitionRegistration.NO_LEADER);
        if (cacheLeaders && leader != PartitionRegistration.NO_LEADER) {
            cachedLeaders.put(tp, leader);
        }
        return leader;
    }

    private synchronized PollOutcome accept(TopicPartition tp, long requestedPosition, FetchResponse response) {
        FetchResponse.PartitionData data = response.partitions().get(tp);
        long current = positions.getOrDefault(tp, 0L);
        if (data == null) {
            cachedLeaders.remove(tp);
            return new PollOutcome(Errors.UNKNOWN_SERVER_ERROR, false, List.of(), current);
        }
        if (data.error() != Errors.NONE) {
            cachedLeaders.remove(tp);
            if (data.error() == Errors.OFFSET_OUT_OF_RANGE && current == requestedPosition
                    && data.logStartOffset() > requestedPosition) {
                // auto.offset.reset=earliest: retention removed what we had not read yet.
                positions.put(tp, data.logStartOffset());
                return new PollOutcome(data.error(), false, List.of(), data.logStartOffset());
            }
            return new PollOutcome(data.error(), false, List.of(), current);
        }
        if (current != requestedPosition) {
            return new PollOutcome(Errors.NONE, false, List.of(), current);
        }
        List<ConsumedBytes> out = new ArrayList<>();
        long next = requestedPosition;
        for (RecordBatch batch : data.records().batches()) {
            for (Record r : batch.records()) {
                if (r.offset() >= requestedPosition && r.offset() < data.highWatermark()) {
                    out.add(ConsumedBytes.of(batch, r));
                    next = r.offset() + 1;
                }
            }
        }
        positions.put(tp, next);
        return new PollOutcome(Errors.NONE, false, out, next);
    }
}
