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

import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;

import java.util.Set;

/**
 * What fetchers report back to the broker. Called on the fetcher's executor; implementations must
 * not block (they may submit work elsewhere).
 */
public interface FetcherListener {

    /** After a response was processed: partitions whose follower HW changed (to complete delayed fetches). */
    void onHighWatermarksChanged(Set<TopicPartition> partitions);

    /**
     * FOL-6: a partition was marked failed and is no longer fetched until re-added.
     *
     * @param error  what it amounts to on the wire: FENCED_LEADER_EPOCH, KAFKA_STORAGE_ERROR (the
     *               broker should take the partition offline) or UNKNOWN_SERVER_ERROR
     * @param reason a message naming the partition and offset
     */
    void onPartitionFailed(TopicPartition partition, Errors error, String reason);

    /** A listener that ignores everything. */
    FetcherListener NONE = new FetcherListener() {
        @Override
        public void onHighWatermarksChanged(Set<TopicPartition> partitions) {
        }

        @Override
        public void onPartitionFailed(TopicPartition partition, Errors error, String reason) {
        }
    };
}
