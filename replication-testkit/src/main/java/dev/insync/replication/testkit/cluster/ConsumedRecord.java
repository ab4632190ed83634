package dev.insync.replication.testkit.cluster;

import dev.insync.replication.log.record.Record;
import dev.insync.replication.log.record.RecordBatch;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A record as a test reads it: from a {@link TestConsumer} (always below the leader's HW) or from a
 * broker's log through {@link ClusterAdmin#records}.
 *
 * @param offset       its offset
 * @param leaderEpoch  the partitionLeaderEpoch of its batch
 * @param key          UTF-8 key, or null
 * @param value        UTF-8 value, or null
 */
public record ConsumedRecord(long offset, int leaderEpoch, String key, String value) {

    /** {@code record} of {@code batch}, its key and value decoded as UTF-8. */
    public static ConsumedRecord of(RecordBatch batch, Record record) {
        return new ConsumedRecord(record.offset(), batch.partitionLeaderEpoch(), utf8(record.key()), utf8(record.value()));
    }

    private static String utf8(ByteBuffer buffer) {
        if (buffer == null) {
            return null;
        }
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
