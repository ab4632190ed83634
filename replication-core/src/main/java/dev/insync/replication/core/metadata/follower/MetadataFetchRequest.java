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

package dev.insync.replication.core.metadata.follower;

/**
 * A broker's long poll for committed metadata after the offset it has (CTL-5), as KRaft brokers
 * fetch {@code __cluster_metadata}. Any controller node may answer, active or not.
 *
 * @param brokerId    the asking broker
 * @param afterOffset the offset of the last delta (or image) it has, -1 for none
 * @param maxWaitMs   how long the controller may hold the request while nothing newer is committed
 * @param maxDeltas   at most this many deltas in the answer (at least 1)
 */
public record MetadataFetchRequest(int brokerId, long afterOffset, long maxWaitMs, int maxDeltas) {

    /** Validates. */
    public MetadataFetchRequest {
        if (afterOffset < -1) {
            throw new IllegalArgumentException("afterOffset must be >= -1, got " + afterOffset);
        }
        if (maxWaitMs < 0) {
            throw new IllegalArgumentException("Negative maxWaitMs " + maxWaitMs);
        }
        if (maxDeltas < 1) {
            throw new IllegalArgumentException("maxDeltas must be positive, got " + maxDeltas);
        }
    }
}
