package dev.insync.replication.core.partition;

import dev.insync.replication.core.rpc.FetchResponse;

/**
 * One partition's answer to a fetch on the leader (FET-6), plus what the caller must do next.
 *
 * @param data                    the response for this partition
 * @param highWatermarkIncreased  the fetch raised the HW: wake the purgatories (PRO-4)
 */
public record PartitionFetchResult(FetchResponse.PartitionData data, boolean highWatermarkIncreased) {
}
