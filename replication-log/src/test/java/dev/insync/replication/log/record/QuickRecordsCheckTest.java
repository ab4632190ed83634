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
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

import java.nio.ByteBuffer;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

/**
 * LOG-5: the allocation-free quick walk used on the append path accepts exactly what the reference
 * walk accepts, with the same result; when it rejects, the reference walk throws the error.
 */
class QuickRecordsCheckTest {

    /** One batch plus a few byte edits inside its records (the CRC is not involved in the walk). */
    record Mutation(List<SimpleRecord> records, boolean logAppendTime, List<Integer> positions, List<Byte> values) {
    }

    static Gen<Mutation> mutations() {
        Gen<SimpleRecord> record = RecordGens.records(40, 6, 2);
        Gen<Byte> interesting = Generate.oneOf(RecordGens.anyByte(),
                arbitrary().pick((byte) 0, (byte) 1, (byte) 2, (byte) 0x7f, (byte) 0x80, (byte) 0xff, (byte) 0xfe));
        return lists().of(record).ofSizeBetween(1, 5).zip(booleans().all(),
                lists().of(integers().between(0, 10_000)).ofSizeBetween(0, 3), lists().of(interesting).ofSize(3),
                Mutation::new);
    }

    private static RecordBatch build(Mutation m) {
        RecordBatchBuilder builder = new RecordBatchBuilder(7);
        if (m.logAppendTime()) {
            builder.logAppendTime(1_700_000_000_000L);
        }
        m.records().forEach(builder::append);
        ByteBuffer bytes = builder.build().sharedBuffer();
        int recordsBytes = bytes.limit() - RecordBatch.RECORDS_OFFSET;
        for (int i = 0; i < m.positions().size(); i++) {
            bytes.put(RecordBatch.RECORDS_OFFSET + m.positions().get(i) % recordsBytes, m.values().get(i));
        }
        return RecordBatch.wrap(bytes);
    }

    @Test
    @DisplayName("LOG-5 quick record walk agrees with the reference walk on valid and corrupted records")
    void quickWalkAgreesWithReference() {
        qt().withExamples(300).forAll(mutations()).checkAssert(m -> {
            RecordBatch batch = build(m);
            RecordBatch.RecordsCheck quick = batch.quickCheckRecords();
            if (quick != null) {
                assertThat(batch.strictWalk()).isEqualTo(quick);
            } else {
                assertThatThrownBy(batch::strictWalk).isInstanceOf(ApiException.class);
            }
        });
    }

    @Test
    @DisplayName("LOG-5 quick record walk accepts every well-formed batch")
    void quickWalkAcceptsValid() {
        qt().withExamples(100).forAll(mutations()).checkAssert(m -> {
            RecordBatch batch = build(new Mutation(m.records(), m.logAppendTime(), List.of(), List.of()));
            assertThat(batch.quickCheckRecords()).isNotNull().isEqualTo(batch.strictWalk());
        });
    }
}
