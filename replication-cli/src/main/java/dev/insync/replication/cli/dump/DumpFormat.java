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

package dev.insync.replication.cli.dump;

import dev.insync.replication.log.record.CompressionType;
import dev.insync.replication.log.record.Header;
import dev.insync.replication.log.record.Record;
import dev.insync.replication.log.record.RecordBatch;
import dev.insync.replication.log.record.TimestampType;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;
import java.util.StringJoiner;

/**
 * The text of {@code kafka-dump-log.sh} (Kafka 4.x), field for field, so dumps of our segments and
 * Kafka's can be diffed: one line per batch, and with deep iteration one {@code |}-prefixed line
 * per record. Keys and values are printed as UTF-8 text, as Kafka's default string decoder does.
 */
final class DumpFormat {

    /** Kafka's attribute bit 6: the batch's base timestamp is the delete horizon (compaction). */
    static final int DELETE_HORIZON_FLAG_MASK = 0x40;
    private static final String[] CONTROL_TYPES = {"ABORT", "COMMIT", "LEADER_CHANGE", "SNAPSHOT_HEADER",
        "SNAPSHOT_FOOTER", "KRAFT_VERSION", "KRAFT_VOTERS"};

    private DumpFormat() {
    }

    /** {@code baseOffset: .. isvalid: ..} for the batch starting at {@code position}. */
    static String batchLine(RecordBatch batch, long position) {
        return "baseOffset: " + batch.baseOffset() + " lastOffset: " + batch.lastOffset()
                + " count: " + batch.recordCount()
                + " baseSequence: " + batch.baseSequence() + " lastSequence: " + lastSequence(batch)
                + " producerId: " + batch.producerId() + " producerEpoch: " + batch.producerEpoch()
                + " partitionLeaderEpoch: " + batch.partitionLeaderEpoch()
                + " isTransactional: " + batch.isTransactional() + " isControl: " + batch.isControlBatch()
                + " deleteHorizonMs: " + deleteHorizonMs(batch)
                + " position: " + position + " " + timestampTypeName(batch.timestampType()) + ": " + batch.maxTimestamp()
                + " size: " + batch.sizeInBytes() + " magic: " + batch.magic()
                + " compresscodec: " + codecName(batch.compressionCodec())
                + " crc: " + batch.checksum() + " isvalid: " + batch.isValid();
    }

    /**
     * One record's line: {@code | offset: .. headerKeys: [..]} (unless {@code skipMetadata}), the
     * control record description for a control batch, then with {@code printData} the key and
     * payload as text (never for control records, which are not data).
     *
     * @throws IllegalArgumentException naming the offset if a control record's key is malformed
     */
    static String recordLine(RecordBatch batch, Record record, boolean skipMetadata, boolean printData) {
        StringBuilder line = new StringBuilder();
        String separator = "| ";
        if (!skipMetadata) {
            line.append("| offset: ").append(record.offset())
                    .append(' ').append(timestampTypeName(batch.timestampType())).append(": ").append(record.timestamp())
                    .append(" keySize: ").append(sizeOf(record.key()))
                    .append(" valueSize: ").append(sizeOf(record.value()));
            separator = " ";
            int offsetDelta = (int) (record.offset() - batch.baseOffset());
            int sequence = batch.baseSequence() >= 0
                    ? incrementSequence(batch.baseSequence(), offsetDelta) : RecordBatch.NO_SEQUENCE;
            StringJoiner keys = new StringJoiner(",", "[", "]");
            for (Header h : record.headers()) {
                keys.add(h.key());
            }
            line.append(" sequence: ").append(sequence).append(" headerKeys: ").append(keys);
            if (batch.isControlBatch()) {
                line.append(controlDescription(record));
            }
        }
        if (printData && !batch.isControlBatch()) {
            if (record.key() != null) {
                line.append(separator).append("key: ").append(text(record.key()));
            }
            if (record.value() != null) {
                line.append(" payload: ").append(text(record.value()));
            }
        }
        return line.toString();
    }

    /**
     * What a control record says: {@code endTxnMarker: COMMIT coordinatorEpoch: 3} for a transaction
     * marker, else {@code controlType: NAME(id)}. Kafka prints the KRaft snapshot and voter records
     * as JSON; reading those is beyond this library, so they get the generic form.
     */
    private static String controlDescription(Record record) {
        ByteBuffer key = record.key();
        if (key == null || key.remaining() < 4) {
            throw new IllegalArgumentException("Control record at offset " + record.offset() + " has a "
                    + (key == null ? "null" : key.remaining() + "-byte") + " key; a control key is version int16 + type int16");
        }
        short version = key.getShort(key.position());
        short typeId = key.getShort(key.position() + 2);
        if (version < 0) {
            throw new IllegalArgumentException("Control record at offset " + record.offset()
                    + " has a negative key version " + version);
        }
        String type = typeId >= 0 && typeId < CONTROL_TYPES.length ? CONTROL_TYPES[typeId] : "UNKNOWN";
        if (typeId == 0 || typeId == 1) {
            ByteBuffer value = record.value();
            if (value == null || value.remaining() < 6) {
                throw new IllegalArgumentException("Transaction marker at offset " + record.offset()
                        + " has a value too short for version int16 + coordinatorEpoch int32");
            }
            return " endTxnMarker: " + type + " coordinatorEpoch: " + value.getInt(value.position() + 2);
        }
        return " controlType: " + type + "(" + typeId + ")";
    }

    /** Kafka's name of a timestamp type, as in its dumps and its TimestampType.toString(). */
    static String timestampTypeName(TimestampType type) {
        return type == TimestampType.LOG_APPEND_TIME ? "LogAppendTime" : "CreateTime";
    }

    /** Kafka's name (none, gzip, snappy, lz4, zstd); an id beyond those is printed as {@code unknown(id)}. */
    static String codecName(int codec) {
        return isKnownCodec(codec) ? CompressionType.forId(codec).codecName() : "unknown(" + codec + ")";
    }

    /** Whether {@link #codecName} knows the codec id. */
    static boolean isKnownCodec(int codec) {
        return codec >= CompressionType.NONE.id() && codec <= CompressionType.ZSTD.id();
    }

    /** {@code OptionalLong[baseTimestamp]} when the delete-horizon bit is set, else {@code OptionalLong.empty}. */
    static OptionalLong deleteHorizonMs(RecordBatch batch) {
        return (batch.attributes() & DELETE_HORIZON_FLAG_MASK) != 0
                ? OptionalLong.of(batch.baseTimestamp()) : OptionalLong.empty();
    }

    /** The producer sequence of the batch's last record, wrapping past Integer.MAX_VALUE to 0. */
    static int lastSequence(RecordBatch batch) {
        int base = batch.baseSequence();
        return base == RecordBatch.NO_SEQUENCE ? RecordBatch.NO_SEQUENCE : incrementSequence(base, batch.lastOffsetDelta());
    }

    /** Sequences wrap from Integer.MAX_VALUE to 0 (Kafka's producer-state rule). */
    static int incrementSequence(int sequence, int increment) {
        if (sequence > Integer.MAX_VALUE - increment) {
            return increment - (Integer.MAX_VALUE - sequence) - 1;
        }
        return sequence + increment;
    }

    private static int sizeOf(ByteBuffer bytes) {
        return bytes == null ? -1 : bytes.remaining();
    }

    private static String text(ByteBuffer bytes) {
        byte[] b = new byte[bytes.remaining()];
        bytes.duplicate().get(b);
        return new String(b, StandardCharsets.UTF_8);
    }
}
