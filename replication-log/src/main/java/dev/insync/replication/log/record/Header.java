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
import java.util.Objects;

/**
 * A record header: a string key and an optional byte value. Equality compares the value's contents.
 *
 * @param key   header key, non-null
 * @param value header value, may be null
 */
public record Header(String key, byte[] value) {

    /** @throws NullPointerException if the key is null */
    public Header {
        Objects.requireNonNull(key, "header key");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Header h && key.equals(h.key) && Arrays.equals(value, h.value);
    }

    @Override
    public int hashCode() {
        return 31 * key.hashCode() + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "Header(" + key + "=" + (value == null ? "null" : value.length + " bytes") + ")";
    }
}
