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

import dev.insync.replication.log.record.Record;
import dev.insync.replication.log.record.RecordBatch;

import java.nio.charset.StandardCharsets;

/**
 * A record as a test reads it, key and value as UTF-8 text: from a {@link TestConsumer} (always below the
 * leader's HW) or from a broker's log through {@link ClusterAdmin#records}. The UTF-8 view of
 * {@link ConsumedBytes}.
 *
 * @param offset       its offset
 * @param leaderEpoch  the partitionLeaderEpoch of its batch
 * @param key          UTF-8 key, or null
 * @param value        UTF-8 value, or null
 */
public record ConsumedRecord(long offset, int leaderEpoch, String key, String value) {

    /** {@code record} of {@code batch}, its key and value decoded as UTF-8. */
    public static ConsumedRecord of(RecordBatch batch, Record record) {
        return of(ConsumedBytes.of(batch, record));
    }

    /** The UTF-8 view of {@code bytes} (headers and timestamp left out). */
    public static ConsumedRecord of(ConsumedBytes bytes) {
        return new ConsumedRecord(bytes.offset(), bytes.leaderEpoch(), utf8(bytes.key()), utf8(bytes.value()));
    }

    private static String utf8(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }
}
