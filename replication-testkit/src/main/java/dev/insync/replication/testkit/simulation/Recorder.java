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

package dev.insync.replication.testkit.simulation;

import dev.insync.replication.core.metadata.BrokerRegistration;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.log.Log;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.epoch.EpochEntry;
import dev.insync.replication.testkit.cluster.BrokerStatus;
import dev.insync.replication.testkit.cluster.ClusterAdmin;
import dev.insync.replication.testkit.cluster.ConsumedRecord;
import dev.insync.replication.testkit.cluster.InMemoryCluster;
import dev.insync.replication.testkit.cluster.PollOutcome;
import dev.insync.replication.testkit.cluster.ProduceOutcome;
import dev.insync.replication.testkit.cluster.TestConsumer;
import dev.insync.replication.testkit.cluster.TestProducer;
import dev.insync.replication.testkit.history.History;
import dev.insync.replication.testkit.history.HistoryEvent;
import dev.insync.replication.testkit.history.HistoryValues;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Writes down, as a self-contained {@link History}, what the clients and the operator of an
 * {@link InMemoryCluster} did and saw (every call and its outcome, every fault as injected, every
 * configuration change), the brokers' and the controller's state whenever a sample is taken, and
 * the final logs. Client events are stamped with the virtual time at which the client observed them
 * (the callbacks run on the clients' executors inside the event loop). Samples are written only
 * where they differ from the previous one of the same broker and partition, so a broker's state at
 * any sampling instant is its latest sample. Used by {@link Simulation} and by directed scenarios.
 */
public final class Recorder {

    private final InMemoryCluster cluster;
    private final String topic;
    private final int partitions;
    private final TopicPartition[] topicPartitions;
    private final History history = new History();
    private final Set<Long> outstanding = new HashSet<>();
    /** Keyed by {@link #key(int, int)}. */
    private final Map<Long, HistoryEvent.Sample> lastSamples = new HashMap<>();
    /** The controller's last registration of each partition written, to tell unclean elections. */
    private final Map<Integer, PartitionRegistration> lastPartitions = new HashMap<>();
    private long lastMetadataOffset = -1;
    private final Map<String, Long> faultCounts = new java.util.TreeMap<>();
    private long nextProduceId = 1;
    private long nextPollId = 1;
    private long acked;
    private long ackedAll;

    /** Records partition 0 of {@code topic}, its only partition. */
    public Recorder(InMemoryCluster cluster, String topic, int partition) {
        this(1, cluster, topic);
        if (partition != 0) {
            throw new IllegalArgumentException("A single-partition recorder records partition 0, not " + partition);
        }
    }

    /** Records partitions 0..{@code partitions}-1 of {@code topic}. */
    public static Recorder ofPartitions(InMemoryCluster cluster, String topic, int partitions) {
        return new Recorder(partitions, cluster, topic);
    }

    private Recorder(int partitions, InMemoryCluster cluster, String topic) {
        if (partitions < 1) {
            throw new IllegalArgumentException("A topic has at least one partition, got " + partitions);
        }
        this.cluster = cluster;
        this.topic = topic;
        this.partitions = partitions;
        this.topicPartitions = new TopicPartition[partitions];
        for (int p = 0; p < partitions; p++) {
            topicPartitions[p] = new TopicPartition(topic, p);
        }
    }

    /** The history so far. */
    public History history() {
        return history;
    }

    /** Produce calls acknowledged with NONE so far. */
    public long acked() {
        return acked;
    }

    /** acks=all produce calls acknowledged with NONE so far. */
    public long ackedAll() {
        return ackedAll;
    }

    /** Produce calls invoked and not completed yet. */
    public int outstandingProduces() {
        return outstanding.size();
    }

    /** How many fault events of each kind were recorded. */
    public Map<String, Long> faultCounts() {
        return Map.copyOf(faultCounts);
    }

    /** Records the run's settings (first line). */
    public void settings(long seed, Map<String, Object> values) {
        history.add(new HistoryEvent.Settings(cluster.nowMs(), seed, values));
    }

    /** Records the configuration in force from now on. */
    public void config(int minIsr, List<Integer> replicas, boolean unclean) {
        history.add(new HistoryEvent.Config(cluster.nowMs(), minIsr, replicas, unclean, partitions));
    }

    /** Records an injected fault without parameters. */
    public void fault(String kind, List<Integer> brokers) {
        fault(kind, brokers, Map.of());
    }

    /** Records an injected fault. */
    public void fault(String kind, List<Integer> brokers, Map<String, Object> params) {
        faultCounts.merge(kind, 1L, Long::sum);
        history.add(new HistoryEvent.Fault(cluster.nowMs(), kind, brokers, params));
    }

    /** Records that every fault is undone and writes stop: from now on the partitions must become whole within {@code boundMs}. */
    public void quiesce(long boundMs) {
        history.add(new HistoryEvent.Quiesce(cluster.nowMs(), boundMs));
    }

    /** {@link #produce(TestProducer, int, int, String, long)} to partition 0. */
    public CompletableFuture<ProduceOutcome> produce(TestProducer producer, int acks, String value, long timeoutMs) {
        return produce(producer, 0, acks, value, timeoutMs);
    }

    /**
     * Sends {@code value} (unique per call) with {@code acks} (1 or -1) to {@code partition} and
     * records the invocation now (with the broker-side timeout and the client's deadline) and the
     * outcome when the client sees it.
     */
    public CompletableFuture<ProduceOutcome> produce(TestProducer producer, int partition, int acks, String value,
                                                     long timeoutMs) {
        long id = nextProduceId++;
        history.add(new HistoryEvent.ProduceInvoke(cluster.nowMs(), id, producer.name(), partition,
                acks == -1 ? "all" : String.valueOf(acks), HistoryValues.digest(value), timeoutMs,
                timeoutMs + TestProducer.CLIENT_DEADLINE_SLACK_MS));
        outstanding.add(id);
        CompletableFuture<ProduceOutcome> future = producer.send(topic, partition, null, value, acks, timeoutMs);
        return future.whenComplete((outcome, error) -> {
            outstanding.remove(id);
            long t = cluster.nowMs();
            if (error != null) {
                history.add(new HistoryEvent.ProduceFail(t, id, "UNKNOWN_SERVER_ERROR"));
            } else if (outcome.isSuccess()) {
                acked++;
                if (acks == -1) {
                    ackedAll++;
                }
                history.add(new HistoryEvent.ProduceOk(t, id, outcome.offset(), outcome.leaderEpoch()));
            } else {
                history.add(new HistoryEvent.ProduceFail(t, id, outcome.error().name()));
            }
        });
    }

    /** {@link #poll(TestConsumer, int, long)} of partition 0 with the default timeout. */
    public CompletableFuture<PollOutcome> poll(TestConsumer consumer) {
        return poll(consumer, 0, TestConsumer.POLL_TIMEOUT_MS);
    }

    /**
     * Polls once from the consumer's position and records the call, every record it returns and how
     * it ended, when the consumer sees them.
     */
    public CompletableFuture<PollOutcome> poll(TestConsumer consumer, int partition, long timeoutMs) {
        long id = nextPollId++;
        TestConsumer.PendingPoll pending = consumer.startPoll(topic, partition, timeoutMs);
        history.add(new HistoryEvent.PollInvoke(cluster.nowMs(), id, consumer.name(), partition, pending.position(),
                pending.broker(), timeoutMs));
        return pending.outcome().whenComplete((outcome, error) -> {
            long t = cluster.nowMs();
            if (outcome == null) {
                history.add(new HistoryEvent.PollDone(t, id, "UNKNOWN_SERVER_ERROR", 0, pending.position()));
                return;
            }
            for (ConsumedRecord r : outcome.textRecords()) {
                history.add(new HistoryEvent.Consume(t, id, consumer.name(), partition, r.offset(),
                        HistoryValues.digest(r.value())));
            }
            history.add(new HistoryEvent.PollDone(t, id, outcome.outcomeName(), outcome.records().size(),
                    outcome.nextPosition()));
        });
    }

    /**
     * Samples every broker's state of every partition and the controller's registrations, writing
     * what changed since the previous sample.
     */
    public void sample() {
        long t = cluster.nowMs();
        List<Integer> brokerIds = cluster.brokerIds();
        for (int p = 0; p < partitions; p++) {
            TopicPartition tp = topicPartitions[p];
            for (int b : brokerIds) {
                long key = key(p, b);
                HistoryEvent.Sample s = sampleOf(t, b, tp, lastSamples.get(key));
                if (s != null) {
                    lastSamples.put(key, s);
                    history.add(s);
                }
            }
        }
        sampleController(t);
    }

    /**
     * Writes what the controller committed since the previous sample, in the order of its
     * metadata log: each delta's partition registrations of this topic, then its broker
     * registrations (so a registration's effect on the ISRs and ELRs, LDR-5, is written just
     * before it).
     */
    private void sampleController(long t) {
        if (cluster.controller().latestOffset() == lastMetadataOffset) {
            return;
        }
        // Read from the committed metadata log itself, whatever the controller process is doing.
        for (MetadataDelta delta : cluster.controller().deltasAfter(lastMetadataOffset)) {
            for (PartitionRegistration r : delta.partitions()) {
                if (!r.topicPartition().topic().equals(topic)) {
                    continue;
                }
                int p = r.topicPartition().partition();
                PartitionRegistration before = lastPartitions.put(p, r);
                // ISR-8: an unclean election makes a leader that was in neither the ISR nor the ELR.
                boolean unclean = before != null && r.leader() != PartitionRegistration.NO_LEADER
                        && r.leader() != before.leader() && !before.isr().contains(r.leader())
                        && !before.elr().contains(r.leader());
                history.add(new HistoryEvent.ControllerState(t, p, r.leader(), r.leaderEpoch(), r.partitionEpoch(),
                        r.isr(), r.elr(), r.lastKnownElr(), r.recovering(), unclean));
            }
            for (BrokerRegistration b : delta.brokers()) {
                history.add(new HistoryEvent.Broker(t, b.brokerId(), b.brokerEpoch(), b.fenced(), b.inControlledShutdown()));
            }
            lastMetadataOffset = delta.offset();
        }
    }

    private static long key(int partition, int broker) {
        return ((long) partition << 32) | (broker & 0xFFFFFFFFL);
    }

    /** The broker's state of {@code tp} now, or null if it is the same as {@code last} (then nothing is built). */
    private HistoryEvent.Sample sampleOf(long t, int broker, TopicPartition tp, HistoryEvent.Sample last) {
        int incarnation = cluster.admin().incarnation(broker);
        BrokerStatus status = cluster.broker(broker).status();
        if (status == BrokerStatus.DOWN) {
            return sameAbsence(last, incarnation, HistoryEvent.DOWN) ? null
                    : HistoryEvent.Sample.absence(t, broker, tp.partition(), incarnation, HistoryEvent.DOWN);
        }
        ClusterAdmin admin = cluster.admin();
        Optional<Partition> state = admin.partitionState(broker, tp);
        Optional<Log> log = admin.logOf(broker, tp);
        if (state.isEmpty() || log.isEmpty()) {
            return sameAbsence(last, incarnation, HistoryEvent.ABSENT) ? null
                    : HistoryEvent.Sample.absence(t, broker, tp.partition(), incarnation, HistoryEvent.ABSENT);
        }
        Partition part = state.get();
        boolean leader = part.isLeader();
        String sampleStatus = status == BrokerStatus.PAUSED ? HistoryEvent.PAUSED : HistoryEvent.RUNNING;
        List<EpochEntry> entries = log.get().leaderEpochCache().epochEntries();
        List<Integer> isr = leader ? part.isrState().maximalIsr() : List.of();
        if (last != null && last.incarnation() == incarnation && last.status().equals(sampleStatus)
                && last.leader() == leader && last.leaderEpoch() == part.leaderEpoch()
                && last.hw() == part.highWatermark() && last.leo() == part.logEndOffset()
                && last.logStart() == log.get().logStartOffset() && last.isr().equals(isr)
                && sameEpochs(last.epochs(), entries)) {
            return null;
        }
        return new HistoryEvent.Sample(t, broker, tp.partition(), incarnation, sampleStatus, leader, part.leaderEpoch(),
                isr, part.highWatermark(), part.logEndOffset(), log.get().logStartOffset(),
                HistoryEvent.EpochStart.of(entries));
    }

    private static boolean sameAbsence(HistoryEvent.Sample last, int incarnation, String status) {
        return last != null && last.incarnation() == incarnation && last.status().equals(status);
    }

    private static boolean sameEpochs(List<HistoryEvent.EpochStart> sampled, List<EpochEntry> now) {
        if (sampled.size() != now.size()) {
            return false;
        }
        for (int i = 0; i < now.size(); i++) {
            if (sampled.get(i).epoch() != now.get(i).epoch() || sampled.get(i).startOffset() != now.get(i).startOffset()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Samples once more, then records every broker's final HW, LEO, log start and log of every
     * partition; every broker must be running.
     */
    public void finals() {
        sample();
        for (int p = 0; p < partitions; p++) {
            for (int b : cluster.brokerIds()) {
                List<HistoryEvent.LogEntry> log = new ArrayList<>();
                for (ConsumedRecord r : cluster.admin().records(b, topic, p)) {
                    log.add(new HistoryEvent.LogEntry(r.offset(), r.leaderEpoch(), HistoryValues.digest(r.value())));
                }
                Log l = cluster.admin().logOf(b, topic, p).orElseThrow();
                history.add(new HistoryEvent.Final(b, p, l.highWatermark(), l.logEndOffset(), l.logStartOffset(), log));
            }
        }
    }
}
