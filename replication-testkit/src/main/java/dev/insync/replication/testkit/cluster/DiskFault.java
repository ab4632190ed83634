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

import dev.insync.replication.log.StorageFaults;
import dev.insync.replication.log.StorageOperation;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * The disk under one log directory of one broker incarnation, as that directory's
 * {@link StorageFaults} hook ({@code FileSync.withFaults}): healthy until {@link #failAt} is called,
 * then the next operation of the given kind fails with an {@link IOException}, and so does every
 * operation after it, as a dead disk's would. The log takes the directory offline at the first
 * failure (contract §9). A broker's next start gets new, healthy disks (the failed one replaced).
 *
 * <p>Called on the broker's I/O threads, sometimes under a log's lock: it only reads and sets
 * volatile fields.
 */
final class DiskFault implements StorageFaults {

    private final Path dir;
    /** The kind of operation the disk fails at first, null while it is healthy. */
    private volatile StorageOperation.Kind failAt;
    /** The first operation that failed, null before. */
    private volatile StorageOperation firstFailure;
    /** The last operation that succeeded (before the first failure, once there is one), null before any. */
    private volatile StorageOperation lastSuccess;

    DiskFault(Path dir) {
        this.dir = dir;
    }

    /** From now on the next {@code kind} operation fails, and every operation after it. */
    void failAt(StorageOperation.Kind kind) {
        Objects.requireNonNull(kind, "kind");
        if (failAt == null) {
            failAt = kind;
        }
    }

    /** The last operation that succeeded before the first failure; empty if none did (or none failed yet). */
    Optional<StorageOperation> lastSuccessBeforeFailure() {
        return firstFailure == null ? Optional.empty() : Optional.ofNullable(lastSuccess);
    }

    /** Whether {@link #failAt} was called. */
    boolean isFailing() {
        return failAt != null;
    }

    /** The first operation that failed, empty while none has. */
    Optional<StorageOperation> firstFailure() {
        return Optional.ofNullable(firstFailure);
    }

    @Override
    public void beforeOperation(StorageOperation operation) throws IOException {
        StorageOperation.Kind kind = failAt;
        if (kind == null) {
            lastSuccess = operation;
            return;
        }
        if (firstFailure == null) {
            if (operation.kind() != kind) {
                lastSuccess = operation;
                return;
            }
            firstFailure = operation;
        }
        throw new IOException("Injected disk failure under log directory " + dir + ": " + operation.kind()
                + " of " + operation.file());
    }

    @Override
    public String toString() {
        return "DiskFault(" + dir + (failAt == null ? ", healthy" : ", failing at " + failAt) + ")";
    }
}
