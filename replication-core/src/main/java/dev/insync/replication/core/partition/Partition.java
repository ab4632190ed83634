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

import dev.insync.replication.core.config.TopicConfigs;
import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.partition.IsrState.CommittedIsr;
import dev.insync.replication.core.partition.IsrState.PendingExpandIsr;
import dev.insync.replication.core.partition.IsrState.PendingRecovery;
import dev.insync.replication.core.partition.IsrState.PendingShrinkIsr;
import dev.insync.replication.core.produce.Acks;
import dev.insync.replication.core.replica.Replica;
import dev.insync.replication.core.replica.ReplicaState;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.core.rpc.RecordsForm;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.LogAppendInfo;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.epoch.EpochEndOffset;
import dev.insync.replication.log.epoch.EpochEntry;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.Records;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.IntFunction;
import java.util.stream.Collectors;

/**
 * One partition on one broker: leader or follower of its local log. As leader it tracks every remote
 * replica's fetch state (FET-4), computes the high watermark over the maximal ISR (HW-1..HW-4), proposes ISR
 * shrinks and expansions to the controller (ISR-1..ISR-5) and answers produce (PRO-1..PRO-3) and fetch
 * (FET-1..FET-6); as follower it offers the fetcher the log operations it needs (FOL-4, FOL-5).
 *
 * <p>Concurrency: leadership, assignment and ISR state change only under the write side of one
 * {@link ReentrantReadWriteLock} ({@code leaderIsrUpdateLock}); reads, appends and HW increments run under its
 * read side, so the HW only moves under the lock, and the log itself serializes concurrent HW updates (only
 * upward). Side effects that may call back into other components (AlterPartition submission, the
 * {@link PartitionListener}) happen after the lock is released.
 *
 * <p>Who wakes the purgatories: methods a caller invokes synchronously ({@link #appendAsLeader},
 * {@link #fetch}) return whether the HW rose and leave the wake-up to the caller; changes that arrive
 * on their own ({@link #makeLeader}, an AlterPartition answer) call
 * {@link PartitionListener#onHighWatermarkIncreased} themselves.
 */
public final class Partition {

    private static final Logger LOG = LoggerFactory.getLogger(Partition.class);

    private final TopicPartition topicPartition;
    private final LocalLog log;
    private final PartitionSettings settings;
    private final int localBrokerId;
    private final String logPrefix;

    private final ReentrantReadWriteLock leaderIsrUpdateLock = new ReentrantReadWriteLock();

    // Written under the write lock, read under either side (or racily by gauges, hence volatile).
    private volatile int leaderReplicaId = PartitionRegistration.NO_LEADER;
    private volatile int leaderEpoch = -1;
    private volatile int partitionEpoch = -1;
    private volatile long leaderEpochStartOffset = -1L;
    private volatile List<Integer> assignment = List.of();
    private volatile IsrState isrState = new CommittedIsr(List.of());
    /**
     * The pending state whose proposal the controller answered without committing it (ISR-5's stay-pending
     * answers): it can no longer commit, so metadata repeating the committed state may replace it. Guarded by
     * the write lock; compared by identity, so a later pending state is never mistaken for it.
     */
    private IsrState answeredPending;
    private volatile Map<Integer, Replica> remoteReplicas = Map.of();
    /** {@link #remoteState} as a function, made once: ISR-1's check of every led partition allocates nothing. */
    private final IntFunction<ReplicaState> remoteStateOf = this::remoteState;

    /**
     * CTL-6: this broker leads a partition the controller marked RECOVERING (an unclean election) and its report
     * that the partition recovered is not committed yet. Written under the write lock.
     */
    private volatile boolean recovering;
    private volatile int minInsyncReplicas;
    private volatile boolean offline;
    private final Optional<UUID> topicId;

    /**
     * A partition that is neither leader nor follower until {@link #makeLeader} or {@link #makeFollower}.
     *
     * @param log                the partition's local log
     * @param minInsyncReplicas  the topic's {@code min.insync.replicas} (changeable with
     *                           {@link #updateMinInsyncReplicas})
     * @param settings           the broker's services
     */
    public Partition(LocalLog log, int minInsyncReplicas, PartitionSettings settings) {
        this(log, minInsyncReplicas, settings, Optional.empty());
    }

    /**
     * A partition whose replica belongs to topic {@code topicId}: a fetch naming another id is refused
     * (FET-2), so a replica of a deleted topic of the same name never counts as this one's.
     *
     * @param topicId  the id of the topic this replica belongs to, empty if the metadata names none
     */
    public Partition(LocalLog log, int minInsyncReplicas, PartitionSettings settings, Optional<UUID> topicId) {
        this.log = Objects.requireNonNull(log, "log");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.topicId = Objects.requireNonNull(topicId, "topicId");
        this.topicPartition = log.topicPartition();
        this.localBrokerId = settings.localBrokerId();
        this.logPrefix = "[Partition " + topicPartition + " broker=" + localBrokerId + "] ";
        updateMinInsyncReplicas(minInsyncReplicas);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Leadership (LDR-1..LDR-3)
    // ---------------------------------------------------------------------------------------------------------

    /**
     * LDR-1/LDR-3: makes this broker the leader as {@code registration} says. A registration with a partition
     * epoch below the current one is ignored. On a new leader epoch the epoch's start offset is the LEO, the epoch
     * cache learns (leaderEpoch, LEO) and every remote replica's state is reset; on the same leader epoch only the
     * assignment and ISR are replaced (dropping any pending ISR change). Then the HW is re-evaluated (HW-4) and the
     * listener is told if it rose. CTL-6: if the registration says RECOVERING (an unclean election), the leader
     * proposes, through the AlterPartition manager, that the partition recovered with its ISR unchanged; until that
     * is committed it proposes no expansion.
     *
     * @return whether this broker was not the leader before (and the registration was applied)
     * @throws IllegalArgumentException if the registration names another leader
     */
    public boolean makeLeader(PartitionRegistration registration) {
        Objects.requireNonNull(registration, "registration");
        if (registration.leader() != localBrokerId) {
            throw new IllegalArgumentException(logPrefix + "makeLeader with a registration led by broker "
                    + registration.leader() + " (leader epoch " + registration.leaderEpoch() + ")");
        }
        long now = settings.time().milliseconds();
        boolean isNewLeader;
        boolean hwIncreased;
        PendingRecovery pendingRecovery = null;
        leaderIsrUpdateLock.writeLock().lock();
        try {
            if (registration.partitionEpoch() < partitionEpoch) {
                // LDR-3: stale metadata
                LOG.info("{}Skipped the become-leader state change with partition epoch {} since the partition "
                        + "already has partition epoch {}", logPrefix, registration.partitionEpoch(), partitionEpoch);
                return false;
            }
            isNewLeader = leaderReplicaId != localBrokerId;
            boolean isNewLeaderEpoch = registration.leaderEpoch() > leaderEpoch;
            IsrState stillInFlight = redeliveredWhileInFlight(registration, isNewLeader || isNewLeaderEpoch);
            updateAssignmentAndIsr(registration.replicas(), true, registration.isr());
            if (stillInFlight != null) {
                isrState = stillInFlight;
            }
            if (isNewLeaderEpoch) {
                long epochStartOffset = log.logEndOffset();
                log.assignEpochStartOffset(registration.leaderEpoch(), epochStartOffset);
                for (Replica replica : remoteReplicas.values()) {
                    replica.resetReplicaState(now, epochStartOffset, isNewLeader,
                            registration.isr().contains(replica.brokerId()));
                }
                leaderEpochStartOffset = epochStartOffset;
                LOG.info("{}Leader {} starts at leader epoch {} from offset {} with partition epoch {}, high watermark {}, "
                                + "ISR {}, replicas {}. Previous leader {} and previous leader epoch was {}.",
                        logPrefix, topicPartition, registration.leaderEpoch(), epochStartOffset,
                        registration.partitionEpoch(), log.highWatermark(), IsrState.format(registration.isr()),
                        IsrState.format(registration.replicas()), leaderReplicaId, leaderEpoch);
            } else {
                LOG.info("{}Skipped the become-leader state change for {} since it is already the leader with leader "
                                + "epoch {}; ISR {} and replicas {} applied with partition epoch {}.", logPrefix,
                        topicPartition, leaderEpoch, IsrState.format(registration.isr()),
                        IsrState.format(registration.replicas()), registration.partitionEpoch());
            }
            leaderReplicaId = localBrokerId;
            leaderEpoch = registration.leaderEpoch();
            partitionEpoch = registration.partitionEpoch();
            recovering = registration.recovering();
            if (recovering && !isrState.isInflight()) {
                LOG.info("{}The partition was marked as RECOVERING (unclean election); proposing it recovered with ISR {}",
                        logPrefix, IsrState.format(registration.isr()));
                pendingRecovery = prepareRecoveryLocked();
            }
            hwIncreased = maybeIncrementLeaderHWLocked(now);
        } finally {
            leaderIsrUpdateLock.writeLock().unlock();
        }
        if (pendingRecovery != null) {
            submitAlterPartition(pendingRecovery);
        }
        if (hwIncreased) {
            settings.listener().onHighWatermarkIncreased(topicPartition);
        }
        return isNewLeader;
    }

    /**
     * LDR-3, ISR-4: a registration that only repeats what the leader already holds (same leader and partition
     * epoch, the ISR and replicas of the last committed state) while a proposal awaits the controller's answer:
     * the pending state to keep, else null. The proposal was made at this partition epoch, so the controller may still commit it; had
     * the republished committed ISR replaced it, the HW would be computed over fewer replicas than the
     * controller's ISR once the proposal (say, an expansion) commits, and an election could lose
     * acknowledged records. A newer partition epoch does replace the pending state: the controller refuses a
     * proposal made at an older one.
     */
    private IsrState redeliveredWhileInFlight(PartitionRegistration registration, boolean leaderChanged) {
        IsrState current = isrState;
        boolean awaitingAnswer = current.isInflight() && current != answeredPending;
        boolean repeatsCommitted = !leaderChanged
                && registration.partitionEpoch() == partitionEpoch
                && Set.copyOf(registration.isr()).equals(Set.copyOf(current.lastCommittedState().isr()))
                && registration.replicas().equals(assignment);
        return awaitingAnswer && repeatsCommitted ? current : null;
    }

    /**
     * LDR-2/LDR-3: records the new leader (or none) and epochs and clears the leader-only state (remote replica
     * states, ISR, leader epoch start offset). A registration with a partition epoch below the current one is
     * ignored. The caller, on {@code true}, fails the partition's waiting acks=all requests with
     * NOT_LEADER_OR_FOLLOWER and moves it to the new leader's fetcher.
     *
     * @return whether the leader epoch is new (false also when the registration was ignored)
     * @throws IllegalArgumentException if the registration names this broker as leader
     */
    public boolean makeFollower(PartitionRegistration registration) {
        Objects.requireNonNull(registration, "registration");
        if (registration.leader() == localBrokerId) {
            throw new IllegalArgumentException(logPrefix + "makeFollower with a registration led by this broker "
                    + "(leader epoch " + registration.leaderEpoch() + ")");
        }
        leaderIsrUpdateLock.writeLock().lock();
        try {
            if (registration.partitionEpoch() < partitionEpoch) {
                LOG.info("{}Skipped the become-follower state change with partition epoch {} since the partition "
                        + "already has partition epoch {}", logPrefix, registration.partitionEpoch(), partitionEpoch);
                return false;
            }
            boolean isNewLeaderEpoch = registration.leaderEpoch() > leaderEpoch;
            updateAssignmentAndIsr(registration.replicas(), false, List.of());
            if (isNewLeaderEpoch) {
                LOG.info("{}Follower {} starts at leader epoch {} from offset {} with partition epoch {} and high "
                                + "watermark {}. Current leader is {}. Previous leader {} and previous leader epoch was {}.",
                        logPrefix, topicPartition, registration.leaderEpoch(), log.logEndOffset(),
                        registration.partitionEpoch(), log.highWatermark(), registration.leader(), leaderReplicaId,
                        leaderEpoch);
            }
            leaderReplicaId = registration.leader();
            leaderEpoch = registration.leaderEpoch();
            partitionEpoch = registration.partitionEpoch();
            leaderEpochStartOffset = -1L;
            recovering = false;
            return isNewLeaderEpoch;
        } finally {
            leaderIsrUpdateLock.writeLock().unlock();
        }
    }

    /** Replaces assignment and ISR; keeps the Replica of a still-assigned follower (re-election keeps its LEO). */
    private void updateAssignmentAndIsr(List<Integer> replicas, boolean isLeader, List<Integer> isr) {
        if (isLeader) {
            Map<Integer, Replica> previous = remoteReplicas;
            Map<Integer, Replica> next = new LinkedHashMap<>();
            for (int id : replicas) {
                if (id != localBrokerId) {
                    next.put(id, previous.containsKey(id) ? previous.get(id) : new Replica(id, topicPartition));
                }
            }
            remoteReplicas = Collections.unmodifiableMap(next);
        } else {
            remoteReplicas = Map.of();
        }
        assignment = List.copyOf(replicas);
        isrState = new CommittedIsr(isr);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Produce (PRO-2, PRO-3; PRO-1 is Acks.forCode)
    // ---------------------------------------------------------------------------------------------------------

    /**
     * PRO-2: appends as leader (Kafka's {@code appendRecordsToLeader}). Refuses with NOT_LEADER_OR_FOLLOWER if
     * this broker is not the leader; with NOT_ENOUGH_REPLICAS (nothing written) for {@link Acks#ALL} when the ISR
     * is below the effective min ISR. Then appends with the leader epoch (LOG-4) and re-evaluates the HW (HW-4: a
     * single-replica ISR commits at once). The caller waits for the acks and wakes the purgatories if the HW rose
     * (PRO-4): {@code ReplicaManager.produce} does both.
     *
     * @return what was appended, the leader epoch stamped into it, and whether the HW rose
     * @throws ApiException with the errors above, or the log's validation errors (LOG-5)
     */
    public LeaderAppendResult appendAsLeader(MemoryRecords records, Acks acks) {
        Objects.requireNonNull(records, "records");
        Objects.requireNonNull(acks, "acks");
        leaderIsrUpdateLock.readLock().lock();
        try {
            if (!isLeader()) {
                throw Errors.NOT_LEADER_OR_FOLLOWER.exception("Leader not local for partition " + topicPartition
                        + " on broker " + localBrokerId);
            }
            if (offline) {
                throw Errors.KAFKA_STORAGE_ERROR.exception("Log directory of partition " + topicPartition
                        + " is offline on broker " + localBrokerId);
            }
            List<Integer> isr = isrState.isr();
            int minIsr = effectiveMinIsr();
            if (acks == Acks.ALL && isr.size() < minIsr) {
                throw Errors.NOT_ENOUGH_REPLICAS.exception("The size of the current ISR : " + isr.size()
                        + " is insufficient to satisfy the min.isr requirement of " + minIsr + " for partition "
                        + topicPartition + ", live replica(s) broker.id are : " + isr);
            }
            // LOG-4: leaderEpoch changes only under the write lock, so the epoch stamped here is the one reported.
            int epoch = leaderEpoch;
            LogAppendInfo info = log.appendAsLeader(records, epoch);
            boolean hwIncreased = maybeIncrementLeaderHWLocked(settings.time().milliseconds());
            return new LeaderAppendResult(info, epoch, hwIncreased);
        } finally {
            leaderIsrUpdateLock.readLock().unlock();
        }
    }

    /**
     * PRO-3: whether an acks=all request waiting for {@code requiredOffset} (its last offset + 1) is done. Done
     * with NONE once the HW reaches it and the maximal ISR has at least the effective min ISR members, with
     * NOT_ENOUGH_REPLICAS_AFTER_APPEND if it has fewer, with NOT_LEADER_OR_FOLLOWER when this broker is no longer
     * the leader, with KAFKA_STORAGE_ERROR when its log directory went offline (§9: its HW never moves again);
     * otherwise not yet.
     */
    public AckCheck checkEnoughReplicasReachOffset(long requiredOffset) {
        leaderIsrUpdateLock.readLock().lock();
        try {
            if (!isLeader()) {
                return new AckCheck(true, Errors.NOT_LEADER_OR_FOLLOWER);
            }
            if (offline) {
                return new AckCheck(true, Errors.KAFKA_STORAGE_ERROR);
            }
            if (log.highWatermark() >= requiredOffset) {
                return isrState.maximalIsr().size() >= effectiveMinIsr()
                        ? new AckCheck(true, Errors.NONE)
                        : new AckCheck(true, Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
            }
            return AckCheck.NOT_YET;
        } finally {
            leaderIsrUpdateLock.readLock().unlock();
        }
    }

    /**
     * LOG-11 group commit: whether a produce whose append made a flush due may be acknowledged as far as the
     * leader's own disk goes, i.e. whether the local log's recovery point has reached {@code requiredOffset} (its
     * last offset + 1). Done with NONE when it has; with NOT_LEADER_OR_FOLLOWER when this broker no longer leads
     * (the records may be truncated away, so they are not claimed); with KAFKA_STORAGE_ERROR when the log went
     * offline before the flush covered them (a failed deferred flush ends as a failed synchronous one did, §9);
     * otherwise not yet.
     */
    public AckCheck checkFlushedToOffset(long requiredOffset) {
        leaderIsrUpdateLock.readLock().lock();
        try {
            if (!isLeader()) {
                return new AckCheck(true, Errors.NOT_LEADER_OR_FOLLOWER);
            }
            if (log.recoveryPoint() >= requiredOffset) {
                return new AckCheck(true, Errors.NONE);
            }
            if (offline) {
                return new AckCheck(true, Errors.KAFKA_STORAGE_ERROR);
            }
            return AckCheck.NOT_YET;
        } finally {
            leaderIsrUpdateLock.readLock().unlock();
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Fetch on the leader (FET-1..FET-6)
    // ---------------------------------------------------------------------------------------------------------

    /**
     * Reads one partition of a fetch on the leader (Kafka's {@code fetchRecords}); {@code ReplicaManager.fetch}
     * calls it for every partition of a request and parks the request when nothing is to be sent yet (FET-5).
     * <ol>
     *   <li>FET-2 fencing in the contract's order, with no state change;</li>
     *   <li>FET-3: OFFSET_OUT_OF_RANGE for a fetch offset below the log start, whatever its lastFetchedEpoch;
     *       then divergence: a divergingEpoch answer with no records and no follower-state update;
     *       OFFSET_OUT_OF_RANGE when the end of lastFetchedEpoch is undefined or the fetch offset is above the
     *       LEO (every such answer still carries the leader's HW, log start and LEO, FOL-6);</li>
     *   <li>FET-1: followers read to the LEO, consumers to the HW;</li>
     *   <li>FET-4, only if {@code updateFetchState} (the first read, not a parked fetch's re-read): the follower's
     *       state is updated, then an ISR expansion may be proposed (ISR-2), then the HW re-evaluated if the
     *       follower's LEO changed.</li>
     * </ol>
     *
     * @param request           the fetch (replica id, broker epoch)
     * @param data              this partition's part of it
     * @param maxBytes          bytes this partition may return (at least one batch regardless, LOG-3)
     * @param fetchTimeMs       when the fetch is read
     * @param updateFetchState  whether this is the first read of the fetch
     * @return the FET-6 answer and whether the HW rose (the caller then wakes the purgatories, PRO-4)
     */
    public PartitionFetchResult fetch(FetchRequest request, FetchRequest.PartitionData data, int maxBytes,
                                      long fetchTimeMs, boolean updateFetchState) {
        return fetch(request, data, maxBytes, fetchTimeMs, updateFetchState, RecordsForm.HEAP);
    }

    /**
     * {@link #fetch(FetchRequest, FetchRequest.PartitionData, int, long, boolean)} with the records
     * read in {@code form}: copied into the heap, or left in the segment files for a network server
     * to send without copying (NET-3).
     */
    public PartitionFetchResult fetch(FetchRequest request, FetchRequest.PartitionData data, int maxBytes,
                                      long fetchTimeMs, boolean updateFetchState, RecordsForm form) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(form, "form");
        Objects.requireNonNull(data, "data");
        boolean fromFollower = request.isFromFollower();
        Replica replica = null;
        boolean followerLeoChanged = false;
        boolean needsExpand = false;
        Records records;
        leaderIsrUpdateLock.readLock().lock();
        try {
            Errors fencing = fencingError(request, data);
            if (fencing != Errors.NONE) {
                return new PartitionFetchResult(FetchResponse.PartitionData.error(fencing), false);
            }
            long fetchOffset = data.fetchOffset();
            long logStartOffset = log.logStartOffset();
            if (fetchOffset < logStartOffset) {
                // FET-3: below the log start the answer is OFFSET_OUT_OF_RANGE whether or not the follower's
                // last fetched epoch diverges: a divergence answer would send it to truncate towards offsets
                // this leader no longer has, instead of restarting its log at the leader's log start (FOL-6).
                return new PartitionFetchResult(answer(Errors.OFFSET_OUT_OF_RANGE, MemoryRecords.EMPTY,
                        Optional.empty()), false);
            }
            if (data.lastFetchedEpoch().isPresent()) {
                int lastFetchedEpoch = data.lastFetchedEpoch().getAsInt();
                EpochEndOffset epochEnd = log.endOffsetForEpoch(lastFetchedEpoch);
                if (epochEnd.leaderEpoch() == EpochEndOffset.UNDEFINED_EPOCH
                        || epochEnd.endOffset() == EpochEndOffset.UNDEFINED_OFFSET) {
                    LOG.debug("{}Could not determine the end offset of last fetched epoch {} for a fetch at offset {}",
                            logPrefix, lastFetchedEpoch, fetchOffset);
                    return new PartitionFetchResult(answer(Errors.OFFSET_OUT_OF_RANGE, MemoryRecords.EMPTY,
                            Optional.empty()), false);
                }
                if (epochEnd.leaderEpoch() < lastFetchedEpoch || epochEnd.endOffset() < fetchOffset) {
                    // FET-3: the follower's log diverged; it truncates, we record nothing
                    return new PartitionFetchResult(answer(Errors.NONE, MemoryRecords.EMPTY, Optional.of(epochEnd)),
                            false);
                }
            }
            long leaderEndOffset = log.logEndOffset();
            if (fetchOffset > leaderEndOffset) {
                return new PartitionFetchResult(answer(Errors.OFFSET_OUT_OF_RANGE, MemoryRecords.EMPTY,
                        Optional.empty()), false);
            }
            // FET-1: followers read to the LEO, consumers to the HW
            long maxOffset = fromFollower ? leaderEndOffset : log.highWatermark();
            records = form == RecordsForm.FILE ? log.readFileRecords(fetchOffset, maxBytes, maxOffset)
                    : log.read(fetchOffset, maxBytes, maxOffset).records();
            if (fromFollower && updateFetchState) {
                replica = remoteReplicas.get(request.replicaId());
                long previousLeo = replica.stateSnapshot().logEndOffset();
                try {
                    // FET-4: the fetch offset is the ack. Done under the read lock so that a concurrent
                    // makeLeader (write lock) cannot be overwritten by a fetch of the previous epoch (HW-6).
                    replica.updateFetchStateOrThrow(fetchOffset, data.logStartOffset(), fetchTimeMs, leaderEndOffset,
                            request.brokerEpoch());
                } catch (ApiException e) {
                    LOG.debug("{}{}", logPrefix, e.getMessage());
                    return new PartitionFetchResult(FetchResponse.PartitionData.error(e.error()), false);
                }
                followerLeoChanged = previousLeo != fetchOffset;
                needsExpand = needsExpandIsr(replica);
            }
        } finally {
            leaderIsrUpdateLock.readLock().unlock();
        }
        boolean hwIncreased = false;
        if (fromFollower && updateFetchState && recovering) {
            maybeProposeRecovery(); // CTL-6: a refused report is retried; nobody expands before it is committed
        }
        if (needsExpand) {
            maybeExpandIsr(replica, fetchTimeMs);
        }
        if (followerLeoChanged) {
            hwIncreased = maybeIncrementLeaderHW(fetchTimeMs);
        }
        return new PartitionFetchResult(answer(Errors.NONE, records, Optional.empty()), hwIncreased);
    }

    /**
     * FET-7: whether a fetch session may skip this partition for follower {@code replicaId} while it
     * stays caught up with nothing to read ({@code FetchSession}'s idle state): only when a read could
     * change nothing for it, that is, it is in the ISR with no ISR change in flight and the partition
     * is not RECOVERING (CTL-6). A follower outside the ISR is read on every fetch so that ISR-2 may
     * add it back as soon as it is eligible. Lock-free.
     */
    public boolean mayIdleInFetchSession(int replicaId) {
        IsrState state = isrState;
        return isLeader() && !recovering && !offline && !state.isInflight() && state.isr().contains(replicaId);
    }

    /**
     * FET-4 for a fetch session's idle partition, applied late: the follower's fetches since the one
     * recorded last carried this partition unchanged at {@code fetchOffset} while the leader's LEO
     * stayed there (every leader append calls this first); the latest of them was accepted at
     * {@code fetchTimeMs}. Records that fetch as a read of it then would have (the leader's LEO then
     * was {@code fetchOffset}), so the follower's state is the one a read of every such fetch would
     * have left. Does nothing unless this broker still leads in {@code leaderEpoch}, the LEO is still
     * {@code fetchOffset}, the follower's recorded position is that offset and no later fetch of it
     * was recorded (a session its fetcher left cannot move the state back), and its broker epoch is
     * not stale (FET-2).
     *
     * @return whether the state was updated
     */
    public boolean recordIdleSessionFetch(int replicaId, int leaderEpoch, long fetchOffset,
                                          long followerLogStartOffset, long fetchTimeMs, long brokerEpoch) {
        leaderIsrUpdateLock.readLock().lock();
        try {
            if (!isLeader() || this.leaderEpoch != leaderEpoch || offline || log.logEndOffset() != fetchOffset) {
                return false;
            }
            Replica replica = remoteReplicas.get(replicaId);
            if (replica == null) {
                return false;
            }
            ReplicaState current = replica.stateSnapshot();
            if (current.logEndOffset() != fetchOffset || current.lastFetchTimeMs() > fetchTimeMs) {
                return false;
            }
            OptionalLong registered = settings.eligibility().registeredBrokerEpoch(replicaId);
            if (brokerEpoch != ReplicaState.UNKNOWN && registered.isPresent() && brokerEpoch < registered.getAsLong()) {
                return false;
            }
            try {
                replica.updateFetchStateOrThrow(fetchOffset, followerLogStartOffset, fetchTimeMs, fetchOffset,
                        brokerEpoch);
                return true;
            } catch (ApiException staleBrokerEpoch) {
                return false;
            }
        } finally {
            leaderIsrUpdateLock.readLock().unlock();
        }
    }

    /** FET-6: an answer carrying the leader's current HW, log start and LEO. */
    private FetchResponse.PartitionData answer(Errors error, Records records,
                                               Optional<EpochEndOffset> divergingEpoch) {
        long hw = log.highWatermark();
        return new FetchResponse.PartitionData(error, hw, hw, log.logStartOffset(), log.logEndOffset(), records,
                divergingEpoch);
    }

    /**
     * FET-2, in the contract's order, after the topic id: a fetch for a replica of another topic of
     * this name (deleted and created again) is {@code INCONSISTENT_TOPIC_ID} whatever its epochs; NONE
     * when the fetch may be served. Called under the read lock.
     */
    private Errors fencingError(FetchRequest request, FetchRequest.PartitionData data) {
        if (data.topicId().isPresent() && topicId.isPresent() && !data.topicId().get().equals(topicId.get())) {
            return Errors.INCONSISTENT_TOPIC_ID;
        }
        if (data.currentLeaderEpoch().isPresent()) {
            int requestEpoch = data.currentLeaderEpoch().getAsInt();
            if (requestEpoch < leaderEpoch) {
                return Errors.FENCED_LEADER_EPOCH;
            }
            if (requestEpoch > leaderEpoch) {
                return Errors.UNKNOWN_LEADER_EPOCH;
            }
        }
        if (!isLeader()) {
            return Errors.NOT_LEADER_OR_FOLLOWER;
        }
        if (request.isFromFollower()) {
            if (!remoteReplicas.containsKey(request.replicaId())) {
                // the replica may be new in a reassignment this broker has not seen yet
                return data.currentLeaderEpoch().isPresent() ? Errors.UNKNOWN_LEADER_EPOCH
                        : Errors.NOT_LEADER_OR_FOLLOWER;
            }
            OptionalLong registered = settings.eligibility().registeredBrokerEpoch(request.replicaId());
            if (request.brokerEpoch() != ReplicaState.UNKNOWN && registered.isPresent()
                    && request.brokerEpoch() < registered.getAsLong()) {
                return Errors.NOT_LEADER_OR_FOLLOWER;
            }
        }
        if (offline) {
            return Errors.KAFKA_STORAGE_ERROR;
        }
        return Errors.NONE;
    }

    // ---------------------------------------------------------------------------------------------------------
    // High watermark (HW-1..HW-4)
    // ---------------------------------------------------------------------------------------------------------

    /**
     * HW-1..HW-3: raises the leader's HW to the candidate over the maximal ISR, unless the ISR is below the
     * effective min ISR (HW-2). Does nothing on a follower.
     *
     * @return whether the HW rose
     */
    public boolean maybeIncrementLeaderHW(long currentTimeMs) {
        leaderIsrUpdateLock.readLock().lock();
        try {
            return maybeIncrementLeaderHWLocked(currentTimeMs);
        } finally {
            leaderIsrUpdateLock.readLock().unlock();
        }
    }

    private boolean maybeIncrementLeaderHWLocked(long currentTimeMs) {
        if (!isLeader()) {
            return false;
        }
        if (isUnderMinIsr()) {
            LOG.trace("{}Not increasing HWM because partition is under min ISR(ISR={})", logPrefix,
                    IsrState.format(isrState.isr()));
            return false;
        }
        long candidate = highWatermarkCandidate(currentTimeMs);
        long oldHw = log.highWatermark();
        // HW-3: the log only ever moves the HW up
        boolean increased = log.maybeIncrementHighWatermark(candidate);
        if (increased) {
            LOG.debug("{}High watermark updated from {} to {}", logPrefix, oldHw, log.highWatermark());
        }
        return increased;
    }

    /**
     * HW-1, the one implementation: the leader's LEO lowered to the LEO of every remote replica that is in the
     * <em>maximal</em> ISR (ISR-4: a pending expansion already counts the joining replica, a pending shrink still
     * counts the leaving ones), or that is caught up (ISR-1) and ISR-eligible (ISR-3) though not in it, so that a
     * lone leader waits for a follower about to join instead of running away from it. An ISR member whose LEO is
     * unknown (-1, HW-4: it has not fetched in this leader epoch) holds the candidate at -1. Runs on every
     * append and every follower fetch, over the live replica states, without copying them. Called under the lock.
     */
    private long highWatermarkCandidate(long currentTimeMs) {
        long leaderEndOffset = log.logEndOffset();
        List<Integer> maximalIsr = isrState.maximalIsr();
        long candidate = leaderEndOffset;
        for (Map.Entry<Integer, Replica> remote : remoteReplicas.entrySet()) {
            ReplicaState state = remote.getValue().stateSnapshot();
            if (state.logEndOffset() >= candidate) {
                continue;
            }
            int brokerId = remote.getKey();
            boolean holdsTheHw = maximalIsr.contains(brokerId)
                    || (state.isCaughtUp(leaderEndOffset, currentTimeMs, settings.replicaLagTimeMaxMs())
                    && settings.eligibility().isBrokerEligible(brokerId, state.brokerEpoch()));
            if (holdsTheHw) {
                candidate = state.logEndOffset();
            }
        }
        return candidate;
    }

    /** A remote replica's live state, {@link ReplicaState#EMPTY} for a broker that is not one. */
    private ReplicaState remoteState(int brokerId) {
        Replica replica = remoteReplicas.get(brokerId);
        return replica == null ? ReplicaState.EMPTY : replica.stateSnapshot();
    }

    // ---------------------------------------------------------------------------------------------------------
    // ISR (ISR-1..ISR-5)
    // ---------------------------------------------------------------------------------------------------------

    /** {@link #maybeShrinkIsr(long)} at the current time: the body of the periodic ISR-expiration task. */
    public void maybeShrinkIsr() {
        maybeShrinkIsr(settings.time().milliseconds());
    }

    /**
     * ISR-1: when no change is in flight, proposes removing the ISR members (other than the leader) that are not
     * caught up. The proposal is sent after the lock is released.
     */
    public void maybeShrinkIsr(long currentTimeMs) {
        if (recovering) {
            // CTL-6: the ISR is the leader alone; the periodic task retries a refused recovery report instead.
            maybeProposeRecovery();
            return;
        }
        leaderIsrUpdateLock.readLock().lock();
        try {
            if (!isLeader() || outOfSyncReplicas(currentTimeMs).isEmpty()) {
                return;
            }
        } finally {
            leaderIsrUpdateLock.readLock().unlock();
        }
        PendingShrinkIsr pending = null;
        leaderIsrUpdateLock.writeLock().lock();
        try {
            List<Integer> outOfSync = isLeader() ? outOfSyncReplicas(currentTimeMs) : List.of();
            if (!outOfSync.isEmpty()) {
                List<Integer> isr = isrState.isr();
                List<Integer> newIsr = isr.stream().filter(id -> !outOfSync.contains(id)).toList();
                LOG.info("{}{}", logPrefix, shrinkingIsrMessage(isr, newIsr, log.highWatermark(), log.logEndOffset(),
                        outOfSyncStates(outOfSync)));
                pending = new PendingShrinkIsr(isr, outOfSync, proposal(newIsr, !recovering),
                        isrState.lastCommittedState());
                isrState = pending;
            }
        } finally {
            leaderIsrUpdateLock.writeLock().unlock();
        }
        if (pending != null) {
            submitAlterPartition(pending);
        }
    }

    private Map<Integer, ReplicaState> outOfSyncStates(List<Integer> outOfSync) {
        Map<Integer, ReplicaState> states = new LinkedHashMap<>();
        for (int id : outOfSync) {
            Replica replica = remoteReplicas.get(id);
            states.put(id, replica == null ? ReplicaState.EMPTY : replica.stateSnapshot());
        }
        return states;
    }

    /**
     * ISR-1's log line: {@code Shrinking ISR from 1,2,3 to 1,2. Leader: (highWatermark: 12, endOffset: 18).
     * Out of sync replicas: (brokerId: 3, endOffset: 12, lastCaughtUpTimeMs: ...).}
     */
    static String shrinkingIsrMessage(List<Integer> isr, List<Integer> newIsr, long highWatermark, long endOffset,
                                      Map<Integer, ReplicaState> outOfSync) {
        String replicas = outOfSync.entrySet().stream()
                .map(e -> "(brokerId: " + e.getKey() + ", endOffset: " + e.getValue().logEndOffset()
                        + ", lastCaughtUpTimeMs: " + e.getValue().lastCaughtUpTimeMs() + ")")
                .collect(Collectors.joining(" "));
        return "Shrinking ISR from " + IsrState.format(isr) + " to " + IsrState.format(newIsr) + ". Leader: (highWatermark: "
                + highWatermark + ", endOffset: " + endOffset + "). Out of sync replicas: " + replicas + ".";
    }

    /**
     * ISR-5's log line: {@code ISR updated to 1,2  and version updated to 1}; the gap between the two spaces holds
     * {@code (under-min-isr)} when the new ISR is under min ISR.
     */
    static String isrUpdatedMessage(List<Integer> isr, boolean underMinIsr, int partitionEpoch) {
        return "ISR updated to " + IsrState.format(isr) + " " + (underMinIsr ? "(under-min-isr)" : "")
                + " and version updated to " + partitionEpoch;
    }

    /**
     * ISR-1 over the current state (called under the lock), reading the live replica states without copying
     * them: the periodic task asks this of every led partition, and when all are in sync (an idle broker)
     * nothing is allocated.
     */
    private List<Integer> outOfSyncReplicas(long currentTimeMs) {
        return outOfSyncReplicas(isrState, localBrokerId, remoteStateOf, log.logEndOffset(), currentTimeMs,
                settings.replicaLagTimeMaxMs());
    }

    /**
     * ISR-1, as a pure function: with no change in flight, the ISR members other than the leader that are not
     * caught up ({@link ReplicaState#isCaughtUp}); with one in flight, none.
     */
    public static List<Integer> outOfSyncReplicas(IsrState state, int leaderId, Map<Integer, ReplicaState> remoteStates,
                                                  long leaderEndOffset, long currentTimeMs, long replicaLagTimeMaxMs) {
        return outOfSyncReplicas(state, leaderId, id -> remoteStates.getOrDefault(id, ReplicaState.EMPTY),
                leaderEndOffset, currentTimeMs, replicaLagTimeMaxMs);
    }

    /** ISR-1 with each member's state looked up by broker id; the list is built only when a member is out of sync. */
    static List<Integer> outOfSyncReplicas(IsrState state, int leaderId, IntFunction<ReplicaState> stateOf,
                                           long leaderEndOffset, long currentTimeMs, long replicaLagTimeMaxMs) {
        if (state.isInflight()) {
            return List.of();
        }
        List<Integer> isr = state.isr();
        List<Integer> outOfSync = null;
        for (int i = 0; i < isr.size(); i++) {
            int id = isr.get(i);
            if (id == leaderId) {
                continue;
            }
            if (!stateOf.apply(id).isCaughtUp(leaderEndOffset, currentTimeMs, replicaLagTimeMaxMs)) {
                if (outOfSync == null) {
                    outOfSync = new ArrayList<>(isr.size());
                }
                outOfSync.add(id);
            }
        }
        return outOfSync == null ? List.of() : List.copyOf(outOfSync);
    }

    /** ISR-2 check (called under the lock). */
    private boolean needsExpandIsr(Replica replica) {
        IsrState state = isrState;
        ReplicaState replicaState = replica.stateSnapshot();
        return isLeader() && !recovering && !state.isInflight() && !state.isr().contains(replica.brokerId())
                && isFollowerInSync(replicaState.logEndOffset(), log.highWatermark(), leaderEpochStartOffset)
                && settings.eligibility().isBrokerEligible(replica.brokerId(), replicaState.brokerEpoch());
    }

    /**
     * ISR-2, as a pure function: a follower may join when its LEO reaches both the HW and the start offset of the
     * current leader epoch (so it holds every record a new leader may have committed).
     */
    public static boolean isFollowerInSync(long followerEndOffset, long highWatermark, long leaderEpochStartOffset) {
        return leaderEpochStartOffset >= 0 && followerEndOffset >= highWatermark
                && followerEndOffset >= leaderEpochStartOffset;
    }

    /** ISR-2: proposes adding {@code replica} if it still qualifies under the write lock. */
    private void maybeExpandIsr(Replica replica, long currentTimeMs) {
        PendingExpandIsr pending = null;
        leaderIsrUpdateLock.writeLock().lock();
        try {
            if (remoteReplicas.get(replica.brokerId()) == replica && needsExpandIsr(replica)) {
                List<Integer> isr = isrState.isr();
                List<Integer> newIsr = new ArrayList<>(isr);
                newIsr.add(replica.brokerId());
                LOG.info("{}Expanding ISR from {} to {}", logPrefix, IsrState.format(isr), IsrState.format(newIsr));
                pending = new PendingExpandIsr(isr, replica.brokerId(), proposal(newIsr, !recovering),
                        isrState.lastCommittedState());
                isrState = pending;
            }
        } finally {
            leaderIsrUpdateLock.writeLock().unlock();
        }
        if (pending != null) {
            submitAlterPartition(pending);
        }
    }

    /**
     * CTL-6: while RECOVERING with nothing in flight, proposes (after the lock is released) that the partition
     * recovered. Called on every follower fetch and by the periodic ISR task, so a refused report is retried.
     */
    private void maybeProposeRecovery() {
        PendingRecovery pending = null;
        leaderIsrUpdateLock.writeLock().lock();
        try {
            if (recovering && isLeader() && !isrState.isInflight()) {
                pending = prepareRecoveryLocked();
            }
        } finally {
            leaderIsrUpdateLock.writeLock().unlock();
        }
        if (pending != null) {
            submitAlterPartition(pending);
        }
    }

    /** CTL-6: the recovery report in flight, the ISR unchanged. Called under the write lock. */
    private PendingRecovery prepareRecoveryLocked() {
        List<Integer> isr = isrState.isr();
        PendingRecovery pending = new PendingRecovery(isr, proposal(isr, true), isrState.lastCommittedState());
        isrState = pending;
        return pending;
    }

    /**
     * ISR-5: the proposal: leader epoch, partition epoch, and the new ISR with each member's broker epoch (the
     * leader's own, each follower's from its last fetch, -1 if unknown), and whether the leader reports the
     * partition recovered (CTL-6: every proposal of a leader that is not RECOVERING says so, as Kafka's
     * leaderRecoveryState does). Called under the write lock.
     */
    private IsrProposal proposal(List<Integer> newIsr, boolean recovered) {
        List<AlterPartitionRequest.BrokerState> members = new ArrayList<>();
        for (int id : newIsr) {
            long epoch;
            if (id == localBrokerId) {
                epoch = settings.localBrokerEpoch().getAsLong();
            } else {
                Replica replica = remoteReplicas.get(id);
                epoch = replica == null ? ReplicaState.UNKNOWN : replica.stateSnapshot().brokerEpoch();
            }
            members.add(new AlterPartitionRequest.BrokerState(id, epoch));
        }
        return new IsrProposal(new AlterPartitionRequest.Item(topicPartition, leaderEpoch, partitionEpoch, members,
                recovered));
    }

    private void submitAlterPartition(IsrState proposedState) {
        IsrProposal proposal = proposalOf(proposedState);
        CompletableFuture<AlterPartitionResponse.PartitionResult> future;
        try {
            future = settings.alterPartitionSender().submit(proposal.item());
        } catch (RuntimeException e) {
            future = CompletableFuture.failedFuture(e);
        }
        future.whenComplete((result, failure) -> handleAlterPartitionResult(proposedState, result, failure));
    }

    private static IsrProposal proposalOf(IsrState state) {
        if (state instanceof PendingExpandIsr expand) {
            return expand.proposal();
        }
        if (state instanceof PendingShrinkIsr shrink) {
            return shrink.proposal();
        }
        if (state instanceof PendingRecovery recovery) {
            return recovery.proposal();
        }
        throw new IllegalStateException("No proposal in committed state " + state);
    }

    /** What to do with one AlterPartition answer (ISR-5). */
    enum AlterPartitionOutcome {
        /** Commit the new ISR and partition epoch. */
        COMMIT,
        /** Answer to a proposal that is no longer the pending one, or a success for another epoch: ignore. */
        IGNORE,
        /** OPERATION_NOT_ATTEMPTED, INELIGIBLE_REPLICA: back to the last committed state. */
        REVERT,
        /** Stay pending until newer metadata arrives. */
        STAY_PENDING,
        /** Send the same proposal again. */
        RESUBMIT
    }

    /**
     * ISR-5's table as a pure function of the answer and the partition's current epochs.
     *
     * @param error the answer's error (NONE for success)
     */
    static AlterPartitionOutcome interpret(Errors error, int resultLeaderEpoch, int resultPartitionEpoch,
                                           int currentLeaderEpoch, int currentPartitionEpoch) {
        return switch (error) {
            case NONE -> resultLeaderEpoch == currentLeaderEpoch && resultPartitionEpoch >= currentPartitionEpoch
                    ? AlterPartitionOutcome.COMMIT : AlterPartitionOutcome.IGNORE;
            case OPERATION_NOT_ATTEMPTED, INELIGIBLE_REPLICA -> AlterPartitionOutcome.REVERT;
            case UNKNOWN_TOPIC_OR_PARTITION, FENCED_LEADER_EPOCH, INVALID_UPDATE_VERSION, INVALID_REQUEST,
                    NEW_LEADER_ELECTED -> AlterPartitionOutcome.STAY_PENDING;
            default -> AlterPartitionOutcome.RESUBMIT;
        };
    }

    private void handleAlterPartitionResult(IsrState proposedState, AlterPartitionResponse.PartitionResult result,
                                            Throwable failure) {
        Errors error;
        if (failure != null) {
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            error = cause instanceof ApiException api ? api.error() : Errors.UNKNOWN_SERVER_ERROR;
        } else {
            error = result.error();
        }
        boolean hwIncreased = false;
        AlterPartitionOutcome outcome;
        leaderIsrUpdateLock.writeLock().lock();
        try {
            if (isrState != proposedState) {
                LOG.debug("{}Ignoring an AlterPartition answer ({}) to a proposal that is no longer pending", logPrefix,
                        error);
                return;
            }
            outcome = error == Errors.NONE
                    ? interpret(error, result.leaderEpoch(), result.partitionEpoch(), leaderEpoch, partitionEpoch)
                    : interpret(error, -1, -1, leaderEpoch, partitionEpoch);
            switch (outcome) {
                case COMMIT -> {
                    isrState = new CommittedIsr(result.isr());
                    partitionEpoch = result.partitionEpoch();
                    if (proposedState instanceof PendingRecovery) {
                        recovering = false; // CTL-6: from now on the ISR grows by ISR-2
                        LOG.info("{}The partition is RECOVERED", logPrefix);
                    }
                    LOG.info("{}{}", logPrefix, isrUpdatedMessage(result.isr(), isUnderMinIsr(), partitionEpoch));
                    hwIncreased = maybeIncrementLeaderHWLocked(settings.time().milliseconds());
                }
                case IGNORE -> {
                    answeredPending = proposedState;
                    LOG.info("{}Ignoring AlterPartition success with leader epoch {} and partition epoch {}: "
                                    + "the partition has leader epoch {} and partition epoch {}", logPrefix,
                            result.leaderEpoch(), result.partitionEpoch(), leaderEpoch, partitionEpoch);
                }
                case REVERT -> {
                    LOG.info("{}Failed to alter partition to {} ({}); going back to the last committed ISR {}",
                            logPrefix, proposalOf(proposedState).item().newIsrIds(), error,
                            IsrState.format(proposedState.isr()));
                    isrState = proposedState.lastCommittedState();
                }
                case STAY_PENDING -> {
                    answeredPending = proposedState;
                    LOG.info("{}Failed to alter partition to {} ({}); waiting for newer metadata",
                            logPrefix, proposalOf(proposedState).item().newIsrIds(), error);
                }
                case RESUBMIT -> LOG.info("{}Failed to alter partition to {} ({}); retrying", logPrefix,
                        proposalOf(proposedState).item().newIsrIds(), error);
                default -> throw new IllegalStateException("Unhandled outcome " + outcome);
            }
        } finally {
            leaderIsrUpdateLock.writeLock().unlock();
        }
        PartitionListener listener = settings.listener();
        switch (outcome) {
            case COMMIT -> {
                if (proposedState instanceof PendingShrinkIsr) {
                    listener.onIsrShrink(topicPartition);
                } else if (proposedState instanceof PendingExpandIsr) {
                    listener.onIsrExpand(topicPartition);
                }
                if (hwIncreased) {
                    listener.onHighWatermarkIncreased(topicPartition);
                }
            }
            case REVERT, STAY_PENDING -> listener.onFailedIsrUpdate(topicPartition);
            case RESUBMIT -> {
                listener.onFailedIsrUpdate(topicPartition);
                submitAlterPartition(proposedState);
            }
            default -> {
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Follower side (FOL-4, FOL-5), used by the fetcher
    // ---------------------------------------------------------------------------------------------------------

    /**
     * FOL-4: appends the leader's batches as they are.
     *
     * @throws ApiException NOT_LEADER_OR_FOLLOWER if this broker has meanwhile become the leader
     */
    public LogAppendInfo appendRecordsToFollower(MemoryRecords records) {
        leaderIsrUpdateLock.readLock().lock();
        try {
            if (isLeader()) {
                throw Errors.NOT_LEADER_OR_FOLLOWER.exception("Partition " + topicPartition + " is led by broker "
                        + localBrokerId + " itself in leader epoch " + leaderEpoch + "; follower append refused at LEO "
                        + log.logEndOffset());
            }
            return log.appendAsFollower(records);
        } finally {
            leaderIsrUpdateLock.readLock().unlock();
        }
    }

    /** LOG-6 on the local log (FOL-8); the log clamps its HW to the new LEO. */
    public boolean truncateTo(long offset) {
        leaderIsrUpdateLock.readLock().lock();
        try {
            return log.truncateTo(offset);
        } finally {
            leaderIsrUpdateLock.readLock().unlock();
        }
    }

    /** LOG-6 on the local log (FOL-6). */
    public void truncateFullyAndStartAt(long offset) {
        leaderIsrUpdateLock.readLock().lock();
        try {
            log.truncateFullyAndStartAt(offset);
        } finally {
            leaderIsrUpdateLock.readLock().unlock();
        }
    }

    /**
     * FOL-5: takes the leader's HW clamped to [logStartOffset, LEO], even when lower than the current HW.
     *
     * @return the HW now
     */
    public long updateFollowerHighWatermark(long leaderHighWatermark) {
        long oldHw = log.highWatermark();
        long newHw = log.updateHighWatermark(leaderHighWatermark);
        if (newHw < oldHw) {
            LOG.info("{}Non-monotonic update of high watermark from {} to {}", logPrefix, oldHw, newHw);
        }
        return newHw;
    }

    /** LOG-10: a follower moves its log start offset up to the leader's (bounded by its own HW). */
    public void maybeIncrementLogStartOffset(long leaderLogStartOffset) {
        leaderIsrUpdateLock.readLock().lock();
        try {
            log.maybeIncrementLogStartOffset(leaderLogStartOffset);
        } finally {
            leaderIsrUpdateLock.readLock().unlock();
        }
    }

    /** This partition as its follower fetcher sees it. */
    public PartitionFollowerView asFollowerPartition() {
        return new PartitionFollowerView(this);
    }

    /** The local log. */
    public LocalLog localLog() {
        return log;
    }

    /**
     * This replica as an outside observer records it (a history sample). Leadership, leader epoch and
     * ISR are read under the read lock, so a leadership change is never seen half done; HW and LEO
     * may move meanwhile (appends and HW updates share that side of the lock), and are read HW first,
     * read again if a concurrent truncation left the LEO below the HW just read.
     */
    public ReplicaDescription describe() {
        leaderIsrUpdateLock.readLock().lock();
        try {
            boolean leader = isLeader();
            long hw = log.highWatermark();
            long leo = log.logEndOffset();
            for (int attempt = 0; attempt < 3 && hw > leo; attempt++) {
                hw = log.highWatermark();
                leo = log.logEndOffset();
            }
            List<EpochEntry> epochs = log.underlyingLog().map(l -> l.leaderEpochCache().epochEntries()).orElse(List.of());
            return new ReplicaDescription(topicPartition, leader, leaderEpoch,
                    leader ? isrState.maximalIsr() : List.of(), hw, leo, log.logStartOffset(), epochs);
        } finally {
            leaderIsrUpdateLock.readLock().unlock();
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // State and gauges
    // ---------------------------------------------------------------------------------------------------------

    /** The partition. */
    public TopicPartition topicPartition() {
        return topicPartition;
    }

    /** The id of the topic this replica belongs to, empty if the metadata named none when it was created. */
    public Optional<UUID> topicId() {
        return topicId;
    }

    /** Whether this broker leads the partition. */
    public boolean isLeader() {
        return leaderReplicaId == localBrokerId;
    }

    /** The leader's broker id, {@link PartitionRegistration#NO_LEADER} if none. */
    public int leaderId() {
        return leaderReplicaId;
    }

    /** The current leader epoch, -1 before any metadata. */
    public int leaderEpoch() {
        return leaderEpoch;
    }

    /** The current partition epoch, -1 before any metadata. */
    public int partitionEpoch() {
        return partitionEpoch;
    }

    /** Where the current leader epoch started on this leader (LDR-1), -1 on a follower. */
    public long leaderEpochStartOffset() {
        return leaderEpochStartOffset;
    }

    /** The assigned replicas in assignment order. */
    public List<Integer> assignment() {
        return assignment;
    }

    /** The ISR state (ISR-4); committed and empty on a follower. */
    public IsrState isrState() {
        return isrState;
    }

    /**
     * CTL-6: whether this broker leads the partition after an unclean election and the controller has not yet
     * committed its report that the partition recovered (no expansion is proposed meanwhile).
     */
    public boolean isRecovering() {
        return recovering;
    }

    /** The committed ISR (empty on a follower). */
    public List<Integer> isr() {
        return isrState.isr();
    }

    /** What the leader knows of a remote replica (empty on a follower or for an unassigned id). */
    public Optional<ReplicaState> remoteReplicaState(int brokerId) {
        Replica replica = remoteReplicas.get(brokerId);
        return replica == null ? Optional.empty() : Optional.of(replica.stateSnapshot());
    }

    /** The local log's HW. */
    public long highWatermark() {
        return log.highWatermark();
    }

    /** The local log's LEO. */
    public long logEndOffset() {
        return log.logEndOffset();
    }

    /** The topic's {@code min.insync.replicas}. */
    public int minInsyncReplicas() {
        return minInsyncReplicas;
    }

    /** Applies a run-time change of {@code min.insync.replicas} (SCN-2). */
    public void updateMinInsyncReplicas(int minInsyncReplicas) {
        if (minInsyncReplicas < 1) {
            throw new IllegalArgumentException("min.insync.replicas must be at least 1 for " + topicPartition + ": "
                    + minInsyncReplicas);
        }
        this.minInsyncReplicas = minInsyncReplicas;
    }

    /** HW-2: {@code min(min.insync.replicas, number of replicas)} ({@link TopicConfigs#effectiveMinIsr}). */
    public int effectiveMinIsr() {
        return TopicConfigs.effectiveMinIsr(minInsyncReplicas, assignment.size());
    }

    /** Leader with an ISR smaller than the assignment ({@code UnderReplicatedPartitions}). */
    public boolean isUnderReplicated() {
        return isLeader() && isrState.isr().size() < assignment.size();
    }

    /** Leader with an ISR below the effective min ISR ({@code UnderMinIsrPartitionCount}, HW-2). */
    public boolean isUnderMinIsr() {
        return isLeader() && isrState.isr().size() < effectiveMinIsr();
    }

    /** Leader with an ISR of exactly the effective min ISR ({@code AtMinIsrPartitionCount}). */
    public boolean isAtMinIsr() {
        return isLeader() && isrState.isr().size() == effectiveMinIsr();
    }

    /** Marks the partition's log directory offline: it then answers KAFKA_STORAGE_ERROR (FET-2, §9). */
    public void markOffline() {
        offline = true;
    }

    /** Whether the log directory is offline. */
    public boolean isOffline() {
        return offline;
    }

    @Override
    public String toString() {
        return "Partition(" + topicPartition + ", broker=" + localBrokerId + ", leader=" + leaderReplicaId
                + ", leaderEpoch=" + leaderEpoch + ", partitionEpoch=" + partitionEpoch + ", isr=" + isrState + ")";
    }
}
