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

package dev.insync.replication.core.metrics;

import dev.insync.replication.log.TopicPartition;

import java.util.function.LongSupplier;

/**
 * What the replication core reports, with Kafka's metric names. The core calls the event methods
 * ({@link #isrShrink}, {@link #isrExpand}, {@link #failedIsrUpdate}) as things happen and registers
 * gauges once (e.g. the {@code ReplicaManager} registers {@link #UNDER_REPLICATED_PARTITIONS} with a
 * supplier that counts its under-replicated partitions). Implementations: {@link #NOOP},
 * {@link InMemoryReplicationMetrics} (tests), {@link JmxReplicationMetrics} (production).
 * Implementations are thread-safe; event methods are cheap and never throw.
 */
public interface ReplicationMetrics extends AutoCloseable {

    /** Gauge: led partitions whose ISR is smaller than their replica set. */
    String UNDER_REPLICATED_PARTITIONS = "UnderReplicatedPartitions";
    /** Gauge: led partitions whose ISR is smaller than their min ISR. */
    String UNDER_MIN_ISR_PARTITION_COUNT = "UnderMinIsrPartitionCount";
    /** Gauge: the largest lag in messages of any partition a follower fetcher of this broker replicates. */
    String MAX_LAG = "MaxLag";
    /** Meter: ISR shrinks committed. */
    String ISR_SHRINKS_PER_SEC = "IsrShrinksPerSec";
    /** Meter: ISR expansions committed. */
    String ISR_EXPANDS_PER_SEC = "IsrExpandsPerSec";
    /** Meter: AlterPartition proposals that failed. */
    String FAILED_ISR_UPDATES_PER_SEC = "FailedIsrUpdatesPerSec";

    /** An ISR shrink of {@code tp} was committed (ISR-1, ISR-5). */
    void isrShrink(TopicPartition tp);

    /** An ISR expansion of {@code tp} was committed (ISR-2, ISR-5). */
    void isrExpand(TopicPartition tp);

    /** An AlterPartition proposal for {@code tp} failed. */
    void failedIsrUpdate(TopicPartition tp);

    /**
     * Registers (or replaces) a gauge read on demand. {@code value} may be called from any thread.
     *
     * @param name one of the gauge constants here, or another Kafka ReplicaManager gauge name
     */
    void registerGauge(String name, LongSupplier value);

    /** Removes a gauge; no-op if absent. */
    void removeGauge(String name);

    /** Releases what the implementation registered (JMX: unregisters its MBeans). Idempotent. */
    @Override
    void close();

    /** Discards everything. */
    ReplicationMetrics NOOP = new ReplicationMetrics() {
        @Override
        public void isrShrink(TopicPartition tp) {
        }

        @Override
        public void isrExpand(TopicPartition tp) {
        }

        @Override
        public void failedIsrUpdate(TopicPartition tp) {
        }

        @Override
        public void registerGauge(String name, LongSupplier value) {
        }

        @Override
        public void removeGauge(String name) {
        }

        @Override
        public void close() {
        }

        @Override
        public String toString() {
            return "ReplicationMetrics.NOOP";
        }
    };
}
