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

package dev.insync.replication.core.metadata.follower;

import dev.insync.replication.core.metadata.BrokerRegistration;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.TopicPartition;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Collections;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The whole cluster metadata as of {@code offset} (CTL-5): what a broker loads instead of deltas
 * when the log it would need is gone (snapshotted away, or too far behind). Loading it is a full
 * replace: a partition the broker knew that is not in the image is removed from the broker.
 *
 * @param offset                   the metadata offset the image is at
 * @param brokers                  every broker registration
 * @param partitions               every partition
 * @param minInsyncReplicasByTopic {@code min.insync.replicas} of every topic
 * @param topicIds                 the id of every topic that has one
 */
public record MetadataImage(long offset, List<BrokerRegistration> brokers, List<PartitionRegistration> partitions,
                            Map<String, Integer> minInsyncReplicasByTopic, Map<String, UUID> topicIds) {

    /** Immutable copies. */
    public MetadataImage {
        if (offset < -1) {
            throw new IllegalArgumentException("Metadata image offset must be >= -1, got " + offset);
        }
        brokers = List.copyOf(brokers);
        partitions = List.copyOf(partitions);
        // Sorted by topic: applied in iteration order, which Map.copyOf randomizes per JVM (INV-6).
        minInsyncReplicasByTopic = Collections.unmodifiableMap(new TreeMap<>(minInsyncReplicasByTopic));
        topicIds = Collections.unmodifiableMap(new TreeMap<>(topicIds));
    }

    /** An image that names no topic ids. */
    public MetadataImage(long offset, List<BrokerRegistration> brokers, List<PartitionRegistration> partitions,
                         Map<String, Integer> minInsyncReplicasByTopic) {
        this(offset, brokers, partitions, minInsyncReplicasByTopic, Map.of());
    }

    /**
     * The delta that turns a broker's metadata into this image: everything in it, plus the removal of
     * every partition in {@code known} that the image lacks.
     */
    public MetadataDelta asDeltaReplacing(Set<TopicPartition> known) {
        Set<TopicPartition> kept = new HashSet<>();
        partitions.forEach(p -> kept.add(p.topicPartition()));
        List<TopicPartition> deleted = new ArrayList<>();
        for (TopicPartition tp : known) {
            if (!kept.contains(tp)) {
                deleted.add(tp);
            }
        }
        return new MetadataDelta(offset, brokers, partitions, deleted, minInsyncReplicasByTopic, topicIds);
    }
}
