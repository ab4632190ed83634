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
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.core.metadata.ControllerChannel.HeartbeatResponse;
import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.controller.api.RegisterBrokerRequest;
import dev.insync.replication.controller.log.MetadataBatch;
import dev.insync.replication.controller.state.ControllerState;
import dev.insync.replication.core.config.ReplicationConfig;
import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionRequest.BrokerState;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.TopicPartition;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The pure state machine driven as the active controller would drive it, without threads or a
 * log: every operation's records are committed at once as one batch and replayed; the brokers
 * are reduced to their epochs and heartbeats (caught up with metadata unless told otherwise).
 */
final class ControllerFixture {

    static final TopicPartition REP = new TopicPartition("rep", 0);

    final ControllerConfig config;
    final ControllerState state = new ControllerState();
    final List<MetadataBatch> log = new ArrayList<>();
    final List<MetadataDelta> deltas = new ArrayList<>();
    final Map<Integer, Long> epochs = new TreeMap<>();
    /** Brokers whose current incarnation heartbeated (the active controller's memory). */
    final Set<Integer> heartbeated = new HashSet<>();

    ControllerFixture(ControllerConfig config) {
        this.config = config;
    }

    ControllerFixture() {
        this(ControllerConfig.DEFAULT);
    }

    /** Commits the result's records as one batch; returns the response. */
    <T> T commit(ControllerResult<T> result) {
        if (!result.records().isEmpty()) {
            MetadataBatch batch = new MetadataBatch(state.nextOffset(), result.records());
            log.add(batch);
            deltas.add(state.replay(batch));
        }
        return result.response();
    }

    long latestOffset() {
        return state.lastOffset();
    }

    long register(int id, long previousEpoch) {
        boolean hb = heartbeated.remove(id);
        long epoch = commit(ClusterControl.registerBroker(state, new RegisterBrokerRequest(id, previousEpoch), hb)).brokerEpoch();
        epochs.put(id, epoch);
        return epoch;
    }

    HeartbeatResponse heartbeat(int id, boolean wantShutDown) {
        return heartbeat(new HeartbeatRequest(id, epochs.get(id), state.lastOffset(), wantShutDown));
    }

    HeartbeatResponse heartbeat(HeartbeatRequest request) {
        if (Objects.equals(epochs.get(request.brokerId()), request.brokerEpoch())) {
            heartbeated.add(request.brokerId());
        }
        return commit(ClusterControl.heartbeat(state, request));
    }

    void startBrokers(int... ids) {
        for (int id : ids) {
            register(id, -1);
        }
        for (int id : ids) {
            if (heartbeat(id, false).fenced()) {
                throw new AssertionError("broker " + id + " still fenced");
            }
        }
    }

    /** A restart of broker {@code id}: clean (with its last epoch) or unclean (-1). */
    long restart(int id, boolean clean) {
        return register(id, clean ? epochs.get(id) : -1);
    }

    boolean fence(int id) {
        return commit(ClusterControl.fenceBroker(state, id, -1));
    }

    List<PartitionRegistration> createTopic(String topic, List<List<Integer>> assignment, int minIsr, boolean unclean) {
        return commit(ReplicationControl.createTopic(state, CreateTopicRequest.withAssignment(topic, assignment, Map.of(
                ReplicationConfig.MIN_INSYNC_REPLICAS, Integer.toString(minIsr),
                ReplicationConfig.UNCLEAN_LEADER_ELECTION_ENABLE, Boolean.toString(unclean))), config));
    }

    void createRep(int minIsr, boolean unclean, Integer... replicas) {
        createTopic(REP.topic(), List.of(Arrays.asList(replicas)), minIsr, unclean);
    }

    void setMinInsyncReplicas(String topic, int value) {
        commit(ReplicationControl.alterTopicConfig(state, new AlterTopicConfigRequest(topic,
                ReplicationConfig.MIN_INSYNC_REPLICAS, Integer.toString(value))));
    }

    void setUncleanLeaderElection(String topic, boolean value) {
        commit(ReplicationControl.alterTopicConfig(state, new AlterTopicConfigRequest(topic,
                ReplicationConfig.UNCLEAN_LEADER_ELECTION_ENABLE, Boolean.toString(value))));
    }

    PartitionRegistration rep() {
        return state.partition(REP);
    }

    /** A proposal from the current leader with everyone's registered epoch. */
    AlterPartitionRequest.Item proposal(Integer... isr) {
        PartitionRegistration p = rep();
        return new AlterPartitionRequest.Item(REP, p.leaderEpoch(), p.partitionEpoch(),
                Arrays.stream(isr).map(id -> new BrokerState(id, epochs.getOrDefault(id, -1L))).toList(), false);
    }

    AlterPartitionResponse alterPartition(AlterPartitionRequest request) {
        return commit(ReplicationControl.alterPartition(state, request));
    }

    AlterPartitionResponse.PartitionResult alter(int sender, AlterPartitionRequest.Item item) {
        return alterPartition(new AlterPartitionRequest(sender, epochs.get(sender), List.of(item)))
                .partitions().get(item.topicPartition());
    }

    String describeCompact(String topic) {
        return ControllerState.compact(state.describe(topic));
    }

    /** Every registration {@code tp} had, oldest first: from the deltas brokers saw. */
    List<PartitionRegistration> history(TopicPartition tp) {
        List<PartitionRegistration> result = new ArrayList<>();
        for (MetadataDelta delta : deltas) {
            delta.partitions().stream().filter(p -> p.topicPartition().equals(tp)).forEach(result::add);
        }
        return result;
    }

    List<Integer> partitionEpochs(TopicPartition tp) {
        return history(tp).stream().map(PartitionRegistration::partitionEpoch).toList();
    }
}
