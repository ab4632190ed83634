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

package dev.insync.replication.log.segment;

import dev.insync.replication.log.record.RecordBatch;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The fixed header fields of a v2 record batch (LOG-1) read at absolute positions of a buffer,
 * without decoding records. This is all the file layer needs to find batch boundaries, build
 * indexes, stamp offsets and check CRCs while scanning a segment, so scanning allocates nothing per
 * batch (the record layer's {@link RecordBatch} is the full view, one object per batch).
 *
 * <p>Layout: baseOffset int64 @0, batchLength int32 @8, partitionLeaderEpoch int32 @12,
 * magic int8 @16, crc uint32 @17, attributes int16 @21, lastOffsetDelta int32 @23, baseTimestamp int64 @27,
 * maxTimestamp int64 @35, producerId int64 @43, producerEpoch int16 @51, baseSequence int32 @53,
 * recordCount int32 @57, records from @61.
 */
public final class BatchFraming {

    /** baseOffset + batchLength: the bytes not counted by batchLength. */
    public static final int LOG_OVERHEAD = RecordBatch.LOG_OVERHEAD;
    /** Size of the fixed header up to and including the record count. */
    public static final int HEADER_SIZE = RecordBatch.HEADER_SIZE;
    /** The only magic value the library reads or writes. */
    public static final byte MAGIC_V2 = RecordBatch.MAGIC_V2;

    public static final int BASE_OFFSET_OFFSET = 0;
    public static final int LENGTH_OFFSET = 8;
    public static final int PARTITION_LEADER_EPOCH_OFFSET = 12;
    public static final int MAGIC_OFFSET = 16;
    public static final int CRC_OFFSET = 17;
    public static final int ATTRIBUTES_OFFSET = 21;
    public static final int LAST_OFFSET_DELTA_OFFSET = 23;
    public static final int BASE_TIMESTAMP_OFFSET = 27;
    public static final int MAX_TIMESTAMP_OFFSET = 35;
    public static final int RECORD_COUNT_OFFSET = 57;
    /** Attribute bit 3: the batch carries log-append time. */
    public static final int TIMESTAMP_TYPE_MASK = 0x08;
    /** Attribute bits 0-2: compression codec. */
    public static final int COMPRESSION_MASK = 0x07;

    private BatchFraming() {
    }

    public static long baseOffset(ByteBuffer buf, int pos) {
        return buf.getLong(pos + BASE_OFFSET_OFFSET);
    }

    public static int batchLength(ByteBuffer buf, int pos) {
        return buf.getInt(pos + LENGTH_OFFSET);
    }

    /** Total size on disk: {@link #LOG_OVERHEAD} + batchLength. */
    public static int sizeInBytes(ByteBuffer buf, int pos) {
        return LOG_OVERHEAD + batchLength(buf, pos);
    }

    public static int partitionLeaderEpoch(ByteBuffer buf, int pos) {
        return buf.getInt(pos + PARTITION_LEADER_EPOCH_OFFSET);
    }

    public static byte magic(ByteBuffer buf, int pos) {
        return buf.get(pos + MAGIC_OFFSET);
    }

    public static long storedCrc(ByteBuffer buf, int pos) {
        return Integer.toUnsignedLong(buf.getInt(pos + CRC_OFFSET));
    }

    public static short attributes(ByteBuffer buf, int pos) {
        return buf.getShort(pos + ATTRIBUTES_OFFSET);
    }

    public static int lastOffsetDelta(ByteBuffer buf, int pos) {
        return buf.getInt(pos + LAST_OFFSET_DELTA_OFFSET);
    }

    public static long lastOffset(ByteBuffer buf, int pos) {
        return baseOffset(buf, pos) + lastOffsetDelta(buf, pos);
    }

    public static long maxTimestamp(ByteBuffer buf, int pos) {
        return buf.getLong(pos + MAX_TIMESTAMP_OFFSET);
    }

    public static int recordCount(ByteBuffer buf, int pos) {
        return buf.getInt(pos + RECORD_COUNT_OFFSET);
    }

    public static boolean isLogAppendTime(ByteBuffer buf, int pos) {
        return (attributes(buf, pos) & TIMESTAMP_TYPE_MASK) != 0;
    }

    /** CRC-32C of the bytes from the attributes to the end of the batch at {@code pos}. */
    public static long computeCrc(ByteBuffer buf, int pos, int sizeInBytes) {
        CRC32C crc = new CRC32C();
        ByteBuffer view = buf.duplicate();
        view.limit(pos + sizeInBytes).position(pos + ATTRIBUTES_OFFSET);
        crc.update(view);
        return crc.getValue();
    }

    /** Whether the stored CRC matches the bytes; the caller has checked that the batch is in bounds. */
    public static boolean crcMatches(ByteBuffer buf, int pos, int sizeInBytes) {
        return computeCrc(buf, pos, sizeInBytes) == storedCrc(buf, pos);
    }

    /** Rewrites the stored CRC from the current bytes (after a leader rewrites a covered field). */
    public static void rewriteCrc(ByteBuffer buf, int pos, int sizeInBytes) {
        buf.putInt(pos + CRC_OFFSET, (int) computeCrc(buf, pos, sizeInBytes));
    }

    /**
     * Checks the framing of the batch at {@code pos} in a buffer ending at {@code limit}: header
     * present, length in bounds, magic 2, CRC, and a record count consistent with lastOffsetDelta.
     *
     * @return null if the batch is whole and valid, else the reason it is not
     */
    public static String invalidReason(ByteBuffer buf, int pos, int limit) {
        int remaining = limit - pos;
        if (remaining < LOG_OVERHEAD) {
            return "only " + remaining + " bytes left, less than the " + LOG_OVERHEAD + "-byte batch overhead";
        }
        int length = batchLength(buf, pos);
        if (length < HEADER_SIZE - LOG_OVERHEAD) {
            return "batch length " + length + " is below the minimum " + (HEADER_SIZE - LOG_OVERHEAD);
        }
        if ((long) length + LOG_OVERHEAD > remaining) {
            return "batch length " + length + " runs past the end (" + (remaining - LOG_OVERHEAD) + " bytes available)";
        }
        byte magic = magic(buf, pos);
        if (magic != MAGIC_V2) {
            return "magic " + magic + " is not " + MAGIC_V2;
        }
        int size = length + LOG_OVERHEAD;
        if (!crcMatches(buf, pos, size)) {
            return "CRC mismatch: stored " + storedCrc(buf, pos) + ", computed " + computeCrc(buf, pos, size);
        }
        int lastOffsetDelta = lastOffsetDelta(buf, pos);
        int count = recordCount(buf, pos);
        if (lastOffsetDelta < 0 || count < 0 || (count == 0 ? lastOffsetDelta != 0 : count > lastOffsetDelta + 1L)) {
            return "record count " + count + " is inconsistent with lastOffsetDelta " + lastOffsetDelta;
        }
        return null;
    }
}
