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

package dev.insync.replication.core.fetcher;

import java.util.Objects;

/**
 * What the broker hands the {@link FetcherManager} when a partition starts following a leader
 * (LDR-2, FOL-7).
 *
 * @param partition           the local partition the fetched records go into
 * @param leaderId            the leader broker
 * @param currentLeaderEpoch  the leader epoch from metadata
 * @param initOffset          {@link FetcherManager#initialFetchOffset(FollowerPartition)}
 */
public record InitialFetchState(FollowerPartition partition, int leaderId, int currentLeaderEpoch, long initOffset) {

    /** Rejects a missing partition or leader. */
    public InitialFetchState {
        Objects.requireNonNull(partition, "partition");
        if (leaderId < 0) {
            throw new IllegalArgumentException("No leader for " + partition.topicPartition()
                    + ": a partition without a leader gets no fetcher (FOL-7)");
        }
        if (initOffset < 0) {
            throw new IllegalArgumentException("Negative initial fetch offset " + initOffset + " for "
                    + partition.topicPartition());
        }
    }
}
