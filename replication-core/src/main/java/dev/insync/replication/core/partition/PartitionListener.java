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

import dev.insync.replication.core.metrics.ReplicationMetrics;
import dev.insync.replication.log.TopicPartition;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * Side effects a {@link Partition} asks its broker to perform: wake the purgatories (PRO-4, FET-5) and count
 * ISR changes (metrics). Called outside the partition's lock; implementations must not block.
 */
public interface PartitionListener {

    /** The leader's HW rose: check the produce purgatory and consumers' fetches for this partition. */
    default void onHighWatermarkIncreased(TopicPartition topicPartition) {
    }

    /** A shrink was committed ({@code IsrShrinksPerSec}). */
    default void onIsrShrink(TopicPartition topicPartition) {
    }

    /** An expansion was committed ({@code IsrExpandsPerSec}). */
    default void onIsrExpand(TopicPartition topicPartition) {
    }

    /** A proposal was refused or failed ({@code FailedIsrUpdatesPerSec}). */
    default void onFailedIsrUpdate(TopicPartition topicPartition) {
    }

    /**
     * The usual broker wiring: ISR events go to {@code metrics}, HW rises to {@code onHighWatermarkIncreased}
     * (which checks the produce and fetch purgatories for the partition, PRO-4).
     */
    static PartitionListener of(ReplicationMetrics metrics, Consumer<TopicPartition> onHighWatermarkIncreased) {
        Objects.requireNonNull(metrics, "metrics");
        Objects.requireNonNull(onHighWatermarkIncreased, "onHighWatermarkIncreased");
        return new PartitionListener() {
            @Override
            public void onHighWatermarkIncreased(TopicPartition topicPartition) {
                onHighWatermarkIncreased.accept(topicPartition);
            }

            @Override
            public void onIsrShrink(TopicPartition topicPartition) {
                metrics.isrShrink(topicPartition);
            }

            @Override
            public void onIsrExpand(TopicPartition topicPartition) {
                metrics.isrExpand(topicPartition);
            }

            @Override
            public void onFailedIsrUpdate(TopicPartition topicPartition) {
                metrics.failedIsrUpdate(topicPartition);
            }
        };
    }

    /** Does nothing. */
    PartitionListener NOOP = new PartitionListener() {
    };
}
