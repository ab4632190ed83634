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

package dev.insync.replication.core.partition;

import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse;

import java.util.concurrent.CompletableFuture;

/**
 * The one thing a {@link Partition} needs from the broker's AlterPartition manager (ISR-5): hand over a
 * proposal and learn the controller's per-partition answer. The future completes with the
 * {@link AlterPartitionResponse.PartitionResult} (an error code inside it for a refused proposal), or
 * exceptionally with an {@link dev.insync.replication.log.ApiException} (e.g. OPERATION_NOT_ATTEMPTED when a
 * proposal for the partition is already queued). Request-level errors are retried by the manager and never
 * reach the partition.
 */
@FunctionalInterface
public interface AlterPartitionSender {

    /** Queues {@code item} for the controller. */
    CompletableFuture<AlterPartitionResponse.PartitionResult> submit(AlterPartitionRequest.Item item);
}
