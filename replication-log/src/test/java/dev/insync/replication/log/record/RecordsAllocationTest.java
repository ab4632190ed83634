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
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Validation and batch iteration cost does not grow with the number of records: nothing is
 * allocated per record (the hot path of every append, LOG-5).
 */
class RecordsAllocationTest {

    private static final TopicPartition TP = new TopicPartition("alloc", 0);

    private static MemoryRecords batchOf(int records) {
        RecordBatchBuilder builder = new RecordBatchBuilder(0);
        byte[] value = "value".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < records; i++) {
            builder.append(1_000 + i, null, value);
        }
        return builder.build();
    }

    private static long allocatedBy(Runnable work) {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        long before = mx.getThreadAllocatedBytes(tid);
        work.run();
        return mx.getThreadAllocatedBytes(tid) - before;
    }

    @Test
    @DisplayName("LOG-5 validating and iterating batches allocates nothing per record")
    void noPerRecordAllocation() {
        Assumptions.assumeTrue(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean mx
                && mx.isThreadAllocatedMemorySupported());
        MemoryRecords small = batchOf(10);
        MemoryRecords large = batchOf(5_000);
        Runnable validateSmall = () -> RecordsValidator.validate(small, Integer.MAX_VALUE, TP);
        Runnable validateLarge = () -> RecordsValidator.validate(large, Integer.MAX_VALUE, TP);
        Runnable iterateLarge = () -> large.batches().forEach(b -> b.lastOffset());
        for (int i = 0; i < 200; i++) {
            validateSmall.run();
            validateLarge.run();
            iterateLarge.run();
        }
        long smallBytes = Long.MAX_VALUE;
        long largeBytes = Long.MAX_VALUE;
        long iterateBytes = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            smallBytes = Math.min(smallBytes, allocatedBy(validateSmall));
            largeBytes = Math.min(largeBytes, allocatedBy(validateLarge));
            iterateBytes = Math.min(iterateBytes, allocatedBy(iterateLarge));
        }
        // 4,990 more records: even one 16-byte object each would add ~80 KB
        assertThat(largeBytes).as("validation allocation, 5000 vs 10 records").isLessThan(smallBytes + 4_096);
        assertThat(iterateBytes).as("batch iteration allocation").isLessThan(4_096);
    }
}
