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

package dev.insync.replication.controller;

import dev.insync.replication.core.metadata.MetadataDelta;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The most recent committed deltas, one per batch, that a controller node serves to brokers'
 * metadata fetches (CTL-5). Bounded: the oldest are evicted, and a broker asking from before what
 * is kept gets an image instead. Not thread-safe: the controller's executor owns it.
 */
final class DeltaCache {

    private final int capacity;
    private final TreeMap<Long, MetadataDelta> byOffset = new TreeMap<>();
    /** Every delta after this offset is in the cache. */
    private long floorOffset = -1;

    DeltaCache(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("Delta cache capacity must be positive, got " + capacity);
        }
        this.capacity = capacity;
    }

    /** Empties the cache; deltas after {@code offset} will be added (e.g. after loading a snapshot there). */
    void reset(long offset) {
        byOffset.clear();
        floorOffset = offset;
    }

    /** Adds the delta of the next committed batch. */
    void add(MetadataDelta delta) {
        long last = byOffset.isEmpty() ? floorOffset : byOffset.lastKey();
        if (delta.offset() <= last) {
            throw new IllegalStateException("Delta at offset " + delta.offset() + " does not follow offset " + last);
        }
        byOffset.put(delta.offset(), delta);
        while (byOffset.size() > capacity) {
            floorOffset = byOffset.pollFirstEntry().getKey();
        }
    }

    /**
     * The deltas right after {@code offset}, at most {@code max}; empty when the cache cannot say
     * (the offset is before what is kept, or not the end of a batch).
     */
    Optional<List<MetadataDelta>> after(long offset, int max) {
        if (offset != floorOffset && !byOffset.containsKey(offset)) {
            return Optional.empty();
        }
        List<MetadataDelta> result = new ArrayList<>(Math.min(max, byOffset.size()));
        for (Map.Entry<Long, MetadataDelta> e : byOffset.tailMap(offset, false).entrySet()) {
            if (result.size() >= max) {
                break;
            }
            result.add(e.getValue());
        }
        return Optional.of(result);
    }
}
