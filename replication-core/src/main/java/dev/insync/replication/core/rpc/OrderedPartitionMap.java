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

package dev.insync.replication.core.rpc;

import dev.insync.replication.log.TopicPartition;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * The read-only, request-ordered partition map of a {@link FetchRequest} or {@link FetchResponse}:
 * the partitions and their values in two arrays, with an open-addressing index for lookups.
 *
 * <p>A fetch covers every partition a follower has from one leader (thousands in a large cluster)
 * and is built, sent and walked every {@code replica.fetch.wait.max.ms} even when idle. Arrays make
 * building one two copies and a hash per partition (a linked hash map allocates an entry each), and
 * let the broker walk a fetch by position ({@link #keyAt}, {@link #valueAt}) without iterators or
 * entry objects. The records copy any other map they are given; one of these is already private and
 * immutable and is taken as it is.
 *
 * @param <V> the per-partition value
 */
final class OrderedPartitionMap<V> extends AbstractMap<TopicPartition, V> {

    private final TopicPartition[] keys;
    private final Object[] values;
    /** Open addressing: slot holds index + 1 of the key hashing there, 0 when empty; length a power of two. */
    private final int[] slots;

    private OrderedPartitionMap(TopicPartition[] keys, Object[] values) {
        this.keys = keys;
        this.values = values;
        // At most half full, so probe chains stay short.
        int capacity = Integer.highestOneBit(Math.max(4, keys.length * 2 - 1)) << 1;
        this.slots = new int[capacity];
        for (int i = 0; i < keys.length; i++) {
            TopicPartition key = keys[i];
            if (key == null) {
                throw new NullPointerException("partition " + i + " of a fetch map is null");
            }
            int slot = firstSlot(key);
            while (slots[slot] != 0) {
                if (keys[slots[slot] - 1].equals(key)) {
                    throw new IllegalArgumentException("Partition " + key + " is listed twice in a fetch map");
                }
                slot = (slot + 1) & (slots.length - 1);
            }
            slots[slot] = i + 1;
        }
    }

    /** A private copy of {@code source}, in its iteration order, unless it already is one. */
    static <V> Map<TopicPartition, V> copyOf(Map<TopicPartition, V> source) {
        if (source instanceof OrderedPartitionMap<V> own) {
            return own;
        }
        TopicPartition[] keys = new TopicPartition[source.size()];
        Object[] values = new Object[keys.length];
        int i = 0;
        for (Map.Entry<TopicPartition, V> e : source.entrySet()) {
            keys[i] = e.getKey();
            values[i] = e.getValue();
            i++;
        }
        return new OrderedPartitionMap<>(keys, values);
    }

    /**
     * The first {@code count} pairs of the arrays, in array order (copied).
     *
     * @throws IllegalArgumentException if a partition is listed twice
     */
    static <V> OrderedPartitionMap<V> of(TopicPartition[] keys, V[] values, int count) {
        if (count < 0 || count > keys.length || count > values.length) {
            throw new IllegalArgumentException("count " + count + " outside the arrays (" + keys.length + " keys, "
                    + values.length + " values)");
        }
        return new OrderedPartitionMap<>(Arrays.copyOf(keys, count), Arrays.copyOf(values, count, Object[].class));
    }

    /** The partition at {@code index} in order. */
    TopicPartition keyAt(int index) {
        return keys[index];
    }

    /** The value at {@code index} in order. */
    @SuppressWarnings("unchecked")
    V valueAt(int index) {
        return (V) values[index];
    }

    private int firstSlot(Object key) {
        int h = key.hashCode() * 0x9E3779B9;
        return (h ^ (h >>> 16)) & (slots.length - 1);
    }

    private int indexOf(Object key) {
        if (!(key instanceof TopicPartition)) {
            return -1;
        }
        int slot = firstSlot(key);
        while (slots[slot] != 0) {
            int index = slots[slot] - 1;
            if (keys[index].equals(key)) {
                return index;
            }
            slot = (slot + 1) & (slots.length - 1);
        }
        return -1;
    }

    @Override
    public V get(Object key) {
        int index = indexOf(key);
        return index < 0 ? null : valueAt(index);
    }

    @Override
    public boolean containsKey(Object key) {
        return indexOf(key) >= 0;
    }

    @Override
    public int size() {
        return keys.length;
    }

    @Override
    public Set<Entry<TopicPartition, V>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Entry<TopicPartition, V>> iterator() {
                return new Iterator<>() {
                    private int next;

                    @Override
                    public boolean hasNext() {
                        return next < keys.length;
                    }

                    @Override
                    public Entry<TopicPartition, V> next() {
                        if (next >= keys.length) {
                            throw new NoSuchElementException();
                        }
                        int i = next++;
                        return new SimpleImmutableEntry<>(keys[i], valueAt(i));
                    }
                };
            }

            @Override
            public int size() {
                return keys.length;
            }
        };
    }
}
