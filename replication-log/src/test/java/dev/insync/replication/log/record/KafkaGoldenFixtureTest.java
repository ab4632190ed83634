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

import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * LOG-1 pinned by a checked-in fixture: a batch Kafka 4.4.0 wrote, so the format stays fixed even
 * if the kafka-clients test dependency changes or goes away.
 */
class KafkaGoldenFixtureTest {

    private static final String FIXTURE = "kafka-4.4.0-v2-batch.hex";

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The inputs stated in the fixture's comment. */
    private static final KafkaInteropTest.BatchSpec SPEC = new KafkaInteropTest.BatchSpec(1000, 5,
            TimestampType.CREATE_TIME, -1, -1, (short) -1, -1, false, List.of(
            new SimpleRecord(1_700_000_000_000L, b("key-0"), b("value-0")),
            new SimpleRecord(1_700_000_000_050L, null, b("value-1"), List.of(new Header("trace", b("abc")))),
            new SimpleRecord(1_699_999_999_990L, b("key-2"), null, List.of(new Header("a", null)))));

    private static byte[] fixture() throws IOException {
        try (InputStream in = KafkaGoldenFixtureTest.class.getResourceAsStream(FIXTURE)) {
            assertThat(in).as("fixture %s on the test classpath", FIXTURE).isNotNull();
            String hex = new String(in.readAllBytes(), StandardCharsets.US_ASCII).lines()
                    .filter(l -> !l.startsWith("#"))
                    .map(String::strip)
                    .collect(Collectors.joining());
            return HexFormat.of().parseHex(hex);
        }
    }

    private static byte[] bytes(ByteBuffer buf) {
        byte[] out = new byte[buf.remaining()];
        buf.duplicate().get(out);
        return out;
    }

    @Test
    @DisplayName("LOG-1 our builder reproduces Kafka 4.4.0's fixture batch byte for byte")
    void builderMatchesFixture() throws IOException {
        assertThat(bytes(KafkaInteropTest.ourBytes(SPEC))).isEqualTo(fixture());
    }

    @Test
    @DisplayName("LOG-1 the kafka-clients on the test classpath still writes the fixture's bytes")
    void kafkaStillMatchesFixture() throws IOException {
        assertThat(bytes(KafkaInteropTest.kafkaBytes(SPEC))).isEqualTo(fixture());
    }

    @Test
    @DisplayName("LOG-1 our reader decodes the fixture into the stated inputs and it validates (LOG-5)")
    void readerDecodesFixture() throws IOException {
        MemoryRecords records = MemoryRecords.readableRecords(ByteBuffer.wrap(fixture()));
        RecordBatch batch = RecordBatch.wrap(records.buffer());
        assertThat(batch.isValid()).isTrue();
        assertThat(batch.baseOffset()).isEqualTo(SPEC.baseOffset());
        assertThat(batch.partitionLeaderEpoch()).isEqualTo(SPEC.epoch());
        assertThat(batch.baseTimestamp()).isEqualTo(SPEC.records().get(0).timestamp());
        assertThat(batch.maxTimestamp()).isEqualTo(1_700_000_000_050L);
        List<Record> decoded = batch.records();
        assertThat(decoded).hasSize(SPEC.records().size());
        for (int i = 0; i < decoded.size(); i++) {
            SimpleRecord in = SPEC.records().get(i);
            Record out = decoded.get(i);
            assertThat(out.offset()).isEqualTo(SPEC.baseOffset() + i);
            assertThat(out.timestamp()).isEqualTo(in.timestamp());
            assertThat(out.key() == null ? null : bytes(out.key())).isEqualTo(in.key());
            assertThat(out.value() == null ? null : bytes(out.value())).isEqualTo(in.value());
            assertThat(out.headers()).isEqualTo(in.headers());
        }
        RecordsSummary summary = RecordsValidator.validate(records, batch.sizeInBytes(),
                new TopicPartition("golden", 0));
        assertThat(summary.offsetOfMaxTimestamp()).isEqualTo(1001);
        assertThat(summary.lastOffset()).isEqualTo(1002);
    }
}
