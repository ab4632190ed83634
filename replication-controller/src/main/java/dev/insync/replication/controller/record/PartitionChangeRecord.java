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
 * One change of one partition, as decided by the partition change builder: the new value of every
 * field that can change (full state, not Kafka's partial record, so that a record read alone says
 * what the partition became). The replicas never change (there is no reassignment yet; it would
 * be a new version). Replay accepts it only as the next state of the partition: partition epoch
 * exactly one higher, leader epoch one higher exactly when the leader changes.
 *
 * @param topicPartition      the partition
 * @param leader              new leader, -1 for none
 * @param leaderEpoch         new leader epoch
 * @param partitionEpoch      new partition epoch
 * @param isr                 new ISR, in assignment order
 * @param elr                 new ELR
 * @param lastKnownElr        new LastKnownElr
 * @param leaderRecoveryState new recovery state
 */
public record PartitionChangeRecord(TopicPartition topicPartition, int leader, int leaderEpoch, int partitionEpoch,
                                    List<Integer> isr, List<Integer> elr, List<Integer> lastKnownElr,
                                    LeaderRecoveryState leaderRecoveryState) implements MetadataRecord {

    /** Validates the fields; immutable copies. */
    public PartitionChangeRecord {
        RecordChecks.partition(topicPartition);
        RecordChecks.leader(leader);
        RecordChecks.nonNegative("leaderEpoch of " + topicPartition, leaderEpoch);
        RecordChecks.nonNegative("partitionEpoch of " + topicPartition, partitionEpoch);
        isr = RecordChecks.brokerIds("ISR of " + topicPartition, isr);
        elr = RecordChecks.brokerIds("ELR of " + topicPartition, elr);
        lastKnownElr = RecordChecks.brokerIds("LastKnownElr of " + topicPartition, lastKnownElr);
        if (leaderRecoveryState == null) {
            throw new IllegalArgumentException("Missing leader recovery state of " + topicPartition);
        }
        RecordChecks.partitionState(topicPartition, null, isr, elr, lastKnownElr, leader);
    }

    /** The record that turns a partition into {@code next} (the replicas are not part of it). */
    public static PartitionChangeRecord of(PartitionRegistration next) {
        return new PartitionChangeRecord(next.topicPartition(), next.leader(), next.leaderEpoch(), next.partitionEpoch(),
                next.isr(), next.elr(), next.lastKnownElr(), LeaderRecoveryState.of(next.recovering()));
    }

    /**
     * The partition after this change.
     *
     * @throws IllegalArgumentException if this is not a valid next state of {@code current}
     */
    public PartitionRegistration applyTo(PartitionRegistration current) {
        if (!current.topicPartition().equals(topicPartition)) {
            throw new IllegalArgumentException("Change of " + topicPartition + " applied to " + current.topicPartition());
        }
        if (partitionEpoch != current.partitionEpoch() + 1) {
            throw new IllegalArgumentException(topicPartition + ": partition epoch " + partitionEpoch + " does not follow "
                    + current.partitionEpoch());
        }
        int expectedLeaderEpoch = leader != current.leader() ? current.leaderEpoch() + 1 : current.leaderEpoch();
        if (leaderEpoch != expectedLeaderEpoch) {
            throw new IllegalArgumentException(topicPartition + ": leader " + current.leader() + " -> " + leader
                    + " needs leader epoch " + expectedLeaderEpoch + ", the record has " + leaderEpoch);
        }
        RecordChecks.partitionState(topicPartition, current.replicas(), isr, elr, lastKnownElr, leader);
        return new PartitionRegistration(topicPartition, current.replicas(), isr, elr, lastKnownElr, leader, leaderEpoch,
                partitionEpoch, leaderRecoveryState == LeaderRecoveryState.RECOVERING);
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.PARTITION_CHANGE;
    }
}
