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

package dev.insync.replication.controller.log;

import dev.insync.replication.controller.record.MetadataFormatException;
import dev.insync.replication.controller.record.MetadataRecord;
import dev.insync.replication.controller.record.MetadataRecordSerde;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The bytes of one metadata batch as a replicated log stores it (docs/metadata-format.md):
 * <pre>
 *   magic        int8    0, the batch format version
 *   crc          uint32  CRC-32C of everything after this field
 *   epoch        int32   the leader epoch it was appended in
 *   baseOffset   int64   the offset its first record must get (the append's required base offset)
 *   recordCount  int32   1 .. {@link MetadataBatch#MAX_RECORDS}
 *   records      recordCount record frames ({@link MetadataRecordSerde})
 * </pre>
 */
public final class MetadataBatchSerde {

    /** The batch format version this build writes and reads. */
    public static final byte MAGIC = 0;
    private static final int HEADER_BYTES = 1 + 4 + 4 + 8 + 4;

    private MetadataBatchSerde() {
    }

    /** A decoded batch and the epoch it was appended in. */
    public record EpochBatch(int epoch, MetadataBatch batch) {
    }

    /** Encodes {@code batch} appended in {@code epoch}. */
    public static byte[] encode(int epoch, MetadataBatch batch) {
        ByteArrayOutputStream records = new ByteArrayOutputStream();
        for (MetadataRecord record : batch.records()) {
            records.writeBytes(MetadataRecordSerde.encode(record));
        }
        ByteBuffer out = ByteBuffer.allocate(HEADER_BYTES + records.size());
        out.put(MAGIC);
        out.putInt(0);
        out.putInt(epoch);
        out.putLong(batch.baseOffset());
        out.putInt(batch.records().size());
        out.put(records.toByteArray());
        CRC32C crc = new CRC32C();
        crc.update(out.array(), 5, out.capacity() - 5);
        out.putInt(1, (int) crc.getValue());
        return out.array();
    }

    /**
     * Decodes one batch that {@code bytes} holds exactly.
     *
     * @throws MetadataFormatException naming the offset: bad magic or CRC, truncation, a record
     *                                 that does not decode, trailing bytes
     */
    public static EpochBatch decode(byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        if (bytes.length < HEADER_BYTES) {
            throw new MetadataFormatException("Metadata batch truncated: " + bytes.length + " bytes, the header needs "
                    + HEADER_BYTES);
        }
        byte magic = in.get();
        if (magic != MAGIC) {
            throw new MetadataFormatException("Metadata batch has format version " + magic + "; this build reads " + MAGIC);
        }
        int storedCrc = in.getInt();
        CRC32C crc = new CRC32C();
        crc.update(bytes, 5, bytes.length - 5);
        if ((int) crc.getValue() != storedCrc) {
            throw new MetadataFormatException("Metadata batch CRC mismatch (stored " + Integer.toUnsignedString(storedCrc, 16)
                    + ", computed " + Long.toHexString(crc.getValue()) + ")");
        }
        int epoch = in.getInt();
        long baseOffset = in.getLong();
        int count = in.getInt();
        if (baseOffset < 0 || count < 1 || count > MetadataBatch.MAX_RECORDS) {
            throw new MetadataFormatException("Metadata batch at offset " + baseOffset + " has " + count + " records");
        }
        List<MetadataRecord> records = new ArrayList<>(Math.min(count, 1024));
        for (int i = 0; i < count; i++) {
            records.add(MetadataRecordSerde.read(in, "offset " + (baseOffset + i)));
        }
        if (in.hasRemaining()) {
            throw new MetadataFormatException("Metadata batch at offset " + baseOffset + ": " + in.remaining()
                    + " bytes after its last record");
        }
        return new EpochBatch(epoch, new MetadataBatch(baseOffset, records));
    }
}
