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

package dev.insync.replication.controller.state;

import dev.insync.replication.controller.log.MetadataBatch;
import dev.insync.replication.controller.log.MetadataSnapshot;
import dev.insync.replication.controller.record.BrokerShutdownRecord;
import dev.insync.replication.controller.record.ConfigRecord;
import dev.insync.replication.controller.record.FenceBrokerRecord;
import dev.insync.replication.controller.record.MetadataRecord;
import dev.insync.replication.controller.record.PartitionChangeRecord;
import dev.insync.replication.controller.record.PartitionRecord;
import dev.insync.replication.controller.record.RegisterBrokerRecord;
import dev.insync.replication.controller.record.RemoveTopicRecord;
import dev.insync.replication.controller.record.ReplicasOfflineRecord;
import dev.insync.replication.controller.record.TopicRecord;
import dev.insync.replication.controller.record.UnfenceBrokerRecord;
import dev.insync.replication.core.config.ReplicationConfig;
import dev.insync.replication.core.metadata.BrokerRegistration;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.metadata.follower.MetadataImage;
import dev.insync.replication.log.TopicPartition;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * The controller's state (CTL-1): brokers, topics with their configs, and partitions. It changes
 * only by {@link #replay replaying} records in offset order, so a state rebuilt from the log, or
 * {@link #load loaded} from a {@link #snapshot()} and then fed the tail, equals the live one
 * (compare {@link #canonicalDump()}). Operations read it through {@link ControllerView} and never
 * write it.
 *
 * <p>Not thread-safe: one owner (the controller's executor) uses it. After a
 * {@link MetadataReplayException} the state is unusable and every further call throws.
 */
public final class ControllerState implements ControllerView {

    private final TreeMap<Integer, BrokerEntry> brokers = new TreeMap<>();
    private final LinkedHashMap<String, TopicEntry> topics = new LinkedHashMap<>();
    private final LinkedHashMap<TopicPartition, PartitionRegistration> partitions = new LinkedHashMap<>();
    private long lastOffset = -1;
    private String failure;

    private final RecordApplier.Target target = new RecordApplier.Target() {
        @Override
        public void putBroker(BrokerEntry broker) {
            brokers.put(broker.brokerId(), broker);
        }

        @Override
        public void putTopic(TopicEntry topic) {
            topics.put(topic.name(), topic);
        }

        @Override
        public void putPartition(PartitionRegistration partition) {
            partitions.put(partition.topicPartition(), partition);
        }

        @Override
        public void removeTopic(TopicEntry topic) {
            topics.remove(topic.name());
            topic.topicPartitions().forEach(partitions::remove);
        }

        @Override
        public BrokerEntry broker(int brokerId) {
            return brokers.get(brokerId);
        }

        @Override
        public Collection<BrokerEntry> brokers() {
            return brokers.values();
        }

        @Override
        public TopicEntry topic(String name) {
            return topics.get(name);
        }

        @Override
        public Collection<TopicEntry> topics() {
            return topics.values();
        }

        @Override
        public PartitionRegistration partition(TopicPartition tp) {
            return partitions.get(tp);
        }

        @Override
        public Collection<PartitionRegistration> partitions() {
            return partitions.values();
        }

        @Override
        public long lastOffset() {
            return lastOffset;
        }
    };

    /** The empty state, before offset 0. */
    public ControllerState() {
    }

    // ----------------------------------------------------------------------------------- replay

    /**
     * Replays one record at {@code offset}, which must be {@link #nextOffset()}.
     *
     * @throws MetadataReplayException naming the offset if the record does not fit the state
     */
    public void replay(long offset, MetadataRecord record) {
        requireUsable();
        if (offset != lastOffset + 1) {
            throw fail("Metadata record at offset " + offset + " does not follow offset " + lastOffset, null);
        }
        try {
            RecordApplier.apply(target, offset, record, false);
        } catch (IllegalArgumentException e) {
            throw fail("Metadata record at offset " + offset + " (" + record.type() + ") does not fit the state: "
                    + e.getMessage(), e);
        }
        lastOffset = offset;
    }

    /**
     * Replays a whole batch and returns what brokers see of it: one delta at the batch's last
     * offset holding the final registration of every broker and partition it touched and the
     * {@code min.insync.replicas} values it set.
     *
     * @throws MetadataReplayException naming the offset if a record does not fit
     */
    public MetadataDelta replay(MetadataBatch batch) {
        Map<Integer, Boolean> touchedBrokers = new LinkedHashMap<>();
        Map<TopicPartition, Boolean> touchedPartitions = new LinkedHashMap<>();
        Map<String, Integer> minIsr = new LinkedHashMap<>();
        Set<String> createdTopics = new LinkedHashSet<>();
        Set<TopicPartition> deleted = new LinkedHashSet<>();
        long offset = batch.baseOffset();
        for (MetadataRecord record : batch.records()) {
            TopicEntry removed = record instanceof RemoveTopicRecord r ? topics.get(r.name()) : null;
            replay(offset++, record);
            switch (record.type()) {
                case REGISTER_BROKER -> touchedBrokers.put(((RegisterBrokerRecord) record).brokerId(), true);
                case FENCE_BROKER -> touchedBrokers.put(((FenceBrokerRecord) record).brokerId(), true);
                case UNFENCE_BROKER -> touchedBrokers.put(((UnfenceBrokerRecord) record).brokerId(), true);
                case BROKER_SHUTDOWN -> touchedBrokers.put(((BrokerShutdownRecord) record).brokerId(), true);
                case REPLICAS_OFFLINE -> touchedBrokers.put(((ReplicasOfflineRecord) record).brokerId(), true);
                case TOPIC -> createdTopics.add(((TopicRecord) record).name());
                case REMOVE_TOPIC -> {
                    createdTopics.remove(removed.name());
                    minIsr.remove(removed.name());
                    for (TopicPartition tp : removed.topicPartitions()) {
                        touchedPartitions.remove(tp);
                        deleted.add(tp);
                    }
                }
                case PARTITION -> touchedPartitions.put(((PartitionRecord) record).topicPartition(), true);
                case PARTITION_CHANGE -> touchedPartitions.put(((PartitionChangeRecord) record).topicPartition(), true);
                case CONFIG -> {
                    ConfigRecord config = (ConfigRecord) record;
                    if (config.name().equals(ReplicationConfig.MIN_INSYNC_REPLICAS)) {
                        minIsr.put(config.topic(), config.intValue());
                    }
                }
                default -> throw new IllegalStateException("No delta rule for " + record.type());
            }
        }
        for (String topic : createdTopics) {
            TopicEntry entry = topics.get(topic);
            for (int p = 0; p < entry.partitionCount(); p++) {
                if (!partitions.containsKey(new TopicPartition(topic, p))) {
                    throw fail("Batch at offsets " + batch.baseOffset() + ".." + batch.lastOffset() + " creates topic "
                            + topic + " without its partition " + p, null);
                }
            }
        }
        List<BrokerRegistration> changedBrokers = new ArrayList<>();
        touchedBrokers.keySet().forEach(id -> changedBrokers.add(brokers.get(id).registration()));
        List<PartitionRegistration> changedPartitions = new ArrayList<>();
        touchedPartitions.keySet().forEach(tp -> changedPartitions.add(partitions.get(tp)));
        deleted.removeAll(touchedPartitions.keySet()); // deleted, then created again in the same batch
        Map<String, UUID> topicIds = new LinkedHashMap<>();
        createdTopics.forEach(topic -> topicIds.put(topic, topics.get(topic).topicId()));
        return new MetadataDelta(batch.lastOffset(), changedBrokers, changedPartitions, List.copyOf(deleted), minIsr,
                topicIds);
    }

    // ----------------------------------------------------------------------------------- snapshots

    /** A deep copy (for the active controller's speculative state). */
    public ControllerState copy() {
        requireUsable();
        ControllerState copy = new ControllerState();
        copy.brokers.putAll(brokers);
        copy.topics.putAll(topics);
        copy.partitions.putAll(partitions);
        copy.lastOffset = lastOffset;
        return copy;
    }

    /**
     * The records that rebuild this state at {@link #lastOffset()}: per broker its registration with
     * its current flags and endpoints (and its offline replicas), then per topic its record, configs and
     * partitions in their current state.
     */
    public MetadataSnapshot snapshot() {
        requireUsable();
        List<MetadataRecord> records = new ArrayList<>();
        for (BrokerEntry b : brokers.values()) {
            records.add(new RegisterBrokerRecord(b.brokerId(), b.brokerEpoch(), b.previousBrokerEpoch(), b.uncleanRestart(),
                    b.fenced(), b.inControlledShutdown(), b.everUnfenced(), b.endpoints()));
            if (!b.offlineReplicas().isEmpty()) {
                records.add(new ReplicasOfflineRecord(b.brokerId(), b.brokerEpoch(), b.offlineReplicas()));
            }
        }
        for (TopicEntry t : topics.values()) {
            records.add(new TopicRecord(t.name(), t.partitionCount(), t.topicId()));
            records.add(ConfigRecord.minInsyncReplicas(t.name(), t.minInsyncReplicas()));
            records.add(ConfigRecord.uncleanLeaderElection(t.name(), t.uncleanLeaderElection()));
            for (int p = 0; p < t.partitionCount(); p++) {
                records.add(PartitionRecord.of(partitions.get(new TopicPartition(t.name(), p))));
            }
        }
        return new MetadataSnapshot(lastOffset, records);
    }

    /**
     * The state {@code snapshot} describes.
     *
     * @throws MetadataReplayException naming the entry if the snapshot is not a consistent state
     */
    public static ControllerState load(MetadataSnapshot snapshot) {
        ControllerState state = new ControllerState();
        int index = 0;
        for (MetadataRecord record : snapshot.records()) {
            try {
                RecordApplier.apply(state.target, snapshot.lastOffset(), record, true);
            } catch (IllegalArgumentException e) {
                throw new MetadataReplayException("Snapshot at offset " + snapshot.lastOffset() + ", entry " + index + " ("
                        + record.type() + "): " + e.getMessage(), e);
            }
            index++;
        }
        for (TopicEntry t : state.topics.values()) {
            for (int p = 0; p < t.partitionCount(); p++) {
                if (!state.partitions.containsKey(new TopicPartition(t.name(), p))) {
                    throw new MetadataReplayException("Snapshot at offset " + snapshot.lastOffset() + " lacks partition "
                            + p + " of topic " + t.name());
                }
            }
        }
        state.lastOffset = snapshot.lastOffset();
        return state;
    }

    /** What a broker needs of this state to replace its metadata wholesale (CTL-5). */
    public MetadataImage image() {
        requireUsable();
        Map<String, Integer> minIsr = new LinkedHashMap<>();
        Map<String, UUID> topicIds = new LinkedHashMap<>();
        topics.values().forEach(t -> {
            minIsr.put(t.name(), t.minInsyncReplicas());
            topicIds.put(t.name(), t.topicId());
        });
        return new MetadataImage(lastOffset, brokers.values().stream().map(BrokerEntry::registration).toList(),
                List.copyOf(partitions.values()), minIsr, topicIds);
    }

    // ----------------------------------------------------------------------------------- views

    @Override
    public BrokerEntry broker(int brokerId) {
        requireUsable();
        return brokers.get(brokerId);
    }

    @Override
    public Collection<BrokerEntry> brokers() {
        requireUsable();
        return Collections.unmodifiableCollection(brokers.values());
    }

    @Override
    public TopicEntry topic(String name) {
        requireUsable();
        return topics.get(name);
    }

    @Override
    public Collection<TopicEntry> topics() {
        requireUsable();
        return Collections.unmodifiableCollection(topics.values());
    }

    @Override
    public PartitionRegistration partition(TopicPartition tp) {
        requireUsable();
        return partitions.get(tp);
    }

    @Override
    public Collection<PartitionRegistration> partitions() {
        requireUsable();
        return Collections.unmodifiableCollection(partitions.values());
    }

    @Override
    public long lastOffset() {
        return lastOffset;
    }

    /** The partitions of {@code topic} by index (empty for an unknown topic). */
    public List<PartitionRegistration> partitionsOf(String topic) {
        TopicEntry entry = topic(topic);
        if (entry == null) {
            return List.of();
        }
        List<PartitionRegistration> result = new ArrayList<>(entry.partitionCount());
        for (int p = 0; p < entry.partitionCount(); p++) {
            result.add(partitions.get(new TopicPartition(topic, p)));
        }
        return result;
    }

    /**
     * Every fact of the state, one per line, in iteration order (brokers by id, topics in creation
     * order, partitions as operations walk them): equal dumps mean equal states (CTL-1).
     */
    public String canonicalDump() {
        requireUsable();
        StringBuilder out = new StringBuilder("lastOffset=").append(lastOffset).append('\n');
        brokers.values().forEach(b -> out.append(b).append('\n'));
        // Iteration order is part of the state: operations walk partitions in it.
        topics.values().forEach(t -> out.append(t).append('\n'));
        partitions.values().forEach(p -> out.append(p).append('\n'));
        return out.toString();
    }

    /**
     * One line per partition of {@code topic} in {@code kafka-topics.sh --describe}'s shape, tab
     * separated, lines joined by {@code \n}; see {@link #describeLine}.
     */
    public String describe(String topic) {
        return partitionsOf(topic).stream().map(ControllerState::describeLine).collect(Collectors.joining("\n"));
    }

    /**
     * {@code Topic: rep\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2,3\tElr: \tLastKnownElr: }
     * ({@code Leader: none} without a leader).
     */
    public static String describeLine(PartitionRegistration p) {
        return "Topic: " + p.topicPartition().topic()
                + "\tPartition: " + p.topicPartition().partition()
                + "\tLeader: " + (p.leader() == PartitionRegistration.NO_LEADER ? "none" : Integer.toString(p.leader()))
                + "\tReplicas: " + joined(p.replicas())
                + "\tIsr: " + joined(p.isr())
                + "\tElr: " + joined(p.elr())
                + "\tLastKnownElr: " + joined(p.lastKnownElr());
    }

    /** {@link #describe} with runs of whitespace collapsed to one space, as the seed quotes it. */
    public static String compact(String described) {
        return described.lines().map(line -> line.replaceAll("\\s+", " ").strip()).collect(Collectors.joining("\n"));
    }

    private static String joined(List<Integer> ids) {
        return ids.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    private void requireUsable() {
        if (failure != null) {
            throw new IllegalStateException("Controller state is unusable after a replay failure: " + failure);
        }
    }

    private MetadataReplayException fail(String message, Throwable cause) {
        failure = message;
        return new MetadataReplayException(message, cause);
    }
}
