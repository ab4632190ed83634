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

import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

class MetadataRecordSerdeTest {

    @Test
    @DisplayName("CTL-2 property: every random record of every type decodes to itself")
    void roundTrip() {
        qt().withExamples(2_000).forAll(longs().all()).checkAssert(seed -> {
            MetadataRecord record = RandomRecords.record(new Random(seed));
            byte[] frame = MetadataRecordSerde.encode(record);
            assertThat(MetadataRecordSerde.decode(frame, 7)).isEqualTo(record);
        });
    }

    @Test
    @DisplayName("CTL-2 property: every single-byte corruption, truncation and extension of a record is an error naming the offset")
    void corruptionIsAnError() {
        qt().withExamples(200).forAll(longs().all()).checkAssert(seed -> {
            Random random = new Random(seed);
            MetadataRecord record = RandomRecords.record(random);
            byte[] frame = MetadataRecordSerde.encode(record);
            for (int i = 0; i < frame.length; i++) {
                byte[] corrupt = frame.clone();
                corrupt[i] ^= (byte) (1 + random.nextInt(255));
                assertRejected(corrupt, record, "byte " + i + " changed");
            }
            for (int length = 0; length < frame.length; length++) {
                assertRejected(Arrays.copyOf(frame, length), record, "cut to " + length + " bytes");
            }
            assertRejected(Arrays.copyOf(frame, frame.length + 1), record, "one byte longer");
        });
    }

    private static void assertRejected(byte[] bytes, MetadataRecord original, String what) {
        try {
            MetadataRecord decoded = MetadataRecordSerde.decode(bytes, 4242);
            fail(what + " decoded to " + decoded + " (original " + original + ")");
        } catch (MetadataFormatException e) {
            assertThat(e.getMessage()).as(what).contains("offset 4242");
        }
    }

    /** A frame with a valid CRC around the given type, version and body. */
    private static byte[] frame(int type, int version, byte[] body) {
        ByteBuffer payload = ByteBuffer.allocate(2 + body.length);
        payload.put((byte) type).put((byte) version).put(body);
        CRC32C crc = new CRC32C();
        crc.update(payload.array());
        ByteBuffer frame = ByteBuffer.allocate(8 + payload.capacity());
        frame.putInt(4 + payload.capacity()).putInt((int) crc.getValue()).put(payload.array());
        return frame.array();
    }

    @Test
    @DisplayName("CTL-2 an unknown record type is an error naming the offset, never skipped")
    void unknownType() {
        assertThatThrownBy(() -> MetadataRecordSerde.decode(frame(42, 0, new byte[12]), 99))
                .isInstanceOf(MetadataFormatException.class)
                .hasMessageContaining("offset 99").hasMessageContaining("unknown record type 42");
    }

    @Test
    @DisplayName("CTL-2 an unknown version of a known type is an error naming the offset and version")
    void unknownVersion() {
        byte[] valid = MetadataRecordSerde.encode(new FenceBrokerRecord(1, 5));
        byte[] body = Arrays.copyOfRange(valid, 10, valid.length);
        assertThatThrownBy(() -> MetadataRecordSerde.decode(frame(MetadataRecordType.FENCE_BROKER.id(), 1, body), 12))
                .isInstanceOf(MetadataFormatException.class)
                .hasMessageContaining("offset 12").hasMessageContaining("FENCE_BROKER version 1");
    }

    @Test
    @DisplayName("CTL-2 a well-framed record that breaks a record's rules is an error, not a record")
    void invalidFields() {
        // A PartitionChangeRecord whose leader is not in its ISR.
        ByteBuffer body = ByteBuffer.allocate(2 + 3 + 4 + 12 + 2 + 4 + 2 + 2 + 1);
        body.putShort((short) 3).put("rep".getBytes()).putInt(0);
        body.putInt(7).putInt(1).putInt(1);
        body.putShort((short) 1).putInt(2);
        body.putShort((short) 0).putShort((short) 0).put((byte) 0);
        assertThatThrownBy(() -> MetadataRecordSerde.decode(frame(MetadataRecordType.PARTITION_CHANGE.id(), 0, body.array()), 3))
                .isInstanceOf(MetadataFormatException.class)
                .hasMessageContaining("offset 3").hasMessageContaining("leader 7 is not in the ISR");
        // A boolean flag byte with unknown bits.
        byte[] register = MetadataRecordSerde.encode(RegisterBrokerRecord.newIncarnation(1, 2, -1, false));
        byte[] registerBody = Arrays.copyOfRange(register, 10, register.length);
        registerBody[registerBody.length - 1] = (byte) 0x42;
        assertThatThrownBy(() -> MetadataRecordSerde.decode(frame(1, 0, registerBody), 3))
                .isInstanceOf(MetadataFormatException.class).hasMessageContaining("flag");
    }

    @Test
    @DisplayName("the encoding is the documented one: size, CRC-32C, type, version, big-endian fields")
    void documentedBytes() {
        byte[] frame = MetadataRecordSerde.encode(new FenceBrokerRecord(3, 258));
        ByteBuffer in = ByteBuffer.wrap(frame);
        assertThat(in.getInt()).isEqualTo(4 + 2 + 4 + 8);
        int crc = in.getInt();
        CRC32C expected = new CRC32C();
        expected.update(frame, 8, frame.length - 8);
        assertThat(crc).isEqualTo((int) expected.getValue());
        assertThat(in.get()).isEqualTo((byte) 2);
        assertThat(in.get()).isEqualTo((byte) 0);
        assertThat(in.getInt()).isEqualTo(3);
        assertThat(in.getLong()).isEqualTo(258);
        assertThat(in.hasRemaining()).isFalse();
        // The example in docs/metadata-format.md.
        assertThat(java.util.HexFormat.ofDelimiter(" ").formatHex(frame))
                .isEqualTo("00 00 00 12 35 53 79 d4 02 00 00 00 00 03 00 00 00 00 00 00 01 02");
    }

    @Test
    @DisplayName("records refuse invalid fields on construction")
    void constructionChecks() {
        assertThatThrownBy(() -> new TopicRecord("a b", 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TopicRecord("x".repeat(250), 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PartitionRecord(new TopicPartition("t", 0), List.of(1, 1), List.of(), List.of(),
                List.of(), -1, 0, 0, LeaderRecoveryState.RECOVERED)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PartitionRecord(new TopicPartition("t", 0), List.of(1, 2), List.of(1), List.of(1),
                List.of(), 1, 0, 0, LeaderRecoveryState.RECOVERED)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PartitionRecord(new TopicPartition("t", 0), List.of(1, 2), List.of(3), List.of(),
                List.of(), 3, 0, 0, LeaderRecoveryState.RECOVERED)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ConfigRecord("t", "min.insync.replicas", "01")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RegisterBrokerRecord(1, 1, -1, false, false, false, false))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
