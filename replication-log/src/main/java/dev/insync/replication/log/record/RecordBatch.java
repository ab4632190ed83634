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

import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * A zero-copy view of one Kafka v2 record batch (LOG-1) held in a {@link ByteBuffer}. Accessors
 * read the header fields in place; {@link #records()} decodes the records lazily. The setters for
 * base offset and partition leader epoch write in place: neither field is covered by the CRC (LOG-4).
 *
 * <p>Layout (big-endian, byte offsets from the batch start): baseOffset int64 @0, batchLength
 * int32 @8, partitionLeaderEpoch int32 @12, magic int8 @16, crc uint32 @17, attributes int16 @21,
 * lastOffsetDelta int32 @23, baseTimestamp int64 @27, maxTimestamp int64 @35, producerId int64 @43,
 * producerEpoch int16 @51, baseSequence int32 @53, recordCount int32 @57, records @61. The CRC-32C
 * covers bytes 21 to the end. See {@code docs/log-format.md}.
 *
 * <p>A compressed batch (attribute bits 0-2: gzip, snappy, lz4, zstd) holds its records as one
 * compressed stream after the header, in Kafka's framing for the codec. The view and its bytes stay
 * compressed: {@link #buffer()}, the header accessors and the setters work on the stored bytes, and
 * only {@link #records()} decompresses (into a copy, bounded by {@link #records(int)}'s limit). A
 * codec whose library is missing is CORRUPT_MESSAGE naming the codec, never a misread. See
 * {@link CompressionType}. Transactional and control batches are read as ordinary data.
 *
 * <p>A view is not thread-safe: readers may share it, but the setters must not race with readers.
 */
public final class RecordBatch {

    /** Size in bytes of the fixed batch header (baseOffset .. recordCount). */
    public static final int HEADER_SIZE = 61;
    /** The only magic value this library reads or writes. */
    public static final byte MAGIC_V2 = 2;
    /** partitionLeaderEpoch of a batch that has none (and of Kafka's "unknown" epoch). */
    public static final int NO_PARTITION_LEADER_EPOCH = -1;
    /** baseOffset + batchLength: the bytes not counted by batchLength. */
    public static final int LOG_OVERHEAD = 12;
    /** Bytes needed to know a batch's size and magic: baseOffset, batchLength, epoch, magic. */
    public static final int FRAMING_HEADER_SIZE = 17;
    /** producerId, producerEpoch and baseSequence of a non-idempotent producer. */
    public static final long NO_PRODUCER_ID = -1L;
    /** See {@link #NO_PRODUCER_ID}. */
    public static final short NO_PRODUCER_EPOCH = -1;
    /** See {@link #NO_PRODUCER_ID}. */
    public static final int NO_SEQUENCE = -1;
    /** Kafka's "no timestamp". */
    public static final long NO_TIMESTAMP = -1L;
    /**
     * Smallest possible encoded record: length, attributes, timestampDelta, offsetDelta, key
     * length, value length and header count, one byte each. Bounds the record count a batch of a
     * given size can claim, so a corrupt count cannot make a reader allocate.
     */
    static final int MIN_RECORD_SIZE = 7;

    static final int BASE_OFFSET_OFFSET = 0;
    static final int LENGTH_OFFSET = 8;
    static final int PARTITION_LEADER_EPOCH_OFFSET = 12;
    static final int MAGIC_OFFSET = 16;
    static final int CRC_OFFSET = 17;
    static final int ATTRIBUTES_OFFSET = 21;
    static final int LAST_OFFSET_DELTA_OFFSET = 23;
    static final int BASE_TIMESTAMP_OFFSET = 27;
    static final int MAX_TIMESTAMP_OFFSET = 35;
    static final int PRODUCER_ID_OFFSET = 43;
    static final int PRODUCER_EPOCH_OFFSET = 51;
    static final int BASE_SEQUENCE_OFFSET = 53;
    static final int RECORDS_COUNT_OFFSET = 57;
    static final int RECORDS_OFFSET = HEADER_SIZE;

    static final int COMPRESSION_CODEC_MASK = 0x07;
    static final int TIMESTAMP_TYPE_MASK = 0x08;
    static final int TRANSACTIONAL_FLAG_MASK = 0x10;
    static final int CONTROL_FLAG_MASK = 0x20;

    /** The largest decompressed size any bound allows: an array holding it and the header. */
    private static final int MAX_ARRAY_RECORDS_BYTES = Integer.MAX_VALUE - 8 - HEADER_SIZE;
    /**
     * How many times {@code max.message.bytes} a compressed batch's records may take once
     * decompressed (see {@link #maxDecompressedBytes(int)}).
     */
    public static final int MAX_COMPRESSION_RATIO = 64;
    /** The decompression bound of {@link #records()}: {@link #maxDecompressedBytes} of Kafka's default max.message.bytes. */
    public static final int DEFAULT_MAX_DECOMPRESSED_BYTES = maxDecompressedBytes(1048588);

    /** Exactly this batch's bytes: position 0 is the batch start, limit is its size. */
    private final ByteBuffer buffer;

    RecordBatch(ByteBuffer buffer) {
        this.buffer = buffer;
    }

    /**
     * A view over exactly one batch starting at the buffer's position; validates framing only
     * (header present, batchLength in bounds, magic 2), not the CRC. The buffer's position is not
     * moved. Setters on the view write through to the buffer's bytes.
     *
     * @throws ApiException CORRUPT_MESSAGE naming the position if the framing is bad
     */
    public static RecordBatch wrap(ByteBuffer buffer) {
        int pos = buffer.position();
        int size = batchSizeAt(buffer, pos);
        if (size < 0) {
            throw Errors.CORRUPT_MESSAGE.exception("Truncated record batch at position " + pos + ": "
                    + buffer.remaining() + " bytes available" + declaredSizeNote(buffer, pos));
        }
        return new RecordBatch(buffer.slice(pos, size).order(ByteOrder.BIG_ENDIAN));
    }

    /**
     * The total size (log overhead included) of the batch starting at absolute index {@code pos},
     * for scanning a segment or a buffer batch by batch without decoding anything.
     *
     * @return the batch size in bytes, or -1 if fewer than {@link #FRAMING_HEADER_SIZE} bytes or
     *         fewer than the declared size remain before the limit (a truncated tail, as left by
     *         a crash mid-write)
     * @throws ApiException CORRUPT_MESSAGE naming the position if batchLength is smaller than a
     *         batch header or the magic is not 2: the bytes are not a v2 batch at all
     */
    public static int batchSizeAt(ByteBuffer buffer, int pos) {
        ByteBuffer buf = buffer.order() == ByteOrder.BIG_ENDIAN ? buffer : buffer.duplicate().order(ByteOrder.BIG_ENDIAN);
        if (pos < 0 || buf.limit() - pos < FRAMING_HEADER_SIZE) {
            return -1;
        }
        int size = checkedSize(buf.getInt(pos + LENGTH_OFFSET), buf.get(pos + MAGIC_OFFSET),
                buf.getLong(pos + BASE_OFFSET_OFFSET), "position ", pos);
        return size > buf.limit() - pos ? -1 : size;
    }

    /**
     * Reads the whole batch starting at {@code position} of a file into a new heap buffer, for
     * log recovery and segment scans. Reads at absolute positions: the channel's own position is
     * not moved. The CRC is not checked (call {@link #isValid()}).
     *
     * @return the batch, or null if the file ends before the batch does (a truncated tail)
     * @throws ApiException CORRUPT_MESSAGE naming the file position if the framing is bad
     */
    public static RecordBatch readFrom(FileChannel channel, long position) throws IOException {
        ByteBuffer head = ByteBuffer.allocate(FRAMING_HEADER_SIZE);
        if (!readFully(channel, head, position)) {
            return null;
        }
        int size = checkedSize(head.getInt(LENGTH_OFFSET), head.get(MAGIC_OFFSET),
                head.getLong(BASE_OFFSET_OFFSET), "file position ", position);
        if (size > channel.size() - position) {
            // a torn tail: checked before allocating so a garbage length cannot demand a huge buffer
            return null;
        }
        ByteBuffer whole = ByteBuffer.allocate(size);
        whole.put(head.flip());
        if (!readFully(channel, whole, position + FRAMING_HEADER_SIZE)) {
            return null;
        }
        return new RecordBatch(whole.flip());
    }

    private static boolean readFully(FileChannel channel, ByteBuffer dst, long position) throws IOException {
        long at = position;
        while (dst.hasRemaining()) {
            int n = channel.read(dst, at);
            if (n < 0) {
                return false;
            }
            at += n;
        }
        return true;
    }

    /** {@code where + position} names the batch in a message; concatenated only when one is thrown. */
    private static int checkedSize(int batchLength, byte magic, long baseOffset, String where, long position) {
        if (batchLength < HEADER_SIZE - LOG_OVERHEAD) {
            throw Errors.CORRUPT_MESSAGE.exception("Record batch at " + where + position + " (base offset " + baseOffset
                    + ") has batchLength " + batchLength + ", below the minimum " + (HEADER_SIZE - LOG_OVERHEAD));
        }
        if (batchLength > Integer.MAX_VALUE - LOG_OVERHEAD) {
            throw Errors.CORRUPT_MESSAGE.exception("Record batch at " + where + position + " (base offset " + baseOffset
                    + ") has batchLength " + batchLength + ", beyond any buffer");
        }
        if (magic != MAGIC_V2) {
            throw Errors.CORRUPT_MESSAGE.exception("Record batch at " + where + position + " (base offset " + baseOffset
                    + ") has magic " + magic + "; only magic " + MAGIC_V2 + " is supported");
        }
        return batchLength + LOG_OVERHEAD;
    }

    private static String declaredSizeNote(ByteBuffer buf, int pos) {
        if (buf.limit() - pos < LENGTH_OFFSET + 4) {
            return "";
        }
        return ", batch declares " + ((long) buf.getInt(pos + LENGTH_OFFSET) + LOG_OVERHEAD)
                + " (base offset " + (buf.limit() - pos >= 8 ? buf.getLong(pos) : -1) + ")";
    }

    /** Offset of the first record (bytes 0-7; rewritten by a leader append, LOG-4). */
    public long baseOffset() {
        return buffer.getLong(BASE_OFFSET_OFFSET);
    }

    /** baseOffset + lastOffsetDelta: the offset of the last record. */
    public long lastOffset() {
        return baseOffset() + lastOffsetDelta();
    }

    /** lastOffset + 1. */
    public long nextOffset() {
        return lastOffset() + 1;
    }

    /** Last record's offset minus baseOffset; recordCount - 1 for every batch we accept (LOG-5). */
    public int lastOffsetDelta() {
        return buffer.getInt(LAST_OFFSET_DELTA_OFFSET);
    }

    /** Epoch of the leader that appended the batch, or {@link #NO_PARTITION_LEADER_EPOCH}. */
    public int partitionLeaderEpoch() {
        return buffer.getInt(PARTITION_LEADER_EPOCH_OFFSET);
    }

    /** The format version byte; 2 for every batch a view can be created over. */
    public byte magic() {
        return buffer.get(MAGIC_OFFSET);
    }

    /** The stored CRC-32C as an unsigned value. */
    public long checksum() {
        return Integer.toUnsignedLong(buffer.getInt(CRC_OFFSET));
    }

    /** The CRC-32C of the bytes from attributes to the end, as they are now. */
    public long computeChecksum() {
        return crcOf(buffer, ATTRIBUTES_OFFSET, buffer.limit());
    }

    static long crcOf(ByteBuffer buf, int from, int to) {
        CRC32C crc = new CRC32C();
        crc.update(buf.duplicate().limit(to).position(from));
        return crc.getValue();
    }

    /** Whether the stored CRC matches the bytes from attributes to the end. */
    public boolean isValid() {
        return checksum() == computeChecksum();
    }

    /** @throws ApiException CORRUPT_MESSAGE naming the offset if not valid */
    public void ensureValid() {
        long stored = checksum();
        long computed = computeChecksum();
        if (stored != computed) {
            throw Errors.CORRUPT_MESSAGE.exception("Record batch at offset " + baseOffset() + " is corrupt: stored crc "
                    + stored + " but computed " + computed);
        }
    }

    /** Total size: 12-byte log overhead (baseOffset, batchLength) + batchLength. */
    public int sizeInBytes() {
        return buffer.limit();
    }

    /** The raw attributes: codec (bits 0-2), timestamp type (3), transactional (4), control (5). */
    public short attributes() {
        return buffer.getShort(ATTRIBUTES_OFFSET);
    }

    /** The compression codec id from attributes bits 0-2 (0 = none, 1 gzip, 2 snappy, 3 lz4, 4 zstd). */
    public int compressionCodec() {
        return attributes() & COMPRESSION_CODEC_MASK;
    }

    /**
     * The compression codec from attributes bits 0-2.
     *
     * @throws ApiException CORRUPT_MESSAGE naming the offset for ids 5-7, which name no codec
     */
    public CompressionType compressionType() {
        int codec = compressionCodec();
        if (codec > CompressionType.ZSTD.id()) {
            throw Errors.CORRUPT_MESSAGE.exception("Record batch at offset " + baseOffset()
                    + " has unknown compression codec id " + codec);
        }
        return CompressionType.forId(codec);
    }

    /** Whether a codec other than none is set: the records after the header are one compressed stream. */
    public boolean isCompressed() {
        return compressionCodec() != 0;
    }

    /**
     * The bound on a compressed batch's decompressed records that a leader with this
     * {@code max.message.bytes} applies (LOG-5): {@link #MAX_COMPRESSION_RATIO} times it, at most
     * what one array holds. Kafka has no such bound; without one a small batch of zeros could
     * decompress to gigabytes (a decompression bomb).
     */
    public static int maxDecompressedBytes(int maxMessageBytes) {
        return (int) Math.min(MAX_ARRAY_RECORDS_BYTES, (long) MAX_COMPRESSION_RATIO * Math.max(1, maxMessageBytes));
    }

    /** Attribute bit 3. */
    public TimestampType timestampType() {
        return (attributes() & TIMESTAMP_TYPE_MASK) == 0 ? TimestampType.CREATE_TIME : TimestampType.LOG_APPEND_TIME;
    }

    /** Attribute bit 4; read as data (no transaction support). */
    public boolean isTransactional() {
        return (attributes() & TRANSACTIONAL_FLAG_MASK) != 0;
    }

    /** Attribute bit 5; control batches are read as data (no transaction support). */
    public boolean isControlBatch() {
        return (attributes() & CONTROL_FLAG_MASK) != 0;
    }

    /** Timestamp of the first record; record timestamps are deltas from it. */
    public long baseTimestamp() {
        return buffer.getLong(BASE_TIMESTAMP_OFFSET);
    }

    /** Largest record timestamp (CREATE_TIME) or the leader's append time (LOG_APPEND_TIME). */
    public long maxTimestamp() {
        return buffer.getLong(MAX_TIMESTAMP_OFFSET);
    }

    /** Idempotent producer id, or {@link #NO_PRODUCER_ID}. */
    public long producerId() {
        return buffer.getLong(PRODUCER_ID_OFFSET);
    }

    /** Idempotent producer epoch, or {@link #NO_PRODUCER_EPOCH}. */
    public short producerEpoch() {
        return buffer.getShort(PRODUCER_EPOCH_OFFSET);
    }

    /** Sequence number of the first record, or {@link #NO_SEQUENCE}. */
    public int baseSequence() {
        return buffer.getInt(BASE_SEQUENCE_OFFSET);
    }

    /** The record count stored in the header (validated against the records by LOG-5). */
    public int recordCount() {
        return buffer.getInt(RECORDS_COUNT_OFFSET);
    }

    /**
     * Decodes the records (on each call; nothing is cached), decompressing a compressed batch with
     * the bound {@link #DEFAULT_MAX_DECOMPRESSED_BYTES}. Keys and values are read-only slices of the
     * batch bytes (of a decompressed copy for a compressed batch). For a LOG_APPEND_TIME batch every
     * record's timestamp is the batch's maxTimestamp, as in Kafka.
     *
     * @throws ApiException CORRUPT_MESSAGE naming the offset on malformed record bytes, a record
     *         count that disagrees with the bytes, corrupt compressed data or a codec whose library
     *         is missing (the message names the codec and the library); MESSAGE_TOO_LARGE if the
     *         records decompress beyond the bound
     */
    public List<Record> records() {
        return records(DEFAULT_MAX_DECOMPRESSED_BYTES);
    }

    /**
     * {@link #records()} with an explicit bound on the decompressed size of a compressed batch's
     * records (for a log whose {@code max.message.bytes} is above the default, pass
     * {@link #maxDecompressedBytes(int)} of it). The bound is ignored for an uncompressed batch.
     *
     * @throws ApiException as {@link #records()}; MESSAGE_TOO_LARGE beyond {@code maxDecompressedBytes}
     */
    public List<Record> records(int maxDecompressedBytes) {
        if (isCompressed()) {
            RecordBatch plain = decompressed(maxDecompressedBytes);
            try {
                return plain.records();
            } catch (ApiException e) {
                throw inDecompressed(e);
            }
        }
        ensureDecodable();
        int count = recordCount();
        List<Record> out = new ArrayList<>(count);
        walkRecords(out, false);
        return Collections.unmodifiableList(out);
    }

    /**
     * This batch with its records decompressed: a heap copy whose header is this one's with the
     * codec bits cleared and batchLength fitted (the CRC is left as stored, so it does not match:
     * the copy is for walking records, never for storing or sending).
     *
     * @throws ApiException CORRUPT_MESSAGE for an unknown codec, a missing codec library or corrupt
     *         data; MESSAGE_TOO_LARGE beyond {@code maxDecompressedBytes}
     */
    RecordBatch decompressed(int maxDecompressedBytes) {
        CompressionType type = compressionType();
        CompressionCodec codec;
        try {
            codec = CompressionCodecs.forType(type);
        } catch (CodecUnavailableException e) {
            throw Errors.CORRUPT_MESSAGE.exception("Record batch at offset " + baseOffset()
                    + " cannot be read: " + e.getMessage());
        }
        int compressedBytes = sizeInBytes() - RECORDS_OFFSET;
        int bound = Math.max(0, Math.min(maxDecompressedBytes, MAX_ARRAY_RECORDS_BYTES));
        DecompressionBuffer out = new DecompressionBuffer(HEADER_SIZE, bound,
                (int) Math.min(Integer.MAX_VALUE, 4L * compressedBytes));
        try {
            codec.decompress(buffer.slice(RECORDS_OFFSET, compressedBytes), out);
        } catch (DecompressionBuffer.LimitExceededException e) {
            throw Errors.MESSAGE_TOO_LARGE.exception("Record batch at offset " + baseOffset() + " (" + type
                    + ", " + sizeInBytes() + " bytes) " + e.getMessage() + " of records, the bound for its log ("
                    + MAX_COMPRESSION_RATIO + " x max.message.bytes)");
        } catch (IOException | RuntimeException e) {
            throw Errors.CORRUPT_MESSAGE.exception("Record batch at offset " + baseOffset() + " has corrupt " + type
                    + " data: " + e.getMessage());
        }
        byte[] bytes = out.array();
        ByteBuffer plain = ByteBuffer.wrap(bytes, 0, HEADER_SIZE + out.size()).slice();
        plain.put(0, buffer, 0, HEADER_SIZE);
        plain.putInt(LENGTH_OFFSET, HEADER_SIZE - LOG_OVERHEAD + out.size());
        plain.putShort(ATTRIBUTES_OFFSET, (short) (attributes() & ~COMPRESSION_CODEC_MASK));
        return new RecordBatch(plain);
    }

    /** Says that a fault found in decompressed records is at a position of the decompressed bytes. */
    private ApiException inDecompressed(ApiException e) {
        return new ApiException(e.error(), e.getMessage() + " (in the batch's records as decompressed from "
                + compressionType() + ")", e);
    }

    /**
     * Walks every record checking its structure without materialising anything, and checks that
     * the bytes hold exactly {@link #recordCount()} records ending at the batch end. Used by
     * validation (LOG-5).
     *
     * @return the largest record timestamp (NO_TIMESTAMP for none) and the first offset holding it
     * @throws ApiException CORRUPT_MESSAGE on malformed bytes, INVALID_RECORD when a record's
     *         offsetDelta is not its index (offsets must be consecutive)
     */
    RecordsCheck checkRecords() {
        return checkRecords(DEFAULT_MAX_DECOMPRESSED_BYTES);
    }

    /**
     * {@link #checkRecords()}, decompressing a compressed batch first (LOG-5: a leader walks the
     * records inside, so it must decompress them; the stored bytes stay compressed).
     *
     * @throws ApiException also CORRUPT_MESSAGE for corrupt compressed data or a missing codec
     *         library, MESSAGE_TOO_LARGE beyond {@code maxDecompressedBytes}
     */
    RecordsCheck checkRecords(int maxDecompressedBytes) {
        if (isCompressed()) {
            RecordBatch plain = decompressed(maxDecompressedBytes);
            try {
                return plain.checkRecords();
            } catch (ApiException e) {
                throw inDecompressed(e);
            }
        }
        ensureDecodable();
        RecordsCheck check = quickCheckRecords();
        // The quick walk only says "not well-formed"; the full walk finds and names the fault.
        return check != null ? check : walkRecords(null, true);
    }

    /**
     * The batch-level part of {@link #checkRecords()}: the codec id names a codec and, for an
     * uncompressed batch, the count fits the bytes; the records themselves are not walked and a
     * compressed batch is not decompressed (a follower needs no codec library to replicate).
     *
     * @return the batch's maxTimestamp and its last offset
     */
    RecordsCheck checkShallow() {
        if (isCompressed()) {
            compressionType();
        } else {
            ensureDecodable();
        }
        return new RecordsCheck(maxTimestamp(), lastOffset());
    }

    /** Marks a failed read in {@link #quickVarint}'s packed result (the position half is -1). */
    private static final long QUICK_FAIL = -1L;

    /**
     * The same checks as {@code walkRecords(null, true)} on the happy path, with no allocation,
     * no message strings and no per-field bookkeeping: local cursor, absolute reads. Returns null
     * at the first anomaly instead of throwing, so the caller re-walks to throw the exact error
     * (LOG-5 semantics stay those of {@link #walkRecords}, which is the reference).
     */
    RecordsCheck quickCheckRecords() {
        // On the array: a ByteBuffer's bounds-checked get per byte made this walk cost ~50 ns a record.
        byte[] b;
        int base;
        if (buffer.hasArray()) {
            b = buffer.array();
            base = buffer.arrayOffset();
        } else {
            b = new byte[buffer.limit()];
            buffer.get(0, b);
            base = 0;
        }
        int batchEnd = base + buffer.limit();
        long baseTimestamp = baseTimestamp();
        long batchMaxTimestamp = maxTimestamp();
        boolean logAppendTime = (attributes() & TIMESTAMP_TYPE_MASK) != 0;
        long baseOffset = baseOffset();
        long maxTs = NO_TIMESTAMP;
        long offsetOfMax = -1;
        int count = recordCount();
        int pos = base + RECORDS_OFFSET;
        for (int i = 0; i < count; i++) {
            long r = quickVarint(b, pos, batchEnd);
            if (r == QUICK_FAIL) {
                return null;
            }
            int length = (int) (r >> 32);
            int p = (int) r;
            if (length < 1 || length > batchEnd - p) {
                return null; // a record holds at least its attributes byte
            }
            int end = p + length;
            // The next record starts at end, whatever its fields say (they must fill it exactly,
            // checked below). Taking it from the length alone keeps the field walk off the chain of
            // dependent reads from record to record, so the CPU can overlap the two (27 -> 20 ns a
            // record for 100-byte values here).
            pos = end;
            p++; // attributes
            long tsRaw = 0;
            boolean done = false;
            if (p < end && b[p] >= 0) {
                tsRaw = b[p++]; // the common one-byte timestampDelta, without the loop
                done = true;
            } else {
                for (int k = 0, shift = 0; k < Varint.MAX_LONG_BYTES && p < end; k++, shift += 7) {
                    byte x = b[p++];
                    tsRaw |= (long) (x & 0x7f) << shift;
                    if ((x & 0x80) == 0) {
                        done = true;
                        break;
                    }
                }
            }
            if (!done) {
                return null;
            }
            long timestampDelta = (tsRaw >>> 1) ^ -(tsRaw & 1);
            r = quickVarint(b, p, end);
            if (r == QUICK_FAIL || (int) (r >> 32) != i) {
                return null; // offsets must be consecutive (INVALID_RECORD in the full walk)
            }
            p = quickSkipBytes(b, (int) r, end);        // key
            p = p < 0 ? -1 : quickSkipBytes(b, p, end); // value
            p = p < 0 ? -1 : quickSkipHeaders(b, p, end);
            if (p != end) {
                return null;
            }
            long timestamp = logAppendTime ? batchMaxTimestamp : baseTimestamp + timestampDelta;
            if (timestamp > maxTs || offsetOfMax < 0) {
                maxTs = timestamp;
                offsetOfMax = baseOffset + i;
            }
        }
        if (pos != batchEnd) {
            return null;
        }
        return new RecordsCheck(maxTs, offsetOfMax);
    }

    /**
     * Reads a zig-zag varint at {@code pos} before {@code limit}; returns the value in the high
     * 32 bits and the next position in the low 32, or {@link #QUICK_FAIL}.
     */
    private static long quickVarint(byte[] b, int pos, int limit) {
        // One- and two-byte varints (values -8192..8191) are nearly every field of a small record:
        // decoded without the loop, which made this walk the leader's largest cost per record.
        if (pos + 1 < limit) {
            int x = b[pos];
            if (x >= 0) {
                return ((long) ((x >>> 1) ^ -(x & 1)) << 32) | (pos + 1);
            }
            int y = b[pos + 1];
            if (y >= 0) {
                int raw = (x & 0x7f) | (y << 7);
                return ((long) ((raw >>> 1) ^ -(raw & 1)) << 32) | (pos + 2);
            }
        }
        return quickVarintLoop(b, pos, limit);
    }

    private static long quickVarintLoop(byte[] b, int pos, int limit) {
        int raw = 0;
        int p = pos;
        for (int shift = 0, k = 0; k < Varint.MAX_INT_BYTES; k++, shift += 7) {
            if (p >= limit) {
                return QUICK_FAIL;
            }
            byte x = b[p++];
            raw |= (x & 0x7f) << shift;
            if ((x & 0x80) == 0) {
                int value = (raw >>> 1) ^ -(raw & 1);
                return ((long) value << 32) | p;
            }
        }
        return QUICK_FAIL;
    }

    /** Skips a length-prefixed byte field (-1 = null); the next position, or -1 if malformed. */
    private static int quickSkipBytes(byte[] b, int pos, int limit) {
        long r = quickVarint(b, pos, limit);
        if (r == QUICK_FAIL) {
            return -1;
        }
        int len = (int) (r >> 32);
        int p = (int) r;
        if (len == -1) {
            return p;
        }
        if (len < -1 || len > limit - p) {
            return -1;
        }
        return p + len;
    }

    /** Skips the header count and headers; the next position, or -1 if malformed. */
    private static int quickSkipHeaders(byte[] b, int pos, int limit) {
        long r = quickVarint(b, pos, limit);
        if (r == QUICK_FAIL) {
            return -1;
        }
        int count = (int) (r >> 32);
        int p = (int) r;
        if (count < 0 || count > (limit - p) / 2) {
            return -1;
        }
        for (int h = 0; h < count; h++) {
            r = quickVarint(b, p, limit);
            if (r == QUICK_FAIL) {
                return -1;
            }
            int keyLen = (int) (r >> 32);
            p = (int) r;
            if (keyLen < 0 || keyLen > limit - p) {
                return -1;
            }
            p = quickSkipBytes(b, p + keyLen, limit);
            if (p < 0) {
                return -1;
            }
        }
        return p;
    }

    /** The reference structural walk (throws on the first fault); package-private for tests. */
    RecordsCheck strictWalk() {
        return walkRecords(null, true);
    }

    /** Result of a structural walk: the largest timestamp and the first offset carrying it (-1 if none). */
    record RecordsCheck(long maxTimestamp, long offsetOfMaxTimestamp) {
    }

    /** For an uncompressed batch: its record count fits its bytes (so walking them cannot over-allocate). */
    private void ensureDecodable() {
        if (isCompressed()) {
            throw new IllegalStateException("Record batch at offset " + baseOffset() + " is compressed; decompress it first");
        }
        int count = recordCount();
        int maxCount = (sizeInBytes() - HEADER_SIZE) / MIN_RECORD_SIZE;
        if (count < 0 || count > maxCount) {
            throw Errors.CORRUPT_MESSAGE.exception("Record batch at offset " + baseOffset() + " claims " + count
                    + " records but its " + sizeInBytes() + " bytes can hold at most " + maxCount);
        }
    }

    private RecordsCheck walkRecords(List<Record> out, boolean strict) {
        long baseOffset = baseOffset();
        long baseTimestamp = baseTimestamp();
        boolean logAppendTime = timestampType() == TimestampType.LOG_APPEND_TIME;
        long maxTimestamp = NO_TIMESTAMP;
        long offsetOfMax = -1;
        int count = recordCount();
        Varint.Cursor c = new Varint.Cursor(buffer, RECORDS_OFFSET, buffer.limit(), baseOffset);
        for (int i = 0; i < count; i++) {
            c.record = i;
            int length = c.readVarint("record length");
            int start = c.skip(length, "record length");
            int end = c.pos;
            c.pos = start;
            int savedLimit = c.limit;
            c.limit = end;
            c.readByte("record attributes");
            long timestampDelta = c.readVarlong("timestampDelta");
            int offsetDelta = c.readVarint("offsetDelta");
            if (strict && offsetDelta != i) {
                throw Errors.INVALID_RECORD.exception("Record batch at offset " + baseOffset + ": record " + i
                        + " has offsetDelta " + offsetDelta + " (offset " + (baseOffset + offsetDelta)
                        + "); offsets in a batch must be consecutive from the base offset");
            }
            ByteBuffer key = readBytes(c, "key length", "key", out != null);
            ByteBuffer value = readBytes(c, "value length", "value", out != null);
            List<Header> headers = readHeaders(c, out != null);
            if (c.pos != end) {
                throw c.corrupt("declares " + length + " bytes but its fields use " + (c.pos - start));
            }
            c.limit = savedLimit;
            long timestamp = logAppendTime ? maxTimestamp() : baseTimestamp + timestampDelta;
            if (timestamp > maxTimestamp || offsetOfMax < 0) {
                maxTimestamp = timestamp;
                offsetOfMax = baseOffset + offsetDelta;
            }
            if (out != null) {
                out.add(new Record(baseOffset + offsetDelta, timestamp, key, value, headers));
            }
        }
        c.record = -1;
        if (c.pos != buffer.limit()) {
            throw c.corrupt((buffer.limit() - c.pos) + " bytes left after the " + count + " records the header counts");
        }
        return new RecordsCheck(maxTimestamp, offsetOfMax);
    }

    private ByteBuffer readBytes(Varint.Cursor c, String lengthName, String what, boolean materialize) {
        int len = c.readVarint(lengthName);
        if (len == -1) {
            return null;
        }
        if (len < -1) {
            throw c.corrupt("negative " + lengthName + " " + len);
        }
        int start = c.skip(len, what);
        return materialize ? buffer.slice(start, len).asReadOnlyBuffer() : null;
    }

    private List<Header> readHeaders(Varint.Cursor c, boolean materialize) {
        int count = c.readVarint("header count");
        if (count < 0) {
            throw c.corrupt("negative header count " + count);
        }
        if (count > c.remaining() / 2) {
            throw c.corrupt("header count " + count + " exceeds what the record's bytes can hold");
        }
        if (count == 0) {
            return List.of();
        }
        List<Header> headers = materialize ? new ArrayList<>(count) : null;
        for (int h = 0; h < count; h++) {
            int keyLen = c.readVarint("header key length");
            if (keyLen < 0) {
                throw c.corrupt("negative header key length " + keyLen);
            }
            int keyStart = c.skip(keyLen, "header key");
            int valueLen = c.readVarint("header value length");
            if (valueLen < -1) {
                throw c.corrupt("negative header value length " + valueLen);
            }
            int valueStart = valueLen >= 0 ? c.skip(valueLen, "header value") : -1;
            if (headers != null) {
                byte[] k = new byte[keyLen];
                buffer.get(keyStart, k);
                byte[] v = null;
                if (valueLen >= 0) {
                    v = new byte[valueLen];
                    buffer.get(valueStart, v);
                }
                headers.add(new Header(new String(k, StandardCharsets.UTF_8), v));
            }
        }
        return headers == null ? null : Collections.unmodifiableList(headers);
    }

    /** A read-only duplicate of this batch's bytes, position 0, limit sizeInBytes. */
    public ByteBuffer buffer() {
        return buffer.asReadOnlyBuffer();
    }

    /** Rewrites baseOffset in place (not covered by the CRC). */
    public void setBaseOffset(long baseOffset) {
        buffer.putLong(BASE_OFFSET_OFFSET, baseOffset);
    }

    /** Rewrites partitionLeaderEpoch in place (not covered by the CRC). */
    public void setPartitionLeaderEpoch(int epoch) {
        buffer.putInt(PARTITION_LEADER_EPOCH_OFFSET, epoch);
    }

    /**
     * Sets the timestamp type bit and maxTimestamp in place and recomputes the CRC, which covers
     * both (LOG-4: a leader stamping LOG_APPEND_TIME). Does nothing if both already have these
     * values, so an unchanged batch keeps its CRC bytes untouched.
     */
    public void setMaxTimestamp(TimestampType type, long maxTimestamp) {
        short attributes = attributes();
        short newAttributes = (short) (type == TimestampType.LOG_APPEND_TIME
                ? attributes | TIMESTAMP_TYPE_MASK : attributes & ~TIMESTAMP_TYPE_MASK);
        if (newAttributes == attributes && maxTimestamp() == maxTimestamp) {
            return;
        }
        buffer.putShort(ATTRIBUTES_OFFSET, newAttributes);
        buffer.putLong(MAX_TIMESTAMP_OFFSET, maxTimestamp);
        buffer.putInt(CRC_OFFSET, (int) computeChecksum());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RecordBatch other && buffer.equals(other.buffer);
    }

    @Override
    public int hashCode() {
        return buffer.hashCode();
    }

    @Override
    public String toString() {
        return "RecordBatch(baseOffset=" + baseOffset() + ", lastOffset=" + lastOffset() + ", epoch="
                + partitionLeaderEpoch() + ", count=" + recordCount() + ", size=" + sizeInBytes()
                + ", crc=" + checksum() + ")";
    }
}
