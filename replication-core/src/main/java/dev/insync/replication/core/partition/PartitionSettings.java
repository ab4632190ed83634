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

import dev.insync.replication.core.time.Time;

import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * What a {@link Partition} needs from the broker it lives on.
 *
 * @param localBrokerId         this broker's id
 * @param localBrokerEpoch      this broker's current epoch (sent as the leader's own in AlterPartition, ISR-5)
 * @param time                  the clock
 * @param replicaLagTimeMaxMs   {@code replica.lag.time.max.ms} (ISR-1)
 * @param eligibility           broker metadata for ISR-3 and FET-2
 * @param alterPartitionSender  the broker's AlterPartition manager (ISR-5)
 * @param listener              purgatory wake-ups and ISR metrics
 */
public record PartitionSettings(int localBrokerId, LongSupplier localBrokerEpoch, Time time, long replicaLagTimeMaxMs,
                                ReplicaEligibility eligibility, AlterPartitionSender alterPartitionSender,
                                PartitionListener listener) {

    /** Validates. */
    public PartitionSettings {
        if (localBrokerId < 0) {
            throw new IllegalArgumentException("Negative local broker id " + localBrokerId);
        }
        if (replicaLagTimeMaxMs <= 0) {
            throw new IllegalArgumentException("replica.lag.time.max.ms must be positive: " + replicaLagTimeMaxMs);
        }
        Objects.requireNonNull(localBrokerEpoch, "localBrokerEpoch");
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(eligibility, "eligibility");
        Objects.requireNonNull(alterPartitionSender, "alterPartitionSender");
        Objects.requireNonNull(listener, "listener");
    }
}
