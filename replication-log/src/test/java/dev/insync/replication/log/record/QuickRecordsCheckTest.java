package dev.insync.replication.log.record;

import dev.insync.replication.log.ApiException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.nio.ByteBuffer;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * LOG-5: the allocation-free quick walk used on the append path accepts exactly what the reference
 * walk accepts, with the same result; when it rejects, the reference walk throws the error.
 */
class QuickRecordsCheckTest {

    /** One batch plus a few byte edits inside its records (the CRC is not involved in the walk). */
    record Mutation(List<SimpleRecord> records, boolean logAppendTime, List<Integer> positions, List<Byte> values) {
    }

    @Provide
    Arbitrary<Mutation> mutations() {
        Arbitrary<byte[]> nullableBytes = Arbitraries.bytes().array(byte[].class).ofMaxSize(40).injectNull(0.2);
        Arbitrary<Header> header = Combinators.combine(Arbitraries.strings().ofMaxLength(6), nullableBytes).as(Header::new);
        Arbitrary<Long> ts = Arbitraries.oneOf(Arbitraries.longs().between(0, 4_000_000_000_000L), Arbitraries.just(-1L));
        Arbitrary<SimpleRecord> record = Combinators.combine(ts, nullableBytes, nullableBytes, header.list().ofMaxSize(2))
                .as(SimpleRecord::new);
        Arbitrary<Byte> interesting = Arbitraries.oneOf(Arbitraries.bytes(),
                Arbitraries.of((byte) 0, (byte) 1, (byte) 2, (byte) 0x7f, (byte) 0x80, (byte) 0xff, (byte) 0xfe));
        return Combinators.combine(record.list().ofMinSize(1).ofMaxSize(5), Arbitraries.of(true, false),
                        Arbitraries.integers().between(0, 10_000).list().ofMaxSize(3), interesting.list().ofSize(3))
                .as(Mutation::new);
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

    @Property(tries = 300)
    @Label("LOG-5 quick record walk agrees with the reference walk on valid and corrupted records")
    void quickWalkAgreesWithReference(@ForAll("mutations") Mutation m) {
        RecordBatch batch = build(m);
        RecordBatch.RecordsCheck quick = batch.quickCheckRecords();
        if (quick != null) {
            assertThat(batch.strictWalk()).isEqualTo(quick);
        } else {
            assertThatThrownBy(batch::strictWalk).isInstanceOf(ApiException.class);
        }
    }

    @Property(tries = 100)
    @Label("LOG-5 quick record walk accepts every well-formed batch")
    void quickWalkAcceptsValid(@ForAll("mutations") Mutation m) {
        RecordBatch batch = build(new Mutation(m.records(), m.logAppendTime(), List.of(), List.of()));
        assertThat(batch.quickCheckRecords()).isNotNull().isEqualTo(batch.strictWalk());
    }
}
