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

package dev.insync.replication.core.produce;

import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * PRO-5: one partition's answer to a produce call: offsets and the leader epoch on success, or one error.
 *
 * @param error            {@link Errors#NONE} on success
 * @param baseOffset       offset of the first appended record, -1 if nothing was appended
 * @param logAppendTimeMs  log-append time if the topic uses it, else -1
 * @param leaderEpoch      the leader epoch the records were appended in, i.e. the {@code partitionLeaderEpoch}
 *                         stamped into their batch (LOG-4; read under the same lock as the append), -1 if nothing
 *                         was appended
 */
public record ProduceResult(Errors error, long baseOffset, long logAppendTimeMs, int leaderEpoch) {

    /** A failed answer: nothing appended. */
    public static ProduceResult failed(Errors error) {
        return new ProduceResult(error, -1L, -1L, -1);
    }

    /**
     * The same failed answer for every partition, in the given order: what a request refused as a
     * whole gets (e.g. PRO-1's INVALID_REQUIRED_ACKS).
     */
    public static Map<TopicPartition, ProduceResult> failedForAll(Collection<TopicPartition> partitions, Errors error) {
        Map<TopicPartition, ProduceResult> results = new LinkedHashMap<>();
        partitions.forEach(tp -> results.put(tp, failed(error)));
        return Collections.unmodifiableMap(results);
    }

    /**
     * This answer with another error; offsets and epoch are kept, since the records may already be
     * in the leader's log (PRO-3).
     */
    public ProduceResult withError(Errors newError) {
        return new ProduceResult(newError, baseOffset, logAppendTimeMs, leaderEpoch);
    }
}
