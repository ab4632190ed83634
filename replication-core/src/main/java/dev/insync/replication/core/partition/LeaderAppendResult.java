package dev.insync.replication.core.partition;

import dev.insync.replication.log.LogAppendInfo;

/**
 * The outcome of a successful leader append (PRO-2, HW-4).
 *
 * @param info                    what the log appended
 * @param leaderEpoch             the leader epoch stamped into the appended batches (LOG-4), read under the
 *                                same lock as the append, so no leader change can come between them
 * @param highWatermarkIncreased  whether the append raised the HW (the caller wakes the purgatories, PRO-4)
 */
public record LeaderAppendResult(LogAppendInfo info, int leaderEpoch, boolean highWatermarkIncreased) {
}
