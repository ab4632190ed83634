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
import java.util.OptionalInt;

/**
 * One partition's fetch position in its fetcher (Kafka's {@code PartitionFetchState}).
 *
 * @param fetchOffset         the next offset to ask for; equals the local LEO while fetching
 * @param currentLeaderEpoch  the leader epoch from metadata, sent as currentLeaderEpoch (FOL-3)
 * @param lastFetchedEpoch    the epoch of the last local batch; empty without epoch information
 * @param state               fetching, truncating, delayed or failed
 */
public record PartitionFetchState(long fetchOffset, int currentLeaderEpoch, OptionalInt lastFetchedEpoch,
                                  FetchState state) {

    /** Rejects impossible positions. */
    public PartitionFetchState {
        if (fetchOffset < 0) {
            throw new IllegalArgumentException("Negative fetch offset " + fetchOffset);
        }
        Objects.requireNonNull(lastFetchedEpoch, "lastFetchedEpoch");
        Objects.requireNonNull(state, "state");
    }

    /** Whether it goes into a fetch at {@code nowMs} (fetching, or delayed until no later than now). */
    public boolean isReadyForFetch(long nowMs) {
        return state instanceof FetchState.Fetching
                || (state instanceof FetchState.Delayed d && d.untilMs() <= nowMs);
    }

    /** Whether it waits for the truncation to its HW (FOL-7). */
    public boolean isTruncating() {
        return state instanceof FetchState.Truncating;
    }

    /** Whether it was marked failed (FOL-6). */
    public boolean isFailed() {
        return state instanceof FetchState.Failed;
    }

    /** The same position in another state. */
    public PartitionFetchState withState(FetchState newState) {
        return new PartitionFetchState(fetchOffset, currentLeaderEpoch, lastFetchedEpoch, newState);
    }
}
