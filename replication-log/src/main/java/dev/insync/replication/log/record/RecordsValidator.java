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
import dev.insync.replication.log.TopicPartition;

import java.nio.ByteBuffer;

/**
 * Validates a whole {@link MemoryRecords} before any of it is written (LOG-5). It only reads: on
 * any failure nothing has been changed and the caller writes nothing.
 *
 * <p>Per batch, in order (like Kafka's broker): framing (header present, batchLength within the
 * buffer and at least a header, magic 2) then size against {@code maxMessageBytes}, then CRC-32C,
 * then record count against lastOffsetDelta, then the codec id, then (leader only) every record's
 * structure and consecutive offset deltas, a compressed batch's records after decompressing them
 * (bounded by {@link RecordBatch#maxDecompressedBytes(int)}). The input is never changed: a
 * compressed batch is decompressed into a copy that is dropped after the walk.
 *
 * <ul>
 *   <li>CORRUPT_MESSAGE: truncated batch, batchLength below a header or beyond the buffer, wrong
 *       magic, CRC mismatch, record count not equal to lastOffsetDelta + 1 or not matching the
 *       records actually present, malformed record bytes, unknown codec id, corrupt compressed
 *       data, a codec whose library is not on the class path (the message names both);</li>
 *   <li>MESSAGE_TOO_LARGE: a batch larger than {@code maxMessageBytes}, or whose records
 *       decompress beyond the bound;</li>
 *   <li>INVALID_RECORD: a record whose offsetDelta is not its index.</li>
 * </ul>
 * Every message names the partition and the batch's position and base offset.
 */
public final class RecordsValidator {

    private RecordsValidator() {
    }

    /**
     * @param maxMessageBytes largest batch size accepted (pass {@link Integer#MAX_VALUE} for a
     *                        follower append, which skips the size check, LOG-4)
     * @throws ApiException as listed in the class comment
     */
    public static RecordsSummary validate(MemoryRecords records, int maxMessageBytes, TopicPartition tp) {
        return validate(records, maxMessageBytes, tp, true);
    }

    /**
     * What a follower checks before appending the leader's bytes: everything of {@link #validate}
     * except {@code max.message.bytes} and the per-record walk, as Kafka's follower does
     * ({@code UnifiedLog.analyzeAndValidateRecords}: framing, CRC, count). The leader walked every
     * record when it appended them and the CRC proves these are the same bytes, so walking them
     * again on every replica would only repeat that work on the replication path. The summary's
     * timestamps are the batches' own: the largest {@code maxTimestamp} and, for it, the batch's last
     * offset (Kafka's shallow offset of the max timestamp).
     *
     * A compressed batch is not decompressed, so a follower replicates codecs it has no library for.
     *
     * @throws ApiException CORRUPT_MESSAGE for bad framing, CRC, record count or an unknown codec id
     */
    public static RecordsSummary validateShallow(MemoryRecords records, TopicPartition tp) {
        return validate(records, Integer.MAX_VALUE, tp, false);
    }

    private static RecordsSummary validate(MemoryRecords records, int maxMessageBytes, TopicPartition tp,
                                           boolean walkRecords) {
        ByteBuffer buf = records.sharedBuffer();
        int pos = 0;
        int limit = buf.limit();
        int batchCount = 0;
        int recordCount = 0;
        long firstOffset = -1;
        long lastOffset = -1;
        long maxTimestamp = RecordBatch.NO_TIMESTAMP;
        long offsetOfMaxTimestamp = -1;
        boolean monotonic = true;
        int maxDecompressedBytes = RecordBatch.maxDecompressedBytes(maxMessageBytes);
        while (pos < limit) {
            RecordBatch batch = frame(buf, pos, tp);
            if (batch.sizeInBytes() > maxMessageBytes) {
                throw Errors.MESSAGE_TOO_LARGE.exception(where(batch, pos, tp) + " is " + batch.sizeInBytes()
                        + " bytes, above max.message.bytes " + maxMessageBytes);
            }
            long stored = batch.checksum();
            long computed = batch.computeChecksum();
            if (stored != computed) {
                throw Errors.CORRUPT_MESSAGE.exception(where(batch, pos, tp) + " failed its CRC: stored " + stored
                        + ", computed " + computed);
            }
            int count = batch.recordCount();
            int lastDelta = batch.lastOffsetDelta();
            if (count <= 0 || (long) lastDelta + 1 != count) {
                throw Errors.CORRUPT_MESSAGE.exception(where(batch, pos, tp) + " has record count " + count
                        + " but lastOffsetDelta " + lastDelta + "; a v2 batch needs count = lastOffsetDelta + 1 > 0");
            }
            RecordBatch.RecordsCheck check;
            try {
                check = walkRecords ? batch.checkRecords(maxDecompressedBytes) : batch.checkShallow();
            } catch (ApiException e) {
                throw new ApiException(e.error(), e.getMessage() + " (position " + pos + " of " + tp + ")", e);
            }
            if (batchCount == 0) {
                firstOffset = batch.baseOffset();
            } else if (batch.baseOffset() <= lastOffset) {
                monotonic = false;
            }
            lastOffset = batch.lastOffset();
            if (check.maxTimestamp() > maxTimestamp) {
                maxTimestamp = check.maxTimestamp();
                offsetOfMaxTimestamp = check.offsetOfMaxTimestamp();
            }
            batchCount++;
            recordCount += count;
            pos += batch.sizeInBytes();
        }
        return new RecordsSummary(batchCount, firstOffset, lastOffset, recordCount, maxTimestamp,
                offsetOfMaxTimestamp, limit, monotonic);
    }

    /** Names a batch in an error message; built only when one is thrown. */
    private static String where(RecordBatch batch, int pos, TopicPartition tp) {
        return "Record batch at position " + pos + " (base offset " + batch.baseOffset() + ") of " + tp;
    }

    private static RecordBatch frame(ByteBuffer buf, int pos, TopicPartition tp) {
        int size;
        try {
            size = RecordBatch.batchSizeAt(buf, pos);
        } catch (ApiException e) {
            throw new ApiException(e.error(), e.getMessage() + " (in " + tp + ")", e);
        }
        if (size < 0) {
            String declared = buf.limit() - pos >= RecordBatch.LENGTH_OFFSET + 4
                    ? ", batch at base offset " + buf.getLong(pos) + " declares "
                      + ((long) buf.getInt(pos + RecordBatch.LENGTH_OFFSET) + RecordBatch.LOG_OVERHEAD) + " bytes"
                    : ", fewer than the " + RecordBatch.FRAMING_HEADER_SIZE + "-byte batch framing header";
            throw Errors.CORRUPT_MESSAGE.exception("Truncated record batch at position " + pos + " of " + tp
                    + ": " + (buf.limit() - pos) + " bytes remain" + declared);
        }
        return new RecordBatch(buf.slice(pos, size));
    }
}
