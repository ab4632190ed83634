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

import dev.insync.replication.core.metadata.BrokerRegistration;
import dev.insync.replication.core.metadata.Endpoint;
import dev.insync.replication.log.TopicPartition;

import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The controller's state of one broker incarnation (LDR-4, LDR-5): what its records say.
 *
 * @param brokerId             the broker
 * @param brokerEpoch          the offset of its registration record
 * @param previousBrokerEpoch  the clean-shutdown epoch it sent when registering, -1 if none
 * @param uncleanRestart       the registration was judged an unclean restart
 * @param fenced               fenced (registered and not yet caught up, or session expired)
 * @param inControlledShutdown in controlled shutdown
 * @param everUnfenced         unfenced at least once in this incarnation
 * @param offlineReplicas      replicas it reported on a failed log directory, sorted
 * @param endpoints            the advertised listeners its registration carried (LDR-4)
 */
public record BrokerEntry(int brokerId, long brokerEpoch, long previousBrokerEpoch, boolean uncleanRestart,
                          boolean fenced, boolean inControlledShutdown, boolean everUnfenced,
                          List<TopicPartition> offlineReplicas, List<Endpoint> endpoints) {

    /** Order of {@link #offlineReplicas}: topic, then partition. */
    public static final Comparator<TopicPartition> PARTITION_ORDER =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    /** Immutable copy. */
    public BrokerEntry {
        offlineReplicas = List.copyOf(offlineReplicas);
        endpoints = Endpoint.checkedList(brokerId, endpoints);
    }

    /** ISR-3 / ISR-8: registered, unfenced and not shutting down. */
    public boolean isActive() {
        return !fenced && !inControlledShutdown;
    }

    /** Whether this broker's replica of {@code tp} is usable: active and not on a failed log directory. */
    public boolean canServe(TopicPartition tp) {
        return isActive() && !isOffline(tp);
    }

    /** Whether it reported its replica of {@code tp} offline. */
    public boolean isOffline(TopicPartition tp) {
        return !offlineReplicas.isEmpty() && offlineReplicas.contains(tp);
    }

    /** The registration brokers see in metadata. */
    public BrokerRegistration registration() {
        return new BrokerRegistration(brokerId, brokerEpoch, fenced, inControlledShutdown, endpoints);
    }

    BrokerEntry withFenced(boolean value) {
        return new BrokerEntry(brokerId, brokerEpoch, previousBrokerEpoch, uncleanRestart, value, inControlledShutdown,
                everUnfenced || !value, offlineReplicas, endpoints);
    }

    BrokerEntry withControlledShutdown() {
        return new BrokerEntry(brokerId, brokerEpoch, previousBrokerEpoch, uncleanRestart, fenced, true, everUnfenced,
                offlineReplicas, endpoints);
    }

    BrokerEntry withOffline(List<TopicPartition> more) {
        Set<TopicPartition> all = new TreeSet<>(PARTITION_ORDER);
        all.addAll(offlineReplicas);
        all.addAll(more);
        return new BrokerEntry(brokerId, brokerEpoch, previousBrokerEpoch, uncleanRestart, fenced, inControlledShutdown,
                everUnfenced, List.copyOf(all), endpoints);
    }

    BrokerEntry withoutOfflineReplicasOf(String topic) {
        return new BrokerEntry(brokerId, brokerEpoch, previousBrokerEpoch, uncleanRestart, fenced, inControlledShutdown,
                everUnfenced, offlineReplicas.stream().filter(tp -> !tp.topic().equals(topic)).toList(), endpoints);
    }
}
