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

/**
 * What a leader knows about one remote replica, as of that replica's last fetch (FET-4). Immutable:
 * {@link Replica} swaps whole instances atomically, so a reader always sees one consistent fetch.
 *
 * @param logStartOffset              the follower's log start offset from its last fetch, -1 if unknown
 * @param logEndOffset                the follower's LEO = the fetch offset of its last fetch, -1 if unknown
 * @param lastFetchLeaderLogEndOffset the largest leader LEO seen at any fetch of this follower, -1 if unknown
 * @param lastFetchTimeMs             when the last fetch was read, 0 if never
 * @param lastCaughtUpTimeMs          the last time the follower was known to hold everything the leader had
 * @param brokerEpoch                 the broker epoch carried by the last fetch, -1 if unknown
 */
public record ReplicaState(long logStartOffset, long logEndOffset, long lastFetchLeaderLogEndOffset,
                           long lastFetchTimeMs, long lastCaughtUpTimeMs, long brokerEpoch) {

    /** Offset, epoch or time not known. */
    public static final long UNKNOWN = -1L;

    /** The state of a replica the leader has never heard from. */
    public static final ReplicaState EMPTY = new ReplicaState(UNKNOWN, UNKNOWN, UNKNOWN, 0L, 0L, UNKNOWN);

    /**
     * ISR-1: a replica is caught up when its LEO equals the leader's, or it last caught up no longer than
     * {@code replicaLagTimeMaxMs} ago. Lag is measured in time only, never in message counts.
     */
    public boolean isCaughtUp(long leaderEndOffset, long currentTimeMs, long replicaLagTimeMaxMs) {
        return leaderEndOffset == logEndOffset || currentTimeMs - lastCaughtUpTimeMs <= replicaLagTimeMaxMs;
    }
}
