package dev.insync.replication.log.record;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A record to be appended, before it has an offset: the input of {@link RecordBatchBuilder}.
 * Equality compares key and value contents.
 *
 * @param timestamp create time in ms
 * @param key       may be null
 * @param value     may be null
 * @param headers   never null (a null argument becomes the empty list)
 */
public record SimpleRecord(long timestamp, byte[] key, byte[] value, List<Header> headers) {

    /** Normalises null headers to the empty list and copies the list. */
    public SimpleRecord {
        headers = headers == null ? List.of() : List.copyOf(headers);
    }

    /** A record without headers. */
    public SimpleRecord(long timestamp, byte[] key, byte[] value) {
        this(timestamp, key, value, List.of());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SimpleRecord r && timestamp == r.timestamp && Arrays.equals(key, r.key)
                && Arrays.equals(value, r.value) && headers.equals(r.headers);
    }

    @Override
    public int hashCode() {
        return Objects.hash(timestamp, Arrays.hashCode(key), Arrays.hashCode(value), headers);
    }

    @Override
    public String toString() {
        return "SimpleRecord(timestamp=" + timestamp + ", key=" + (key == null ? "null" : key.length + " bytes")
                + ", value=" + (value == null ? "null" : value.length + " bytes") + ", headers=" + headers + ")";
    }
}
