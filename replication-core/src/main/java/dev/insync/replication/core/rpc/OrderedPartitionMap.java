package dev.insync.replication.core.rpc;

import dev.insync.replication.log.TopicPartition;

import java.util.AbstractMap;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The read-only, request-ordered partition map of a {@link FetchRequest} or {@link FetchResponse}.
 *
 * <p>The records copy any other map they are given; one of these is already a private, unmodifiable
 * copy and is taken as it is. The records' array factories build one directly, so a fetch over
 * thousands of partitions builds its map once instead of building it and then copying it.
 *
 * @param <V> the per-partition value
 */
final class OrderedPartitionMap<V> extends AbstractMap<TopicPartition, V> {

    private final LinkedHashMap<TopicPartition, V> map;

    private OrderedPartitionMap(LinkedHashMap<TopicPartition, V> map) {
        this.map = map;
    }

    /** A private copy of {@code source}, unless it already is one. */
    static <V> Map<TopicPartition, V> copyOf(Map<TopicPartition, V> source) {
        if (source instanceof OrderedPartitionMap<V> own) {
            return own;
        }
        return new OrderedPartitionMap<>(new LinkedHashMap<>(source));
    }

    /** The first {@code count} pairs of the arrays, in array order; later duplicates replace earlier values. */
    static <V> Map<TopicPartition, V> of(TopicPartition[] keys, V[] values, int count) {
        if (count < 0 || count > keys.length || count > values.length) {
            throw new IllegalArgumentException("count " + count + " outside the arrays (" + keys.length + " keys, "
                    + values.length + " values)");
        }
        // Sized so that count entries never resize the table (default load factor 0.75).
        LinkedHashMap<TopicPartition, V> map = new LinkedHashMap<>(Math.max(16, (int) (count / 0.75f) + 1));
        for (int i = 0; i < count; i++) {
            map.put(keys[i], values[i]);
        }
        return new OrderedPartitionMap<>(map);
    }

    @Override
    public V get(Object key) {
        return map.get(key);
    }

    @Override
    public boolean containsKey(Object key) {
        return map.containsKey(key);
    }

    @Override
    public int size() {
        return map.size();
    }

    @Override
    public Set<Entry<TopicPartition, V>> entrySet() {
        return Collections.unmodifiableMap(map).entrySet();
    }

    @Override
    public Set<TopicPartition> keySet() {
        return Collections.unmodifiableSet(map.keySet());
    }
}
