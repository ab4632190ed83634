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

package dev.insync.replication.broker;

import dev.insync.replication.core.metadata.BrokerRegistration;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.metadata.follower.MetadataFollower;
import dev.insync.replication.core.metadata.follower.MetadataImage;
import dev.insync.replication.log.TopicPartition;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * What a broker answers client Metadata requests from (topics, partitions, leaders, epochs, ISR,
 * ELR: what {@code kafka-topics --describe} prints): the cluster metadata this broker has applied,
 * read from its {@link MetadataFollower}'s image, so it is exactly what the broker acts on. Before
 * the initial load it is empty at offset -1. Thread-safe; every call sees one consistent image.
 * A network binding adapts it to its wire format (replication-netty's {@code MetadataView}), listing
 * each broker at the endpoints its registration carries ({@link BrokerRegistration#endpoints()}, LDR-4).
 */
public final class BrokerMetadataView {

    private final Supplier<MetadataImage> images;
    private final Supplier<OptionalInt> activeController;
    private volatile Indexed indexed;

    /** An index over one image, built once per image. */
    private record Indexed(MetadataImage image, Map<String, List<PartitionRegistration>> byTopic,
                           Map<Integer, BrokerRegistration> brokers) {

        static Indexed of(MetadataImage image) {
            Map<String, List<PartitionRegistration>> byTopic = new TreeMap<>();
            for (PartitionRegistration p : image.partitions()) {
                byTopic.computeIfAbsent(p.topicPartition().topic(), t -> new ArrayList<>()).add(p);
            }
            byTopic.replaceAll((topic, list) -> list.stream()
                    .sorted(Comparator.comparingInt(p -> p.topicPartition().partition())).toList());
            Map<Integer, BrokerRegistration> brokers = new TreeMap<>();
            image.brokers().forEach(b -> brokers.put(b.brokerId(), b));
            return new Indexed(image, Collections.unmodifiableMap(byTopic), Collections.unmodifiableMap(brokers));
        }
    }

    /**
     * @param images           the current image (e.g. {@code follower::image})
     * @param activeController the active controller as the broker's controller client last learned it
     */
    public BrokerMetadataView(Supplier<MetadataImage> images, Supplier<OptionalInt> activeController) {
        this.images = Objects.requireNonNull(images, "images");
        this.activeController = Objects.requireNonNull(activeController, "activeController");
    }

    private Indexed current() {
        MetadataImage image = images.get();
        Indexed i = indexed;
        if (i == null || i.image != image) {
            i = Indexed.of(image);
            indexed = i;
        }
        return i;
    }

    /** The whole image (brokers, partitions, {@code min.insync.replicas} per topic) at {@link #offset()}. */
    public MetadataImage image() {
        return current().image;
    }

    /** The metadata offset the view is at, -1 before the initial load. */
    public long offset() {
        return current().image.offset();
    }

    /** Every broker registration, by id. */
    public List<BrokerRegistration> brokers() {
        return List.copyOf(current().brokers.values());
    }

    /** One broker's registration, if known. */
    public Optional<BrokerRegistration> broker(int brokerId) {
        return Optional.ofNullable(current().brokers.get(brokerId));
    }

    /** The active controller's node id as last learned by this broker's controller client, if known. */
    public OptionalInt activeController() {
        return activeController.get();
    }

    /** Every known topic, sorted. */
    public SortedSet<String> topicNames() {
        return Collections.unmodifiableSortedSet(new TreeSet<>(current().byTopic.keySet()));
    }

    /** A topic's partitions in partition order; empty if the topic is unknown. */
    public List<PartitionRegistration> partitions(String topic) {
        return current().byTopic.getOrDefault(topic, List.of());
    }

    /** One partition, if known. */
    public Optional<PartitionRegistration> partition(TopicPartition tp) {
        return partitions(tp.topic()).stream().filter(p -> p.topicPartition().equals(tp)).findFirst();
    }

    /** A topic's {@code min.insync.replicas}, if the topic is known. */
    public OptionalInt minInsyncReplicas(String topic) {
        Integer value = current().image.minInsyncReplicasByTopic().get(topic);
        return value == null ? OptionalInt.empty() : OptionalInt.of(value);
    }
}
