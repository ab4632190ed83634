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

package dev.insync.replication.core.partition;

import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.epoch.EpochEntry;

import java.util.List;
import java.util.Objects;

/**
 * One broker's replica of a partition as that broker holds it now: what a history sample records
 * (docs/testkit-simulation.md) and what an outside observer needs to judge INV-4, INV-7 and INV-8
 * on a running broker.
 *
 * @param topicPartition the partition
 * @param leader         whether this broker leads it
 * @param leaderEpoch    the leader epoch this replica knows, -1 before any metadata
 * @param isr            the leader's maximal ISR (ISR-4: the committed ISR plus any member a pending
 *                       proposal adds); empty on a follower
 * @param highWatermark  the replica's HW
 * @param logEndOffset   the replica's LEO
 * @param logStartOffset the replica's log start offset
 * @param epochs         the leader-epoch cache (LOG-8), oldest first
 */
public record ReplicaDescription(TopicPartition topicPartition, boolean leader, int leaderEpoch, List<Integer> isr,
                                 long highWatermark, long logEndOffset, long logStartOffset, List<EpochEntry> epochs) {

    /** Immutable copies. A HW above the LEO is kept as read: it is what INV-4 judges. */
    public ReplicaDescription {
        Objects.requireNonNull(topicPartition, "topicPartition");
        isr = List.copyOf(isr);
        epochs = List.copyOf(epochs);
    }
}
