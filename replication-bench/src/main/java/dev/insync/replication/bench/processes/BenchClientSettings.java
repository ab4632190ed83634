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

package dev.insync.replication.bench.processes;

/**
 * How a {@link BenchClient} batches and how many requests it keeps in flight: the knobs that must
 * be comparable between targets.
 *
 * @param acks                -1 (all in-sync replicas), 1 (the leader) or 0
 * @param batchBytes          largest batch of records to one partition (Kafka's {@code batch.size})
 * @param lingerMs            how long a batch may wait for more records (Kafka's {@code linger.ms})
 * @param maxInFlightRequests requests in flight per broker connection
 */
public record BenchClientSettings(int acks, int batchBytes, int lingerMs, int maxInFlightRequests) {

    public BenchClientSettings {
        if (acks < -1 || acks > 1) {
            throw new IllegalArgumentException("acks must be -1, 0 or 1, not " + acks);
        }
        if (batchBytes < 1 || lingerMs < 0 || maxInFlightRequests < 1) {
            throw new IllegalArgumentException("batchBytes and maxInFlightRequests must be positive and lingerMs"
                    + " not negative: " + batchBytes + ", " + lingerMs + ", " + maxInFlightRequests);
        }
    }

    /** {@code all} or the number, as metric names and Kafka's {@code acks} write it. */
    public String acksName() {
        return acks == -1 ? "all" : Integer.toString(acks);
    }
}
