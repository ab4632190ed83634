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

import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;

import java.util.List;
import java.util.Map;
import java.util.Collections;
import java.util.LinkedHashMap;

/**
 * The controller's answer to an {@link AlterPartitionRequest} (ISR-5, ISR-6).
 *
 * @param error      request-level error (e.g. STALE_BROKER_EPOCH), else NONE
 * @param partitions per-partition results
 */
public record AlterPartitionResponse(Errors error, Map<TopicPartition, PartitionResult> partitions) {

    /** Immutable copy in the given order (Map.copyOf's is randomized per JVM, and results are applied in iteration order: INV-6). */
    public AlterPartitionResponse {
        partitions = Collections.unmodifiableMap(new LinkedHashMap<>(partitions));
    }

    /**
     * One partition's result; on success the committed state.
     *
     * @param error           NONE on success
     * @param leaderId        leader after the change
     * @param leaderEpoch     leader epoch after the change
     * @param isr             committed ISR
     * @param partitionEpoch  partition epoch after the change
     */
    public record PartitionResult(Errors error, int leaderId, int leaderEpoch, List<Integer> isr, int partitionEpoch) {

        /** Immutable copy. */
        public PartitionResult {
            isr = List.copyOf(isr);
        }

        /** A failed result. */
        public static PartitionResult failed(Errors error) {
            return new PartitionResult(error, -1, -1, List.of(), -1);
        }
    }
}
