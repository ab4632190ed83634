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

package dev.insync.replication.controller.api;

import dev.insync.replication.controller.state.ControllerState;
import dev.insync.replication.core.metadata.PartitionRegistration;

import java.util.List;
import java.util.stream.Collectors;

/**
 * A topic as the controller has it.
 *
 * @param topic                 the topic
 * @param minInsyncReplicas     its {@code min.insync.replicas}
 * @param uncleanLeaderElection its {@code unclean.leader.election.enable}
 * @param partitions            its partitions by index
 */
public record TopicDescription(String topic, int minInsyncReplicas, boolean uncleanLeaderElection,
                               List<PartitionRegistration> partitions) {

    /** Immutable copy. */
    public TopicDescription {
        partitions = List.copyOf(partitions);
    }

    /**
     * {@code kafka-topics.sh --describe}'s lines, tab separated:
     * {@code Topic: rep\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2,3\tElr: \tLastKnownElr: }.
     */
    public String describe() {
        return partitions.stream().map(ControllerState::describeLine).collect(Collectors.joining("\n"));
    }

    /** {@link #describe()} with whitespace runs collapsed, e.g. {@code Topic: rep Partition: 0 Leader: 1 ... LastKnownElr:}. */
    public String describeCompact() {
        return ControllerState.compact(describe());
    }
}
