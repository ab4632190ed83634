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

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.produce.Acks;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.log.TopicPartition;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;

/** One partition led (or followed) by broker 1, with a manual clock, an in-memory log and a held AlterPartition sender. */
final class PartitionFixture {

    static final TopicPartition TP = new TopicPartition("rep", 0);
    static final long LAG_MS = 5000L;
    static final int MAX_BYTES = 1 << 20;

    final ManualTime time = new ManualTime(1_000_000L);
    final InMemoryLocalLog log = new InMemoryLocalLog(TP);
    final HeldAlterPartitionSender sender = new HeldAlterPartitionSender();
    final List<String> events = Collections.synchronizedList(new ArrayList<>());
    final Map<Integer, Long> registeredEpochs = new HashMap<>(Map.of(1, 101L, 2, 102L, 3, 103L));
    final Set<Integer> fenced = new HashSet<>();
    final Partition partition;

    PartitionFixture(int minIsr) {
        this(minIsr, null);
    }

    PartitionFixture(int minIsr, AlterPartitionSender customSender) {
        this(minIsr, customSender, Optional.empty());
    }

    PartitionFixture(int minIsr, AlterPartitionSender customSender, Optional<UUID> topicId) {
        ReplicaEligibility eligibility = new ReplicaEligibility() {
            @Override
            public synchronized boolean isBrokerEligible(int brokerId, long brokerEpochFromFetch) {
                Long registered = registeredEpochs.get(brokerId);
                return registered != null && registered == brokerEpochFromFetch && !fenced.contains(brokerId);
            }

            @Override
            public synchronized OptionalLong registeredBrokerEpoch(int brokerId) {
                Long registered = registeredEpochs.get(brokerId);
                return registered == null ? OptionalLong.empty() : OptionalLong.of(registered);
            }
        };
        PartitionListener listener = new PartitionListener() {
            @Override
            public void onHighWatermarkIncreased(TopicPartition tp) {
                events.add("hw");
            }

            @Override
            public void onIsrShrink(TopicPartition tp) {
                events.add("shrink");
            }

            @Override
            public void onIsrExpand(TopicPartition tp) {
                events.add("expand");
            }

            @Override
            public void onFailedIsrUpdate(TopicPartition tp) {
                events.add("failed");
            }
        };
        partition = new Partition(log, minIsr, new PartitionSettings(1, () -> 101L, time, LAG_MS, eligibility,
                customSender == null ? sender : customSender, listener), topicId);
    }

    static PartitionRegistration registration(int leader, int leaderEpoch, int partitionEpoch, List<Integer> replicas,
                                              List<Integer> isr) {
        return new PartitionRegistration(TP, replicas, isr, List.of(), List.of(), leader, leaderEpoch, partitionEpoch,
                false);
    }

    /** Broker 1 leads replicas 1,2,3 with ISR 1,2,3 at leader epoch 0, partition epoch 0. */
    PartitionFixture leaderOf123() {
        partition.makeLeader(registration(1, 0, 0, List.of(1, 2, 3), List.of(1, 2, 3)));
        return this;
    }

    long brokerEpoch(int id) {
        return registeredEpochs.get(id);
    }

    static FetchRequest request(int replicaId, long brokerEpoch, FetchRequest.PartitionData data) {
        return new FetchRequest(replicaId, brokerEpoch, 500, 1, MAX_BYTES, Map.of(TP, data));
    }

    static FetchRequest.PartitionData data(long fetchOffset, OptionalInt currentLeaderEpoch, OptionalInt lastFetchedEpoch) {
        return new FetchRequest.PartitionData(fetchOffset, 0L, MAX_BYTES, currentLeaderEpoch, lastFetchedEpoch);
    }

    /** A follower fetch in the current leader epoch, first read. */
    PartitionFetchResult followerFetch(int replicaId, long fetchOffset) {
        FetchRequest.PartitionData d = data(fetchOffset, OptionalInt.of(partition.leaderEpoch()), OptionalInt.empty());
        return partition.fetch(request(replicaId, brokerEpoch(replicaId), d), d, MAX_BYTES, time.milliseconds(),
                true);
    }

    PartitionFetchResult consumerFetch(long fetchOffset) {
        FetchRequest.PartitionData d = data(fetchOffset, OptionalInt.empty(), OptionalInt.empty());
        return partition.fetch(request(FetchRequest.CONSUMER_REPLICA_ID, -1L, d), d, MAX_BYTES,
                time.milliseconds(), true);
    }

    void append(int n, Acks acks) {
        partition.appendAsLeader(InMemoryLocalLog.records(n), acks);
    }

    Optional<HeldAlterPartitionSender.Submitted> lastProposal() {
        return sender.count() == 0 ? Optional.empty() : Optional.of(sender.last());
    }
}
