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
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.Header;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.RecordBatchBuilder;
import dev.insync.replication.testkit.sim.NodeId;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * A producer client of an {@link InMemoryCluster}: one record per call, sent to the partition's
 * current leader over the in-memory network. No hidden retries: every call ends exactly once, with
 * the broker's answer or, if none arrives, {@code REQUEST_TIMED_OUT} at its own deadline (PRO-5).
 *
 * <p>By default every call asks the controller who leads; with {@link #cacheLeaders(boolean)} the
 * client keeps the leader it last used until an error or a timeout, as Kafka's clients keep their
 * metadata, and so may write to a deposed leader that does not know it yet.
 */
public final class TestProducer {

    /** Time a client waits beyond the broker-side timeout before giving up on a response. */
    public static final long CLIENT_DEADLINE_SLACK_MS = 500;

    private final InMemoryCluster cluster;
    private final String name;
    private final NodeId node;
    private final Scheduler scheduler;
    private final Executor executor;
    private final Map<TopicPartition, Integer> cachedLeaders = new ConcurrentHashMap<>();
    private volatile boolean cacheLeaders;

    TestProducer(InMemoryCluster cluster, String name, NodeId node, Scheduler scheduler) {
        this.cluster = cluster;
        this.name = name;
        this.node = node;
        this.scheduler = scheduler;
        this.executor = scheduler.newSerialExecutor("producer-" + name);
    }

    /** This client's name. */
    public String name() {
        return name;
    }

    /** Whether to keep using the last leader until a call to it fails (Kafka clients' metadata cache); default false. */
    public TestProducer cacheLeaders(boolean enabled) {
        this.cacheLeaders = enabled;
        if (!enabled) {
            cachedLeaders.clear();
        }
        return this;
    }

    /**
     * Sends one record whose key and value are UTF-8 text, without headers: {@link #send(String, int,
     * byte[], byte[], List, int, long)} with the text's bytes.
     *
     * @param acks      0, 1 or -1 (all); anything else ends with INVALID_REQUIRED_ACKS from the broker
     * @param timeoutMs how long the leader may wait for acks=all (the request's timeout)
     * @return the outcome; completes on this client's executor
     */
    public CompletableFuture<ProduceOutcome> send(String topic, int partition, String key, String value, int acks,
                                                  long timeoutMs) {
        return send(topic, partition, bytes(key), bytes(value), List.of(), acks, timeoutMs);
    }

    /**
     * Sends one record.
     *
     * @param key       its key, or null (copied)
     * @param value     its value, or null (copied)
     * @param headers   its headers, in order
     * @param acks      0, 1 or -1 (all); anything else ends with INVALID_REQUIRED_ACKS from the broker
     * @param timeoutMs how long the leader may wait for acks=all (the request's timeout)
     * @return the outcome; completes on this client's executor
     */
    public CompletableFuture<ProduceOutcome> send(String topic, int partition, byte[] key, byte[] value,
                                                  List<Header> headers, int acks, long timeoutMs) {
        // Copied now: the record is built later on this client's executor.
        byte[] recordKey = key == null ? null : key.clone();
        byte[] recordValue = value == null ? null : value.clone();
        List<Header> recordHeaders = List.copyOf(headers);
        TopicPartition tp = new TopicPartition(topic, partition);
        CompletableFuture<ProduceOutcome> outcome = new CompletableFuture<>();
        executor.execute(() -> {
            Integer cached = cacheLeaders ? cachedLeaders.get(tp) : null;
            int leader;
            if (cached != null) {
                leader = cached;
            } else {
                Optional<PartitionRegistration> registration = cluster.controller().partition(tp);
                if (registration.isEmpty()) {
                    outcome.complete(ProduceOutcome.failed(Errors.UNKNOWN_TOPIC_OR_PARTITION));
                    return;
                }
                leader = registration.get().leader();
                if (cacheLeaders && leader != PartitionRegistration.NO_LEADER) {
                    cachedLeaders.put(tp, leader);
                }
            }
            if (leader == PartitionRegistration.NO_LEADER) {
                outcome.complete(ProduceOutcome.failed(Errors.NOT_LEADER_OR_FOLLOWER));
                return;
            }
            MemoryRecords records = new RecordBatchBuilder(0)
                    .append(scheduler.time().milliseconds(), recordKey, recordValue, recordHeaders)
                    .build();
            Scheduler.Cancellable deadline = scheduler.schedule(executor, () -> {
                cachedLeaders.remove(tp);
                outcome.complete(ProduceOutcome.failed(Errors.REQUEST_TIMED_OUT));
            }, timeoutMs + CLIENT_DEADLINE_SLACK_MS);
            CompletableFuture<ClientRpc.ProduceResponse> response = cluster.network().send(node, NodeId.broker(leader),
                    ClientRpc.PRODUCE, new ClientRpc.ProduceRequest(tp, records, acks, timeoutMs));
            if (acks == 0) {
                // acks=0: the client does not wait for any answer.
                deadline.cancel();
                outcome.complete(new ProduceOutcome(Errors.NONE, -1L, -1));
                return;
            }
            response.whenComplete((r, error) -> executor.execute(() -> {
                deadline.cancel();
                if (error != null || r.error() != Errors.NONE) {
                    cachedLeaders.remove(tp);
                }
                if (error != null) {
                    outcome.complete(ProduceOutcome.failed(Errors.NETWORK_EXCEPTION));
                } else if (r.error() == Errors.NONE) {
                    outcome.complete(new ProduceOutcome(Errors.NONE, r.baseOffset(), r.leaderEpoch()));
                } else {
                    outcome.complete(ProduceOutcome.failed(r.error()));
                }
            }));
        });
        return outcome;
    }

    private static byte[] bytes(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }
}
