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

package dev.insync.replication.log;

import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link StorageFaults} for tests: records every operation announced, counts them per kind and
 * whether they would reach the disk, and can fail the Nth operation of one kind with an
 * {@link IOException} (and every later one of that kind, as a dead disk would).
 */
final class CountingFaults implements StorageFaults {

    private final StorageOperation.Kind failKind;
    private final long failAt;
    private final Map<StorageOperation.Kind, Long> counts = new EnumMap<>(StorageOperation.Kind.class);
    private final Map<StorageOperation.Kind, Long> durableCounts = new EnumMap<>(StorageOperation.Kind.class);
    private final List<StorageOperation> operations = new ArrayList<>();
    private StorageOperation failed;

    private CountingFaults(StorageOperation.Kind failKind, long failAt) {
        this.failKind = failKind;
        this.failAt = failAt;
    }

    /** Counts, fails nothing. */
    static CountingFaults counting() {
        return new CountingFaults(null, -1);
    }

    /** Fails the {@code n}th (1-based) operation of {@code kind} and every later one of that kind. */
    static CountingFaults failing(StorageOperation.Kind kind, long n) {
        return new CountingFaults(kind, n);
    }

    @Override
    public synchronized void beforeOperation(StorageOperation operation) throws IOException {
        operations.add(operation);
        long count = counts.merge(operation.kind(), 1L, Long::sum);
        if (operation.durable()) {
            durableCounts.merge(operation.kind(), 1L, Long::sum);
        }
        if (operation.kind() == failKind && count >= failAt) {
            if (failed == null) {
                failed = operation;
            }
            throw new IOException("injected " + operation.kind() + " failure #" + count + " on " + operation.file());
        }
    }

    synchronized long count(StorageOperation.Kind kind) {
        return counts.getOrDefault(kind, 0L);
    }

    /** Operations of {@code kind} announced as reaching the disk ({@link StorageOperation#durable()}). */
    synchronized long durableCount(StorageOperation.Kind kind) {
        return durableCounts.getOrDefault(kind, 0L);
    }

    synchronized List<StorageOperation> operations() {
        return List.copyOf(operations);
    }

    /** The first operation failed, or null. */
    synchronized StorageOperation failed() {
        return failed;
    }

    @Override
    public String toString() {
        return "CountingFaults(fail " + failKind + " #" + failAt + ")";
    }
}
