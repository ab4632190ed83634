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

import dev.insync.replication.log.TopicPartition;

import java.util.HashSet;
import java.util.List;

/**
 * A broker reported, in a heartbeat, replicas whose log directory failed. For the rest of its
 * incarnation the controller treats them as gone: they leave the ISR and the ELR of their partition
 * in the same batch, cannot lead it and are ineligible for its ISR (like fencing, per partition).
 *
 * @param brokerId    the broker
 * @param brokerEpoch the incarnation
 * @param partitions  the newly offline replicas, distinct, in the order reported
 */
public record ReplicasOfflineRecord(int brokerId, long brokerEpoch, List<TopicPartition> partitions)
        implements MetadataRecord {

    /** Bound on the partitions of one record. */
    public static final int MAX_PARTITIONS = 10_000;

    /** Validates the fields; immutable copy. */
    public ReplicasOfflineRecord {
        RecordChecks.brokerId("brokerId", brokerId);
        RecordChecks.nonNegative("brokerEpoch", brokerEpoch);
        if (partitions == null || partitions.isEmpty() || partitions.size() > MAX_PARTITIONS) {
            throw new IllegalArgumentException("A ReplicasOfflineRecord needs 1 to " + MAX_PARTITIONS + " partitions, got "
                    + (partitions == null ? "none" : partitions.size()));
        }
        partitions.forEach(RecordChecks::partition);
        if (new HashSet<>(partitions).size() != partitions.size()) {
            throw new IllegalArgumentException("Repeated partition in offline replicas " + partitions);
        }
        partitions = List.copyOf(partitions);
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.REPLICAS_OFFLINE;
    }
}
