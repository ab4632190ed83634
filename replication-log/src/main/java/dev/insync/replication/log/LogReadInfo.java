package dev.insync.replication.log;

import dev.insync.replication.log.record.MemoryRecords;

/**
 * The result of {@link Log#read}: whole batches only (LOG-3), plus the log's offsets as they
 * were at the read.
 *
 * @param records             whole batches starting with the one containing the fetch offset
 * @param fetchOffset         the requested offset
 * @param logStartOffset      the log start offset at the time of the read
 * @param logEndOffset        the LEO at the time of the read
 * @param highWatermark       the HW at the time of the read
 */
public record LogReadInfo(MemoryRecords records, long fetchOffset, long logStartOffset, long logEndOffset,
                          long highWatermark) {
}
