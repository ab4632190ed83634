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

package dev.insync.replication.core.partition;

import dev.insync.replication.core.produce.Acks;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static dev.insync.replication.core.partition.PartitionFixture.registration;
import static org.assertj.core.api.Assertions.assertThat;

/** LOG-4: the leader epoch an append reports is the one stamped into what it appended. */
class LeaderEpochOfAppendTest {

    private static final int LAST_EPOCH = 100; // the in-memory log stores an epoch in a byte

    @Test
    @Timeout(30)
    @DisplayName("LOG-4 appendAsLeader reports the epoch stamped into its records, also while makeLeader bumps the epoch")
    void log4ReportedEpochIsTheStampedOne() throws Exception {
        PartitionFixture f = new PartitionFixture(1);
        f.partition.makeLeader(registration(1, 0, 0, List.of(1), List.of(1)));
        List<long[]> appended = new CopyOnWriteArrayList<>(); // {firstOffset, reported epoch}
        AtomicBoolean stop = new AtomicBoolean();
        Thread producer = new Thread(() -> {
            while (!stop.get()) {
                LeaderAppendResult r = f.partition.appendAsLeader(InMemoryLocalLog.records(1), Acks.LEADER);
                appended.add(new long[] {r.info().firstOffset(), r.leaderEpoch()});
            }
        }, "producer");
        producer.start();
        try {
            for (int epoch = 1; epoch <= LAST_EPOCH; epoch++) {
                // The same leader in a new epoch (a re-election of broker 1): appends go on throughout.
                f.partition.makeLeader(registration(1, epoch, epoch, List.of(1), List.of(1)));
                Thread.onSpinWait();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (appended.isEmpty() || appended.get(appended.size() - 1)[1] != LAST_EPOCH) {
                assertThat(System.nanoTime()).as("an append in the last epoch").isLessThan(deadline);
                Thread.onSpinWait();
            }
        } finally {
            stop.set(true);
            producer.join(TimeUnit.SECONDS.toMillis(10));
        }
        assertThat(producer.isAlive()).isFalse();
        assertThat(appended).isNotEmpty();
        for (long[] a : appended) {
            ByteBuffer stamped = f.log.read(a[0], 1, a[0] + 1).records().buffer();
            assertThat(stamped.get(0)).as("epoch stamped at offset %d", a[0]).isEqualTo((byte) a[1]);
        }
    }
}
