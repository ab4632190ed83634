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

package dev.insync.replication.core.metadata;

import dev.insync.replication.log.TopicPartition;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Collections;
import java.util.TreeMap;
import java.util.UUID;

/**
 * A batch of metadata changes published by the controller, applied by each broker in offset order
 * ({@code ReplicaManager.applyMetadataDelta}). Build one with {@link #builder(long)}:
 *
 * <pre>{@code
 * MetadataDelta delta = MetadataDelta.builder(offset).broker(registration).partition(partition)
 *         .minInsyncReplicas("orders", 2).build();
 * }</pre>
 *
 * @param offset                  position in the controller's metadata log, strictly increasing
 * @param brokers                 changed broker registrations
 * @param partitions              changed partition registrations
 * @param deletedPartitions       partitions removed
 * @param minInsyncReplicasByTopic changed {@code min.insync.replicas} per topic
 * @param topicIds                the ids of topics created (Kafka's topic ids): a broker that holds a
 *                                log of the name under another id deletes it as a deleted topic's
 */
public record MetadataDelta(long offset, List<BrokerRegistration> brokers, List<PartitionRegistration> partitions,
                            List<TopicPartition> deletedPartitions, Map<String, Integer> minInsyncReplicasByTopic,
                            Map<String, UUID> topicIds) {

    /** Immutable copies. */
    public MetadataDelta {
        brokers = List.copyOf(brokers);
        partitions = List.copyOf(partitions);
        deletedPartitions = List.copyOf(deletedPartitions);
        // Sorted by topic: applied in iteration order, which Map.copyOf randomizes per JVM (INV-6).
        minInsyncReplicasByTopic = Collections.unmodifiableMap(new TreeMap<>(minInsyncReplicasByTopic));
        topicIds = Collections.unmodifiableMap(new TreeMap<>(topicIds));
    }

    /** A delta that names no topic ids (its topics are known to brokers by name alone). */
    public MetadataDelta(long offset, List<BrokerRegistration> brokers, List<PartitionRegistration> partitions,
                         List<TopicPartition> deletedPartitions, Map<String, Integer> minInsyncReplicasByTopic) {
        this(offset, brokers, partitions, deletedPartitions, minInsyncReplicasByTopic, Map.of());
    }

    /** A builder of the delta at {@code offset} in the controller's metadata log; it starts empty. */
    public static Builder builder(long offset) {
        return new Builder(offset);
    }

    /** Builds a {@link MetadataDelta}; lists keep the order of the calls. */
    public static final class Builder {
        private final long offset;
        private final List<BrokerRegistration> brokers = new ArrayList<>();
        private final List<PartitionRegistration> partitions = new ArrayList<>();
        private final List<TopicPartition> deletedPartitions = new ArrayList<>();
        private final Map<String, Integer> minInsyncReplicasByTopic = new LinkedHashMap<>();
        private final Map<String, UUID> topicIds = new LinkedHashMap<>();

        private Builder(long offset) {
            this.offset = offset;
        }

        /** A changed broker registration. */
        public Builder broker(BrokerRegistration registration) {
            brokers.add(Objects.requireNonNull(registration, "registration"));
            return this;
        }

        /** A changed partition registration. */
        public Builder partition(PartitionRegistration registration) {
            partitions.add(Objects.requireNonNull(registration, "registration"));
            return this;
        }

        /** A partition removed (its topic deleted, or the partition reassigned away from everyone). */
        public Builder deletedPartition(TopicPartition tp) {
            deletedPartitions.add(Objects.requireNonNull(tp, "tp"));
            return this;
        }

        /** A topic's changed {@code min.insync.replicas}. */
        public Builder minInsyncReplicas(String topic, int value) {
            minInsyncReplicasByTopic.put(Objects.requireNonNull(topic, "topic"), value);
            return this;
        }

        /** The id of a topic created in this delta. */
        public Builder topicId(String topic, UUID id) {
            topicIds.put(Objects.requireNonNull(topic, "topic"), Objects.requireNonNull(id, "id"));
            return this;
        }

        /** The delta. */
        public MetadataDelta build() {
            return new MetadataDelta(offset, brokers, partitions, deletedPartitions, minInsyncReplicasByTopic, topicIds);
        }
    }
}
