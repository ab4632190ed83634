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

package dev.insync.replication.netty.protocol;

import dev.insync.replication.core.partition.ReplicaDescription;

import java.util.List;

/**
 * What one broker holds of every replica it hosts (or of the topics asked for): leadership, leader
 * epoch, the leader's maximal ISR, HW, LEO, log start and the leader-epoch cache, each read by
 * {@code Partition.describe()}. An observer's view for judging invariants on running brokers; no
 * broker uses it.
 *
 * @param replicas by topic, then partition
 */
public record DescribeReplicasResponse(List<ReplicaDescription> replicas) {

    public DescribeReplicasResponse {
        replicas = List.copyOf(replicas);
    }
}
