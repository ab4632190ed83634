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

import dev.insync.replication.controller.record.BrokerShutdownRecord;
import dev.insync.replication.controller.record.ConfigRecord;
import dev.insync.replication.controller.record.FenceBrokerRecord;
import dev.insync.replication.controller.record.MetadataRecord;
import dev.insync.replication.controller.record.PartitionChangeRecord;
import dev.insync.replication.controller.record.PartitionRecord;
import dev.insync.replication.controller.record.RegisterBrokerRecord;
import dev.insync.replication.controller.record.RemoveTopicRecord;
import dev.insync.replication.controller.record.ReplicasOfflineRecord;
import dev.insync.replication.controller.record.TopicRecord;
import dev.insync.replication.controller.record.UnfenceBrokerRecord;
import dev.insync.replication.core.config.ReplicationConfig;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.TopicPartition;

import java.util.List;

/**
 * CTL-1: how one record changes the state, the only place it is written down. Replay
 * ({@link ControllerState}) and an operation's view of its own records ({@link ChangeSet}) both
 * use it, so what an operation decides on is exactly what replay will produce. Every record is
 * checked against the state; one that does not fit throws {@link IllegalArgumentException}.
 */
final class RecordApplier {

    /** Where the applier writes. */
    interface Target extends ControllerView {
        void putBroker(BrokerEntry broker);

        void putTopic(TopicEntry topic);

        void putPartition(PartitionRegistration partition);

        /** Removes the topic and every partition of it. */
        void removeTopic(TopicEntry topic);
    }

    private RecordApplier() {
    }

    /**
     * Applies {@code record} at {@code offset}.
     *
     * @param fromSnapshot the record comes from a snapshot: a registration then carries the broker's
     *                     current flags and an epoch below the offset
     */
    static void apply(Target target, long offset, MetadataRecord record, boolean fromSnapshot) {
        switch (record.type()) {
            case REGISTER_BROKER -> register(target, offset, (RegisterBrokerRecord) record, fromSnapshot);
            case FENCE_BROKER -> {
                FenceBrokerRecord r = (FenceBrokerRecord) record;
                BrokerEntry broker = current(target, r.brokerId(), r.brokerEpoch());
                if (broker.fenced()) {
                    throw new IllegalArgumentException("Broker " + r.brokerId() + " is already fenced");
                }
                target.putBroker(broker.withFenced(true));
            }
            case UNFENCE_BROKER -> {
                UnfenceBrokerRecord r = (UnfenceBrokerRecord) record;
                BrokerEntry broker = current(target, r.brokerId(), r.brokerEpoch());
                if (!broker.fenced() || broker.inControlledShutdown()) {
                    throw new IllegalArgumentException("Broker " + r.brokerId() + " cannot be unfenced: fenced="
                            + broker.fenced() + ", inControlledShutdown=" + broker.inControlledShutdown());
                }
                target.putBroker(broker.withFenced(false));
            }
            case BROKER_SHUTDOWN -> {
                BrokerShutdownRecord r = (BrokerShutdownRecord) record;
                BrokerEntry broker = current(target, r.brokerId(), r.brokerEpoch());
                if (broker.inControlledShutdown()) {
                    throw new IllegalArgumentException("Broker " + r.brokerId() + " is already in controlled shutdown");
                }
                target.putBroker(broker.withControlledShutdown());
            }
            case REPLICAS_OFFLINE -> {
                ReplicasOfflineRecord r = (ReplicasOfflineRecord) record;
                BrokerEntry broker = current(target, r.brokerId(), r.brokerEpoch());
                for (TopicPartition tp : r.partitions()) {
                    if (broker.isOffline(tp)) {
                        throw new IllegalArgumentException("Replica of " + tp + " on broker " + r.brokerId()
                                + " is already offline");
                    }
                }
                target.putBroker(broker.withOffline(r.partitions()));
            }
            case TOPIC -> {
                TopicRecord r = (TopicRecord) record;
                if (target.topic(r.name()) != null) {
                    throw new IllegalArgumentException("Topic " + r.name() + " already exists");
                }
                target.putTopic(TopicEntry.created(r.name(), r.partitionCount(), r.topicId()));
            }
            case REMOVE_TOPIC -> {
                RemoveTopicRecord r = (RemoveTopicRecord) record;
                TopicEntry topic = target.topic(r.name());
                if (topic == null) {
                    throw new IllegalArgumentException("Removal of unknown topic " + r.name());
                }
                if (!topic.topicId().equals(r.topicId())) {
                    throw new IllegalArgumentException("Removal of topic " + r.name() + " with id " + r.topicId()
                            + ", but its id is " + topic.topicId());
                }
                // A broker's offline replica of a deleted partition is gone with it: a later topic of the name starts afresh.
                for (BrokerEntry broker : List.copyOf(target.brokers())) {
                    if (broker.offlineReplicas().stream().anyMatch(tp -> tp.topic().equals(r.name()))) {
                        target.putBroker(broker.withoutOfflineReplicasOf(r.name()));
                    }
                }
                target.removeTopic(topic);
            }
            case CONFIG -> {
                ConfigRecord r = (ConfigRecord) record;
                TopicEntry topic = target.topic(r.topic());
                if (topic == null) {
                    throw new IllegalArgumentException("Config " + r.name() + " of unknown topic " + r.topic());
                }
                target.putTopic(r.name().equals(ReplicationConfig.MIN_INSYNC_REPLICAS)
                        ? topic.withMinInsyncReplicas(r.intValue())
                        : topic.withUncleanLeaderElection(r.booleanValue()));
            }
            case PARTITION -> {
                PartitionRecord r = (PartitionRecord) record;
                TopicPartition tp = r.topicPartition();
                TopicEntry topic = target.topic(tp.topic());
                if (topic == null || tp.partition() >= topic.partitionCount()) {
                    throw new IllegalArgumentException("Partition " + tp + " is not part of a known topic");
                }
                if (target.partition(tp) != null) {
                    throw new IllegalArgumentException("Partition " + tp + " already exists");
                }
                if (!fromSnapshot && (r.leaderEpoch() != 0 || r.partitionEpoch() != 0)) {
                    throw new IllegalArgumentException("A new partition " + tp + " starts at epochs 0, got leader epoch "
                            + r.leaderEpoch() + " and partition epoch " + r.partitionEpoch());
                }
                target.putPartition(r.toRegistration());
            }
            case PARTITION_CHANGE -> {
                PartitionChangeRecord r = (PartitionChangeRecord) record;
                PartitionRegistration current = target.partition(r.topicPartition());
                if (current == null) {
                    throw new IllegalArgumentException("Change of unknown partition " + r.topicPartition());
                }
                target.putPartition(r.applyTo(current));
            }
            default -> throw new IllegalArgumentException("No replay rule for " + record.type());
        }
    }

    private static void register(Target target, long offset, RegisterBrokerRecord r, boolean fromSnapshot) {
        BrokerEntry previous = target.broker(r.brokerId());
        if (fromSnapshot) {
            if (previous != null) {
                throw new IllegalArgumentException("Broker " + r.brokerId() + " appears twice in the snapshot");
            }
            if (r.brokerEpoch() > offset) {
                throw new IllegalArgumentException("Broker " + r.brokerId() + " has epoch " + r.brokerEpoch()
                        + " beyond the snapshot offset " + offset);
            }
        } else {
            // LDR-4, as KRaft: the broker epoch is the offset of the registration record.
            if (r.brokerEpoch() != offset) {
                throw new IllegalArgumentException("Registration of broker " + r.brokerId() + " has broker epoch "
                        + r.brokerEpoch() + ", not its offset");
            }
            if (!r.isNewIncarnation()) {
                throw new IllegalArgumentException("Registration of broker " + r.brokerId()
                        + " must be fenced, not shutting down and never unfenced");
            }
        }
        target.putBroker(new BrokerEntry(r.brokerId(), r.brokerEpoch(), r.previousBrokerEpoch(), r.uncleanRestart(),
                r.fenced(), r.inControlledShutdown(), r.everUnfenced(), List.of(), r.endpoints()));
    }

    private static BrokerEntry current(ControllerView view, int brokerId, long brokerEpoch) {
        BrokerEntry broker = view.broker(brokerId);
        if (broker == null) {
            throw new IllegalArgumentException("Unknown broker " + brokerId);
        }
        if (broker.brokerEpoch() != brokerEpoch) {
            throw new IllegalArgumentException("Broker " + brokerId + " epoch " + brokerEpoch + " is not the current "
                    + broker.brokerEpoch());
        }
        return broker;
    }
}
