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

package dev.insync.replication.core.replica;

import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One remote replica of a partition as seen by its leader. Its {@link ReplicaState} is replaced
 * atomically on every follower fetch (FET-4) and on leadership changes (LDR-1); readers take a
 * {@link #stateSnapshot()} and never see half an update.
 */
public final class Replica {

    private final int brokerId;
    private final TopicPartition topicPartition;
    private final AtomicReference<ReplicaState> state = new AtomicReference<>(ReplicaState.EMPTY);

    /** A replica the leader has not heard from yet. */
    public Replica(int brokerId, TopicPartition topicPartition) {
        this.brokerId = brokerId;
        this.topicPartition = Objects.requireNonNull(topicPartition, "topicPartition");
    }

    /** The replica's broker id. */
    public int brokerId() {
        return brokerId;
    }

    /** The partition this replica belongs to. */
    public TopicPartition topicPartition() {
        return topicPartition;
    }

    /** The current state, consistent as of one update. */
    public ReplicaState stateSnapshot() {
        return state.get();
    }

    /**
     * FET-4: records a follower fetch. The fetch offset becomes the follower's LEO (the fetch offset is
     * the acknowledgement), and lastCaughtUpTimeMs is chosen by three branches:
     * <ul>
     *   <li>fetchOffset at or past the leader's LEO now: the fetch time;</li>
     *   <li>else fetchOffset at or past the leader's LEO at the previous fetch: the previous fetch time
     *       (a steady trickle of small writes must not keep a healthy follower behind forever);</li>
     *   <li>else unchanged.</li>
     * </ul>
     * lastFetchLeaderLogEndOffset keeps the largest leader LEO seen.
     *
     * @param followerFetchOffset  the fetch offset (the follower's LEO)
     * @param followerStartOffset  the follower's log start offset from the request
     * @param followerFetchTimeMs  when the fetch was read
     * @param leaderEndOffset      the leader's LEO read before this fetch's read
     * @param brokerEpoch          the broker epoch in the request, -1 if absent
     * @throws dev.insync.replication.log.ApiException NOT_LEADER_OR_FOLLOWER if {@code brokerEpoch} is older
     *         than one this replica already fetched with (a delayed fetch from a previous incarnation);
     *         the state is then unchanged
     */
    public void updateFetchStateOrThrow(long followerFetchOffset, long followerStartOffset, long followerFetchTimeMs,
                                        long leaderEndOffset, long brokerEpoch) {
        state.updateAndGet(current -> {
            if (brokerEpoch != ReplicaState.UNKNOWN && current.brokerEpoch() != ReplicaState.UNKNOWN
                    && brokerEpoch < current.brokerEpoch()) {
                throw Errors.NOT_LEADER_OR_FOLLOWER.exception("Received a fetch for " + topicPartition
                        + " from replica " + brokerId + " with stale broker epoch " + brokerEpoch
                        + " (current " + current.brokerEpoch() + ") at fetch offset " + followerFetchOffset);
            }
            long lastCaughtUpTimeMs;
            if (followerFetchOffset >= leaderEndOffset) {
                lastCaughtUpTimeMs = Math.max(current.lastCaughtUpTimeMs(), followerFetchTimeMs);
            } else if (followerFetchOffset >= current.lastFetchLeaderLogEndOffset()) {
                lastCaughtUpTimeMs = Math.max(current.lastCaughtUpTimeMs(), current.lastFetchTimeMs());
            } else {
                lastCaughtUpTimeMs = current.lastCaughtUpTimeMs();
            }
            return new ReplicaState(followerStartOffset, followerFetchOffset,
                    Math.max(leaderEndOffset, current.lastFetchLeaderLogEndOffset()), followerFetchTimeMs,
                    lastCaughtUpTimeMs, brokerEpoch);
        });
    }

    /**
     * LDR-1: resets the state when this broker starts a new leader epoch.
     * <ul>
     *   <li>Newly leader: LEO, log start, lastFetchLeaderLogEndOffset and broker epoch unknown, lastFetchTime 0
     *       (it knows nothing of this follower yet, so the HW cannot rise before it fetches, HW-4).</li>
     *   <li>Re-elected: keeps LEO, log start and broker epoch; lastFetchLeaderLogEndOffset = the leader's LEO;
     *       lastFetchTime = now if in the ISR, else 0.</li>
     * </ul>
     * In both, lastCaughtUpTime = now if the replica is in the ISR (so it is not shrunk at once), else 0 (so an
     * out-of-ISR replica cannot hold the HW back).
     */
    public void resetReplicaState(long currentTimeMs, long leaderEndOffset, boolean isNewLeader,
                                  boolean isFollowerInSync) {
        long caughtUpOrZero = isFollowerInSync ? currentTimeMs : 0L;
        if (isNewLeader) {
            state.set(new ReplicaState(ReplicaState.UNKNOWN, ReplicaState.UNKNOWN, ReplicaState.UNKNOWN, 0L,
                    caughtUpOrZero, ReplicaState.UNKNOWN));
        } else {
            state.updateAndGet(current -> new ReplicaState(current.logStartOffset(), current.logEndOffset(),
                    leaderEndOffset, caughtUpOrZero, caughtUpOrZero, current.brokerEpoch()));
        }
    }

    @Override
    public String toString() {
        return "Replica(brokerId=" + brokerId + ", " + topicPartition + ", " + state.get() + ")";
    }
}
