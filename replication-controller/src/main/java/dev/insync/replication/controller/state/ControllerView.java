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

package dev.insync.replication.controller.state;

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.TopicPartition;

import java.util.Collection;

/**
 * Read access to the controller's state, all an operation may look at. Implemented by
 * {@link ControllerState} and by the {@link ChangeSet} an operation builds (the state as it will
 * be once the operation's records so far are replayed).
 */
public interface ControllerView {

    /** The broker's current incarnation, or null if it never registered. */
    BrokerEntry broker(int brokerId);

    /** Every broker, by id. */
    Collection<BrokerEntry> brokers();

    /** The topic, or null. */
    TopicEntry topic(String name);

    /** Every topic, in creation order. */
    Collection<TopicEntry> topics();

    /** The partition, or null. */
    PartitionRegistration partition(TopicPartition tp);

    /** Every partition, topics in creation order, partitions by index. */
    Collection<PartitionRegistration> partitions();

    /** Offset of the last record in this state, -1 for the empty state. */
    long lastOffset();

    /** The offset the next record will get. */
    default long nextOffset() {
        return lastOffset() + 1;
    }

    /** Whether {@code brokerId} may lead or be in the ISR of {@code tp} (ISR-3, ISR-8). */
    default boolean canServe(int brokerId, TopicPartition tp) {
        BrokerEntry broker = broker(brokerId);
        return broker != null && broker.canServe(tp);
    }
}
