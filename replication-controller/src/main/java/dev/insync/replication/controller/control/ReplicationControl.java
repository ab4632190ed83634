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

package dev.insync.replication.controller.control;

import dev.insync.replication.controller.ControllerConfig;
import dev.insync.replication.controller.api.AlterTopicConfigRequest;
import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.controller.record.ConfigRecord;
import dev.insync.replication.controller.record.LeaderRecoveryState;
import dev.insync.replication.controller.record.PartitionChangeRecord;
import dev.insync.replication.controller.record.PartitionRecord;
import dev.insync.replication.controller.record.ReplicasOfflineRecord;
import dev.insync.replication.controller.record.RemoveTopicRecord;
import dev.insync.replication.controller.record.TopicRecord;
import dev.insync.replication.controller.state.BrokerEntry;
import dev.insync.replication.controller.state.ChangeSet;
import dev.insync.replication.controller.state.ControllerView;
import dev.insync.replication.controller.state.TopicEntry;
import dev.insync.replication.core.config.ReplicationConfig;
import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.AlterPartitionResponse.PartitionResult;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Partition and topic operations of the controller: AlterPartition (ISR-6), controller-side ISR
 * removal and election (ISR-7, ISR-8, LDR-5), offline replicas, topic creation and topic configs.
 * Every operation reads a {@link ControllerView}, returns records and a response, and writes
 * nothing; partition changes all go through {@link PartitionChangeBuilder}.
 */
public final class ReplicationControl {

    private static final Logger log = LoggerFactory.getLogger(ReplicationControl.class);

    private ReplicationControl() {
    }

    // ============================================================================ AlterPartition

    /**
     * ISR-6: validates and commits ISR proposals in exactly this order: a stale sender broker epoch
     * fails the whole request ({@code STALE_BROKER_EPOCH}); then per partition
     * {@code UNKNOWN_TOPIC_OR_PARTITION}; {@code NOT_CONTROLLER} (leader or partition epoch above
     * ours); {@code FENCED_LEADER_EPOCH}; {@code INVALID_REQUEST} (sender not the leader);
     * {@code INVALID_UPDATE_VERSION}; {@code INVALID_REQUEST} (not a subset of the replicas, without
     * the leader, repeated members, or larger than the leader alone while RECOVERING and not reported
     * recovered); {@code INELIGIBLE_REPLICA} (a member unregistered, fenced, shutting down, with its
     * replica offline, or with a broker epoch other than the registered one; -1 skips the epoch
     * check). A valid change bumps the partition epoch only; an unchanged ISR writes nothing. An item
     * with {@code recovered} moves a RECOVERING partition out of it (CTL-6).
     */
    public static ControllerResult<AlterPartitionResponse> alterPartition(ControllerView view, AlterPartitionRequest request) {
        BrokerEntry sender = view.broker(request.brokerId());
        if (sender == null || sender.brokerEpoch() != request.brokerEpoch()) {
            return new ControllerResult<>(List.of(), new AlterPartitionResponse(Errors.STALE_BROKER_EPOCH, Map.of()));
        }
        ChangeSet changes = new ChangeSet(view);
        Map<TopicPartition, PartitionResult> results = new LinkedHashMap<>();
        for (AlterPartitionRequest.Item item : request.items()) {
            results.put(item.topicPartition(), alterOne(changes, request.brokerId(), item));
        }
        return new ControllerResult<>(changes.records(), new AlterPartitionResponse(Errors.NONE, results));
    }

    private static PartitionResult alterOne(ChangeSet changes, int senderId, AlterPartitionRequest.Item item) {
        TopicPartition tp = item.topicPartition();
        PartitionRegistration current = changes.partition(tp);
        if (current == null) {
            return PartitionResult.failed(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        }
        if (item.leaderEpoch() > current.leaderEpoch() || item.partitionEpoch() > current.partitionEpoch()) {
            return PartitionResult.failed(Errors.NOT_CONTROLLER);
        }
        if (item.leaderEpoch() < current.leaderEpoch()) {
            return PartitionResult.failed(Errors.FENCED_LEADER_EPOCH);
        }
        if (senderId != current.leader()) {
            return PartitionResult.failed(Errors.INVALID_REQUEST);
        }
        if (item.partitionEpoch() < current.partitionEpoch()) {
            return PartitionResult.failed(Errors.INVALID_UPDATE_VERSION);
        }
        List<Integer> newIsr = item.newIsrIds();
        if (new HashSet<>(newIsr).size() != newIsr.size() || !current.replicas().containsAll(newIsr)
                || !newIsr.contains(current.leader())) {
            return PartitionResult.failed(Errors.INVALID_REQUEST);
        }
        // ISR-8: while RECOVERING after an unclean election, no ISR larger than the leader alone.
        if (current.recovering() && !item.recovered() && newIsr.size() > 1) {
            return PartitionResult.failed(Errors.INVALID_REQUEST);
        }
        for (AlterPartitionRequest.BrokerState member : item.newIsr()) {
            BrokerEntry broker = changes.broker(member.brokerId());
            if (broker == null || !broker.canServe(tp)
                    || (member.brokerEpoch() != -1 && member.brokerEpoch() != broker.brokerEpoch())) {
                return PartitionResult.failed(Errors.INELIGIBLE_REPLICA);
            }
        }
        // CTL-6: the leader reports the partition recovered.
        boolean recovering = current.recovering() && !item.recovered();
        PartitionRegistration next = change(changes, current, newIsr, Set.of(), recovering);
        return new PartitionResult(Errors.NONE, next.leader(), next.leaderEpoch(), next.isr(), next.partitionEpoch());
    }

    // ============================================================================ ISR-7, ISR-8, LDR-5

    /**
     * ISR-7 / LDR-5: removes {@code brokerId} from every ISR and moves its leadership away; with
     * {@code fromElr} (an unclean restart) also from every ELR, so it cannot be elected from one.
     */
    public static void removeFromPartitions(ChangeSet changes, int brokerId, boolean fromElr) {
        for (PartitionRegistration current : List.copyOf(changes.partitions())) {
            boolean affected = current.isr().contains(brokerId) || current.leader() == brokerId
                    || (fromElr && current.elr().contains(brokerId));
            if (affected) {
                change(changes, current, without(current.isr(), brokerId), fromElr ? Set.of(brokerId) : Set.of(),
                        current.recovering());
            }
        }
    }

    /**
     * A broker's replicas on a failed log directory: recorded, then each leaves its partition's ISR
     * and ELR and its leadership moves, as fencing would do for the whole broker.
     */
    public static void takeReplicasOffline(ChangeSet changes, BrokerEntry broker, List<TopicPartition> reported) {
        List<TopicPartition> newlyOffline = new ArrayList<>();
        Set<TopicPartition> seen = new HashSet<>();
        for (TopicPartition tp : reported) {
            PartitionRegistration p = changes.partition(tp);
            // Only replicas the broker holds; unknown partitions and repeats are ignored.
            if (p != null && p.replicas().contains(broker.brokerId()) && !broker.isOffline(tp) && seen.add(tp)) {
                newlyOffline.add(tp);
            }
        }
        if (newlyOffline.isEmpty()) {
            return;
        }
        log.info("Broker {} (epoch {}) reports offline replicas {}", broker.brokerId(), broker.brokerEpoch(), newlyOffline);
        for (int i = 0; i < newlyOffline.size(); i += ReplicasOfflineRecord.MAX_PARTITIONS) {
            changes.append(new ReplicasOfflineRecord(broker.brokerId(), broker.brokerEpoch(),
                    newlyOffline.subList(i, Math.min(newlyOffline.size(), i + ReplicasOfflineRecord.MAX_PARTITIONS))));
        }
        for (TopicPartition tp : newlyOffline) {
            PartitionRegistration current = changes.partition(tp);
            change(changes, current, without(current.isr(), broker.brokerId()), Set.of(broker.brokerId()),
                    current.recovering());
        }
    }

    /** ISR-8: elects a leader wherever there is none and a candidate exists. */
    public static void electLeaderless(ChangeSet changes, Optional<String> onlyTopic) {
        for (PartitionRegistration current : List.copyOf(changes.partitions())) {
            if (current.leader() == PartitionRegistration.NO_LEADER
                    && onlyTopic.map(t -> t.equals(current.topicPartition().topic())).orElse(true)) {
                change(changes, current, current.isr(), Set.of(), current.recovering());
            }
        }
    }

    /**
     * The one way a partition changes: the {@link PartitionChangeBuilder}'s decision, appended as a
     * {@link PartitionChangeRecord} if anything changes. Returns the (possibly unchanged) state.
     */
    static PartitionRegistration change(ChangeSet changes, PartitionRegistration current, List<Integer> targetIsr,
                                        Set<Integer> ineligibleForElr, boolean recovering) {
        TopicPartition tp = current.topicPartition();
        TopicEntry topic = changes.topic(tp.topic());
        Optional<PartitionRegistration> next = new PartitionChangeBuilder(current, topic, id -> changes.canServe(id, tp))
                .setTargetIsr(targetIsr)
                .setIneligibleForElr(ineligibleForElr)
                .setRecovering(recovering)
                .build();
        if (next.isEmpty()) {
            return current;
        }
        PartitionRegistration p = next.get();
        if (PartitionChangeBuilder.isUncleanElection(current, p)) {
            log.warn("Unclean leader election of broker {} for {}", p.leader(), tp);
        }
        log.info("{}: leader {} epoch {}, ISR {}, ELR {}, LastKnownElr {}, partition epoch {}{}", tp,
                p.leader() == PartitionRegistration.NO_LEADER ? "none" : p.leader(), p.leaderEpoch(), p.isr(), p.elr(),
                p.lastKnownElr(), p.partitionEpoch(), p.recovering() ? " (recovering)" : "");
        changes.append(PartitionChangeRecord.of(p));
        return p;
    }

    private static List<Integer> without(List<Integer> ids, int id) {
        return ids.stream().filter(r -> r != id).toList();
    }

    // ============================================================================ topics

    /**
     * Creates a topic: a {@link TopicRecord}, both topic configs explicitly, and one
     * {@link PartitionRecord} per partition, whose ISR is its active replicas and leader the first of
     * them, epochs 0. Replicas come from the request's assignment, or from {@link ReplicaPlacer}
     * over the unfenced brokers.
     *
     * @throws ApiException {@code INVALID_REQUEST} naming the problem: the topic exists or its name
     *                      is invalid, an unknown config, no partitions, an empty or repeating
     *                      assignment, an unregistered broker, a partition without an active
     *                      replica, or too few brokers for the replication factor
     */
    public static ControllerResult<List<PartitionRegistration>> createTopic(ControllerView view, CreateTopicRequest request,
                                                                          ControllerConfig config) {
        String topic = request.topic();
        try {
            new TopicRecord(topic, 1); // name rules
        } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage());
        }
        if (view.topic(topic) != null) {
            throw invalid("Topic " + topic + " already exists");
        }
        Map<String, String> configs = new LinkedHashMap<>();
        configs.put(ReplicationConfig.MIN_INSYNC_REPLICAS, Integer.toString(config.defaultMinInsyncReplicas()));
        configs.put(ReplicationConfig.UNCLEAN_LEADER_ELECTION_ENABLE, Boolean.toString(config.defaultUncleanLeaderElection()));
        for (Map.Entry<String, String> e : request.configs().entrySet()) {
            if (!configs.containsKey(e.getKey())) {
                throw invalid("Unknown topic config '" + e.getKey() + "' for topic " + topic + "; known: " + configs.keySet());
            }
            configs.put(e.getKey(), e.getValue());
        }
        List<ConfigRecord> configRecords = new ArrayList<>();
        try {
            configs.forEach((name, value) -> configRecords.add(new ConfigRecord(topic, name, value)));
        } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage());
        }
        List<List<Integer>> assignment;
        if (!request.assignment().isEmpty()) {
            assignment = request.assignment();
        } else {
            int rf = request.replicationFactor() == -1 ? config.defaultReplicationFactor() : request.replicationFactor();
            List<Integer> unfenced = view.brokers().stream().filter(b -> !b.fenced()).map(BrokerEntry::brokerId).toList();
            try {
                assignment = ReplicaPlacer.place(request.partitions(), rf, unfenced);
            } catch (IllegalArgumentException e) {
                throw invalid("Topic " + topic + ": " + e.getMessage());
            }
        }
        if (assignment.isEmpty() || assignment.size() > TopicRecord.MAX_PARTITIONS) {
            throw invalid("Topic " + topic + " needs 1 to " + TopicRecord.MAX_PARTITIONS + " partitions, got "
                    + assignment.size());
        }
        List<PartitionRecord> partitionRecords = new ArrayList<>();
        for (int p = 0; p < assignment.size(); p++) {
            TopicPartition tp = new TopicPartition(topic, p);
            List<Integer> replicas = assignment.get(p);
            if (replicas.isEmpty() || new HashSet<>(replicas).size() != replicas.size()) {
                throw invalid("Invalid replica assignment " + replicas + " for " + tp);
            }
            for (int replica : replicas) {
                if (view.broker(replica) == null) {
                    throw invalid("Broker " + replica + " of the assignment of " + tp + " is not registered");
                }
            }
            List<Integer> isr = replicas.stream().filter(id -> view.broker(id).isActive()).toList();
            if (isr.isEmpty()) {
                throw invalid("No replica of " + tp + " (" + replicas + ") is active");
            }
            try {
                partitionRecords.add(new PartitionRecord(tp, replicas, isr, List.of(), List.of(), isr.get(0), 0, 0,
                        LeaderRecoveryState.RECOVERED));
            } catch (IllegalArgumentException e) {
                throw invalid(e.getMessage());
            }
        }
        ChangeSet changes = new ChangeSet(view);
        changes.append(new TopicRecord(topic, assignment.size(), TopicRecord.idFor(topic, changes.nextOffset())));
        configRecords.forEach(changes::append);
        partitionRecords.forEach(changes::append);
        log.info("Created topic {} with {} partitions, configs {}", topic, assignment.size(), configs);
        List<PartitionRegistration> created = partitionRecords.stream().map(PartitionRecord::toRegistration).toList();
        return new ControllerResult<>(changes.records(), created);
    }

    /**
     * Deletes a topic (Kafka's DeleteTopics in KRaft): one {@link RemoveTopicRecord}, after which the
     * topic, its configs and its partitions are gone and brokers delete their replicas. Its
     * AlterPartition proposals are answered {@code UNKNOWN_TOPIC_OR_PARTITION} from then on; a topic
     * created later under the name has another id, so no broker serves the old log as the new one.
     *
     * @throws ApiException {@code UNKNOWN_TOPIC_OR_PARTITION} for an unknown topic
     */
    public static ControllerResult<Void> deleteTopic(ControllerView view, String topic) {
        TopicEntry entry = view.topic(topic);
        if (entry == null) {
            throw new ApiException(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Unknown topic " + topic);
        }
        ChangeSet changes = new ChangeSet(view);
        changes.append(new RemoveTopicRecord(topic, entry.topicId()));
        log.info("Deleted topic {} (id {})", topic, entry.topicId());
        return new ControllerResult<>(changes.records(), null);
    }

    /**
     * Sets one topic config at run time: a {@link ConfigRecord}, then the topic's partitions
     * re-evaluated with the new value (ISR-7: a lower {@code min.insync.replicas} clears the ELR
     * where the ISR now reaches it; ISR-8: enabling unclean election elects where nobody leads).
     * Setting the current value writes nothing.
     *
     * @throws ApiException {@code UNKNOWN_TOPIC_OR_PARTITION} for an unknown topic,
     *                      {@code INVALID_REQUEST} for an unknown config or a bad value
     */
    public static ControllerResult<Void> alterTopicConfig(ControllerView view, AlterTopicConfigRequest request) {
        TopicEntry topic = view.topic(request.topic());
        if (topic == null) {
            throw new ApiException(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Unknown topic " + request.topic());
        }
        ConfigRecord record;
        try {
            record = new ConfigRecord(request.topic(), request.name(), request.value());
        } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage());
        }
        boolean minIsr = record.name().equals(ReplicationConfig.MIN_INSYNC_REPLICAS);
        boolean unchanged = minIsr ? record.intValue() == topic.minInsyncReplicas()
                : record.booleanValue() == topic.uncleanLeaderElection();
        if (unchanged) {
            return new ControllerResult<>(List.of(), null);
        }
        ChangeSet changes = new ChangeSet(view);
        changes.append(record);
        if (minIsr) {
            boolean raised = record.intValue() > topic.minInsyncReplicas();
            for (PartitionRegistration current : List.copyOf(changes.partitions())) {
                if (current.topicPartition().topic().equals(request.topic())) {
                    PartitionRegistration next = change(changes, current, current.isr(), Set.of(), current.recovering());
                    if (raised && next == current) {
                        fenceProposalsUnderTheOldMinIsr(changes, current);
                    }
                }
            }
        } else {
            electLeaderless(changes, Optional.of(request.topic()));
        }
        log.info("Topic {}: {} = {}", request.topic(), record.name(), record.value());
        return new ControllerResult<>(changes.records(), null);
    }

    /**
     * ISR-7 after a raise of {@code min.insync.replicas}: the partition epoch moves on, so an
     * AlterPartition proposed before the leader applied the raise is refused (INVALID_UPDATE_VERSION,
     * ISR-5) and proposed again once metadata brings both. Otherwise the leader could learn a shrink
     * from the answer, ahead of the config record, and advance the HW under the old, lower min ISR,
     * while the ELR computed here under the new one admits the leaving replicas: they would lack
     * records the leader then commits, and could be elected.
     */
    private static void fenceProposalsUnderTheOldMinIsr(ChangeSet changes, PartitionRegistration current) {
        changes.append(PartitionChangeRecord.of(new PartitionRegistration(current.topicPartition(), current.replicas(),
                current.isr(), current.elr(), current.lastKnownElr(), current.leader(), current.leaderEpoch(),
                current.partitionEpoch() + 1, current.recovering())));
    }

    private static ApiException invalid(String message) {
        return new ApiException(Errors.INVALID_REQUEST, message);
    }
}
