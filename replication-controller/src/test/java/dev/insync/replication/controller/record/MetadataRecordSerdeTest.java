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
        registerBody[4 + 8 + 8] = (byte) 0x42;
        assertThatThrownBy(() -> MetadataRecordSerde.decode(frame(1, 1, registerBody), 3))
                .isInstanceOf(MetadataFormatException.class).hasMessageContaining("flag");
    }

    @Test
    @DisplayName("LDR-4 CTL-2 property: a RegisterBrokerRecord's endpoints round-trip at version 1, and its version 0 (no endpoints) still decodes")
    void registerBrokerVersions() {
        qt().withExamples(500).forAll(longs().all()).checkAssert(seed -> {
            Random random = new Random(seed);
            List<Endpoint> endpoints = RandomRecords.endpoints(random);
            RegisterBrokerRecord record = new RegisterBrokerRecord(random.nextInt(1000), random.nextInt(1 << 20),
                    -1, random.nextBoolean(), true, false, false, endpoints);
            byte[] v1 = MetadataRecordSerde.encode(record);
            assertThat(v1[9]).as("version byte").isEqualTo(MetadataRecordType.REGISTER_BROKER.latestVersion())
                    .isEqualTo((byte) 1);
            assertThat(MetadataRecordSerde.decode(v1, 7)).isEqualTo(record);
            // Version 0, as a log written before endpoints holds it: the same fields up to the flags.
            byte[] v0Body = Arrays.copyOfRange(v1, 10, 10 + 4 + 8 + 8 + 1);
            MetadataRecord old = MetadataRecordSerde.decode(frame(MetadataRecordType.REGISTER_BROKER.id(), 0, v0Body), 7);
            assertThat(old).isEqualTo(new RegisterBrokerRecord(record.brokerId(), record.brokerEpoch(), -1,
                    record.uncleanRestart(), true, false, false, List.of()));
            // Version 0 bytes followed by endpoints are not a version 0 record.
            assertThatThrownBy(() -> MetadataRecordSerde.decode(frame(MetadataRecordType.REGISTER_BROKER.id(), 0,
                    Arrays.copyOfRange(v1, 10, v1.length)), 7)).isInstanceOf(MetadataFormatException.class)
                    .hasMessageContaining("offset 7").hasMessageContaining("bytes after the REGISTER_BROKER body");
        });
    }

    @Test
    @DisplayName("CTL-2 TopicRecord v1 carries the topic id; v0 (no id) reads as the name's legacy id; the zero id is refused")
    void topicRecordVersions() {
        TopicRecord record = new TopicRecord("orders", 12, TopicRecord.idFor("orders", 41));
        byte[] v1 = MetadataRecordSerde.encode(record);
        assertThat(v1[9]).as("version byte").isEqualTo(MetadataRecordType.TOPIC.latestVersion()).isEqualTo((byte) 1);
        assertThat(MetadataRecordSerde.decode(v1, 41)).isEqualTo(record);
        byte[] v0Body = Arrays.copyOfRange(v1, 10, v1.length - 16);
        assertThat(MetadataRecordSerde.decode(frame(MetadataRecordType.TOPIC.id(), 0, v0Body), 41))
                .isEqualTo(new TopicRecord("orders", 12, TopicRecord.legacyId("orders")));
        assertThat(TopicRecord.idFor("orders", 41)).isNotEqualTo(TopicRecord.idFor("orders", 42))
                .isNotEqualTo(TopicRecord.legacyId("orders"));
        byte[] zero = v1.clone();
        Arrays.fill(zero, v1.length - 16, v1.length, (byte) 0);
        byte[] zeroBody = Arrays.copyOfRange(zero, 10, zero.length);
        assertThatThrownBy(() -> MetadataRecordSerde.decode(frame(MetadataRecordType.TOPIC.id(), 1, zeroBody), 41))
                .isInstanceOf(MetadataFormatException.class).hasMessageContaining("offset 41")
                .hasMessageContaining("zero topic id");
    }

    @Test
    @DisplayName("LDR-4 a RegisterBrokerRecord's endpoints are checked on decode: count, port, repeated listener names")
    void registerBrokerEndpointChecks() {
        byte[] good = MetadataRecordSerde.encode(RegisterBrokerRecord.newIncarnation(1, 2, -1, false,
                List.of(new Endpoint("PLAINTEXT", "PLAINTEXT", "h", 9092))));
        byte[] body = Arrays.copyOfRange(good, 10, good.length);
        int countAt = 4 + 8 + 8 + 1;
        byte[] tooMany = body.clone();
        tooMany[countAt + 1] = (byte) (Endpoint.MAX_ENDPOINTS + 1);
        assertThatThrownBy(() -> MetadataRecordSerde.decode(frame(1, 1, tooMany), 5))
                .isInstanceOf(MetadataFormatException.class).hasMessageContaining("offset 5")
                .hasMessageContaining("endpoint count 17");
        byte[] portZero = body.clone();
        Arrays.fill(portZero, portZero.length - 4, portZero.length, (byte) 0);
        assertThatThrownBy(() -> MetadataRecordSerde.decode(frame(1, 1, portZero), 5))
                .isInstanceOf(MetadataFormatException.class).hasMessageContaining("port 0");
        assertThatThrownBy(() -> RegisterBrokerRecord.newIncarnation(1, 2, -1, false, List.of(
                new Endpoint("PLAINTEXT", "PLAINTEXT", "a", 1), new Endpoint("PLAINTEXT", "SSL", "b", 2))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice");
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
