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

package dev.insync.replication.log.record;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A record to be appended, before it has an offset: the input of {@link RecordBatchBuilder}.
 * Equality compares key and value contents.
 *
 * @param timestamp create time in ms
 * @param key       may be null
 * @param value     may be null
 * @param headers   never null (a null argument becomes the empty list)
 */
public record SimpleRecord(long timestamp, byte[] key, byte[] value, List<Header> headers) {

    /** Normalises null headers to the empty list and copies the list. */
    public SimpleRecord {
        headers = headers == null ? List.of() : List.copyOf(headers);
    }

    /** A record without headers. */
    public SimpleRecord(long timestamp, byte[] key, byte[] value) {
        this(timestamp, key, value, List.of());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SimpleRecord r && timestamp == r.timestamp && Arrays.equals(key, r.key)
                && Arrays.equals(value, r.value) && headers.equals(r.headers);
    }

    @Override
    public int hashCode() {
        return Objects.hash(timestamp, Arrays.hashCode(key), Arrays.hashCode(value), headers);
    }

    @Override
    public String toString() {
        return "SimpleRecord(timestamp=" + timestamp + ", key=" + (key == null ? "null" : key.length + " bytes")
                + ", value=" + (value == null ? "null" : value.length + " bytes") + ", headers=" + headers + ")";
    }
}
