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
