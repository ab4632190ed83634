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

package dev.insync.replication.netty.protocol;

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.Errors;

import java.util.List;
import java.util.Objects;

/**
 * What {@code kafka-topics --describe} prints, per topic and partition: leader, leader epoch,
 * replicas, ISR, ELR, LastKnownElr (and the partition epoch and recovery state), plus the brokers'
 * endpoints and the active controller.
 *
 * @param controllerId the active controller's id, -1 if unknown
 */
public record MetadataResponse(List<BrokerEndpoint> brokers, int controllerId, List<TopicMetadata> topics) {

    public MetadataResponse {
        brokers = List.copyOf(brokers);
        topics = List.copyOf(topics);
    }

    /**
     * One topic: {@link Errors#NONE} with its partitions, or UNKNOWN_TOPIC_OR_PARTITION with none.
     * Every partition's topic is {@code name}.
     */
    public record TopicMetadata(Errors error, String name, List<PartitionRegistration> partitions) {
        public TopicMetadata {
            Objects.requireNonNull(error, "error");
            Objects.requireNonNull(name, "name");
            partitions = List.copyOf(partitions);
            for (PartitionRegistration p : partitions) {
                if (!p.topicPartition().topic().equals(name)) {
                    throw new IllegalArgumentException("Partition " + p.topicPartition() + " listed under topic " + name);
                }
            }
        }
    }
}
