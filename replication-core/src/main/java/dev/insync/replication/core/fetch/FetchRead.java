package dev.insync.replication.core.fetch;

import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.log.TopicPartition;

import java.util.Set;

/**
 * One read of every partition of a fetch on the leader.
 *
 * @param response               the answer as it stands (FET-6)
 * @param bytesAvailable         FET-5's sum over partitions of min(bytes readable, partition max bytes)
 * @param completeNow            an error, a divergence, or a fetch offset past what may be read: answer at once
 * @param highWatermarkIncreased the partitions whose HW this read raised (first reads only, FET-4): the caller
 *                               wakes the purgatories for them (PRO-4)
 */
public record FetchRead(FetchResponse response, long bytesAvailable, boolean completeNow,
                        Set<TopicPartition> highWatermarkIncreased) {

    /** Whether the fetch may be answered now: FET-5's minBytes reached, or {@link #completeNow}. */
    public boolean satisfies(int minBytes) {
        return completeNow || bytesAvailable >= minBytes;
    }
}
