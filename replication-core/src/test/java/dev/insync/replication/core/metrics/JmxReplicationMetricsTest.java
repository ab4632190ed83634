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

package dev.insync.replication.core.metrics;

import dev.insync.replication.core.alter.ManualScheduler;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.Test;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class JmxReplicationMetricsTest {

    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();
    private static final TopicPartition TP = new TopicPartition("rep", 0);

    @Test
    void publishesKafkaNamedMBeansWithBrokerIdAndUnregistersOnClose() throws Exception {
        ManualScheduler clock = new ManualScheduler(0);
        AtomicLong urp = new AtomicLong(2);
        ObjectName shrinks = new ObjectName("kafka.server:type=ReplicaManager,name=IsrShrinksPerSec,brokerId=101");
        ObjectName expands = new ObjectName("kafka.server:type=ReplicaManager,name=IsrExpandsPerSec,brokerId=101");
        ObjectName urpName = new ObjectName("kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions,brokerId=101");
        ObjectName minIsr = new ObjectName("kafka.server:type=ReplicaManager,name=UnderMinIsrPartitionCount,brokerId=101");
        ObjectName maxLag = new ObjectName("kafka.server:type=ReplicaFetcherManager,name=MaxLag,clientId=Replica,brokerId=101");
        try (JmxReplicationMetrics m = JmxReplicationMetrics.forBroker(101, clock)) {
            m.registerGauge(ReplicationMetrics.UNDER_REPLICATED_PARTITIONS, urp::get);
            m.registerGauge(ReplicationMetrics.UNDER_MIN_ISR_PARTITION_COUNT, () -> 1);
            m.registerGauge(ReplicationMetrics.MAX_LAG, () -> 42);
            m.isrShrink(TP);
            m.isrShrink(TP);
            m.isrExpand(TP);

            assertThat(SERVER.getAttribute(shrinks, "Count")).isEqualTo(2L);
            assertThat(SERVER.getAttribute(expands, "Count")).isEqualTo(1L);
            assertThat(SERVER.getAttribute(shrinks, "RateUnit")).isEqualTo("SECONDS");
            assertThat(SERVER.getAttribute(urpName, "Value")).isEqualTo(2L);
            urp.set(0);
            assertThat(SERVER.getAttribute(urpName, "Value")).isEqualTo(0L);
            assertThat(SERVER.getAttribute(minIsr, "Value")).isEqualTo(1L);
            assertThat(SERVER.getAttribute(maxLag, "Value")).isEqualTo(42L);

            // 2 shrinks in the first 5-second tick: the 1-minute rate starts at 0.4/s and decays.
            clock.advance(5_000);
            assertThat((double) SERVER.getAttribute(shrinks, "OneMinuteRate")).isCloseTo(0.4, within(1e-9));
            assertThat((double) SERVER.getAttribute(shrinks, "MeanRate")).isCloseTo(0.4, within(1e-9));
            clock.advance(60_000);
            assertThat((double) SERVER.getAttribute(shrinks, "OneMinuteRate")).isLessThan(0.4 * 0.4);

            m.removeGauge(ReplicationMetrics.MAX_LAG);
            assertThat(SERVER.isRegistered(maxLag)).isFalse();
        }
        assertThat(SERVER.isRegistered(shrinks)).isFalse();
        assertThat(SERVER.isRegistered(urpName)).isFalse();
        assertThat(SERVER.isRegistered(minIsr)).isFalse();
    }

    @Test
    void kafkaNamesAreExactAndTwoBrokersCoexistOnlyWithBrokerIds() throws Exception {
        ManualScheduler clock = new ManualScheduler(0);
        try (JmxReplicationMetrics kafka = JmxReplicationMetrics.kafkaNames(clock);
             JmxReplicationMetrics b1 = JmxReplicationMetrics.forBroker(1, clock);
             JmxReplicationMetrics b2 = JmxReplicationMetrics.forBroker(2, clock)) {
            assertThat(kafka.objectName(ReplicationMetrics.UNDER_REPLICATED_PARTITIONS))
                    .isEqualTo(new ObjectName("kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions"));
            assertThat(kafka.objectName(ReplicationMetrics.MAX_LAG))
                    .isEqualTo(new ObjectName("kafka.server:type=ReplicaFetcherManager,name=MaxLag,clientId=Replica"));
            b1.isrExpand(TP);
            assertThat(SERVER.getAttribute(b1.objectName(ReplicationMetrics.ISR_EXPANDS_PER_SEC), "Count")).isEqualTo(1L);
            assertThat(SERVER.getAttribute(b2.objectName(ReplicationMetrics.ISR_EXPANDS_PER_SEC), "Count")).isEqualTo(0L);
            assertThatThrownBy(() -> JmxReplicationMetrics.kafkaNames(clock))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("IsrShrinksPerSec");
        }
    }

    @Test
    void inMemoryCountsPerPartitionAndGauges() {
        InMemoryReplicationMetrics m = new InMemoryReplicationMetrics();
        TopicPartition other = new TopicPartition("rep", 1);
        m.isrShrink(TP);
        m.isrShrink(other);
        m.isrExpand(TP);
        m.failedIsrUpdate(other);
        m.registerGauge(ReplicationMetrics.UNDER_MIN_ISR_PARTITION_COUNT, () -> 3);
        assertThat(m.isrShrinks()).isEqualTo(2);
        assertThat(m.count(ReplicationMetrics.ISR_SHRINKS_PER_SEC, TP)).isEqualTo(1);
        assertThat(m.isrExpands()).isEqualTo(1);
        assertThat(m.count(ReplicationMetrics.FAILED_ISR_UPDATES_PER_SEC, other)).isEqualTo(1);
        assertThat(m.gauge(ReplicationMetrics.UNDER_MIN_ISR_PARTITION_COUNT)).hasValue(3);
        assertThat(m.gauge(ReplicationMetrics.MAX_LAG)).isEmpty();
        m.removeGauge(ReplicationMetrics.UNDER_MIN_ISR_PARTITION_COUNT);
        assertThat(m.gauge(ReplicationMetrics.UNDER_MIN_ISR_PARTITION_COUNT)).isEmpty();
    }
}
