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

import java.util.List;

/**
 * A leader's ISR proposals, batched per broker (ISR-5).
 *
 * @param brokerId    the sending leader
 * @param brokerEpoch its broker epoch (a stale one fails the whole request, ISR-6)
 * @param items       one proposal per partition
 */
public record AlterPartitionRequest(int brokerId, long brokerEpoch, List<Item> items) {

    /** Immutable copy. */
    public AlterPartitionRequest {
        items = List.copyOf(items);
    }

    /** An ISR member and the broker epoch the leader last saw from it (-1 if unknown). */
    public record BrokerState(int brokerId, long brokerEpoch) {
    }

    /**
     * One partition's proposal.
     *
     * @param topicPartition  partition
     * @param leaderEpoch     the leader epoch the proposal was made in
     * @param partitionEpoch  the partition epoch it was based on
     * @param newIsr          proposed ISR with broker epochs
     * @param recovered       the leader reports it recovered after an unclean election (ISR-8)
     */
    public record Item(TopicPartition topicPartition, int leaderEpoch, int partitionEpoch, List<BrokerState> newIsr,
                       boolean recovered) {

        /** Immutable copy. */
        public Item {
            newIsr = List.copyOf(newIsr);
        }

        /** The proposed ISR's broker ids. */
        public List<Integer> newIsrIds() {
            return newIsr.stream().map(BrokerState::brokerId).toList();
        }
    }
}
