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
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static dev.insync.replication.log.record.KafkaInteropTest.bytes;
import static dev.insync.replication.log.record.KafkaInteropTest.headers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

/** LOG-1 / LOG-5 over random records and every codec: round trips both ways, and no truncation is misread. */
class CompressionPropertiesTest {

    private static final TopicPartition TP = new TopicPartition("zprops", 2);

    /** The four codecs, so that every example compresses. */
    static Gen<CompressionType> codecs() {
        return arbitrary().pick(CompressionType.GZIP, CompressionType.SNAPPY, CompressionType.LZ4, CompressionType.ZSTD);
    }

    /** One compressed batch's inputs. */
    record Input(CompressionType type, long baseOffset, int epoch, List<SimpleRecord> records) {
        MemoryRecords build() {
            RecordBatchBuilder builder = new RecordBatchBuilder(baseOffset).partitionLeaderEpoch(epoch).compression(type);
            records.forEach(builder::append);
            return builder.build();
        }
    }

    static Gen<Input> inputs(int maxRecords, int maxBytes) {
        return codecs().zip(longs().between(0, Long.MAX_VALUE / 2), integers().between(-1, Integer.MAX_VALUE),
                lists().of(RecordGens.records(maxBytes, 12, 3)).ofSizeBetween(1, maxRecords), Input::new);
    }

    @Test
    @DisplayName("LOG-1 LOG-5 any records round-trip through every codec: our reader, kafka-clients' reader and the leader's validation agree")
    void log1AnyRecordsRoundTripThroughEveryCodec() {
        qt().withExamples(200).forAll(inputs(8, 200)).checkAssert(input -> {
            MemoryRecords built = input.build();
            RecordBatch batch = built.batches().get(0);
            assertThat(batch.compressionType()).isEqualTo(input.type());
            assertThat(batch.isValid()).isTrue();
            List<Record> ours = batch.records();
            assertThat(ours).hasSameSizeAs(input.records());
            for (int i = 0; i < ours.size(); i++) {
                SimpleRecord in = input.records().get(i);
                assertThat(ours.get(i).offset()).isEqualTo(input.baseOffset() + i);
                assertThat(ours.get(i).timestamp()).isEqualTo(in.timestamp());
                assertThat(bytes(ours.get(i).key())).isEqualTo(in.key());
                assertThat(bytes(ours.get(i).value())).isEqualTo(in.value());
                assertThat(ours.get(i).headers()).isEqualTo(in.headers());
            }
            MutableRecordBatch kafka = KafkaInteropTest.kafkaBatch(built.buffer());
            kafka.ensureValid();
            assertThat((int) kafka.compressionType().id).isEqualTo(input.type().id());
            List<org.apache.kafka.common.record.internal.Record> theirs = new ArrayList<>();
            kafka.forEach(theirs::add);
            assertThat(theirs).hasSameSizeAs(ours);
            for (int i = 0; i < theirs.size(); i++) {
                assertThat(theirs.get(i).offset()).isEqualTo(ours.get(i).offset());
                assertThat(theirs.get(i).timestamp()).isEqualTo(ours.get(i).timestamp());
                assertThat(bytes(theirs.get(i).key())).isEqualTo(bytes(ours.get(i).key()));
                assertThat(bytes(theirs.get(i).value())).isEqualTo(bytes(ours.get(i).value()));
                assertThat(headers(theirs.get(i).headers())).isEqualTo(ours.get(i).headers());
            }
            RecordsSummary summary = RecordsValidator.validate(built, Integer.MAX_VALUE, TP);
            assertThat(summary.recordCount()).isEqualTo(input.records().size());
            assertThat(summary.maxTimestamp()).isEqualTo(batch.maxTimestamp());
        });
    }

    @Test
    @DisplayName("LOG-5 every truncation of a compressed stream, CRC refitted, is CORRUPT_MESSAGE on the leader and on read")
    void log5EveryTruncationOfTheStreamIsCorrupt() {
        qt().withExamples(50).forAll(inputs(4, 64)).checkAssert(input -> {
            ByteBuffer whole = input.build().buffer();
            byte[] section = new byte[whole.remaining() - RecordBatch.HEADER_SIZE];
            whole.get(RecordBatch.HEADER_SIZE, section);
            for (int keep = 0; keep < section.length; keep++) {
                ByteBuffer cut = CompressedBatchValidationTest.withRecordsSection(whole, input.type(),
                        Arrays.copyOf(section, keep));
                MemoryRecords records = MemoryRecords.readableRecords(cut);
                int kept = keep;
                assertThatThrownBy(() -> RecordsValidator.validate(records, Integer.MAX_VALUE, TP))
                        .as("%s stream cut to %d of %d bytes", input.type(), kept, section.length)
                        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.CORRUPT_MESSAGE));
                assertThatThrownBy(() -> records.batches().get(0).records())
                        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.CORRUPT_MESSAGE));
            }
        });
    }
}
