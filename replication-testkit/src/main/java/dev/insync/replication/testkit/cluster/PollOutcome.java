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

package dev.insync.replication.testkit.cluster;

import dev.insync.replication.log.Errors;

import java.util.List;

/**
 * How one {@link TestConsumer} poll ended.
 *
 * @param error         {@link Errors#NONE}, or the error the broker answered (or NOT_LEADER_OR_FOLLOWER
 *                      when no leader was known); meaningless when {@code timedOut}
 * @param timedOut      no answer came within the poll's timeout: the client gave up, and an answer
 *                      arriving later is discarded (the position does not move)
 * @param records       the records the consumer was given, byte for byte, in offset order (empty unless NONE)
 * @param nextPosition  the consumer's position afterwards
 */
public record PollOutcome(Errors error, boolean timedOut, List<ConsumedBytes> records, long nextPosition) {

    /** Copies. */
    public PollOutcome {
        records = List.copyOf(records);
    }

    /** The UTF-8 view of {@link #records()}. */
    public List<ConsumedRecord> textRecords() {
        return records.stream().map(ConsumedRecord::of).toList();
    }

    /** {@code NONE}, the error's name, or {@code TIMEOUT}: the outcome as the history writes it. */
    public String outcomeName() {
        return timedOut ? "TIMEOUT" : error.name();
    }
}
