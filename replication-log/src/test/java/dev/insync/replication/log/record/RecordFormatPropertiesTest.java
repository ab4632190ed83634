package dev.insync.replication.log.record;

import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Properties of the v2 format: round trip, corruption detection, truncation detection (LOG-1, LOG-5). */
class RecordFormatPropertiesTest {

    private static final TopicPartition TP = new TopicPartition("props", 1);

    /** One generated batch: its builder inputs. */
    record Input(long baseOffset, int epoch, TimestampType type, long appendTime, List<SimpleRecord> records) {

        MemoryRecords build() {
            RecordBatchBuilder builder = new RecordBatchBuilder(baseOffset).partitionLeaderEpoch(epoch);
            if (type == TimestampType.LOG_APPEND_TIME) {
                builder.logAppendTime(appendTime);
            }
            records.forEach(builder::append);
            return builder.build();
        }
    }

    @Provide
    Arbitrary<Input> inputs() {
        Arbitrary<byte[]> nullableBytes = Arbitraries.bytes().array(byte[].class).ofMaxSize(64).injectNull(0.2);
        Arbitrary<Header> header = Combinators.combine(Arbitraries.strings().ofMaxLength(8), nullableBytes).as(Header::new);
        Arbitrary<Long> ts = Arbitraries.oneOf(Arbitraries.longs().between(0, 4_000_000_000_000L), Arbitraries.just(-1L));
        Arbitrary<SimpleRecord> record = Combinators.combine(ts, nullableBytes, nullableBytes, header.list().ofMaxSize(3))
                .as(SimpleRecord::new);
        return Combinators.combine(Arbitraries.longs().between(0, Long.MAX_VALUE / 2),
                        Arbitraries.integers().between(-1, Integer.MAX_VALUE), Arbitraries.of(TimestampType.class),
                        Arbitraries.longs().between(0, 4_000_000_000_000L), record.list().ofMinSize(1).ofMaxSize(6))
                .as(Input::new);
    }

    private static byte[] bytes(ByteBuffer buf) {
        if (buf == null) {
            return null;
        }
        byte[] out = new byte[buf.remaining()];
        buf.duplicate().get(out);
        return out;
    }

    private static ByteBuffer copy(MemoryRecords records) {
        ByteBuffer buf = ByteBuffer.allocate(records.sizeInBytes());
        buf.put(records.buffer()).flip();
        return buf;
    }

    @Property(tries = 200)
    @Label("LOG-1 build -> bytes -> read round-trips any batch")
    void roundTrip(@ForAll("inputs") Input input) {
        MemoryRecords built = input.build();
        MemoryRecords reread = MemoryRecords.readableRecords(copy(built));
        List<RecordBatch> batches = reread.batches();
        assertThat(batches).hasSize(1);
        RecordBatch batch = batches.get(0);
        int n = input.records().size();
        assertThat(batch.isValid()).isTrue();
        assertThat(batch.baseOffset()).isEqualTo(input.baseOffset());
        assertThat(batch.lastOffset()).isEqualTo(input.baseOffset() + n - 1);
        assertThat(batch.partitionLeaderEpoch()).isEqualTo(input.epoch());
        assertThat(batch.timestampType()).isEqualTo(input.type());
        assertThat(batch.recordCount()).isEqualTo(n);
        long maxCreate = input.records().stream().mapToLong(SimpleRecord::timestamp).max().orElseThrow();
        long expectedMax = input.type() == TimestampType.LOG_APPEND_TIME ? input.appendTime() : maxCreate;
        assertThat(batch.maxTimestamp()).isEqualTo(expectedMax);

        List<Record> records = batch.records();
        assertThat(records).hasSize(n);
        for (int i = 0; i < n; i++) {
            SimpleRecord in = input.records().get(i);
            Record out = records.get(i);
            assertThat(out.offset()).isEqualTo(input.baseOffset() + i);
            assertThat(out.timestamp()).isEqualTo(input.type() == TimestampType.LOG_APPEND_TIME
                    ? input.appendTime() : in.timestamp());
            assertThat(bytes(out.key())).isEqualTo(in.key());
            assertThat(bytes(out.value())).isEqualTo(in.value());
            assertThat(out.headers()).isEqualTo(in.headers());
        }
        RecordsSummary summary = RecordsValidator.validate(reread, Integer.MAX_VALUE, TP);
        assertThat(summary.recordCount()).isEqualTo(n);
        assertThat(summary.maxTimestamp()).isEqualTo(expectedMax);
        assertThat(summary.sizeInBytes()).isEqualTo(built.sizeInBytes());
    }

    @Property(tries = 200)
    @Label("LOG-5 any single-byte change in the CRC-covered region or the framing is CORRUPT_MESSAGE")
    void singleByteCorruptionDetected(@ForAll("inputs") Input input, @ForAll @IntRange(min = 0, max = 1 << 20) int where,
                                      @ForAll @IntRange(min = 1, max = 255) int xor) {
        ByteBuffer buf = copy(input.build());
        // bytes 0-7 (baseOffset) and 12-15 (partitionLeaderEpoch) are deliberately outside the CRC (LOG-4)
        List<Integer> covered = new ArrayList<>();
        for (int i = RecordBatch.LENGTH_OFFSET; i < buf.limit(); i++) {
            if (i < RecordBatch.PARTITION_LEADER_EPOCH_OFFSET || i >= RecordBatch.MAGIC_OFFSET) {
                covered.add(i);
            }
        }
        int index = covered.get(where % covered.size());
        buf.put(index, (byte) (buf.get(index) ^ xor));
        MemoryRecords corrupt = MemoryRecords.readableRecords(buf);
        assertThatThrownBy(() -> RecordsValidator.validate(corrupt, Integer.MAX_VALUE, TP))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.CORRUPT_MESSAGE))
                .hasMessageContaining("position 0");
    }

    @Property(tries = 100)
    @Label("LOG-5 every truncation of a valid batch is rejected as CORRUPT_MESSAGE")
    void everyTruncationRejected(@ForAll("inputs") Input input) {
        ByteBuffer full = copy(input.build());
        for (int cut = 1; cut < full.limit(); cut++) {
            MemoryRecords truncated = MemoryRecords.readableRecords(full.duplicate().limit(cut));
            assertThatThrownBy(() -> RecordsValidator.validate(truncated, Integer.MAX_VALUE, TP))
                    .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.CORRUPT_MESSAGE))
                    .hasMessageContaining("Truncated").hasMessageContaining("position 0");
            assertThat(RecordBatch.batchSizeAt(full.duplicate().limit(cut), 0)).isEqualTo(-1);
        }
    }

    @Property(tries = 100)
    @Label("LOG-5 a corrupted second batch is named by its own position and the first batch is untouched")
    void secondBatchCorruptionNamesPosition(@ForAll("inputs") Input first, @ForAll("inputs") Input second) {
        MemoryRecords a = first.build();
        ByteBuffer both = copy(MemoryRecords.concat(List.of(a, second.build())));
        int last = both.limit() - 1;
        both.put(last, (byte) (both.get(last) ^ 0x40));
        byte[] before = bytes(both);
        assertThatThrownBy(() -> RecordsValidator.validate(MemoryRecords.readableRecords(both), Integer.MAX_VALUE, TP))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.CORRUPT_MESSAGE))
                .hasMessageContaining("position " + a.sizeInBytes());
        assertThat(bytes(both)).isEqualTo(before);
    }
}
