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

import dev.insync.replication.controller.record.MetadataRecord;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.TopicPartition;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The records an operation has decided so far, and the state as it will be once they are
 * replayed: the operation reads its own decisions back through this view (a broker fenced by the
 * first record is not elected by the next). Records are applied to an overlay with the replay
 * rules themselves, so the view cannot drift from what replay will produce; the base state is
 * never written.
 */
public final class ChangeSet implements ControllerView {

    private final ControllerView base;
    private final Map<Integer, BrokerEntry> brokers = new HashMap<>();
    private final LinkedHashMap<String, TopicEntry> topics = new LinkedHashMap<>();
    private final LinkedHashMap<TopicPartition, PartitionRegistration> partitions = new LinkedHashMap<>();
    /** Topics and partitions of the base that a record removed (one created again is in the maps above too). */
    private final Set<String> removedTopics = new HashSet<>();
    private final Set<TopicPartition> removedPartitions = new HashSet<>();
    private final List<MetadataRecord> records = new ArrayList<>();

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
            removedTopics.add(topic.name());
            List<TopicPartition> gone = topic.topicPartitions();
            gone.forEach(partitions::remove);
            removedPartitions.addAll(gone);
        }

        @Override
        public BrokerEntry broker(int brokerId) {
            return ChangeSet.this.broker(brokerId);
        }

        @Override
        public Collection<BrokerEntry> brokers() {
            return ChangeSet.this.brokers();
        }

        @Override
        public TopicEntry topic(String name) {
            return ChangeSet.this.topic(name);
        }

        @Override
        public Collection<TopicEntry> topics() {
            return ChangeSet.this.topics();
        }

        @Override
        public PartitionRegistration partition(TopicPartition tp) {
            return ChangeSet.this.partition(tp);
        }

        @Override
        public Collection<PartitionRegistration> partitions() {
            return ChangeSet.this.partitions();
        }

        @Override
        public long lastOffset() {
            return ChangeSet.this.lastOffset();
        }
    };

    /** An empty change set over {@code base}. */
    public ChangeSet(ControllerView base) {
        this.base = Objects.requireNonNull(base, "base");
    }

    /**
     * Adds {@code record} at {@link #nextOffset()}.
     *
     * @throws IllegalStateException if it does not fit (a bug in the operation that made it)
     */
    public void append(MetadataRecord record) {
        try {
            RecordApplier.apply(target, nextOffset(), record, false);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("An operation produced a record that does not fit the state at offset "
                    + nextOffset() + ": " + e.getMessage(), e);
        }
        records.add(record);
    }

    /** The records so far, in order. */
    public List<MetadataRecord> records() {
        return List.copyOf(records);
    }

    /** Whether no record was added. */
    public boolean isEmpty() {
        return records.isEmpty();
    }

    @Override
    public BrokerEntry broker(int brokerId) {
        BrokerEntry changed = brokers.get(brokerId);
        return changed != null ? changed : base.broker(brokerId);
    }

    @Override
    public Collection<BrokerEntry> brokers() {
        if (brokers.isEmpty()) {
            return base.brokers();
        }
        TreeMap<Integer, BrokerEntry> all = new TreeMap<>();
        base.brokers().forEach(b -> all.put(b.brokerId(), b));
        all.putAll(brokers);
        return all.values();
    }

    @Override
    public TopicEntry topic(String name) {
        TopicEntry changed = topics.get(name);
        if (changed != null) {
            return changed;
        }
        return removedTopics.contains(name) ? null : base.topic(name);
    }

    @Override
    public Collection<TopicEntry> topics() {
        if (topics.isEmpty() && removedTopics.isEmpty()) {
            return base.topics();
        }
        // In replay's order: a changed topic keeps its place, one removed and created again comes last.
        LinkedHashMap<String, TopicEntry> all = new LinkedHashMap<>();
        base.topics().forEach(t -> all.put(t.name(), t));
        removedTopics.forEach(all::remove);
        all.putAll(topics);
        return all.values();
    }

    @Override
    public PartitionRegistration partition(TopicPartition tp) {
        PartitionRegistration changed = partitions.get(tp);
        if (changed != null) {
            return changed;
        }
        return removedPartitions.contains(tp) ? null : base.partition(tp);
    }

    @Override
    public Collection<PartitionRegistration> partitions() {
        if (partitions.isEmpty() && removedPartitions.isEmpty()) {
            return base.partitions();
        }
        LinkedHashMap<TopicPartition, PartitionRegistration> all = new LinkedHashMap<>();
        base.partitions().forEach(p -> all.put(p.topicPartition(), p));
        removedPartitions.forEach(all::remove);
        all.putAll(partitions);
        return all.values();
    }

    @Override
    public long lastOffset() {
        return base.lastOffset() + records.size();
    }
}
