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

package dev.insync.replication.log.segment;

import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.RecordBatchBuilder;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * LOG-3: locating a batch reads the range after the index entry in one read into a per-thread scan
 * buffer; these cases force the buffer to refill (batches larger than it, an index sparser than
 * it) and check every offset still finds its batch and a read returns that batch's bytes.
 */
class LogSegmentScanTest {

    @TempDir
    Path dir;

    /** Appends batches of the given record counts and value sizes; returns [base, last, position, size] per batch. */
    private static List<long[]> fill(LogSegment segment, long baseOffset, int batches, int records, int valueBytes,
                                     Random random) throws IOException {
        List<long[]> layout = new ArrayList<>();
        long next = baseOffset;
        for (int b = 0; b < batches; b++) {
            RecordBatchBuilder builder = new RecordBatchBuilder(next);
            int n = 1 + random.nextInt(records);
            for (int r = 0; r < n; r++) {
                byte[] value = new byte[1 + random.nextInt(valueBytes)];
                random.nextBytes(value);
                builder.append(1_000L + next + r, null, value);
            }
            MemoryRecords batch = builder.build();
            layout.add(new long[] {next, next + n - 1, segment.size(), batch.sizeInBytes()});
            segment.append(batch.buffer());
            next += n;
        }
        return layout;
    }

    private static void assertEveryOffsetFound(LogSegment segment, List<long[]> layout) throws IOException {
        for (long[] batch : layout) {
            for (long offset = batch[0]; offset <= batch[1]; offset++) {
                LogSegment.BatchPosition found = segment.translateOffset(offset, segment.size());
                assertThat(found).as("offset %d", offset).isNotNull();
                assertThat(found.position()).as("position of offset %d", offset).isEqualTo((int) batch[2]);
                assertThat(found.baseOffset()).isEqualTo(batch[0]);
                assertThat(found.lastOffset()).isEqualTo(batch[1]);
                assertThat(found.sizeInBytes()).isEqualTo((int) batch[3]);
            }
        }
        long end = layout.get(layout.size() - 1)[1] + 1;
        assertThat(segment.translateOffset(end, segment.size())).isNull();
    }

    @Test
    @DisplayName("LOG-3 batches larger than the scan buffer are located and read whole")
    void batchesLargerThanScanBuffer() throws IOException {
        LogSegment segment = LogSegment.create(dir, 100, 64, 64 * 1024);
        // scan buffer = interval (64) + 16 KiB slack; batches of up to ~40 KiB overflow it
        List<long[]> layout = fill(segment, 100, 40, 4, 10_000, new Random(1));
        assertEveryOffsetFound(segment, layout);
        for (long[] batch : layout) {
            ByteBuffer read = segment.read(batch[1], 1, Long.MAX_VALUE, true);
            assertThat(read.remaining()).isEqualTo((int) batch[3]);
            assertThat(BatchFraming.baseOffset(read, 0)).isEqualTo(batch[0]);
            assertThat(BatchFraming.crcMatches(read, 0, read.remaining())).isTrue();
        }
        segment.close();
    }

    @Test
    @DisplayName("LOG-3 an index sparser than the scan buffer still finds every offset")
    void indexSparserThanScanBuffer() throws IOException {
        // interval of 4 MiB: no index entry at all in 2 MiB, and the buffer is capped at 1 MiB
        LogSegment segment = LogSegment.create(dir, 0, 4 * 1024 * 1024, 64 * 1024);
        List<long[]> layout = fill(segment, 0, 2_500, 8, 200, new Random(2));
        assertThat(segment.size()).isGreaterThan(1024 * 1024);
        assertThat(segment.offsetIndex().entries()).isZero();
        assertEveryOffsetFound(segment, layout);
        long[] last = layout.get(layout.size() - 1);
        ByteBuffer read = segment.read(last[0], 1, Long.MAX_VALUE, true);
        assertThat(read.remaining()).isEqualTo((int) last[3]);
        assertThat(segment.readNextOffset()).isEqualTo(last[1] + 1);
        segment.close();
    }

    @Test
    @DisplayName("LOG-3 a read of several batches returns exactly the bytes on disk")
    void multiBatchReadMatchesFile() throws IOException {
        LogSegment segment = LogSegment.create(dir, 0, 4096, 64 * 1024);
        List<long[]> layout = fill(segment, 0, 300, 5, 300, new Random(3));
        assertEveryOffsetFound(segment, layout);
        long[] from = layout.get(120);
        ByteBuffer read = segment.read(from[0], 5_000, Long.MAX_VALUE, true);
        int pos = 0;
        int i = 120;
        while (pos < read.limit()) {
            assertThat(BatchFraming.baseOffset(read, pos)).isEqualTo(layout.get(i)[0]);
            assertThat(BatchFraming.crcMatches(read, pos, BatchFraming.sizeInBytes(read, pos))).isTrue();
            pos += BatchFraming.sizeInBytes(read, pos);
            i++;
        }
        assertThat(i).isGreaterThan(121);
        assertThat(read.limit()).isLessThanOrEqualTo(5_000);
        segment.close();
    }

    @Test
    @DisplayName("LOG-3 LOG-6 after truncating a mapped segment and appending again, every offset finds the new batch")
    void truncateThenAppendAgainThroughTheReadMap() throws IOException {
        LogSegment segment = LogSegment.create(dir, 0, 4096, 256 * 1024);
        Random random = new Random(4);
        List<long[]> layout = fill(segment, 0, 6_000, 6, 300, random);
        assertThat(segment.size()).isGreaterThan(2 * 1024 * 1024); // large enough to be mapped
        assertEveryOffsetFound(segment, layout);
        long[] cut = layout.get(3_000);
        segment.truncateTo(cut[0]);
        assertThat(segment.size()).isEqualTo((int) cut[2]);
        List<long[]> kept = new ArrayList<>(layout.subList(0, 3_000));
        // different batch sizes this time, so stale header positions would be caught
        kept.addAll(fill(segment, cut[0], 4_000, 3, 900, random));
        assertEveryOffsetFound(segment, kept);
        for (int i = 2_990; i < kept.size(); i += 97) {
            long[] batch = kept.get(i);
            ByteBuffer read = segment.read(batch[0], 1, Long.MAX_VALUE, true);
            assertThat(read.remaining()).isEqualTo((int) batch[3]);
            assertThat(BatchFraming.baseOffset(read, 0)).isEqualTo(batch[0]);
            assertThat(BatchFraming.crcMatches(read, 0, read.remaining())).isTrue();
        }
        segment.close();
    }
}
