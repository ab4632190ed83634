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

package dev.insync.replication.log;

import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.Record;
import dev.insync.replication.log.record.RecordBatch;
import dev.insync.replication.log.record.RecordBatchBuilder;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Builders and readers shared by the log tests. */
final class LogFixtures {

    static final TopicPartition TP = new TopicPartition("topic", 0);

    private LogFixtures() {
    }

    /** Small segments and a dense index, so a few batches exercise rolls and index lookups. */
    static LogConfig smallConfig() {
        return LogConfig.defaults().withSegmentBytes(1024).withSegmentIndexBytes(1024).withIndexIntervalBytes(100);
    }

    /** One batch of {@code count} records "prefix-i" at base offset 0 (the leader reassigns it). */
    static MemoryRecords batch(String prefix, int count) {
        return batchAt(0, -1, prefix, count);
    }

    static MemoryRecords batchAt(long baseOffset, int epoch, String prefix, int count) {
        RecordBatchBuilder builder = new RecordBatchBuilder(baseOffset).partitionLeaderEpoch(epoch);
        for (int i = 0; i < count; i++) {
            builder.append(1000L + i, ("k" + i).getBytes(StandardCharsets.UTF_8),
                    (prefix + "-" + i).getBytes(StandardCharsets.UTF_8));
        }
        return builder.build();
    }

    /** One batch of {@code count} records of 1,000 bytes each: a few hundred fill a mapped segment. */
    static MemoryRecords kilobyteRecords(int count) {
        RecordBatchBuilder builder = new RecordBatchBuilder(0);
        byte[] value = new byte[1000];
        for (int i = 0; i < count; i++) {
            builder.append(1_000L, null, value);
        }
        return builder.build();
    }

    static MemoryRecords concat(MemoryRecords... parts) {
        return MemoryRecords.concat(List.of(parts));
    }

    /** Every record value from {@code from} to the LEO, reading batch by batch. */
    static List<String> readValues(Log log, long from) {
        List<String> out = new ArrayList<>();
        long next = from;
        while (next < log.logEndOffset()) {
            MemoryRecords records = log.read(next, 1, log.logEndOffset()).records();
            List<RecordBatch> batches = records.batches();
            if (batches.isEmpty()) {
                throw new AssertionError("Empty read at " + next + " below LEO " + log.logEndOffset());
            }
            for (RecordBatch b : batches) {
                b.ensureValid();
                for (Record r : b.records()) {
                    if (r.offset() >= next) {
                        out.add(text(r.value()));
                    }
                }
                next = b.nextOffset();
            }
        }
        return out;
    }

    /** Offsets of every record from {@code from} to the LEO. */
    static List<Long> readOffsets(Log log, long from) {
        List<Long> out = new ArrayList<>();
        long next = from;
        while (next < log.logEndOffset()) {
            for (RecordBatch b : log.read(next, Integer.MAX_VALUE, log.logEndOffset()).records().batches()) {
                for (Record r : b.records()) {
                    out.add(r.offset());
                }
                next = b.nextOffset();
            }
        }
        return out;
    }

    static String text(ByteBuffer buf) {
        if (buf == null) {
            return null;
        }
        byte[] bytes = new byte[buf.remaining()];
        buf.duplicate().get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    static byte[] bytes(MemoryRecords records) {
        ByteBuffer buf = records.buffer();
        byte[] out = new byte[buf.remaining()];
        buf.get(out);
        return out;
    }

    /** A snapshot of everything observable, to assert a rejected call changed nothing. */
    record Snapshot(long logStartOffset, long logEndOffset, long highWatermark, long size, List<Long> segments,
                    List<String> values, String epochs) {
        static Snapshot of(Log log) {
            return new Snapshot(log.logStartOffset(), log.logEndOffset(), log.highWatermark(), log.size(),
                    log.segmentBaseOffsets(), readValues(log, log.logStartOffset()),
                    log.leaderEpochCache().epochEntries().toString());
        }
    }
}
