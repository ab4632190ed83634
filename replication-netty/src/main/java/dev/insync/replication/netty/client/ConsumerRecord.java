package dev.insync.replication.netty.client;

import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.Header;
import dev.insync.replication.log.record.Record;
import dev.insync.replication.log.record.RecordBatch;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A record as a consumer fetch returned it, byte for byte. Equality compares the contents of key,
 * value and headers.
 *
 * @param topicPartition its partition
 * @param offset         its offset (below the HW the fetch saw, FET-1)
 * @param leaderEpoch    the {@code partitionLeaderEpoch} of its batch
 * @param timestamp      its timestamp
 * @param key            its key, or null
 * @param value          its value, or null
 * @param headers        its headers, in order
 */
public record ConsumerRecord(TopicPartition topicPartition, long offset, int leaderEpoch, long timestamp, byte[] key,
                             byte[] value, List<Header> headers) {

    public ConsumerRecord {
        Objects.requireNonNull(topicPartition, "topicPartition");
        headers = List.copyOf(headers);
    }

    /** {@code record} of {@code batch}, key and value copied out. */
    static ConsumerRecord of(TopicPartition tp, RecordBatch batch, Record record) {
        return new ConsumerRecord(tp, record.offset(), batch.partitionLeaderEpoch(), record.timestamp(),
                bytes(record.key()), bytes(record.value()), record.headers());
    }

    private static byte[] bytes(ByteBuffer buffer) {
        if (buffer == null) {
            return null;
        }
        byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConsumerRecord c && topicPartition.equals(c.topicPartition) && offset == c.offset
                && leaderEpoch == c.leaderEpoch && timestamp == c.timestamp && Arrays.equals(key, c.key)
                && Arrays.equals(value, c.value) && headers.equals(c.headers);
    }

    @Override
    public int hashCode() {
        return Objects.hash(topicPartition, offset, leaderEpoch, timestamp, Arrays.hashCode(key), Arrays.hashCode(value),
                headers);
    }

    @Override
    public String toString() {
        return "ConsumerRecord(" + topicPartition + "@" + offset + ", leaderEpoch=" + leaderEpoch + ", value="
                + (value == null ? "null" : value.length + " bytes") + ")";
    }
}
