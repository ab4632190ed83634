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

package dev.insync.replication.core.metrics;

import dev.insync.replication.log.TopicPartition;

import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * {@link ReplicationMetrics} that keeps counts in memory so tests (and the simulator's reports)
 * can read them: totals and per-partition counts of each event, and current gauge values.
 */
public final class InMemoryReplicationMetrics implements ReplicationMetrics {

    private final Map<String, Map<TopicPartition, LongAdder>> events = new ConcurrentHashMap<>();
    private final Map<String, LongSupplier> gauges = new ConcurrentHashMap<>();

    @Override
    public void isrShrink(TopicPartition tp) {
        record(ISR_SHRINKS_PER_SEC, tp);
    }

    @Override
    public void isrExpand(TopicPartition tp) {
        record(ISR_EXPANDS_PER_SEC, tp);
    }

    @Override
    public void failedIsrUpdate(TopicPartition tp) {
        record(FAILED_ISR_UPDATES_PER_SEC, tp);
    }

    private void record(String meter, TopicPartition tp) {
        events.computeIfAbsent(meter, k -> new ConcurrentHashMap<>())
                .computeIfAbsent(Objects.requireNonNull(tp, "tp"), k -> new LongAdder()).increment();
    }

    @Override
    public void registerGauge(String name, LongSupplier value) {
        gauges.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
    }

    @Override
    public void removeGauge(String name) {
        gauges.remove(name);
    }

    /** Total count of a meter ({@link #ISR_SHRINKS_PER_SEC}, ...). */
    public long count(String meter) {
        Map<TopicPartition, LongAdder> m = events.get(meter);
        return m == null ? 0 : m.values().stream().mapToLong(LongAdder::sum).sum();
    }

    /** Count of a meter for one partition. */
    public long count(String meter, TopicPartition tp) {
        Map<TopicPartition, LongAdder> m = events.get(meter);
        LongAdder a = m == null ? null : m.get(tp);
        return a == null ? 0 : a.sum();
    }

    /** Total ISR shrinks. */
    public long isrShrinks() {
        return count(ISR_SHRINKS_PER_SEC);
    }

    /** Total ISR expansions. */
    public long isrExpands() {
        return count(ISR_EXPANDS_PER_SEC);
    }

    /** The gauge's current value, empty if no gauge of that name is registered. */
    public OptionalLong gauge(String name) {
        LongSupplier s = gauges.get(name);
        return s == null ? OptionalLong.empty() : OptionalLong.of(s.getAsLong());
    }

    /** Clears everything. */
    @Override
    public void close() {
        events.clear();
        gauges.clear();
    }
}
