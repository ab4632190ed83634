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

package dev.insync.replication.controller.record;

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.TopicPartition;

import java.util.List;

/**
 * A partition's full state: written once when its topic is created (epochs 0), and in snapshots
 * with the current state.
 *
 * @param topicPartition      the partition
 * @param replicas            assigned replicas in assignment order (at least one)
 * @param isr                 in-sync replicas, in assignment order
 * @param elr                 eligible leader replicas (ISR-7)
 * @param lastKnownElr        last known ELR members (ISR-7)
 * @param leader              leader broker id, -1 for none
 * @param leaderEpoch         leader epoch
 * @param partitionEpoch      partition epoch
 * @param leaderRecoveryState RECOVERING after an unclean election (ISR-8)
 */
public record PartitionRecord(TopicPartition topicPartition, List<Integer> replicas, List<Integer> isr, List<Integer> elr,
                              List<Integer> lastKnownElr, int leader, int leaderEpoch, int partitionEpoch,
                              LeaderRecoveryState leaderRecoveryState) implements MetadataRecord {

    /** Validates the fields; immutable copies. */
    public PartitionRecord {
        RecordChecks.partition(topicPartition);
        replicas = RecordChecks.brokerIds("replicas of " + topicPartition, replicas);
        if (replicas.isEmpty()) {
            throw new IllegalArgumentException(topicPartition + " needs at least one replica");
        }
        isr = RecordChecks.brokerIds("ISR of " + topicPartition, isr);
        elr = RecordChecks.brokerIds("ELR of " + topicPartition, elr);
        lastKnownElr = RecordChecks.brokerIds("LastKnownElr of " + topicPartition, lastKnownElr);
        RecordChecks.leader(leader);
        RecordChecks.nonNegative("leaderEpoch of " + topicPartition, leaderEpoch);
        RecordChecks.nonNegative("partitionEpoch of " + topicPartition, partitionEpoch);
        if (leaderRecoveryState == null) {
            throw new IllegalArgumentException("Missing leader recovery state of " + topicPartition);
        }
        RecordChecks.partitionState(topicPartition, replicas, isr, elr, lastKnownElr, leader);
    }

    /** The record holding {@code registration}. */
    public static PartitionRecord of(PartitionRegistration registration) {
        return new PartitionRecord(registration.topicPartition(), registration.replicas(), registration.isr(),
                registration.elr(), registration.lastKnownElr(), registration.leader(), registration.leaderEpoch(),
                registration.partitionEpoch(), LeaderRecoveryState.of(registration.recovering()));
    }

    /** The registration this record describes. */
    public PartitionRegistration toRegistration() {
        return new PartitionRegistration(topicPartition, replicas, isr, elr, lastKnownElr, leader, leaderEpoch,
                partitionEpoch, leaderRecoveryState == LeaderRecoveryState.RECOVERING);
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.PARTITION;
    }
}
