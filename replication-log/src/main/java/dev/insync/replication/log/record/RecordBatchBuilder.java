/*
 * Copyright 2026 The Insync developers
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package dev.insync.replication.log.record;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

/**
 * Builds one v2 batch (LOG-1), uncompressed unless {@link #compression(CompressionType)} says
 * otherwise. Offsets are relative to {@code baseOffset}; a leader append rewrites the base offset
 * and epoch anyway (LOG-4).
 *
 * <p>Defaults match a non-idempotent Kafka producer: producerId -1, producerEpoch -1, baseSequence
 * -1, no leader epoch, create-time timestamps. baseTimestamp is the first record's timestamp and
 * maxTimestamp the largest one (or the log append time for LOG_APPEND_TIME), as Kafka's builder
 * does, so the same inputs give the same bytes as Kafka's {@code MemoryRecordsBuilder}.
 *
 * <p>A compressed batch is laid out as Kafka's producer writes it: the same 61-byte header (codec in
 * attribute bits 0-2), then the records, encoded as for an uncompressed batch, as one stream in the
 * codec's framing (see {@link CompressionType}). Its bytes need not equal Kafka's (compressors differ
 * between library versions), but each side reads the other's.
 *
 * <p>Each record is encoded when it is appended: its key, value and header arrays are copied then
 * (the caller may reuse them at once), and {@link #build()} only writes the header and the CRC
 * around the records' bytes (a producer appends in its caller's thread, while the data is in
 * cache, and its sender only builds). A builder is single-use per batch and not thread-safe.
 */
public final class RecordBatchBuilder {

    private final long baseOffset;
    private int partitionLeaderEpoch = RecordBatch.NO_PARTITION_LEADER_EPOCH;
    private TimestampType timestampType = TimestampType.CREATE_TIME;
    private long logAppendTime = RecordBatch.NO_TIMESTAMP;
    private long producerId = RecordBatch.NO_PRODUCER_ID;
    private short producerEpoch = RecordBatch.NO_PRODUCER_EPOCH;
    private int baseSequence = RecordBatch.NO_SEQUENCE;
    private boolean transactional;
    private CompressionType compression = CompressionType.NONE;
    /** The compressed records of a compressed batch, once made; dropped when a record is appended. */
    private byte[] compressedRecords;
    /**
     * The records as an uncompressed batch holds them, written up to its position: the first record's
     * size at first, then doubled as needed (a one-record batch holds no spare room).
     */
    private ByteBuffer encodedRecords = ByteBuffer.allocate(0);
    private int recordCount;
    private long baseTimestamp;
    private long maxTimestamp = RecordBatch.NO_TIMESTAMP;
    private long sizeInBytes = RecordBatch.HEADER_SIZE;

    /** A builder for a batch starting at {@code baseOffset}, create-time timestamps, no producer id. */
    public RecordBatchBuilder(long baseOffset) {
        if (baseOffset < 0) {
            throw new IllegalArgumentException("Negative base offset " + baseOffset);
        }
        this.baseOffset = baseOffset;
    }

    /** The epoch stamped in the header; defaults to {@link RecordBatch#NO_PARTITION_LEADER_EPOCH}. */
    public RecordBatchBuilder partitionLeaderEpoch(int epoch) {
        this.partitionLeaderEpoch = epoch;
        return this;
    }

    /**
     * Sets the timestamp type. For LOG_APPEND_TIME the batch's maxTimestamp is the time given to
     * {@link #logAppendTime(long)}, or the largest record timestamp if none was given.
     */
    public RecordBatchBuilder timestampType(TimestampType type) {
        this.timestampType = Objects.requireNonNull(type, "type");
        return this;
    }

    /** LOG_APPEND_TIME with this time as maxTimestamp (what a leader stamps, LOG-4). */
    public RecordBatchBuilder logAppendTime(long timestampMs) {
        this.timestampType = TimestampType.LOG_APPEND_TIME;
        this.logAppendTime = timestampMs;
        return this;
    }

    /** An idempotent producer's identity: producerId, producerEpoch and the first record's sequence. */
    public RecordBatchBuilder producer(long producerId, short producerEpoch, int baseSequence) {
        this.producerId = producerId;
        this.producerEpoch = producerEpoch;
        this.baseSequence = baseSequence;
        return this;
    }

    /** Sets attribute bit 4. The library stores such batches as plain data. */
    public RecordBatchBuilder transactional(boolean transactional) {
        this.transactional = transactional;
        return this;
    }

    /**
     * Compresses the batch's records with {@code type} ({@link CompressionType#NONE}, the default,
     * stores them as they are).
     *
     * @throws IllegalStateException naming the codec and the library to add if {@code type} is not
     *         available here ({@link CompressionType#isAvailable()})
     */
    public RecordBatchBuilder compression(CompressionType type) {
        Objects.requireNonNull(type, "type");
        if (type != CompressionType.NONE) {
            CompressionCodecs.forType(type); // fails now, naming the codec, rather than at build()
        }
        this.compression = type;
        this.compressedRecords = null;
        return this;
    }

    /** Adds a record without headers at the next offset; key and value may be null. */
    public RecordBatchBuilder append(long timestamp, byte[] key, byte[] value) {
        return append(timestamp, key, value, List.of());
    }

    /** Adds a record at the next offset. */
    public RecordBatchBuilder append(SimpleRecord record) {
        Objects.requireNonNull(record, "record");
        return append(record.timestamp(), record.key(), record.value(), record.headers());
    }

    /**
     * Adds a record at the next offset, encoding it now; key, value and header values may be null,
     * and so may {@code headers} (none).
     *
     * @throws IllegalArgumentException if the batch would exceed 2 GiB; the builder is unchanged then
     */
    public RecordBatchBuilder append(long timestamp, byte[] key, byte[] value, List<Header> headers) {
        List<Header> hs = headers == null ? List.of() : headers;
        long timestampDelta = recordCount == 0 ? 0 : timestamp - baseTimestamp;
        int offsetDelta = recordCount;
        int bodySize = bodySize(offsetDelta, timestampDelta, key, value, hs);
        int recordSize = Varint.sizeOfInt(bodySize) + bodySize;
        long total = sizeInBytes + recordSize;
        if (total > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("Batch at base offset " + baseOffset + " would exceed "
                    + Integer.MAX_VALUE + " bytes with record " + offsetDelta);
        }
        ensureRoom(recordSize);
        if (recordCount == 0) {
            baseTimestamp = timestamp;
        }
        writeRecord(encodedRecords, offsetDelta, bodySize, timestampDelta, key, value, hs);
        sizeInBytes = total;
        recordCount++;
        compressedRecords = null;
        maxTimestamp = Math.max(maxTimestamp, timestamp);
        return this;
    }

    private void ensureRoom(int bytes) {
        if (encodedRecords.remaining() >= bytes) {
            return;
        }
        long needed = (long) encodedRecords.position() + bytes;
        int capacity = (int) Math.min(Integer.MAX_VALUE - 8, Math.max(needed, 2L * encodedRecords.capacity()));
        ByteBuffer grown = ByteBuffer.allocate(capacity);
        grown.put(encodedRecords.array(), 0, encodedRecords.position());
        encodedRecords = grown;
    }

    /** Number of records appended so far. */
    public int recordCount() {
        return recordCount;
    }

    /**
     * Size in bytes the batch will have if built now; for a compressed batch, the size it would
     * have uncompressed (cheap to keep while appending; the compressed size is known at build).
     */
    public int estimatedSizeInBytes() {
        return (int) sizeInBytes;
    }

    /** The codec the records will be compressed with. */
    public CompressionType compression() {
        return compression;
    }

    /** The finished batch; at least one record must have been appended. */
    public MemoryRecords build() {
        ByteBuffer buf = ByteBuffer.allocate(exactSizeInBytes());
        writeTo(buf);
        return MemoryRecords.readableRecords(buf.flip());
    }

    /** The size the batch has when written now (compressing the records of a compressed one). */
    int exactSizeInBytes() {
        if (recordCount == 0) {
            throw new IllegalStateException("Cannot build an empty batch at base offset " + baseOffset);
        }
        if (compression == CompressionType.NONE) {
            return (int) sizeInBytes;
        }
        long size = (long) RecordBatch.HEADER_SIZE + compressedRecords().length;
        if (size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("Compressed batch at base offset " + baseOffset + " would exceed "
                    + Integer.MAX_VALUE + " bytes");
        }
        return (int) size;
    }

    /** The records, encoded as in an uncompressed batch, as one stream of the codec; made once per content. */
    private byte[] compressedRecords() {
        if (compressedRecords == null) {
            try {
                compressedRecords = CompressionCodecs.forType(compression).compress(encodedRecords.array(), 0,
                        encodedRecords.position());
            } catch (IOException e) {
                throw new UncheckedIOException("Compressing the batch at base offset " + baseOffset + " with "
                        + compression + " failed", e);
            }
        }
        return compressedRecords;
    }

    /** Writes the finished batch at the buffer's position, advancing it by the batch size. */
    void writeTo(ByteBuffer buf) {
        int start = buf.position();
        buf.position(start + RecordBatch.HEADER_SIZE);
        if (compression == CompressionType.NONE) {
            buf.put(encodedRecords.array(), 0, encodedRecords.position());
        } else {
            buf.put(compressedRecords());
        }
        int end = buf.position();
        short attributes = (short) compression.id();
        if (timestampType == TimestampType.LOG_APPEND_TIME) {
            attributes |= RecordBatch.TIMESTAMP_TYPE_MASK;
        }
        if (transactional) {
            attributes |= RecordBatch.TRANSACTIONAL_FLAG_MASK;
        }
        long batchMaxTimestamp = timestampType == TimestampType.LOG_APPEND_TIME && logAppendTime != RecordBatch.NO_TIMESTAMP
                ? logAppendTime : maxTimestamp;
        buf.putLong(start + RecordBatch.BASE_OFFSET_OFFSET, baseOffset);
        buf.putInt(start + RecordBatch.LENGTH_OFFSET, end - start - RecordBatch.LOG_OVERHEAD);
        buf.putInt(start + RecordBatch.PARTITION_LEADER_EPOCH_OFFSET, partitionLeaderEpoch);
        buf.put(start + RecordBatch.MAGIC_OFFSET, RecordBatch.MAGIC_V2);
        buf.putShort(start + RecordBatch.ATTRIBUTES_OFFSET, attributes);
        buf.putInt(start + RecordBatch.LAST_OFFSET_DELTA_OFFSET, recordCount - 1);
        buf.putLong(start + RecordBatch.BASE_TIMESTAMP_OFFSET, baseTimestamp);
        buf.putLong(start + RecordBatch.MAX_TIMESTAMP_OFFSET, batchMaxTimestamp);
        buf.putLong(start + RecordBatch.PRODUCER_ID_OFFSET, producerId);
        buf.putShort(start + RecordBatch.PRODUCER_EPOCH_OFFSET, producerEpoch);
        buf.putInt(start + RecordBatch.BASE_SEQUENCE_OFFSET, baseSequence);
        buf.putInt(start + RecordBatch.RECORDS_COUNT_OFFSET, recordCount);
        long crc = RecordBatch.crcOf(buf, start + RecordBatch.ATTRIBUTES_OFFSET, end);
        buf.putInt(start + RecordBatch.CRC_OFFSET, (int) crc);
    }

    private static void writeRecord(ByteBuffer buf, int offsetDelta, int bodySize, long timestampDelta, byte[] key,
                                    byte[] value, List<Header> headers) {
        Varint.writeInt(bodySize, buf);
        buf.put((byte) 0);
        Varint.writeLong(timestampDelta, buf);
        Varint.writeInt(offsetDelta, buf);
        writeBytes(buf, key);
        writeBytes(buf, value);
        Varint.writeInt(headers.size(), buf);
        for (Header h : headers) {
            byte[] headerKey = h.key().getBytes(StandardCharsets.UTF_8);
            Varint.writeInt(headerKey.length, buf);
            buf.put(headerKey);
            writeBytes(buf, h.value());
        }
    }

    private static void writeBytes(ByteBuffer buf, byte[] bytes) {
        if (bytes == null) {
            Varint.writeInt(-1, buf);
        } else {
            Varint.writeInt(bytes.length, buf);
            buf.put(bytes);
        }
    }

    private int bodySize(int offsetDelta, long timestampDelta, byte[] key, byte[] value, List<Header> headers) {
        long size = 1 + Varint.sizeOfLong(timestampDelta) + Varint.sizeOfInt(offsetDelta)
                + sizeOfBytes(key) + sizeOfBytes(value) + Varint.sizeOfInt(headers.size());
        for (Header h : headers) {
            int keyLen = utf8Length(h.key());
            size += Varint.sizeOfInt(keyLen) + keyLen + sizeOfBytes(h.value());
        }
        if (size > Integer.MAX_VALUE - Varint.MAX_INT_BYTES) {
            throw new IllegalArgumentException("Record " + offsetDelta + " of the batch at base offset "
                    + baseOffset + " is larger than 2 GiB");
        }
        return (int) size;
    }

    private static long sizeOfBytes(byte[] bytes) {
        return bytes == null ? 1 : Varint.sizeOfInt(bytes.length) + (long) bytes.length;
    }

    private static int utf8Length(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }
}
