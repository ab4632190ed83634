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

package dev.insync.replication.netty.client;

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.netty.protocol.MetadataResponse;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;

/**
 * What {@link InsyncClient} routes by, and the highest leader epoch it has seen per partition
 * (Kafka's {@code Metadata} with its {@code lastSeenLeaderEpochs}, KIP-320). Metadata answers come
 * from whichever broker was asked, and a broker may be behind the controller (cut off from it, or
 * still starting): a partition whose answer names a leader epoch below the highest one already
 * seen keeps the route it had (or none) instead of going back to a replaced leader. The highest
 * epoch outlives the route: {@link #forget} (after NOT_LEADER_OR_FOLLOWER, a lost connection...)
 * drops the route, not the epoch. Epochs only grow because a partition's leader epoch only grows
 * (ISR-8) and Insync topics are never deleted and created again.
 *
 * <p>Not thread-safe: the client's sender owns it.
 */
final class ClientMetadata {

    private final Map<TopicPartition, PartitionRegistration> routes = new HashMap<>();
    private final Map<TopicPartition, Integer> lastSeenEpochs = new HashMap<>();
    private final Set<String> knownTopics = new HashSet<>();

    /**
     * Routes by {@code response} from now on (every topic is asked for, so it replaces what was
     * known), except for the partitions it names with a leader epoch older than one seen: those keep
     * their route, if they still have one.
     *
     * @return the partitions whose answer was stale, in the answer's order
     */
    Set<TopicPartition> update(MetadataResponse response) {
        Map<TopicPartition, PartitionRegistration> next = new HashMap<>();
        Set<TopicPartition> stale = new LinkedHashSet<>();
        knownTopics.clear();
        for (MetadataResponse.TopicMetadata t : response.topics()) {
            if (t.error() != Errors.NONE) {
                continue;
            }
            knownTopics.add(t.name());
            for (PartitionRegistration p : t.partitions()) {
                TopicPartition tp = p.topicPartition();
                Integer seen = lastSeenEpochs.get(tp);
                if (seen == null || p.leaderEpoch() >= seen) {
                    next.put(tp, p);
                    lastSeenEpochs.put(tp, p.leaderEpoch());
                } else {
                    stale.add(tp);
                    PartitionRegistration kept = routes.get(tp);
                    if (kept != null) {
                        next.put(tp, kept);
                    }
                }
            }
        }
        routes.clear();
        routes.putAll(next);
        return stale;
    }

    /** The registration {@code tp} is routed by, or {@code null} if none. */
    PartitionRegistration route(TopicPartition tp) {
        return routes.get(tp);
    }

    /** The leader {@code tp} is routed to, or {@link PartitionRegistration#NO_LEADER}. */
    int leaderOf(TopicPartition tp) {
        PartitionRegistration p = routes.get(tp);
        return p == null ? PartitionRegistration.NO_LEADER : p.leader();
    }

    /** Drops {@code tp}'s route (its leader said it is not the leader, or could not be reached); keeps its epoch. */
    void forget(TopicPartition tp) {
        routes.remove(tp);
    }

    /**
     * Learns that {@code tp} has reached leader epoch {@code epoch} (a produce answer's epoch, a
     * fetched batch's {@code partitionLeaderEpoch}); Kafka's {@code updateLastSeenEpochIfNewer}.
     *
     * @return whether it is newer than every epoch seen, so the route is older than the leader
     */
    boolean updateLastSeenEpochIfNewer(TopicPartition tp, int epoch) {
        Integer seen = lastSeenEpochs.get(tp);
        if (epoch < 0 || (seen != null && epoch <= seen)) {
            return false;
        }
        lastSeenEpochs.put(tp, epoch);
        return true;
    }

    /** The highest leader epoch seen for {@code tp}, if any. */
    OptionalInt lastSeenEpoch(TopicPartition tp) {
        Integer seen = lastSeenEpochs.get(tp);
        return seen == null ? OptionalInt.empty() : OptionalInt.of(seen);
    }

    /** Whether the last answer named {@code topic} without an error. */
    boolean knowsTopic(String topic) {
        return knownTopics.contains(topic);
    }

    /** Every routed partition's registration (a copy). */
    Map<TopicPartition, PartitionRegistration> routes() {
        return Map.copyOf(routes);
    }
}
