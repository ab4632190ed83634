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

package dev.insync.replication.testkit.cluster;

/**
 * TEST-ONLY deliberate bugs that an {@link InMemoryCluster} can inject at its own seams (the
 * broker-side request handlers, the controller channel and the metadata path it wires, and its
 * clients), so that the randomized simulation can prove it catches a broken library. Never enable
 * one outside a test that asserts the invariant checker reports a violation. None of them touches
 * the core classes: they rewrite what crosses the in-memory network, or change the test clients.
 * Each is one rule broken in one place, the way a real bug would be; the constant's javadoc says
 * which invariant catches it (MutationTest proves it over a fixed range of seeds).
 */
public enum Mutation {

    /**
     * Fetch handler: strips {@code divergingEpoch} from every fetch response, so a follower whose
     * log diverged is never told to truncate (FET-3 skipped): it keeps records the leader never had
     * and its log stops matching the leader's (INV-3, and INV-1/INV-2 when such a follower later leads).
     */
    STRIP_DIVERGING_EPOCH,

    /**
     * Fetch handler: a {@code divergingEpoch}'s end offset is one too high (an off-by-one in the
     * leader's epoch lookup), so a diverged follower truncates one record too few and keeps one the
     * leader never had (INV-3).
     */
    DIVERGING_END_OFFSET_OFF_BY_ONE,

    /**
     * Fetch handler: a follower's fetch offset is taken as one more than it sent whenever that is
     * still within the leader's log (an off-by-one in the follower's acknowledgement, FET-4): the
     * leader believes a follower holds a record it does not, so the HW runs ahead of an ISR member's
     * LEO (INV-7, HW-6).
     */
    FOLLOWER_FETCH_OFFSET_AHEAD,

    /**
     * Fetch handler: the HW in a response to a follower is the leader's LEO instead of its HW (FOL-5
     * fed the wrong field): followers believe uncommitted records committed, and one that becomes
     * leader starts with an HW some ISR members are below (INV-7), serving reads that can be lost (INV-2).
     */
    FOLLOWER_HW_AT_LEADER_LEO,

    /**
     * Fetch handler: a consumer fetch is served up to the LEO like a follower fetch (FET-1 skipped):
     * consumers read records that are not committed, which a leader change then loses (INV-2).
     */
    CONSUMER_READS_PAST_HW,

    /**
     * Produce handler: treats {@code acks=all} as {@code acks=1}: the request is acknowledged right
     * after the leader's local append instead of waiting for the HW (PRO-3), and the min ISR check
     * before the append (PRO-2) is skipped too. A leader crash before the followers fetch then loses
     * an acknowledged acks=all record (INV-1).
     */
    ACK_ALL_AFTER_LOCAL_APPEND,

    /**
     * Controller channel: AlterPartition requests that grow the ISR never arrive (as if the
     * controller silently dropped them): a replica that left the ISR never rejoins, so the partition
     * is never whole again after the faults heal (LIVENESS).
     */
    ISR_EXPANSION_NEVER_DELIVERED,

    /**
     * Controller channel: AlterPartition requests that shrink the ISR never arrive. The HW merely
     * waits for the follower that stays in the ISR, but the leader's change stays in flight, so it
     * can propose nothing else (ISR-4: one change at a time): a replica the controller removed
     * meanwhile (fenced, restarted) is never proposed back, and the partition is not whole again
     * after the faults heal (LIVENESS).
     */
    SHRINK_NEVER_DELIVERED,

    /**
     * Controller channel: an ISR expansion proposes every replica, not just the one that caught up
     * (ISR-2's LEO ≥ HW condition skipped for the others): a replica still behind the HW joins the
     * ISR (INV-7).
     */
    EXPANSION_PROPOSES_ALL_REPLICAS,

    /**
     * Registration: a broker that crashed registers with the broker epoch of its last incarnation as
     * {@code previousBrokerEpoch}, as if it had shut down cleanly (LDR-5 forged): a broker that lost
     * unflushed records in a power loss stays in the ELR and may be elected from it (INV-1).
     */
    UNCLEAN_RESTART_REPORTED_CLEAN,

    /**
     * Metadata path: a new incarnation applies the controller's replayed log delta by delta instead
     * of as one merged image (CTL-5's initial-load merge skipped): replayed old leaderships of this
     * broker make it {@code makeLeader} in stale epochs and write them into its epoch cache at its
     * LEO, destroying the entries truncation relies on (INV-3, INV-8).
     */
    INITIAL_LOAD_NOT_MERGED,

    /**
     * Metadata path: every partition registration reaches the brokers with leader epoch 0, as if the
     * controller never bumped it on a leader change (ISR-8): successive leaders share an epoch, so
     * fencing and truncation by epoch cannot tell them apart (INV-8, INV-3).
     */
    LEADER_EPOCH_NOT_BUMPED,

    /**
     * Client: a consumer whose poll timed out still moves its position when the late answer
     * arrives, without reporting the records (the bug {@link TestConsumer} used to have): records it
     * was given never reach the history (INV-2's premise).
     */
    CONSUMER_MOVES_ON_LATE_ANSWER
}
