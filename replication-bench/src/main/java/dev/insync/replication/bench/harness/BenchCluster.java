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

package dev.insync.replication.bench.harness;

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.testkit.cluster.InMemoryCluster;
import dev.insync.replication.testkit.network.LinkConfig;
import dev.insync.replication.testkit.sim.NodeId;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The cluster every replicated measurement runs on: three brokers on real threads in this JVM over
 * the in-memory network with zero link delay, replication factor 3, {@code min.insync.replicas=2},
 * leaders spread round-robin over the brokers.
 */
public final class BenchCluster implements AutoCloseable {

    /** Topic name used by every measurement. */
    public static final String TOPIC = "bench";

    private final InMemoryCluster cluster;
    private final List<BatchingProducer.Target> targets;
    private int nextClient = 1_000;

    private BenchCluster(InMemoryCluster cluster, List<BatchingProducer.Target> targets) {
        this.cluster = cluster;
        this.targets = targets;
    }

    /**
     * Starts the cluster and creates the topic.
     *
     * @param partitions 0 for brokers without a topic (the scale measurement's baseline)
     * @param fsync  whether logs really fsync; with {@code flush.messages=1} every append is forced
     * @param extra  further broker properties
     */
    public static BenchCluster start(int partitions, boolean fsync, Map<String, Object> extra) {
        return start(partitions, fsync, extra, Optional.empty());
    }

    /**
     * {@link #start(int, boolean, Map)} with brokers whose logs are bounded by {@code retention}
     * (the throughput scenarios, whose long windows otherwise fill the disk), or Insync's retention
     * defaults if empty.
     */
    public static BenchCluster start(int partitions, boolean fsync, Map<String, Object> extra,
                                     Optional<LogRetentionBound> retention) {
        InMemoryCluster.Builder builder = InMemoryCluster.builder().brokers(3).realTime()
                .links(LinkConfig.fixed(0))
                .fsync(fsync)
                .config("min.insync.replicas", 2);
        retention.ifPresent(bound -> builder.config("segment.bytes", bound.segmentBytes())
                .config("retention.bytes", bound.retentionBytes())
                .retentionCheckIntervalMs(bound.checkIntervalMs()));
        builder.config(extra);
        if (fsync) {
            builder.config("flush.messages", 1);
        }
        InMemoryCluster cluster = builder.build();
        try {
            List<List<Integer>> assignment = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                int first = p % 3;
                assignment.add(List.of(1 + first, 1 + (first + 1) % 3, 1 + (first + 2) % 3));
            }
            List<PartitionRegistration> created = partitions == 0 ? List.of() : cluster.createTopic(TOPIC, assignment);
            List<BatchingProducer.Target> targets = new ArrayList<>();
            for (PartitionRegistration p : created) {
                TopicPartition tp = p.topicPartition();
                int leader = cluster.controller().partition(tp).orElseThrow().leader();
                targets.add(new BatchingProducer.Target(tp, NodeId.broker(leader)));
            }
            BenchCluster bench = new BenchCluster(cluster, targets);
            bench.awaitFullIsr();
            return bench;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** Waits until every partition has all three replicas in its ISR, so acks=all really waits for three. */
    private void awaitFullIsr() {
        for (BatchingProducer.Target t : targets) {
            TopicPartition tp = t.topicPartition();
            boolean full = cluster.runUntil(
                    () -> cluster.admin().isr(tp.topic(), tp.partition()).size() == 3, 60_000);
            if (!full) {
                throw new IllegalStateException("ISR of " + tp + " did not reach 3 replicas within 60 s: "
                        + cluster.admin().isr(tp.topic(), tp.partition()));
            }
        }
    }

    /** A producer over every partition of the topic. */
    public BatchingProducer producer(int valueBytes, int batchBytes, int maxRecordsPerRequest, int acks, int window) {
        return new BatchingProducer(cluster.network(), NodeId.client(nextClient++), targets, valueBytes, batchBytes,
                maxRecordsPerRequest, acks, window, 30_000);
    }

    /** The underlying cluster. */
    public InMemoryCluster cluster() {
        return cluster;
    }

    /** The topic's partitions and their leaders. */
    public List<BatchingProducer.Target> targets() {
        return targets;
    }

    @Override
    public void close() {
        cluster.close();
    }
}
