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

import java.util.List;
import java.util.stream.Collectors;

/**
 * ISR-4: a leader's ISR is either committed or has exactly one change in flight to the controller.
 * The HW is computed over {@link #maximalIsr()}, so an uncommitted change can never move it forward:
 * a pending expansion already counts the joining replica, a pending shrink still counts the leaving ones.
 * After an unclean election the change in flight may also be the leader's report that the partition
 * recovered (CTL-6), which leaves the ISR as it is.
 */
public sealed interface IsrState
        permits IsrState.CommittedIsr, IsrState.PendingExpandIsr, IsrState.PendingShrinkIsr, IsrState.PendingRecovery {

    /** The last committed ISR, in the controller's order. */
    List<Integer> isr();

    /** The largest ISR the partition may have once the change in flight resolves. */
    List<Integer> maximalIsr();

    /** Whether an AlterPartition proposal is outstanding (ISR-4: then no other change starts). */
    boolean isInflight();

    /** The committed state to fall back to when a proposal is refused (ISR-5). */
    CommittedIsr lastCommittedState();

    /** The ISR as Kafka prints it: {@code 1,2,3}. */
    static String format(List<Integer> ids) {
        return ids.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    /** No change in flight. */
    record CommittedIsr(List<Integer> isr) implements IsrState {

        /** Immutable copy. */
        public CommittedIsr {
            isr = List.copyOf(isr);
        }

        @Override
        public List<Integer> maximalIsr() {
            return isr;
        }

        @Override
        public boolean isInflight() {
            return false;
        }

        @Override
        public CommittedIsr lastCommittedState() {
            return this;
        }
    }

    /**
     * A proposal to add {@code newInSyncReplicaId} (ISR-2). Maximal ISR = isr + the new replica: the HW already
     * waits for it, which is harmless if the proposal fails.
     *
     * @param isr                 committed ISR
     * @param newInSyncReplicaId  the joining replica
     * @param proposal            the proposal sent, identifying this attempt
     * @param lastCommittedState  the state to return to on refusal
     */
    record PendingExpandIsr(List<Integer> isr, int newInSyncReplicaId, IsrProposal proposal,
                            CommittedIsr lastCommittedState) implements IsrState {

        /** Immutable copy. */
        public PendingExpandIsr {
            isr = List.copyOf(isr);
        }

        @Override
        public List<Integer> maximalIsr() {
            if (isr.contains(newInSyncReplicaId)) {
                return isr;
            }
            java.util.ArrayList<Integer> maximal = new java.util.ArrayList<>(isr);
            maximal.add(newInSyncReplicaId);
            return List.copyOf(maximal);
        }

        @Override
        public boolean isInflight() {
            return true;
        }
    }

    /**
     * A proposal to remove {@code outOfSyncReplicaIds} (ISR-1). Maximal ISR = the committed ISR: assuming the
     * shrink succeeded could raise the HW past what the leaving replicas hold if it then failed.
     *
     * @param isr                  committed ISR
     * @param outOfSyncReplicaIds  the leaving replicas
     * @param proposal             the proposal sent, identifying this attempt
     * @param lastCommittedState   the state to return to on refusal
     */
    record PendingShrinkIsr(List<Integer> isr, List<Integer> outOfSyncReplicaIds, IsrProposal proposal,
                            CommittedIsr lastCommittedState) implements IsrState {

        /** Immutable copies. */
        public PendingShrinkIsr {
            isr = List.copyOf(isr);
            outOfSyncReplicaIds = List.copyOf(outOfSyncReplicaIds);
        }

        @Override
        public List<Integer> maximalIsr() {
            return isr;
        }

        @Override
        public boolean isInflight() {
            return true;
        }
    }

    /**
     * CTL-6: the leader of a partition elected uncleanly (RECOVERING) reports it recovered, with the ISR unchanged.
     * In flight like any change, so no expansion is proposed until the controller has committed the recovery.
     *
     * @param isr                 committed ISR (the leader alone after an unclean election)
     * @param proposal            the proposal sent, identifying this attempt
     * @param lastCommittedState  the state to return to on refusal
     */
    record PendingRecovery(List<Integer> isr, IsrProposal proposal, CommittedIsr lastCommittedState)
            implements IsrState {

        /** Immutable copy. */
        public PendingRecovery {
            isr = List.copyOf(isr);
        }

        @Override
        public List<Integer> maximalIsr() {
            return isr;
        }

        @Override
        public boolean isInflight() {
            return true;
        }
    }
}
