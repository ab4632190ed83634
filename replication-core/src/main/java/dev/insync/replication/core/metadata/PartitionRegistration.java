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

import dev.insync.replication.log.TopicPartition;

import java.util.List;
import java.util.Objects;

/**
 * The controller's view of one partition, as published in metadata (LDR-3). Build one with
 * {@link #builder(TopicPartition)}, change one with {@link #toBuilder()}; the canonical constructor
 * (every field, in order) is for code that has them all, such as decoders and controllers.
 *
 * <pre>{@code
 * PartitionRegistration p = PartitionRegistration.builder(tp).replicas(1, 2, 3).isr(1, 2, 3).leader(1).build();
 * PartitionRegistration shrunk = p.toBuilder().isr(1, 2).partitionEpoch(p.partitionEpoch() + 1).build();
 * }</pre>
 *
 * @param topicPartition      the partition
 * @param replicas            assigned replicas in assignment order
 * @param isr                 in-sync replicas (may be empty with ELR, ISR-7)
 * @param elr                 eligible leader replicas (KIP-966)
 * @param lastKnownElr        last known ELR members
 * @param leader              leader broker id, or {@link #NO_LEADER}
 * @param leaderEpoch         bumped when the leader changes
 * @param partitionEpoch      bumped on every change of this registration
 * @param recovering          true after an unclean election until the leader reports recovery (ISR-8)
 */
public record PartitionRegistration(TopicPartition topicPartition, List<Integer> replicas, List<Integer> isr,
                                    List<Integer> elr, List<Integer> lastKnownElr, int leader, int leaderEpoch,
                                    int partitionEpoch, boolean recovering) {

    /** Leader id of a leaderless partition. */
    public static final int NO_LEADER = -1;

    /** Immutable copies. */
    public PartitionRegistration {
        Objects.requireNonNull(topicPartition, "topicPartition");
        replicas = List.copyOf(replicas);
        isr = List.copyOf(isr);
        elr = List.copyOf(elr);
        lastKnownElr = List.copyOf(lastKnownElr);
    }

    /**
     * A builder of a registration of {@code topicPartition}. Defaults: no replicas, empty ISR, ELR and
     * last known ELR, {@link #NO_LEADER}, leader epoch 0, partition epoch 0, not recovering.
     */
    public static Builder builder(TopicPartition topicPartition) {
        return new Builder(Objects.requireNonNull(topicPartition, "topicPartition"));
    }

    /** A builder holding every field of this registration, to build a changed copy. */
    public Builder toBuilder() {
        return new Builder(topicPartition).replicas(replicas).isr(isr).elr(elr).lastKnownElr(lastKnownElr)
                .leader(leader).leaderEpoch(leaderEpoch).partitionEpoch(partitionEpoch).recovering(recovering);
    }

    /** Builds a {@link PartitionRegistration}; every setter replaces the field's value. */
    public static final class Builder {
        private final TopicPartition topicPartition;
        private List<Integer> replicas = List.of();
        private List<Integer> isr = List.of();
        private List<Integer> elr = List.of();
        private List<Integer> lastKnownElr = List.of();
        private int leader = NO_LEADER;
        private int leaderEpoch;
        private int partitionEpoch;
        private boolean recovering;

        private Builder(TopicPartition topicPartition) {
            this.topicPartition = topicPartition;
        }

        /** Assigned replicas in assignment order. */
        public Builder replicas(List<Integer> ids) {
            this.replicas = List.copyOf(ids);
            return this;
        }

        /** Assigned replicas in assignment order. */
        public Builder replicas(Integer... ids) {
            return replicas(List.of(ids));
        }

        /** In-sync replicas. */
        public Builder isr(List<Integer> ids) {
            this.isr = List.copyOf(ids);
            return this;
        }

        /** In-sync replicas. */
        public Builder isr(Integer... ids) {
            return isr(List.of(ids));
        }

        /** Eligible leader replicas (KIP-966). */
        public Builder elr(List<Integer> ids) {
            this.elr = List.copyOf(ids);
            return this;
        }

        /** Last known ELR members. */
        public Builder lastKnownElr(List<Integer> ids) {
            this.lastKnownElr = List.copyOf(ids);
            return this;
        }

        /** The leader's broker id, or {@link #NO_LEADER}. */
        public Builder leader(int brokerId) {
            this.leader = brokerId;
            return this;
        }

        /** The leader epoch. */
        public Builder leaderEpoch(int epoch) {
            this.leaderEpoch = epoch;
            return this;
        }

        /** The partition epoch. */
        public Builder partitionEpoch(int epoch) {
            this.partitionEpoch = epoch;
            return this;
        }

        /** Whether the partition is recovering from an unclean election (ISR-8). */
        public Builder recovering(boolean value) {
            this.recovering = value;
            return this;
        }

        /** The registration. */
        public PartitionRegistration build() {
            return new PartitionRegistration(topicPartition, replicas, isr, elr, lastKnownElr, leader, leaderEpoch,
                    partitionEpoch, recovering);
        }
    }
}
