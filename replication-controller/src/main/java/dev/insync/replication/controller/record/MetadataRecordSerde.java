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

package dev.insync.replication.controller.record;

import dev.insync.replication.core.metadata.Endpoint;
import dev.insync.replication.log.TopicPartition;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.zip.CRC32C;

/**
 * The binary encoding of one {@link MetadataRecord} (CTL-2), described byte by byte in
 * docs/metadata-format.md. A record frame is
 * <pre>
 *   size    int32   bytes after this field (crc .. end), 6 to {@link #MAX_RECORD_BYTES}
 *   crc     uint32  CRC-32C of everything after this field
 *   type    int8    {@link MetadataRecordType#id()}
 *   version int8    0 .. {@link MetadataRecordType#latestVersion()}
 *   body    the type's fields at that version, big-endian
 * </pre>
 * Decoding checks, in this order: the frame fits the buffer, the CRC, the type, the version, the
 * body (every length bounded, booleans 0 or 1, strings valid UTF-8, nothing left over) and the
 * record's own rules. Any failure is a {@link MetadataFormatException} naming the offset; no
 * corruption or truncation decodes to a different record.
 */
public final class MetadataRecordSerde {

    /** Size and CRC fields. */
    public static final int FRAME_OVERHEAD_BYTES = 8;
    /** Bound on one frame's {@code size} field. */
    public static final int MAX_RECORD_BYTES = 4 * 1024 * 1024;

    private static final int MIN_SIZE = 4 + 2; // crc, type, version
    private static final int FLAG_UNCLEAN = 1;
    private static final int FLAG_FENCED = 2;
    private static final int FLAG_SHUTDOWN = 4;
    private static final int FLAG_EVER_UNFENCED = 8;
    private static final int KNOWN_FLAGS = FLAG_UNCLEAN | FLAG_FENCED | FLAG_SHUTDOWN | FLAG_EVER_UNFENCED;

    private MetadataRecordSerde() {
    }

    /** The record's frame. */
    public static byte[] encode(MetadataRecord record) {
        Body body = new Body();
        body.int8(record.type().id());
        body.int8(record.type().latestVersion());
        writeBody(record, body);
        int size = 4 + body.length;
        if (size > MAX_RECORD_BYTES) {
            throw new IllegalArgumentException("Encoded " + record.type() + " record has " + size + " bytes, at most "
                    + MAX_RECORD_BYTES + " allowed");
        }
        ByteBuffer frame = ByteBuffer.allocate(4 + size);
        frame.putInt(size);
        CRC32C crc = new CRC32C();
        crc.update(body.bytes, 0, body.length);
        frame.putInt((int) crc.getValue());
        frame.put(body.bytes, 0, body.length);
        return frame.array();
    }

    /**
     * Decodes the one frame that {@code frame} must hold exactly.
     *
     * @param offset the record's log offset, for error messages
     */
    public static MetadataRecord decode(byte[] frame, long offset) {
        ByteBuffer buffer = ByteBuffer.wrap(frame);
        MetadataRecord record = read(buffer, "offset " + offset);
        if (buffer.hasRemaining()) {
            throw new MetadataFormatException("Metadata record at offset " + offset + ": " + buffer.remaining()
                    + " bytes after the frame");
        }
        return record;
    }

    /**
     * Reads one frame at the buffer's position and moves past it.
     *
     * @param where names the record in error messages, e.g. {@code "offset 42"}
     */
    public static MetadataRecord read(ByteBuffer buffer, String where) {
        if (buffer.remaining() < 4) {
            throw new MetadataFormatException("Metadata record at " + where + ": truncated before its size field ("
                    + buffer.remaining() + " bytes left)");
        }
        int size = buffer.getInt();
        if (size < MIN_SIZE || size > MAX_RECORD_BYTES) {
            throw new MetadataFormatException("Metadata record at " + where + ": size " + size + " outside [" + MIN_SIZE
                    + ", " + MAX_RECORD_BYTES + "]");
        }
        if (buffer.remaining() < size) {
            throw new MetadataFormatException("Metadata record at " + where + ": truncated, size " + size + " but "
                    + buffer.remaining() + " bytes left");
        }
        int storedCrc = buffer.getInt();
        ByteBuffer body = buffer.slice(buffer.position(), size - 4);
        buffer.position(buffer.position() + size - 4);
        CRC32C crc = new CRC32C();
        crc.update(body.duplicate());
        if ((int) crc.getValue() != storedCrc) {
            throw new MetadataFormatException("Metadata record at " + where + ": CRC mismatch (stored "
                    + Integer.toUnsignedString(storedCrc, 16) + ", computed " + Long.toHexString(crc.getValue()) + ")");
        }
        int typeId = body.get();
        MetadataRecordType type = MetadataRecordType.fromId(typeId);
        if (type == null) {
            throw new MetadataFormatException("Metadata record at " + where + ": unknown record type " + typeId);
        }
        int version = body.get();
        if (version < 0 || version > type.latestVersion()) {
            throw new MetadataFormatException("Metadata record at " + where + ": " + type + " version " + version
                    + " is unknown (this build reads 0 to " + type.latestVersion() + ")");
        }
        MetadataRecord record;
        try {
            record = readBody(type, version, new Reader(body));
        } catch (BufferUnderflowException e) {
            throw new MetadataFormatException("Metadata record at " + where + ": " + type + " body is truncated", e);
        } catch (IllegalArgumentException e) {
            throw new MetadataFormatException("Metadata record at " + where + ": invalid " + type + ": " + e.getMessage(), e);
        }
        if (body.hasRemaining()) {
            throw new MetadataFormatException("Metadata record at " + where + ": " + body.remaining() + " bytes after the "
                    + type + " body");
        }
        return record;
    }

    // ------------------------------------------------------------------------------------ bodies

    private static void writeBody(MetadataRecord record, Body out) {
        switch (record.type()) {
            case REGISTER_BROKER -> {
                RegisterBrokerRecord r = (RegisterBrokerRecord) record;
                out.int32(r.brokerId());
                out.int64(r.brokerEpoch());
                out.int64(r.previousBrokerEpoch());
                out.int8((r.uncleanRestart() ? FLAG_UNCLEAN : 0) | (r.fenced() ? FLAG_FENCED : 0)
                        | (r.inControlledShutdown() ? FLAG_SHUTDOWN : 0) | (r.everUnfenced() ? FLAG_EVER_UNFENCED : 0));
                // Version 1: the advertised listeners (LDR-4).
                out.int16(r.endpoints().size());
                for (Endpoint e : r.endpoints()) {
                    out.string(e.listenerName());
                    out.string(e.securityProtocol());
                    out.string(e.host());
                    out.int32(e.port());
                }
            }
            case FENCE_BROKER -> {
                FenceBrokerRecord r = (FenceBrokerRecord) record;
                out.int32(r.brokerId());
                out.int64(r.brokerEpoch());
            }
            case UNFENCE_BROKER -> {
                UnfenceBrokerRecord r = (UnfenceBrokerRecord) record;
                out.int32(r.brokerId());
                out.int64(r.brokerEpoch());
            }
            case BROKER_SHUTDOWN -> {
                BrokerShutdownRecord r = (BrokerShutdownRecord) record;
                out.int32(r.brokerId());
                out.int64(r.brokerEpoch());
            }
            case REPLICAS_OFFLINE -> {
                ReplicasOfflineRecord r = (ReplicasOfflineRecord) record;
                out.int32(r.brokerId());
                out.int64(r.brokerEpoch());
                out.int32(r.partitions().size());
                for (TopicPartition tp : r.partitions()) {
                    out.string(tp.topic());
                    out.int32(tp.partition());
                }
            }
            case TOPIC -> {
                TopicRecord r = (TopicRecord) record;
                out.string(r.name());
                out.int32(r.partitionCount());
                // Version 1: the topic id.
                out.uuid(r.topicId());
            }
            case PARTITION -> {
                PartitionRecord r = (PartitionRecord) record;
                out.string(r.topicPartition().topic());
                out.int32(r.topicPartition().partition());
                out.ints(r.replicas());
                out.ints(r.isr());
                out.ints(r.elr());
                out.ints(r.lastKnownElr());
                out.int32(r.leader());
                out.int32(r.leaderEpoch());
                out.int32(r.partitionEpoch());
                out.int8(r.leaderRecoveryState().value());
            }
            case PARTITION_CHANGE -> {
                PartitionChangeRecord r = (PartitionChangeRecord) record;
                out.string(r.topicPartition().topic());
                out.int32(r.topicPartition().partition());
                out.int32(r.leader());
                out.int32(r.leaderEpoch());
                out.int32(r.partitionEpoch());
                out.ints(r.isr());
                out.ints(r.elr());
                out.ints(r.lastKnownElr());
                out.int8(r.leaderRecoveryState().value());
            }
            case CONFIG -> {
                ConfigRecord r = (ConfigRecord) record;
                out.string(r.topic());
                out.string(r.name());
                out.string(r.value());
            }
            case REMOVE_TOPIC -> {
                RemoveTopicRecord r = (RemoveTopicRecord) record;
                out.string(r.name());
                out.uuid(r.topicId());
            }
            default -> throw new IllegalStateException("No encoding for " + record.type());
        }
    }

    private static MetadataRecord readBody(MetadataRecordType type, int version, Reader in) {
        return switch (type) {
            case REGISTER_BROKER -> {
                int brokerId = in.int32();
                long epoch = in.int64();
                long previous = in.int64();
                int flags = in.int8();
                if ((flags & ~KNOWN_FLAGS) != 0) {
                    throw new IllegalArgumentException("unknown flag bits " + Integer.toBinaryString(flags & 0xff));
                }
                // Version 0 has no endpoints: such a broker is known, just not reachable through metadata.
                List<Endpoint> endpoints = version >= 1 ? endpoints(in) : List.of();
                yield new RegisterBrokerRecord(brokerId, epoch, previous, (flags & FLAG_UNCLEAN) != 0,
                        (flags & FLAG_FENCED) != 0, (flags & FLAG_SHUTDOWN) != 0, (flags & FLAG_EVER_UNFENCED) != 0,
                        endpoints);
            }
            case FENCE_BROKER -> new FenceBrokerRecord(in.int32(), in.int64());
            case UNFENCE_BROKER -> new UnfenceBrokerRecord(in.int32(), in.int64());
            case BROKER_SHUTDOWN -> new BrokerShutdownRecord(in.int32(), in.int64());
            case REPLICAS_OFFLINE -> {
                int brokerId = in.int32();
                long epoch = in.int64();
                int count = in.count(ReplicasOfflineRecord.MAX_PARTITIONS, 2 + 4);
                List<TopicPartition> partitions = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    partitions.add(new TopicPartition(in.string(), in.int32()));
                }
                yield new ReplicasOfflineRecord(brokerId, epoch, partitions);
            }
            case TOPIC -> {
                String name = in.string();
                int partitionCount = in.int32();
                yield version >= 1 ? new TopicRecord(name, partitionCount, in.uuid()) : new TopicRecord(name, partitionCount);
            }
            case PARTITION -> {
                TopicPartition tp = new TopicPartition(in.string(), in.int32());
                List<Integer> replicas = in.ints();
                List<Integer> isr = in.ints();
                List<Integer> elr = in.ints();
                List<Integer> lastKnownElr = in.ints();
                int leader = in.int32();
                int leaderEpoch = in.int32();
                int partitionEpoch = in.int32();
                LeaderRecoveryState recovery = LeaderRecoveryState.fromValue(in.int8());
                yield new PartitionRecord(tp, replicas, isr, elr, lastKnownElr, leader, leaderEpoch, partitionEpoch, recovery);
            }
            case PARTITION_CHANGE -> {
                TopicPartition tp = new TopicPartition(in.string(), in.int32());
                int leader = in.int32();
                int leaderEpoch = in.int32();
                int partitionEpoch = in.int32();
                List<Integer> isr = in.ints();
                List<Integer> elr = in.ints();
                List<Integer> lastKnownElr = in.ints();
                LeaderRecoveryState recovery = LeaderRecoveryState.fromValue(in.int8());
                yield new PartitionChangeRecord(tp, leader, leaderEpoch, partitionEpoch, isr, elr, lastKnownElr, recovery);
            }
            case CONFIG -> new ConfigRecord(in.string(), in.string(), in.string());
            case REMOVE_TOPIC -> new RemoveTopicRecord(in.string(), in.uuid());
        };
    }

    /** {@code int16} count (0..{@link Endpoint#MAX_ENDPOINTS}), then per endpoint name, security protocol, host, port. */
    private static List<Endpoint> endpoints(Reader in) {
        int count = in.int16();
        // Each endpoint is three strings of at least one byte and a port: 2 + 1 three times, then 4.
        if (count < 0 || count > Endpoint.MAX_ENDPOINTS || count * 13L > in.remaining()) {
            throw new IllegalArgumentException("endpoint count " + count + " is out of bounds");
        }
        List<Endpoint> endpoints = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            endpoints.add(new Endpoint(in.string(), in.string(), in.string(), in.int32()));
        }
        return endpoints;
    }

    // ------------------------------------------------------------------------------------ primitives

    /** A growing big-endian byte array. */
    private static final class Body {
        byte[] bytes = new byte[64];
        int length;

        private void ensure(int n) {
            if (length + n > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + n));
            }
        }

        void int8(int v) {
            ensure(1);
            bytes[length++] = (byte) v;
        }

        void int16(int v) {
            ensure(2);
            bytes[length++] = (byte) (v >>> 8);
            bytes[length++] = (byte) v;
        }

        void int32(int v) {
            ensure(4);
            for (int shift = 24; shift >= 0; shift -= 8) {
                bytes[length++] = (byte) (v >>> shift);
            }
        }

        void int64(long v) {
            ensure(8);
            for (int shift = 56; shift >= 0; shift -= 8) {
                bytes[length++] = (byte) (v >>> shift);
            }
        }

        void string(String s) {
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            if (utf8.length > Short.MAX_VALUE) {
                throw new IllegalArgumentException("String of " + utf8.length + " bytes is too long for a metadata record");
            }
            int16(utf8.length);
            ensure(utf8.length);
            System.arraycopy(utf8, 0, bytes, length, utf8.length);
            length += utf8.length;
        }

        void ints(List<Integer> values) {
            int16(values.size());
            values.forEach(this::int32);
        }

        void uuid(UUID id) {
            int64(id.getMostSignificantBits());
            int64(id.getLeastSignificantBits());
        }
    }

    /** Bounded reads from a record body; underflow surfaces as {@link BufferUnderflowException}. */
    private static final class Reader {
        private final ByteBuffer in;

        Reader(ByteBuffer in) {
            this.in = in;
        }

        int int8() {
            return in.get();
        }

        int int16() {
            return in.getShort();
        }

        int remaining() {
            return in.remaining();
        }

        int int32() {
            return in.getInt();
        }

        long int64() {
            return in.getLong();
        }

        UUID uuid() {
            return new UUID(in.getLong(), in.getLong());
        }

        /** A count of at most {@code max} elements, each at least {@code minElementBytes} long. */
        int count(int max, int minElementBytes) {
            int count = in.getInt();
            if (count < 0 || count > max || (long) count * minElementBytes > in.remaining()) {
                throw new IllegalArgumentException("element count " + count + " is out of bounds");
            }
            return count;
        }

        String string() {
            int length = in.getShort();
            if (length < 0 || length > in.remaining()) {
                throw new IllegalArgumentException("string length " + length + " is out of bounds");
            }
            ByteBuffer utf8 = in.slice(in.position(), length);
            in.position(in.position() + length);
            CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT);
            try {
                CharBuffer chars = decoder.decode(utf8);
                return chars.toString();
            } catch (CharacterCodingException e) {
                throw new IllegalArgumentException("string is not valid UTF-8");
            }
        }

        List<Integer> ints() {
            int count = in.getShort();
            if (count < 0 || count > RecordChecks.MAX_REPLICAS || count * 4 > in.remaining()) {
                throw new IllegalArgumentException("broker id list length " + count + " is out of bounds");
            }
            List<Integer> values = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                values.add(in.getInt());
            }
            return values;
        }
    }
}
