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

import java.util.List;
import java.util.Map;

/**
 * Creates a topic, with an explicit replica assignment (like {@code --replica-assignment 1:2:3,2:3:1})
 * or placed round-robin over the unfenced brokers with a replication factor.
 *
 * @param topic             the topic name
 * @param assignment        one replica list per partition, or empty to place replicas
 * @param partitions        number of partitions when placing (ignored with an assignment)
 * @param replicationFactor replicas per partition when placing, -1 for {@code default.replication.factor}
 * @param configs           topic configs ({@code min.insync.replicas}, {@code unclean.leader.election.enable});
 *                          missing ones take the controller's defaults
 */
public record CreateTopicRequest(String topic, List<List<Integer>> assignment, int partitions, int replicationFactor,
                                 Map<String, String> configs) {

    /** Immutable copies. */
    public CreateTopicRequest {
        assignment = assignment.stream().map(List::copyOf).toList();
        configs = Map.copyOf(configs);
    }

    /** A topic with an explicit assignment. */
    public static CreateTopicRequest withAssignment(String topic, List<List<Integer>> assignment, Map<String, String> configs) {
        return new CreateTopicRequest(topic, assignment, assignment.size(), -1, configs);
    }

    /** A topic placed round-robin. */
    public static CreateTopicRequest withPlacement(String topic, int partitions, int replicationFactor,
                                                   Map<String, String> configs) {
        return new CreateTopicRequest(topic, List.of(), partitions, replicationFactor, configs);
    }
}
