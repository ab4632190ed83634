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

package dev.insync.replication.netty.server;

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.netty.protocol.BrokerEndpoint;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What the Metadata api answers from: the broker's current view of the cluster. The broker's
 * metadata image implements it (later); {@link #of} is a fixed snapshot for tests and embedders.
 * Implementations are thread-safe; each call sees one consistent state of what it returns.
 */
public interface MetadataView {

    /** The brokers' endpoints. */
    List<BrokerEndpoint> brokers();

    /** The active controller's id, -1 if unknown. */
    int controllerId();

    /** Every known topic. */
    Collection<String> topicNames();

    /** A topic's partitions in partition order; empty if the topic is unknown. */
    List<PartitionRegistration> partitions(String topic);

    /** A fixed view of these brokers and partitions. */
    static MetadataView of(List<BrokerEndpoint> brokers, int controllerId, Collection<PartitionRegistration> partitions) {
        List<BrokerEndpoint> b = List.copyOf(brokers);
        Map<String, List<PartitionRegistration>> byTopic = partitions.stream()
                .sorted(Comparator.comparingInt(p -> p.topicPartition().partition()))
                .collect(Collectors.groupingBy(p -> p.topicPartition().topic(), TreeMap::new, Collectors.toList()));
        return new MetadataView() {
            @Override
            public List<BrokerEndpoint> brokers() {
                return b;
            }

            @Override
            public int controllerId() {
                return controllerId;
            }

            @Override
            public Collection<String> topicNames() {
                return byTopic.keySet();
            }

            @Override
            public List<PartitionRegistration> partitions(String topic) {
                return byTopic.getOrDefault(topic, List.of());
            }
        };
    }
}
