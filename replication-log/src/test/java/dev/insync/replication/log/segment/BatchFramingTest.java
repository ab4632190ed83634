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

import dev.insync.replication.log.record.RecordBatchBuilder;
import dev.insync.replication.log.record.TimestampType;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * LOG-1 and LOG-7: the header fields recovery reads, and the framing check that decides where a
 * recovered segment ends, at each of its boundaries. The batch is placed at a non-zero position of
 * a larger buffer, so every check is relative to the batch and not to the buffer.
 */
class BatchFramingTest {

    /** Bytes before the batch in the test buffers. */
    private static final int AT = 7;

    /** A batch of {@code count} records at base offset {@code base}, copied to position {@link #AT} of a buffer with {@code extra} bytes after it. */
    private static ByteBuffer batchAt(long base, int count, int extra) {
        RecordBatchBuilder builder = new RecordBatchBuilder(base).partitionLeaderEpoch(5);
        for (int i = 0; i < count; i++) {
            builder.append(1_000L + 10L * i, null, ("v" + i).getBytes());
        }
        ByteBuffer batch = builder.build().buffer();
        ByteBuffer buf = ByteBuffer.allocate(AT + batch.remaining() + extra);
        buf.put(AT, batch, batch.position(), batch.remaining());
        return buf;
    }

    private static int size(ByteBuffer buf) {
        return BatchFraming.sizeInBytes(buf, AT);
    }

    @Test
    @DisplayName("LOG-1 header fields are read at Kafka's v2 positions, relative to the batch")
    void log1HeaderFields() {
        ByteBuffer buf = batchAt(40, 3, 0);
        assertThat(BatchFraming.baseOffset(buf, AT)).isEqualTo(40);
        assertThat(BatchFraming.lastOffsetDelta(buf, AT)).isEqualTo(2);
        assertThat(BatchFraming.lastOffset(buf, AT)).isEqualTo(42);
        assertThat(BatchFraming.batchLength(buf, AT)).isEqualTo(buf.capacity() - AT - BatchFraming.LOG_OVERHEAD);
        assertThat(size(buf)).isEqualTo(buf.capacity() - AT);
        assertThat(BatchFraming.partitionLeaderEpoch(buf, AT)).isEqualTo(5);
        assertThat(BatchFraming.magic(buf, AT)).isEqualTo(BatchFraming.MAGIC_V2);
        assertThat(BatchFraming.maxTimestamp(buf, AT)).isEqualTo(1_020);
        assertThat(BatchFraming.recordCount(buf, AT)).isEqualTo(3);
        assertThat(BatchFraming.attributes(buf, AT)).isZero();
        assertThat(BatchFraming.isLogAppendTime(buf, AT)).isFalse();
        assertThat(BatchFraming.crcMatches(buf, AT, size(buf))).isTrue();
        assertThat(BatchFraming.invalidReason(buf, AT, buf.limit())).isNull();
    }

    @Test
    @DisplayName("LOG-1 the stored CRC is an unsigned 32-bit value; LOG-4 rewriting a covered field needs rewriteCrc")
    void log1CrcIsUnsignedAndRewritten() {
        ByteBuffer buf = batchAt(0, 2, 0);
        buf.putInt(AT + BatchFraming.CRC_OFFSET, 0xFFFF_FFFE);
        assertThat(BatchFraming.storedCrc(buf, AT)).isEqualTo(0xFFFF_FFFEL);
        BatchFraming.rewriteCrc(buf, AT, size(buf));
        assertThat(BatchFraming.crcMatches(buf, AT, size(buf))).isTrue();
        assertThat(BatchFraming.storedCrc(buf, AT)).isEqualTo(BatchFraming.computeCrc(buf, AT, size(buf)))
                .isBetween(0L, 0xFFFF_FFFFL);

        buf.putLong(AT + BatchFraming.MAX_TIMESTAMP_OFFSET, 99_999);
        assertThat(BatchFraming.crcMatches(buf, AT, size(buf))).as("maxTimestamp is covered by the CRC").isFalse();
        BatchFraming.rewriteCrc(buf, AT, size(buf));
        assertThat(BatchFraming.crcMatches(buf, AT, size(buf))).isTrue();
        // The base offset and the leader epoch are not covered (LOG-4 rewrites them without a new CRC).
        buf.putLong(AT + BatchFraming.BASE_OFFSET_OFFSET, 77);
        buf.putInt(AT + BatchFraming.PARTITION_LEADER_EPOCH_OFFSET, 9);
        assertThat(BatchFraming.crcMatches(buf, AT, size(buf))).isTrue();
        // ... and neither is anything before the batch.
        buf.put(0, (byte) 1);
        assertThat(BatchFraming.crcMatches(buf, AT, size(buf))).isTrue();
    }

    @Test
    @DisplayName("LOG-1 the log-append-time flag is attribute bit 3")
    void log1LogAppendTimeAttribute() {
        RecordBatchBuilder builder = new RecordBatchBuilder(0).timestampType(TimestampType.LOG_APPEND_TIME);
        builder.append(5, null, new byte[] {1});
        ByteBuffer built = builder.build().buffer();
        ByteBuffer buf = ByteBuffer.allocate(built.remaining()).put(built.duplicate()).flip();
        assertThat(BatchFraming.isLogAppendTime(buf, 0)).isTrue();
        assertThat(BatchFraming.attributes(buf, 0) & BatchFraming.TIMESTAMP_TYPE_MASK).isEqualTo(0x08);
        buf.putShort(BatchFraming.ATTRIBUTES_OFFSET, (short) 0x07);
        assertThat(BatchFraming.isLogAppendTime(buf, 0)).as("codec bits alone").isFalse();
    }

    @Test
    @DisplayName("LOG-7 framing: fewer bytes than the 12-byte overhead are a torn tail, named with the count")
    void log7FewerBytesThanTheOverhead() {
        ByteBuffer buf = batchAt(0, 1, 0);
        assertThat(BatchFraming.invalidReason(buf, AT, AT + 11))
                .isEqualTo("only 11 bytes left, less than the 12-byte batch overhead");
        assertThat(BatchFraming.invalidReason(buf, AT, AT))
                .isEqualTo("only 0 bytes left, less than the 12-byte batch overhead");
        // Exactly the overhead: the length is read, and the batch is found to run past the end.
        assertThat(BatchFraming.invalidReason(buf, AT, AT + 12)).startsWith("batch length ")
                .endsWith("runs past the end (0 bytes available)");
    }

    @Test
    @DisplayName("LOG-7 framing: a batch length below the 49 bytes of header after the overhead is corrupt; 49 is not")
    void log7BatchLengthMinimum() {
        ByteBuffer buf = batchAt(0, 1, 0);
        buf.putInt(AT + BatchFraming.LENGTH_OFFSET, 48);
        assertThat(BatchFraming.invalidReason(buf, AT, buf.limit())).isEqualTo("batch length 48 is below the minimum 49");
        buf.putInt(AT + BatchFraming.LENGTH_OFFSET, -1);
        assertThat(BatchFraming.invalidReason(buf, AT, buf.limit())).isEqualTo("batch length -1 is below the minimum 49");
        buf.putInt(AT + BatchFraming.LENGTH_OFFSET, 49);
        // In bounds, so the length check passes; the shortened batch fails its CRC.
        assertThat(BatchFraming.invalidReason(buf, AT, buf.limit())).startsWith("CRC mismatch");
        buf.putInt(AT + BatchFraming.LENGTH_OFFSET, Integer.MAX_VALUE);
        assertThat(BatchFraming.invalidReason(buf, AT, buf.limit())).as("no int overflow in the bound")
                .startsWith("batch length 2147483647 runs past the end");
    }

    @Test
    @DisplayName("LOG-7 framing: a batch ending exactly at the limit is whole; one byte short runs past the end")
    void log7BatchEndingAtTheLimit() {
        ByteBuffer buf = batchAt(0, 2, 5);
        int size = size(buf);
        assertThat(BatchFraming.invalidReason(buf, AT, AT + size)).isNull();
        assertThat(BatchFraming.invalidReason(buf, AT, buf.limit())).as("bytes after it are not its concern").isNull();
        int length = size - BatchFraming.LOG_OVERHEAD;
        assertThat(BatchFraming.invalidReason(buf, AT, AT + size - 1))
                .isEqualTo("batch length " + length + " runs past the end (" + (length - 1) + " bytes available)");
    }

    @Test
    @DisplayName("LOG-7 framing: magic other than 2 and a CRC mismatch are named")
    void log7MagicAndCrc() {
        ByteBuffer buf = batchAt(0, 2, 0);
        buf.put(AT + BatchFraming.MAGIC_OFFSET, (byte) 1);
        assertThat(BatchFraming.invalidReason(buf, AT, buf.limit())).isEqualTo("magic 1 is not 2");

        ByteBuffer flipped = batchAt(0, 2, 0);
        int last = flipped.limit() - 1;
        flipped.put(last, (byte) (flipped.get(last) ^ 0x10));
        long stored = BatchFraming.storedCrc(flipped, AT);
        long computed = BatchFraming.computeCrc(flipped, AT, size(flipped));
        assertThat(computed).isNotEqualTo(stored);
        assertThat(BatchFraming.invalidReason(flipped, AT, flipped.limit()))
                .isEqualTo("CRC mismatch: stored " + stored + ", computed " + computed);
    }

    /** Sets the record count and lastOffsetDelta of the batch and re-signs it, so only their consistency is judged. */
    private static String withCountAndDelta(int count, int lastOffsetDelta) {
        ByteBuffer buf = batchAt(0, 3, 0);
        buf.putInt(AT + BatchFraming.RECORD_COUNT_OFFSET, count);
        buf.putInt(AT + BatchFraming.LAST_OFFSET_DELTA_OFFSET, lastOffsetDelta);
        BatchFraming.rewriteCrc(buf, AT, size(buf));
        return BatchFraming.invalidReason(buf, AT, buf.limit());
    }

    @Test
    @DisplayName("LOG-7 framing: the record count must fit lastOffsetDelta (at most delta + 1; 0 only with delta 0; neither negative)")
    void log7RecordCountConsistentWithLastOffsetDelta() {
        assertThat(withCountAndDelta(3, 2)).isNull();
        assertThat(withCountAndDelta(2, 2)).as("fewer records than offsets (compacted)").isNull();
        assertThat(withCountAndDelta(1, 2)).isNull();
        assertThat(withCountAndDelta(0, 0)).as("an empty batch").isNull();
        assertThat(withCountAndDelta(4, 2)).isEqualTo("record count 4 is inconsistent with lastOffsetDelta 2");
        assertThat(withCountAndDelta(0, 1)).isEqualTo("record count 0 is inconsistent with lastOffsetDelta 1");
        assertThat(withCountAndDelta(1, -1)).isEqualTo("record count 1 is inconsistent with lastOffsetDelta -1");
        assertThat(withCountAndDelta(-1, 2)).isEqualTo("record count -1 is inconsistent with lastOffsetDelta 2");
        assertThat(withCountAndDelta(Integer.MIN_VALUE, Integer.MAX_VALUE)).as("no overflow of delta + 1")
                .startsWith("record count -2147483648");
        assertThat(withCountAndDelta(Integer.MAX_VALUE, Integer.MAX_VALUE - 1)).isNull();
    }
}
