package dev.insync.replication.log.record;

import java.util.List;

/**
 * A record to be appended, before it has an offset: the input of {@link RecordBatchBuilder}.
 *
 * @param timestamp create time in ms
 * @param key       may be null
 * @param value     may be null
 * @param headers   never null
 */
public record SimpleRecord(long timestamp, byte[] key, byte[] value, List<Header> headers) {
}
