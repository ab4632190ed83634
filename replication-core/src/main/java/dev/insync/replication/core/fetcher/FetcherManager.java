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

import dev.insync.replication.core.rpc.ReplicaTransport;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import java.util.Collections;
import java.util.LinkedHashSet;

/**
 * A follower broker's fetchers (Kafka's {@code ReplicaFetcherManager}, FOL-1): one
 * {@link ReplicaFetcher} per (leader broker, fetcherId), created on demand, each on its own serial
 * executor named {@code ReplicaFetcherThread-<fetcherId>-<leaderId>}. Partitions move between
 * fetchers as leadership changes; fetchers left without partitions are shut down by
 * {@link #shutdownIdleFetchers()}. Thread-safe.
 */
public final class FetcherManager {

    private static final Logger LOG = LoggerFactory.getLogger(FetcherManager.class);

    /** A fetcher's identity. */
    public record FetcherKey(int leaderId, int fetcherId) implements Comparable<FetcherKey> {
        @Override
        public int compareTo(FetcherKey o) {
            int c = Integer.compare(leaderId, o.leaderId);
            return c != 0 ? c : Integer.compare(fetcherId, o.fetcherId);
        }
    }

    private final FetcherConfig config;
    private final Scheduler scheduler;
    private final ReplicaTransport transport;
    private final LongSupplier brokerEpoch;
    private final FetcherListener listener;
    private final LongSupplier localLogStartMoves;

    // Guarded by this. Sorted so iteration order (and so the simulator's history) is deterministic.
    private final Map<FetcherKey, ReplicaFetcher> fetchers = new TreeMap<>();
    private final Map<TopicPartition, FetcherKey> assignment = new HashMap<>();
    private final Set<TopicPartition> failedPartitions = new HashSet<>();
    /**
     * Executors by name, reused when a fetcher for the same (leader, fetcherId) comes back after
     * being shut down idle: the Scheduler cannot release an executor, so this bounds them by the
     * number of (leader, fetcherId) pairs ever followed.
     */
    private final Map<String, Executor> executors = new HashMap<>();
    private boolean shutdown;

    /**
     * @param config      follower settings (replicaId, num.replica.fetchers, fetch sizes, backoff)
     * @param scheduler   gives each fetcher its serial executor and timers
     * @param transport   reaches the leaders
     * @param brokerEpoch this broker's current epoch, sent in every fetch (FOL-3)
     * @param listener    told about HW changes and failed partitions
     */
    public FetcherManager(FetcherConfig config, Scheduler scheduler, ReplicaTransport transport,
                          LongSupplier brokerEpoch, FetcherListener listener) {
        this(config, scheduler, transport, brokerEpoch, listener, () -> 0L);
    }

    /**
     * @param localLogStartMoves how many times a local log's start offset moved on this broker so far
     *                           (lock-free; a fetch session's builds look at every partition once
     *                           after it moved, FET-7)
     */
    public FetcherManager(FetcherConfig config, Scheduler scheduler, ReplicaTransport transport,
                          LongSupplier brokerEpoch, FetcherListener listener, LongSupplier localLogStartMoves) {
        this.localLogStartMoves = Objects.requireNonNull(localLogStartMoves, "localLogStartMoves");
        this.config = Objects.requireNonNull(config, "config");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.transport = Objects.requireNonNull(transport, "transport");
        this.brokerEpoch = Objects.requireNonNull(brokerEpoch, "brokerEpoch");
        FetcherListener l = Objects.requireNonNull(listener, "listener");
        this.listener = new FetcherListener() {
            @Override
            public void onHighWatermarksChanged(Set<TopicPartition> partitions) {
                l.onHighWatermarksChanged(partitions);
            }

            @Override
            public void onPartitionFailed(TopicPartition partition, Errors error, String reason) {
                synchronized (FetcherManager.this) {
                    failedPartitions.add(partition);
                }
                l.onPartitionFailed(partition, error, reason);
            }
        };
    }

    /**
     * FOL-1: {@code abs(31 * topic.hashCode() + partition) % numFetchers}, where the absolute value
     * of {@link Integer#MIN_VALUE} counts as 0.
     */
    public static int fetcherId(TopicPartition tp, int numFetchers) {
        if (numFetchers <= 0) {
            throw new IllegalArgumentException("num.replica.fetchers must be > 0, got " + numFetchers);
        }
        int hash = 31 * tp.topic().hashCode() + tp.partition();
        int abs = hash == Integer.MIN_VALUE ? 0 : Math.abs(hash);
        return abs % numFetchers;
    }

    /** FOL-7: the LEO when the log has epoch information, else the HW. */
    public static long initialFetchOffset(FollowerPartition partition) {
        return partition.latestEpoch().isPresent() ? partition.logEndOffset() : partition.highWatermark();
    }

    /** FOL-1: the executor name of a fetcher. */
    public static String fetcherName(int fetcherId, int leaderId) {
        return "ReplicaFetcherThread-" + fetcherId + "-" + leaderId;
    }

    /**
     * Starts fetching each partition from its leader on the fetcher chosen by FOL-1, creating the
     * fetcher if needed. A partition held by a fetcher of another leader leaves it first. Clears
     * the failed mark of every partition added (newer metadata, FOL-6).
     */
    public synchronized void addFetcherForPartitions(Map<TopicPartition, InitialFetchState> partitions) {
        if (shutdown) {
            throw new IllegalStateException("Fetcher manager of broker " + config.replicaId()
                    + " is shut down; cannot add " + partitions.keySet());
        }
        Map<FetcherKey, Map<TopicPartition, InitialFetchState>> byFetcher = new TreeMap<>();
        for (Map.Entry<TopicPartition, InitialFetchState> e : partitions.entrySet()) {
            TopicPartition tp = e.getKey();
            FetcherKey key = new FetcherKey(e.getValue().leaderId(), fetcherId(tp, config.numFetchers()));
            FetcherKey previous = assignment.get(tp);
            if (previous != null && !previous.equals(key)) {
                ReplicaFetcher old = fetchers.get(previous);
                if (old != null) {
                    old.removePartitions(Set.of(tp));
                }
            }
            byFetcher.computeIfAbsent(key, k -> new LinkedHashMap<>()).put(tp, e.getValue());
        }
        byFetcher.forEach((key, states) -> {
            ReplicaFetcher fetcher = fetchers.computeIfAbsent(key, this::createFetcher);
            fetcher.addPartitions(states);
            states.keySet().forEach(tp -> {
                assignment.put(tp, key);
                failedPartitions.remove(tp);
            });
        });
    }

    /** Stops fetching these partitions (they became leader, lost their leader, or were deleted). */
    public synchronized Map<TopicPartition, PartitionFetchState> removeFetcherForPartitions(Set<TopicPartition> tps) {
        Map<TopicPartition, PartitionFetchState> removed = new LinkedHashMap<>();
        for (TopicPartition tp : tps) {
            FetcherKey key = assignment.remove(tp);
            failedPartitions.remove(tp);
            ReplicaFetcher fetcher = key == null ? null : fetchers.get(key);
            if (fetcher != null) {
                removed.putAll(fetcher.removePartitions(Set.of(tp)));
            }
        }
        return removed;
    }

    /** Shuts down and forgets every fetcher that holds no partition. */
    public synchronized void shutdownIdleFetchers() {
        var it = fetchers.entrySet().iterator();
        while (it.hasNext()) {
            var e = it.next();
            if (e.getValue().partitionCount() == 0) {
                e.getValue().shutdown();
                it.remove();
                LOG.info("Broker {} shut down idle fetcher {}", config.replicaId(), e.getValue().name());
            }
        }
    }

    /** The fetch state of a followed partition, if any fetcher holds it. */
    public synchronized Optional<PartitionFetchState> fetchState(TopicPartition tp) {
        FetcherKey key = assignment.get(tp);
        ReplicaFetcher fetcher = key == null ? null : fetchers.get(key);
        return fetcher == null ? Optional.empty() : fetcher.fetchState(tp);
    }

    /** The fetcher holding {@code tp}, if any. */
    public synchronized Optional<ReplicaFetcher> fetcherFor(TopicPartition tp) {
        FetcherKey key = assignment.get(tp);
        return Optional.ofNullable(key == null ? null : fetchers.get(key));
    }

    /** The running fetchers, ordered by (leaderId, fetcherId). */
    public synchronized List<ReplicaFetcher> fetchers() {
        return List.copyOf(fetchers.values());
    }

    /** FOL-6: partitions marked failed and not re-added since. */
    public synchronized Set<TopicPartition> failedPartitions() {
        // In insertion order (Set.copyOf's is randomized per JVM: INV-6 for callers that iterate).
        return Collections.unmodifiableSet(new LinkedHashSet<>(failedPartitions));
    }

    /** {@code kafka.server:type=ReplicaFetcherManager,name=MaxLag}: the largest lag over all fetchers. */
    public synchronized long maxLag() {
        return fetchers.values().stream().mapToLong(ReplicaFetcher::maxLag).max().orElse(0L);
    }

    /** Stops every fetcher. Idempotent. */
    public synchronized void shutdown() {
        if (shutdown) {
            return;
        }
        shutdown = true;
        fetchers.values().forEach(ReplicaFetcher::shutdown);
        fetchers.clear();
        assignment.clear();
    }

    private ReplicaFetcher createFetcher(FetcherKey key) {
        String name = fetcherName(key.fetcherId(), key.leaderId());
        LOG.info("Broker {} starting fetcher {}", config.replicaId(), name);
        Executor executor = executors.computeIfAbsent(name, scheduler::newSerialExecutor);
        return new ReplicaFetcher(name, key.fetcherId(), key.leaderId(), config, scheduler, executor, transport,
                brokerEpoch, listener, localLogStartMoves);
    }
}
