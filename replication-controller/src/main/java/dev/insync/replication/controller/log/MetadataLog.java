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

package dev.insync.replication.controller.log;

import dev.insync.replication.controller.record.MetadataRecord;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * One controller node's view of the replicated metadata log: the seam between the controller's
 * state machine and whatever replicates the log ({@link InMemoryMetadataLog} in one JVM, a Raft
 * quorum in production). Offsets are assigned contiguously from 0, one per record, in log order.
 *
 * <p>Contract for implementations:
 * <ul>
 *   <li>Committed batches are delivered to the registered listener in offset order, each once, on
 *       the listener's executor; a registration first delivers the latest snapshot (if any), then
 *       every committed batch after it, then the current leadership.</li>
 *   <li>{@link Listener#handleLeaderChange} naming this node is delivered only after every batch
 *       committed in earlier epochs, so the new leader knows the log's end when it starts writing.</li>
 *   <li>{@link #append} is atomic: the whole batch is committed at {@code requiredBaseOffset} or none
 *       of it is. It fails with {@link NotLeaderException} if this node does not lead in
 *       {@code epoch} (or stops leading before the batch commits and it is dropped), and with
 *       {@link UnexpectedBaseOffsetException} if {@code requiredBaseOffset} is not the next offset.</li>
 * </ul>
 */
public interface MetadataLog {

    /** Receives the committed log. Called on the executor given at registration, one call at a time. */
    interface Listener {

        /** Replace the whole state with {@code snapshot} (a restart, or a node too far behind). */
        void handleSnapshot(MetadataSnapshot snapshot);

        /** The next committed batch. */
        void handleCommit(MetadataBatch batch);

        /** Leadership changed. */
        void handleLeaderChange(LeaderAndEpoch leader);
    }

    /** This node's id. */
    int nodeId();

    /** Starts delivering to {@code listener} on {@code executor} (see the class contract). One listener at a time. */
    void register(Listener listener, Executor executor);

    /** Stops delivering (the node stops or dies). Idempotent. */
    void unregister();

    /**
     * Appends one batch as the leader in {@code epoch}.
     *
     * @return completes with the batch's last offset once it is committed
     */
    CompletionStage<Long> append(int epoch, long requiredBaseOffset, List<MetadataRecord> records);

    /** The current leadership as this node knows it. */
    LeaderAndEpoch leaderAndEpoch();

    /** Offset of the last committed record, -1 before any. */
    long committedOffset();

    /**
     * Committed batches after {@code afterOffset} (-1 or a batch's last offset), at most {@code maxBatches}.
     *
     * @throws IllegalArgumentException if the batches after {@code afterOffset} are only in a snapshot now,
     *                                  or {@code afterOffset} is not a batch boundary
     */
    List<MetadataBatch> read(long afterOffset, int maxBatches);

    /** The latest stored snapshot. */
    Optional<MetadataSnapshot> latestSnapshot();

    /**
     * Offers a snapshot of the committed state at a batch boundary; the log keeps it and may drop the
     * batches it covers. An implementation that snapshots by itself may ignore the offer.
     */
    void storeSnapshot(MetadataSnapshot snapshot);
}
