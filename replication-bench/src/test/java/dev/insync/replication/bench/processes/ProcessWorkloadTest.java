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

package dev.insync.replication.bench.processes;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The workload's arithmetic against a target whose behaviour is known ({@link InMemoryBenchTarget}). */
@Timeout(60)
class ProcessWorkloadTest {

    private final InMemoryBenchTarget target = new InMemoryBenchTarget("mem");
    private final ProcessWorkload workload = new ProcessWorkload(target, 100, 16 * 1024, 5_000, s -> { });

    @AfterEach
    void close() {
        target.close();
    }

    @Test
    void throughputCountsTheWindowsAcknowledgementsAndTheServerCpuSpentOnThem() throws Exception {
        target.createTopic("t", 12, 3, 2, Duration.ofSeconds(1));

        ProcessWorkload.Throughput t = workload.throughput("t", 12, new BenchClientSettings(-1, 16384, 1, 1000), 100, 300);

        assertThat(t.ackedRecords()).isPositive();
        assertThat(t.failedRecords()).isZero();
        assertThat(t.recordsPerSecond()).isPositive();
        assertThat(t.bytesPerSecond()).isCloseTo(t.recordsPerSecond() * 100, within(1e-6 * t.bytesPerSecond()));
        // 1 us of server CPU per record: 1 s per million, up to the few records acknowledged between two readings.
        assertThat(t.serverCpuSecondsPerMillionRecords()).isCloseTo(1.0, within(0.05));
        // No broker processes to read compiler threads from: the fixed warm-up, and no JIT share.
        assertThat(t.serverJitShare()).isNaN();
        assertThat(t.warmupSeconds()).isBetween(0.1, 1.0);
    }

    @Test
    void latencyRecordsEverySendAfterTheWarmUpOneAtATime() throws Exception {
        target.createTopic("t", 1, 3, 2, Duration.ofSeconds(1));

        ProcessWorkload.Latency l = workload.latency("t", 10, 40);

        assertThat(l.histogram().getTotalCount()).isEqualTo(40);
        assertThat(l.failedRecords()).isZero();
        // The histogram keeps 3 significant digits: its lowest value is within 0.1 % of the true one.
        assertThat(l.histogram().getMinValue())
                .isGreaterThanOrEqualTo(Duration.ofMillis(InMemoryBenchTarget.ACK_DELAY_MS).toNanos() * 999 / 1000);
    }

    @Test
    void failoverTimesTheFirstAckOfARecordSentAfterTheKillNotALateAckOfAnEarlierOne() throws Exception {
        target.createTopic("t", 1, 3, 2, Duration.ofSeconds(1));

        ProcessWorkload.Failover f = workload.failover("t", Duration.ofSeconds(30));

        assertThat(f.killedBroker()).isEqualTo(1);
        assertThat(f.ackedBeforeKill()).isGreaterThanOrEqualTo(ProcessWorkload.FAILOVER_WARMUP_RECORDS);
        // Records sent before the kill are acknowledged up to 2 ms after it; counting them would give ~2 ms.
        assertThat(f.killToFirstAckMs()).isGreaterThanOrEqualTo(InMemoryBenchTarget.OUTAGE_MS - 1.0);
        assertThat(target.leaderOf("t", 0)).isEqualTo(2);
    }

    @Test
    void failoverIsBoundedWhenNoWriteSucceedsAfterTheKill() throws Exception {
        target.createTopic("t", 1, 3, 2, Duration.ofSeconds(1));

        assertThatThrownBy(() -> workload.failover("t", Duration.ofMillis(100)))
                .hasMessageContaining("within 100 ms of killing its leader, broker 1");
    }
}
