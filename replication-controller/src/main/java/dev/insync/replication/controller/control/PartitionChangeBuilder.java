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

package dev.insync.replication.controller.control;

import dev.insync.replication.controller.state.TopicEntry;
import dev.insync.replication.core.metadata.PartitionRegistration;

import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.IntPredicate;

/**
 * Decides one partition's next state: the one place the controller's partition rules live. Given
 * the current registration, a target ISR and what changed around it, {@link #build()} applies
 * <ul>
 *   <li>ISR-8 election: keep the current leader while it is in the ISR and acceptable; otherwise the
 *       first acceptable ISR member in assignment order; with the ISR empty the first acceptable
 *       electable ELR member, with ISR = {itself}; with {@code unclean.leader.election.enable} the
 *       first acceptable replica, with ISR = {itself}, ELR and LastKnownElr cleared and the partition
 *       RECOVERING; else no leader. A new leader bumps the leader epoch.</li>
 *   <li>ISR-7 ELR bookkeeping: with at least the effective min ISR in the ISR, ELR and LastKnownElr
 *       are empty; otherwise ELR = (old ELR + old ISR) - new ISR - ineligible replicas, and
 *       LastKnownElr remembers former candidates now in neither.</li>
 *   <li>any change bumps the partition epoch; no change is no change (empty result).</li>
 * </ul>
 * Pure: no state is read but what the constructor is given.
 */
public final class PartitionChangeBuilder {

    private final PartitionRegistration current;
    private final TopicEntry topic;
    private final IntPredicate isAcceptableLeader;
    private Set<Integer> targetIsr;
    private Set<Integer> ineligibleForElr = Set.of();
    private boolean recovering;

    /**
     * @param current            the partition now
     * @param topic              its topic (min ISR, unclean election)
     * @param isAcceptableLeader whether a broker may lead or be in the ISR of this partition now
     *                           (registered, unfenced, not shutting down, replica not offline)
     */
    public PartitionChangeBuilder(PartitionRegistration current, TopicEntry topic, IntPredicate isAcceptableLeader) {
        this.current = Objects.requireNonNull(current, "current");
        this.topic = Objects.requireNonNull(topic, "topic");
        this.isAcceptableLeader = Objects.requireNonNull(isAcceptableLeader, "isAcceptableLeader");
        this.targetIsr = Set.copyOf(current.isr());
        this.recovering = current.recovering();
    }

    /** The ISR to move to (a set; it is kept in assignment order). Default: the current ISR. */
    public PartitionChangeBuilder setTargetIsr(Collection<Integer> isr) {
        this.targetIsr = Set.copyOf(isr);
        return this;
    }

    /**
     * LDR-5 and offline replicas: brokers that leave the ELR and cannot be elected from it (an
     * unclean restart may have lost records; a failed log directory has none).
     */
    public PartitionChangeBuilder setIneligibleForElr(Set<Integer> brokers) {
        this.ineligibleForElr = Set.copyOf(brokers);
        return this;
    }

    /** CTL-6: whether the partition stays RECOVERING (false once the leader reported it recovered). */
    public PartitionChangeBuilder setRecovering(boolean value) {
        this.recovering = value;
        return this;
    }

    /** The next state, or empty if nothing changes. */
    public Optional<PartitionRegistration> build() {
        List<Integer> replicas = current.replicas();
        List<Integer> isr = inAssignmentOrder(replicas, targetIsr);
        int leader = current.leader();
        boolean nextRecovering = recovering;
        boolean uncleanElection = false;
        if (!(leader != PartitionRegistration.NO_LEADER && isr.contains(leader) && isAcceptableLeader.test(leader))) {
            OptionalInt fromIsr = firstAcceptable(replicas, isr);
            OptionalInt fromElr = OptionalInt.empty();
            if (isr.isEmpty()) {
                List<Integer> electableElr = current.elr().stream()
                        .filter(r -> !ineligibleForElr.contains(r) && !targetIsr.contains(r)).toList();
                fromElr = firstAcceptable(replicas, electableElr);
            }
            OptionalInt unclean = topic.uncleanLeaderElection() ? firstAcceptable(replicas, replicas) : OptionalInt.empty();
            if (fromIsr.isPresent()) {
                leader = fromIsr.getAsInt();
            } else if (fromElr.isPresent()) {
                leader = fromElr.getAsInt();
                isr = List.of(leader);
            } else if (unclean.isPresent()) {
                leader = unclean.getAsInt();
                isr = List.of(leader);
                uncleanElection = true;
                nextRecovering = true;
            } else {
                leader = PartitionRegistration.NO_LEADER;
            }
        }
        List<Integer> elr;
        List<Integer> lastKnownElr;
        if (uncleanElection || isr.size() >= topic.effectiveMinIsr(replicas.size())) {
            elr = List.of();
            lastKnownElr = List.of();
        } else {
            Set<Integer> isrSet = Set.copyOf(isr);
            Set<Integer> candidates = new LinkedHashSet<>(current.elr());
            candidates.addAll(current.isr());
            Set<Integer> elrSet = new LinkedHashSet<>();
            for (int r : candidates) {
                if (!isrSet.contains(r) && !ineligibleForElr.contains(r)) {
                    elrSet.add(r);
                }
            }
            elr = inAssignmentOrder(replicas, elrSet);
            // Former candidates that are in neither the ISR nor the ELR any more are remembered.
            candidates.addAll(current.lastKnownElr());
            Set<Integer> known = new LinkedHashSet<>();
            for (int r : candidates) {
                if (!isrSet.contains(r) && !elrSet.contains(r)) {
                    known.add(r);
                }
            }
            lastKnownElr = inAssignmentOrder(replicas, known);
        }
        boolean changed = leader != current.leader() || !isr.equals(current.isr()) || !elr.equals(current.elr())
                || !lastKnownElr.equals(current.lastKnownElr()) || nextRecovering != current.recovering();
        if (!changed) {
            return Optional.empty();
        }
        int leaderEpoch = leader != current.leader() ? current.leaderEpoch() + 1 : current.leaderEpoch();
        return Optional.of(new PartitionRegistration(current.topicPartition(), replicas, isr, elr, lastKnownElr, leader,
                leaderEpoch, current.partitionEpoch() + 1, nextRecovering));
    }

    /** Whether going from {@code before} to {@code after} elected a leader that was in neither the ISR nor the ELR. */
    public static boolean isUncleanElection(PartitionRegistration before, PartitionRegistration after) {
        return after.leader() != before.leader() && after.leader() != PartitionRegistration.NO_LEADER
                && !before.isr().contains(after.leader()) && !before.elr().contains(after.leader());
    }

    private OptionalInt firstAcceptable(List<Integer> replicas, Collection<Integer> among) {
        for (int r : replicas) {
            if (among.contains(r) && isAcceptableLeader.test(r)) {
                return OptionalInt.of(r);
            }
        }
        return OptionalInt.empty();
    }

    private static List<Integer> inAssignmentOrder(List<Integer> replicas, Set<Integer> members) {
        return replicas.stream().filter(members::contains).toList();
    }
}
