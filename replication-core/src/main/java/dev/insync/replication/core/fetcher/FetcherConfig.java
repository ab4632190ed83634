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

import dev.insync.replication.core.config.ReplicationConfig;

/**
 * The follower-side settings of one broker (FOL-1..FOL-3), with Kafka's property names and defaults.
 *
 * @param replicaId              this broker's id, sent as {@code replicaId} in every Fetch
 * @param numFetchers            {@code num.replica.fetchers}: fetchers per leader broker
 * @param fetchWaitMaxMs         {@code replica.fetch.wait.max.ms}: how long the leader may park a fetch
 * @param fetchMinBytes          {@code replica.fetch.min.bytes}
 * @param fetchMaxBytes          {@code replica.fetch.max.bytes}: per-partition bound
 * @param fetchResponseMaxBytes  {@code replica.fetch.response.max.bytes}: whole-response bound
 * @param fetchBackoffMs         {@code replica.fetch.backoff.ms}: idle wait and retriable-error delay
 * @param requestTimeoutMs       how long after {@code fetchWaitMaxMs} an unanswered fetch counts as
 *                               lost (the link was cut) and the round is retried; plays the part of
 *                               Kafka's {@code replica.socket.timeout.ms}
 * @param fetchSessions          {@code insync.fetch.sessions.enabled}: whether the fetchers fetch in
 *                               incremental fetch sessions (FET-7, KIP-227)
 */
public record FetcherConfig(int replicaId, int numFetchers, int fetchWaitMaxMs, int fetchMinBytes, int fetchMaxBytes,
                            int fetchResponseMaxBytes, long fetchBackoffMs, long requestTimeoutMs,
                            boolean fetchSessions) {

    /** Kafka's {@code num.replica.fetchers} default. */
    public static final int DEFAULT_NUM_FETCHERS = 1;
    /** Kafka's {@code replica.fetch.wait.max.ms} default. */
    public static final int DEFAULT_FETCH_WAIT_MAX_MS = 500;
    /** Kafka's {@code replica.fetch.min.bytes} default. */
    public static final int DEFAULT_FETCH_MIN_BYTES = 1;
    /** Kafka's {@code replica.fetch.max.bytes} default. */
    public static final int DEFAULT_FETCH_MAX_BYTES = 1_048_576;
    /** Kafka's {@code replica.fetch.response.max.bytes} default. */
    public static final int DEFAULT_FETCH_RESPONSE_MAX_BYTES = 10_485_760;
    /** Kafka's {@code replica.fetch.backoff.ms} default. */
    public static final long DEFAULT_FETCH_BACKOFF_MS = 1000L;
    /** Kafka's {@code replica.socket.timeout.ms} default (30 s). */
    public static final long DEFAULT_REQUEST_TIMEOUT_MS = 30_000L;

    /** Checks every bound; a bad value names itself. */
    public FetcherConfig {
        if (replicaId < 0) {
            throw new IllegalArgumentException("replicaId must be >= 0, got " + replicaId);
        }
        requirePositive("num.replica.fetchers", numFetchers);
        if (fetchWaitMaxMs < 0) {
            throw new IllegalArgumentException("replica.fetch.wait.max.ms must be >= 0, got " + fetchWaitMaxMs);
        }
        requirePositive("replica.fetch.min.bytes", fetchMinBytes);
        requirePositive("replica.fetch.max.bytes", fetchMaxBytes);
        requirePositive("replica.fetch.response.max.bytes", fetchResponseMaxBytes);
        requirePositive("replica.fetch.backoff.ms", fetchBackoffMs);
        requirePositive("fetch request timeout", requestTimeoutMs);
    }

    /** Without fetch sessions (FET-7): every fetch full and sessionless, for the fetcher's own tests of FOL-n. */
    public FetcherConfig(int replicaId, int numFetchers, int fetchWaitMaxMs, int fetchMinBytes, int fetchMaxBytes,
                         int fetchResponseMaxBytes, long fetchBackoffMs, long requestTimeoutMs) {
        this(replicaId, numFetchers, fetchWaitMaxMs, fetchMinBytes, fetchMaxBytes, fetchResponseMaxBytes,
                fetchBackoffMs, requestTimeoutMs, false);
    }

    /**
     * Kafka's defaults for broker {@code replicaId}, without fetch sessions (the fetcher's own tests of
     * FOL-n); a broker's fetchers take {@link #from}, where sessions are on by default (FET-7).
     */
    public static FetcherConfig defaults(int replicaId) {
        return new FetcherConfig(replicaId, DEFAULT_NUM_FETCHERS, DEFAULT_FETCH_WAIT_MAX_MS, DEFAULT_FETCH_MIN_BYTES,
                DEFAULT_FETCH_MAX_BYTES, DEFAULT_FETCH_RESPONSE_MAX_BYTES, DEFAULT_FETCH_BACKOFF_MS,
                DEFAULT_REQUEST_TIMEOUT_MS);
    }

    /** The follower settings of broker {@code replicaId} from the broker's replication config. */
    public static FetcherConfig from(int replicaId, ReplicationConfig config) {
        return new FetcherConfig(replicaId, config.numReplicaFetchers(), Math.toIntExact(config.replicaFetchWaitMaxMs()),
                config.replicaFetchMinBytes(), config.replicaFetchMaxBytes(), config.replicaFetchResponseMaxBytes(),
                config.replicaFetchBackoffMs(), config.requestTimeoutMs(), config.fetchSessionsEnabled());
    }

    /** A copy with another {@code num.replica.fetchers}. */
    public FetcherConfig withNumFetchers(int n) {
        return new FetcherConfig(replicaId, n, fetchWaitMaxMs, fetchMinBytes, fetchMaxBytes, fetchResponseMaxBytes,
                fetchBackoffMs, requestTimeoutMs, fetchSessions);
    }

    /** A copy with fetch sessions on or off (FET-7). */
    public FetcherConfig withFetchSessions(boolean on) {
        return new FetcherConfig(replicaId, numFetchers, fetchWaitMaxMs, fetchMinBytes, fetchMaxBytes,
                fetchResponseMaxBytes, fetchBackoffMs, requestTimeoutMs, on);
    }

    /** Time after sending a fetch at which its answer is given up for lost. */
    public long lostResponseTimeoutMs() {
        return fetchWaitMaxMs + requestTimeoutMs;
    }

    private static void requirePositive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be > 0, got " + value);
        }
    }
}
