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

package dev.insync.replication.testkit.controller;

import dev.insync.replication.controller.log.InMemoryMetadataLog;
import dev.insync.replication.controller.log.LeaderAndEpoch;
import dev.insync.replication.controller.log.MetadataBatch;
import dev.insync.replication.controller.log.MetadataLog;
import dev.insync.replication.controller.log.MetadataSnapshot;
import dev.insync.replication.controller.record.MetadataRecord;
import dev.insync.replication.controller.record.PartitionChangeRecord;
import dev.insync.replication.controller.record.PartitionRecord;
import dev.insync.replication.controller.record.RemoveTopicRecord;
import dev.insync.replication.controller.state.BrokerEntry;
import dev.insync.replication.controller.state.ControllerState;
import dev.insync.replication.controller.state.TopicEntry;
import dev.insync.replication.core.metadata.BrokerRegistration;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.TopicPartition;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.UUID;

/**
 * What the controller committed, read from the metadata log itself as a Raft observer reads it
 * (KRaft brokers observe {@code __cluster_metadata} the same way): this object registers with the
 * {@link InMemoryMetadataLog} under its own node id, replays every committed batch into a
 * {@link ControllerState} of its own, and keeps each batch's {@link MetadataDelta} and every
 * registration each partition went through. It does not depend on the controller process: while
 * the controller is down or paused it still answers with everything committed before.
 *
 * <p>Commits are delivered synchronously, so a read right after an operation's commit sees it.
 * Thread-safe (the real-time cluster reads it from test threads).
 */
public final class CommittedMetadata implements MetadataLog.Listener {

    /** The observer's node id in the metadata log (not a controller: it is never elected). */
    public static final int OBSERVER_NODE_ID = 1_000_000;
    /** Bound on the deltas kept for {@link #deltasAfter}; the oldest are dropped beyond it. */
    public static final int MAX_DELTAS = 1_000_000;

    private ControllerState state = new ControllerState();
    private final TreeMap<Long, MetadataDelta> deltas = new TreeMap<>();
    private final Map<TopicPartition, List<PartitionRegistration>> history = new HashMap<>();
    private LeaderAndEpoch leader = LeaderAndEpoch.NONE;

    private CommittedMetadata() {
    }

    /** Observes {@code log} from now on (its snapshot and committed batches are replayed at once). */
    public static CommittedMetadata observe(InMemoryMetadataLog log) {
        CommittedMetadata observer = new CommittedMetadata();
        log.forNode(OBSERVER_NODE_ID).register(observer, Runnable::run);
        return observer;
    }

    // ------------------------------------------------------------------------------ the log

    @Override
    public synchronized void handleSnapshot(MetadataSnapshot snapshot) {
        state = ControllerState.load(snapshot);
        history.clear();
        state.partitions().forEach(p -> history.computeIfAbsent(p.topicPartition(), tp -> new ArrayList<>()).add(p));
    }

    @Override
    public synchronized void handleCommit(MetadataBatch batch) {
        // Every partition registration in record order (one operation may change a partition twice),
        // then the batch's delta: what brokers see of it.
        for (MetadataRecord record : batch.records()) {
            if (record instanceof RemoveTopicRecord removed) {
                // A topic created later under the name starts a history of its own.
                history.keySet().removeIf(tp -> tp.topic().equals(removed.name()));
            } else if (record instanceof PartitionRecord created) {
                history.computeIfAbsent(created.topicPartition(), tp -> new ArrayList<>()).add(created.toRegistration());
            } else if (record instanceof PartitionChangeRecord change) {
                List<PartitionRegistration> seen = history.get(change.topicPartition());
                seen.add(change.applyTo(seen.get(seen.size() - 1)));
            }
        }
        deltas.put(batch.lastOffset(), state.replay(batch));
        while (deltas.size() > MAX_DELTAS) {
            deltas.pollFirstEntry();
        }
    }

    @Override
    public synchronized void handleLeaderChange(LeaderAndEpoch newLeader) {
        leader = newLeader;
    }

    // ------------------------------------------------------------------------------ reads

    /** The current registration of {@code tp}, if the partition exists. */
    public synchronized Optional<PartitionRegistration> partition(TopicPartition tp) {
        return Optional.ofNullable(state.partition(tp));
    }

    /** Every registration {@code tp} has had, oldest first (creation included). */
    public synchronized List<PartitionRegistration> history(TopicPartition tp) {
        return List.copyOf(history.getOrDefault(tp, List.of()));
    }

    /** The partition epochs {@code tp} went through, e.g. {@code [0, 1, 2]} in SCN-1. */
    public synchronized List<Integer> partitionEpochs(TopicPartition tp) {
        return history(tp).stream().map(PartitionRegistration::partitionEpoch).toList();
    }

    /** The current registration of {@code brokerId}, if it ever registered. */
    public synchronized Optional<BrokerRegistration> broker(int brokerId) {
        return Optional.ofNullable(state.broker(brokerId)).map(BrokerEntry::registration);
    }

    /** The controller's whole entry of {@code brokerId} (unclean verdict, offline replicas ...), if it ever registered. */
    public synchronized Optional<BrokerEntry> brokerEntry(int brokerId) {
        return Optional.ofNullable(state.broker(brokerId));
    }

    /**
     * Current {@code min.insync.replicas} of {@code topic}.
     *
     * @throws IllegalArgumentException for an unknown topic
     */
    public synchronized int minInsyncReplicas(String topic) {
        return topic(topic).minInsyncReplicas();
    }

    /** Whether {@code topic} exists. */
    public synchronized boolean hasTopic(String topic) {
        return state.topic(topic) != null;
    }

    /** The id of {@code topic}, if it exists. */
    public synchronized Optional<UUID> topicId(String topic) {
        return Optional.ofNullable(state.topic(topic)).map(TopicEntry::topicId);
    }

    /** Offset of the last committed record, -1 before the first. */
    public synchronized long latestOffset() {
        return state.lastOffset();
    }

    /** The delta of every committed batch still kept (see {@link #MAX_DELTAS}), in offset order. */
    public synchronized List<MetadataDelta> metadataLog() {
        return List.copyOf(deltas.values());
    }

    /** The deltas of the batches committed after {@code offset}, in offset order. */
    public synchronized List<MetadataDelta> deltasAfter(long offset) {
        return List.copyOf(deltas.tailMap(offset, false).values());
    }

    /** The metadata log's current leader (the active controller node), if any. */
    public synchronized OptionalInt leader() {
        return leader.leaderId();
    }

    /**
     * One line per partition in {@code kafka-topics.sh --describe}'s shape, tab separated:
     * {@code Topic: rep\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2,3\tElr: \tLastKnownElr: }
     * ({@code Leader: none} without a leader), lines joined by {@code \n}.
     *
     * @throws IllegalArgumentException for an unknown topic
     */
    public synchronized String describe(String topic) {
        topic(topic);
        return state.describe(topic);
    }

    /**
     * {@link #describe} with each run of whitespace collapsed to one space and trailing space
     * removed: the form the seed quotes, e.g.
     * {@code Topic: strict Partition: 0 Leader: 1 Replicas: 1,2,3 Isr: 1,2 Elr: 3 LastKnownElr:}.
     */
    public synchronized String describeCompact(String topic) {
        return ControllerState.compact(describe(topic));
    }

    private TopicEntry topic(String topic) {
        TopicEntry entry = state.topic(topic);
        if (entry == null) {
            throw new IllegalArgumentException("Unknown topic " + topic);
        }
        return entry;
    }
}
