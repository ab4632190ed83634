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
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** LOG-5: every kind of bad input gets its exact error and a message naming where it is. */
class RecordsValidatorTest {

    private static final TopicPartition TP = new TopicPartition("orders", 3);
    private static final long BASE = 40;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A writable copy of a three-record batch at offset {@link #BASE}; record timestamps 100, 300, 200. */
    private static ByteBuffer batchBytes() {
        MemoryRecords records = new RecordBatchBuilder(BASE).partitionLeaderEpoch(2)
                .append(100, b("k0"), b("v0"))
                .append(300, b("k1"), b("v1"), List.of(new Header("h", b("x"))))
                .append(200, null, b("v2"))
                .build();
        ByteBuffer copy = ByteBuffer.allocate(records.sizeInBytes());
        copy.put(records.buffer()).flip();
        return copy;
    }

    /** Recomputes the CRC so that a test reaches the check after the CRC. */
    private static ByteBuffer fixCrc(ByteBuffer buf, int batchStart) {
        int size = buf.getInt(batchStart + RecordBatch.LENGTH_OFFSET) + RecordBatch.LOG_OVERHEAD;
        CRC32C crc = new CRC32C();
        crc.update(buf.duplicate().limit(batchStart + size).position(batchStart + RecordBatch.ATTRIBUTES_OFFSET));
        buf.putInt(batchStart + RecordBatch.CRC_OFFSET, (int) crc.getValue());
        return buf;
    }

    private static AbstractThrowableAssert<?, ? extends Throwable> assertRejected(ByteBuffer buf, int max, Errors error) {
        byte[] before = new byte[buf.remaining()];
        buf.duplicate().get(before);
        MemoryRecords records = MemoryRecords.readableRecords(buf);
        AbstractThrowableAssert<?, ? extends Throwable> a = assertThatThrownBy(() -> RecordsValidator.validate(records, max, TP))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(error))
                .hasMessageContaining(TP.toString());
        byte[] after = new byte[buf.remaining()];
        buf.duplicate().get(after);
        assertThat(after).as("validation must not change the input").isEqualTo(before);
        return a;
    }

    private static AbstractThrowableAssert<?, ? extends Throwable> assertCorrupt(ByteBuffer buf) {
        return assertRejected(buf, Integer.MAX_VALUE, Errors.CORRUPT_MESSAGE);
    }

    /** Position of the first byte of record {@code index}'s body in {@link #batchBytes()}. */
    private static int recordStart(ByteBuffer buf, int index) {
        int pos = RecordBatch.RECORDS_OFFSET;
        for (int i = 0; i < index; i++) {
            Varint.Cursor c = new Varint.Cursor(buf, pos, buf.limit(), 0L);
            int len = c.readVarint("len");
            pos = c.pos + len;
        }
        return pos;
    }

    @Test
    @DisplayName("LOG-5 a valid input yields a summary of batches, offsets, records, timestamps and size")
    void validSummary() {
        MemoryRecords a = new RecordBatchBuilder(10).append(5, null, b("a")).append(9, null, b("b")).build();
        MemoryRecords c = new RecordBatchBuilder(12).append(7, null, b("c")).build();
        MemoryRecords both = MemoryRecords.concat(List.of(a, c));
        RecordsSummary s = RecordsValidator.validate(both, a.sizeInBytes(), TP);
        assertThat(s).isEqualTo(new RecordsSummary(2, 10, 12, 3, 9, 11, both.sizeInBytes(), true));
        assertThat(RecordsValidator.validate(MemoryRecords.EMPTY, 100, TP))
                .isEqualTo(new RecordsSummary(0, -1, -1, 0, RecordBatch.NO_TIMESTAMP, -1, 0, true));
    }

    @Test
    @DisplayName("LOG-5 offsets that do not increase between batches are reported, not rejected, by the summary")
    void nonMonotonicFlagged() {
        MemoryRecords both = MemoryRecords.concat(List.of(
                MemoryRecords.withRecords(5, 0, new SimpleRecord(1, null, b("a"))),
                MemoryRecords.withRecords(5, 0, new SimpleRecord(1, null, b("b")))));
        assertThat(RecordsValidator.validate(both, Integer.MAX_VALUE, TP).offsetsMonotonic()).isFalse();
    }

    @Test
    @DisplayName("LOG-5 a CRC mismatch is CORRUPT_MESSAGE naming position and base offset")
    void crcMismatch() {
        ByteBuffer buf = batchBytes();
        int last = buf.limit() - 1;
        buf.put(last, (byte) (buf.get(last) ^ 0x01));
        assertCorrupt(buf).hasMessageContaining("position 0").hasMessageContaining("base offset " + BASE)
                .hasMessageContaining("CRC");
    }

    @Test
    @DisplayName("LOG-5 a batch bigger than max.message.bytes is MESSAGE_TOO_LARGE; exactly the limit passes")
    void tooLarge() {
        ByteBuffer buf = batchBytes();
        int size = buf.remaining();
        assertThat(RecordsValidator.validate(MemoryRecords.readableRecords(buf), size, TP).batchCount()).isEqualTo(1);
        assertRejected(buf, size - 1, Errors.MESSAGE_TOO_LARGE).hasMessageContaining("position 0")
                .hasMessageContaining("base offset " + BASE).hasMessageContaining(String.valueOf(size - 1));
    }

    @Test
    @DisplayName("LOG-5 a truncated batch is CORRUPT_MESSAGE naming the position")
    void truncatedBatch() {
        ByteBuffer buf = batchBytes();
        assertCorrupt(buf.limit(buf.limit() - 1)).hasMessageContaining("Truncated").hasMessageContaining("position 0");
        assertCorrupt(batchBytes().limit(10)).hasMessageContaining("Truncated").hasMessageContaining("position 0");
    }

    @Test
    @DisplayName("LOG-5 a truncated second batch names its own position")
    void truncatedSecondBatch() {
        ByteBuffer one = batchBytes();
        int size = one.remaining();
        ByteBuffer two = ByteBuffer.allocate(2 * size - 5);
        two.put(one.duplicate()).put(one.duplicate().limit(size - 5)).flip();
        assertCorrupt(two).hasMessageContaining("position " + size);
    }

    @Test
    @DisplayName("LOG-5 batchLength beyond the buffer is CORRUPT_MESSAGE")
    void lengthBeyondBuffer() {
        ByteBuffer buf = batchBytes();
        buf.putInt(RecordBatch.LENGTH_OFFSET, Integer.MAX_VALUE - 100);
        assertCorrupt(buf).hasMessageContaining("position 0").hasMessageContaining("declares");
    }

    @Test
    @DisplayName("LOG-5 a negative or below-header batchLength is CORRUPT_MESSAGE")
    void lengthTooSmall() {
        ByteBuffer neg = batchBytes();
        neg.putInt(RecordBatch.LENGTH_OFFSET, -5);
        assertCorrupt(neg).hasMessageContaining("position 0").hasMessageContaining("batchLength -5");
        ByteBuffer small = batchBytes();
        small.putInt(RecordBatch.LENGTH_OFFSET, 20);
        assertCorrupt(small).hasMessageContaining("position 0").hasMessageContaining("batchLength 20");
    }

    @Test
    @DisplayName("LOG-5 a magic other than 2 is CORRUPT_MESSAGE")
    void wrongMagic() {
        ByteBuffer buf = batchBytes();
        buf.put(RecordBatch.MAGIC_OFFSET, (byte) 1);
        assertCorrupt(buf).hasMessageContaining("position 0").hasMessageContaining("magic 1");
    }

    @Test
    @DisplayName("LOG-5 a record count disagreeing with lastOffsetDelta is CORRUPT_MESSAGE")
    void countVsLastOffsetDelta() {
        ByteBuffer buf = batchBytes();
        buf.putInt(RecordBatch.RECORDS_COUNT_OFFSET, 2);
        assertCorrupt(fixCrc(buf, 0)).hasMessageContaining("position 0").hasMessageContaining("record count 2")
                .hasMessageContaining("lastOffsetDelta 2");
        ByteBuffer zero = batchBytes();
        zero.putInt(RecordBatch.RECORDS_COUNT_OFFSET, 0);
        zero.putInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET, -1);
        assertCorrupt(fixCrc(zero, 0)).hasMessageContaining("record count 0");
    }

    @Test
    @DisplayName("LOG-5 a count matching lastOffsetDelta but not the records present is CORRUPT_MESSAGE")
    void countVsRecords() {
        ByteBuffer more = batchBytes();
        more.putInt(RecordBatch.RECORDS_COUNT_OFFSET, 4);
        more.putInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET, 3);
        assertCorrupt(fixCrc(more, 0)).hasMessageContaining("offset " + BASE).hasMessageContaining("position 0");
        ByteBuffer fewer = batchBytes();
        fewer.putInt(RecordBatch.RECORDS_COUNT_OFFSET, 2);
        fewer.putInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET, 1);
        assertCorrupt(fixCrc(fewer, 0)).hasMessageContaining("bytes left after the 2 records");
        ByteBuffer huge = batchBytes();
        huge.putInt(RecordBatch.RECORDS_COUNT_OFFSET, Integer.MAX_VALUE);
        huge.putInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET, Integer.MAX_VALUE - 1);
        assertCorrupt(fixCrc(huge, 0)).hasMessageContaining("claims " + Integer.MAX_VALUE + " records");
    }

    @Test
    @DisplayName("LOG-5 a record length running past the batch is CORRUPT_MESSAGE")
    void recordLengthPastEnd() {
        ByteBuffer buf = batchBytes();
        int r2 = recordStart(buf, 2);
        buf.put(r2, (byte) 0x7e); // zig-zag 63: far more bytes than remain
        assertCorrupt(fixCrc(buf, 0)).hasMessageContaining("offset " + BASE).hasMessageContaining("record 2 (offset " + (BASE + 2) + ")");
    }

    @Test
    @DisplayName("LOG-5 a key length below -1 is CORRUPT_MESSAGE")
    void negativeKeyLength() {
        ByteBuffer buf = batchBytes();
        int r0 = recordStart(buf, 0);
        // body: length, attributes, timestampDelta(0), offsetDelta(0), key length (zig-zag 2 = 4)
        assertThat(buf.get(r0 + 4)).isEqualTo((byte) 4);
        buf.put(r0 + 4, (byte) 5); // zig-zag -3
        assertCorrupt(fixCrc(buf, 0)).hasMessageContaining("negative key length -3");
    }

    @Test
    @DisplayName("LOG-5 an over-long varint is CORRUPT_MESSAGE")
    void overlongVarint() {
        ByteBuffer buf = batchBytes();
        int r0 = recordStart(buf, 0);
        // overwrite timestampDelta..value with continuation bytes: the offsetDelta varint never ends
        for (int i = r0 + 3; i < r0 + 9; i++) {
            buf.put(i, (byte) 0x80);
        }
        assertCorrupt(fixCrc(buf, 0)).hasMessageContaining("longer than");
    }

    @Test
    @DisplayName("LOG-5 a record whose fields do not fill its declared length is CORRUPT_MESSAGE")
    void recordLengthMismatch() {
        ByteBuffer buf = batchBytes();
        int r0 = recordStart(buf, 0);
        // a key length one shorter leaves the value length reading a key byte: fields and length disagree
        buf.put(r0 + 4, (byte) 2);
        assertCorrupt(fixCrc(buf, 0)).hasMessageContaining("offset " + BASE);
    }

    @Test
    @DisplayName("LOG-5 a record offsetDelta that is not consecutive is INVALID_RECORD naming the offset")
    void nonConsecutiveOffsetDelta() {
        ByteBuffer buf = batchBytes();
        int r1 = recordStart(buf, 1);
        // body: length, attributes, timestampDelta (zig-zag 200 = 400: two bytes), offsetDelta
        assertThat(buf.get(r1 + 4)).isEqualTo((byte) 2);
        buf.put(r1 + 4, (byte) 4); // offsetDelta 2 where 1 is expected
        assertRejected(fixCrc(buf, 0), Integer.MAX_VALUE, Errors.INVALID_RECORD)
                .hasMessageContaining("offset " + (BASE + 2)).hasMessageContaining("record 1")
                .hasMessageContaining("position 0");
    }

    @Test
    @DisplayName("LOG-4 a follower's shallow validation checks framing, CRC and count but does not walk the records")
    void shallowValidationSkipsRecordWalk() {
        ByteBuffer buf = batchBytes();
        buf.put(recordStart(buf, 1) + 4, (byte) 4); // a record the leader would refuse, CRC fixed below
        MemoryRecords walkedWrong = MemoryRecords.readableRecords(fixCrc(buf, 0));
        RecordsSummary shallow = RecordsValidator.validateShallow(walkedWrong, TP);
        assertThat(shallow).isEqualTo(new RecordsSummary(1, BASE, BASE + 2, 3, 300, BASE + 2, buf.remaining(), true));
        assertThatThrownBy(() -> RecordsValidator.validate(walkedWrong, Integer.MAX_VALUE, TP))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.INVALID_RECORD));

        ByteBuffer corrupt = batchBytes();
        corrupt.put(corrupt.limit() - 1, (byte) (corrupt.get(corrupt.limit() - 1) ^ 0x01));
        assertThatThrownBy(() -> RecordsValidator.validateShallow(MemoryRecords.readableRecords(corrupt), TP))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.CORRUPT_MESSAGE))
                .hasMessageContaining("CRC");
        // A follower does not decompress: a batch flagged zstd whose data is not zstd passes (the leader refused
        // such input when it appended it); an unknown codec id does not.
        ByteBuffer zstd = batchBytes();
        zstd.putShort(RecordBatch.ATTRIBUTES_OFFSET, (short) 4);
        assertThat(RecordsValidator.validateShallow(MemoryRecords.readableRecords(fixCrc(zstd, 0)), TP).recordCount())
                .isEqualTo(3);
        ByteBuffer unknown = batchBytes();
        unknown.putShort(RecordBatch.ATTRIBUTES_OFFSET, (short) 7);
        assertThatThrownBy(() -> RecordsValidator.validateShallow(MemoryRecords.readableRecords(fixCrc(unknown, 0)), TP))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.CORRUPT_MESSAGE))
                .hasMessageContaining("codec id 7");
    }

    @Test
    @DisplayName("LOG-5 an unknown compression codec id is CORRUPT_MESSAGE; so is a known codec flag over data that is not that codec's")
    void codecs() {
        ByteBuffer unknown = batchBytes();
        unknown.putShort(RecordBatch.ATTRIBUTES_OFFSET, (short) 6);
        assertCorrupt(fixCrc(unknown, 0)).hasMessageContaining("codec id 6").hasMessageContaining("offset " + BASE);
        for (CompressionType type : List.of(CompressionType.GZIP, CompressionType.SNAPPY, CompressionType.LZ4,
                CompressionType.ZSTD)) {
            ByteBuffer flagged = batchBytes(); // uncompressed records under a codec flag: never read as records
            flagged.putShort(RecordBatch.ATTRIBUTES_OFFSET, (short) type.id());
            assertCorrupt(fixCrc(flagged, 0)).hasMessageContaining("corrupt " + type.codecName())
                    .hasMessageContaining("offset " + BASE).hasMessageContaining("position 0");
        }
    }

    @Test
    @DisplayName("LOG-5 MemoryRecords.batches and RecordBatch.wrap reject bad framing with CORRUPT_MESSAGE")
    void framingOnIteration() {
        ByteBuffer buf = batchBytes();
        buf.limit(buf.limit() - 3);
        assertThatThrownBy(() -> MemoryRecords.readableRecords(buf).batches())
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.CORRUPT_MESSAGE))
                .hasMessageContaining("position 0");
        assertThatThrownBy(() -> RecordBatch.wrap(buf))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.CORRUPT_MESSAGE))
                .hasMessageContaining("position 0");
        ByteBuffer magic = batchBytes();
        magic.put(RecordBatch.MAGIC_OFFSET, (byte) 0);
        assertThatThrownBy(() -> RecordBatch.batchSizeAt(magic, 0))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.CORRUPT_MESSAGE))
                .hasMessageContaining("position 0").hasMessageContaining("magic 0");
    }

    @Test
    @DisplayName("LOG-5 ensureValid names the offset of a batch whose CRC fails")
    void ensureValid() {
        ByteBuffer buf = batchBytes();
        buf.put(RecordBatch.ATTRIBUTES_OFFSET + 1, (byte) 0x08);
        RecordBatch batch = RecordBatch.wrap(buf);
        assertThat(batch.isValid()).isFalse();
        assertThatThrownBy(batch::ensureValid)
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.CORRUPT_MESSAGE))
                .hasMessageContaining("offset " + BASE);
    }
}
