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
 * The bytes of a {@link MetadataSnapshot} (docs/metadata-format.md):
 * <pre>
 *   magic        int32   0x494E5350 ("INSP")
 *   version      int16   0
 *   crc          uint32  CRC-32C of everything after this field
 *   lastOffset   int64   the last offset the snapshot includes (-1: empty state)
 *   recordCount  int32
 *   records      recordCount record frames ({@link MetadataRecordSerde})
 * </pre>
 * A damaged snapshot is an error naming what is wrong, never a different state.
 */
public final class MetadataSnapshotSerde {

    /** "INSP". */
    public static final int MAGIC = 0x494E5350;
    /** The snapshot format version this build writes and reads. */
    public static final short VERSION = 0;
    /** Bound on the records of one snapshot. */
    public static final int MAX_RECORDS = 100_000_000;
    private static final int HEADER_BYTES = 4 + 2 + 4 + 8 + 4;

    private MetadataSnapshotSerde() {
    }

    /** Encodes {@code snapshot}. */
    public static byte[] encode(MetadataSnapshot snapshot) {
        ByteArrayOutputStream records = new ByteArrayOutputStream();
        for (MetadataRecord record : snapshot.records()) {
            records.writeBytes(MetadataRecordSerde.encode(record));
        }
        ByteBuffer out = ByteBuffer.allocate(HEADER_BYTES + records.size());
        out.putInt(MAGIC);
        out.putShort(VERSION);
        out.putInt(0);
        out.putLong(snapshot.lastOffset());
        out.putInt(snapshot.records().size());
        out.put(records.toByteArray());
        CRC32C crc = new CRC32C();
        crc.update(out.array(), 10, out.capacity() - 10);
        out.putInt(6, (int) crc.getValue());
        return out.array();
    }

    /**
     * Decodes a snapshot that {@code bytes} holds exactly.
     *
     * @param source names the snapshot in error messages (e.g. its file)
     * @throws MetadataFormatException naming {@code source} and the problem
     */
    public static MetadataSnapshot decode(byte[] bytes, String source) {
        if (bytes.length < HEADER_BYTES) {
            throw new MetadataFormatException("Snapshot " + source + " truncated: " + bytes.length + " bytes");
        }
        ByteBuffer in = ByteBuffer.wrap(bytes);
        int magic = in.getInt();
        if (magic != MAGIC) {
            throw new MetadataFormatException("Snapshot " + source + " has magic " + Integer.toHexString(magic)
                    + ", not an Insync metadata snapshot");
        }
        short version = in.getShort();
        if (version != VERSION) {
            throw new MetadataFormatException("Snapshot " + source + " has version " + version + "; this build reads " + VERSION);
        }
        int storedCrc = in.getInt();
        CRC32C crc = new CRC32C();
        crc.update(bytes, 10, bytes.length - 10);
        if ((int) crc.getValue() != storedCrc) {
            throw new MetadataFormatException("Snapshot " + source + " CRC mismatch (stored "
                    + Integer.toUnsignedString(storedCrc, 16) + ", computed " + Long.toHexString(crc.getValue()) + ")");
        }
        long lastOffset = in.getLong();
        int count = in.getInt();
        if (lastOffset < -1 || count < 0 || count > MAX_RECORDS) {
            throw new MetadataFormatException("Snapshot " + source + " header is invalid: offset " + lastOffset + ", "
                    + count + " records");
        }
        List<MetadataRecord> records = new ArrayList<>(Math.min(count, 1024));
        for (int i = 0; i < count; i++) {
            records.add(MetadataRecordSerde.read(in, "snapshot " + source + " at offset " + lastOffset + ", entry " + i));
        }
        if (in.hasRemaining()) {
            throw new MetadataFormatException("Snapshot " + source + ": " + in.remaining() + " bytes after its last record");
        }
        return new MetadataSnapshot(lastOffset, records);
    }
}
