package dev.insync.replication.log.record;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * One record read from a batch, with its absolute offset and timestamp. {@code key} and
 * {@code value} are read-only views into the batch's bytes (zero copy), or null.
 */
public record Record(long offset, long timestamp, ByteBuffer key, ByteBuffer value, List<Header> headers) {
}
