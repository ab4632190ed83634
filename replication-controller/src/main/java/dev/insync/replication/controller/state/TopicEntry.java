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

import dev.insync.replication.core.config.TopicConfigs;
import dev.insync.replication.log.TopicPartition;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The controller's state of one topic.
 *
 * @param name                   topic name
 * @param partitionCount         number of partitions
 * @param minInsyncReplicas      {@code min.insync.replicas}
 * @param uncleanLeaderElection  {@code unclean.leader.election.enable}
 * @param topicId                the id of this incarnation of the name (Kafka's topic id)
 */
public record TopicEntry(String name, int partitionCount, int minInsyncReplicas, boolean uncleanLeaderElection,
                         UUID topicId) {

    /** Kafka's defaults until the creation batch's config records are replayed. */
    static TopicEntry created(String name, int partitionCount, UUID topicId) {
        return new TopicEntry(name, partitionCount, 1, false, topicId);
    }

    TopicEntry withMinInsyncReplicas(int value) {
        return new TopicEntry(name, partitionCount, value, uncleanLeaderElection, topicId);
    }

    TopicEntry withUncleanLeaderElection(boolean value) {
        return new TopicEntry(name, partitionCount, minInsyncReplicas, value, topicId);
    }

    /** Its partitions, by index. */
    public List<TopicPartition> topicPartitions() {
        List<TopicPartition> result = new ArrayList<>(partitionCount);
        for (int p = 0; p < partitionCount; p++) {
            result.add(new TopicPartition(name, p));
        }
        return result;
    }

    /** HW-2 / ISR-7: the one formula, {@link TopicConfigs#effectiveMinIsr}. */
    public int effectiveMinIsr(int replicaCount) {
        return TopicConfigs.effectiveMinIsr(minInsyncReplicas, replicaCount);
    }
}
