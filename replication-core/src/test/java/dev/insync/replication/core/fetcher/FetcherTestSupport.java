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

import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.epoch.EpochEndOffset;
import dev.insync.replication.log.record.MemoryRecords;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Shared wiring for fetcher tests: manual scheduler, fake transport, recording listener. */
class FetcherTestSupport {

    static final long BACKOFF_MS = 1000L;
    static final TopicPartition DIV0 = new TopicPartition("div", 0);
    static final TopicPartition DIV1 = new TopicPartition("div", 1);

    final ManualScheduler scheduler = new ManualScheduler();
    final FakeTransport transport = new FakeTransport();
    final List<Set<TopicPartition>> hwChanges = new ArrayList<>();
    /** How many fetches had been sent when each HW change was reported. */
    final List<Integer> fetchesSentAtHwReport = new ArrayList<>();
    final Map<TopicPartition, String> failures = new LinkedHashMap<>();
    long brokerEpoch = 42L;

    final FetcherListener listener = new FetcherListener() {
        @Override
        public void onHighWatermarksChanged(Set<TopicPartition> partitions) {
            hwChanges.add(partitions);
            fetchesSentAtHwReport.add(transport.sent.size());
        }

        @Override
        public void onPartitionFailed(TopicPartition partition, Errors error, String reason) {
            failures.put(partition, error + " " + reason);
        }
    };

    /** Whether the fetchers of {@link #manager} fetch in sessions (FET-7); as the default, off. */
    boolean fetchSessions() {
        return false;
    }

    FetcherManager manager(int replicaId, int numFetchers) {
        FetcherConfig config = FetcherConfig.defaults(replicaId).withNumFetchers(numFetchers)
                .withFetchSessions(fetchSessions());
        return new FetcherManager(config, scheduler, transport, () -> brokerEpoch, listener);
    }

    static InitialFetchState follow(FakeFollowerPartition p, int leaderId, int leaderEpoch) {
        return new InitialFetchState(p, leaderId, leaderEpoch, FetcherManager.initialFetchOffset(p));
    }

    static FetchResponse.PartitionData data(long hw, long logStart, long leo, MemoryRecords records) {
        return new FetchResponse.PartitionData(Errors.NONE, hw, hw, logStart, leo, records, Optional.empty());
    }

    static FetchResponse.PartitionData diverging(long hw, EpochEndOffset divergingEpoch) {
        return new FetchResponse.PartitionData(Errors.NONE, hw, hw, 0, -1, MemoryRecords.EMPTY,
                Optional.of(divergingEpoch));
    }

    static FetchResponse.PartitionData error(Errors error, long logStart, long leo) {
        return new FetchResponse.PartitionData(error, -1, -1, logStart, leo, MemoryRecords.EMPTY, Optional.empty());
    }

    static FetchResponse response(TopicPartition tp, FetchResponse.PartitionData d) {
        return new FetchResponse(Errors.NONE, Map.of(tp, d));
    }

    static FetchResponse response(Map<TopicPartition, FetchResponse.PartitionData> m) {
        return new FetchResponse(Errors.NONE, m);
    }

    static FakeFollowerPartition.Batch batch(long base, long last, int epoch) {
        return new FakeFollowerPartition.Batch(base, last, epoch);
    }
}
