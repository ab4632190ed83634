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

package dev.insync.replication.testkit.cluster;

import dev.insync.replication.core.produce.Acks;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.Header;
import dev.insync.replication.log.record.RecordBatchBuilder;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The public per-broker handle and the byte-level clients of an {@link InMemoryCluster}. */
class BrokerHandleTest {

    private static final TopicPartition REP0 = new TopicPartition("rep", 0);

    private static InMemoryCluster cluster() {
        return InMemoryCluster.builder().brokers(3).seed(7).config("min.insync.replicas", 2).build();
    }

    @Test
    @DisplayName("A handle follows its broker through pause, kill and restart; live objects exist only while it runs")
    void statusAndLiveObjectsFollowTheProcess() {
        try (InMemoryCluster cluster = cluster()) {
            cluster.createTopic("rep", 1, 2, 3);
            BrokerHandle b3 = cluster.broker(3);
            assertThat(b3.id()).isEqualTo(3);
            assertThat(b3.status()).isEqualTo(BrokerStatus.RUNNING);
            assertThat(b3.incarnation()).isEqualTo(1);
            assertThat(b3.logDirs()).containsExactly(cluster.dataDir().resolve("broker-3"));
            assertThat(b3.dataDir()).isEqualTo(cluster.admin().logDir(3));
            assertThat(b3.replicaManager()).isPresent();
            assertThat(cluster.runUntil(() -> b3.partition(REP0).isPresent(), 10_000)).as("follower 3 hosts rep-0").isTrue();
            assertThat(b3.log(REP0)).isPresent();
            assertThat(b3.lifecycle().orElseThrow().brokerEpoch()).isPositive();

            b3.pause();
            assertThat(b3.status()).isEqualTo(BrokerStatus.PAUSED);
            assertThat(b3.replicaManager()).as("a paused process keeps its memory").isPresent();
            b3.resume();
            assertThat(b3.status()).isEqualTo(BrokerStatus.RUNNING);

            b3.kill();
            assertThat(b3.status()).isEqualTo(BrokerStatus.DOWN);
            assertThat(b3.replicaManager()).isEmpty();
            assertThat(b3.log(REP0)).isEmpty();
            assertThat(b3.scheduler()).isEmpty();
            assertThatThrownBy(b3::pause).isInstanceOf(IllegalStateException.class).hasMessageContaining("Broker 3");

            b3.restart();
            assertThat(cluster.broker(3)).isSameAs(b3);
            assertThat(b3.status()).isEqualTo(BrokerStatus.RUNNING);
            assertThat(b3.incarnation()).isEqualTo(2);
            assertThat(b3.replicaManager()).isPresent();
            assertThatThrownBy(() -> cluster.broker(4)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("4");
        }
    }

    @Test
    @DisplayName("Code on a broker's scheduler runs as part of it: held while it is paused, dropped when it dies")
    void userTasksLiveAndDieWithTheBroker() {
        try (InMemoryCluster cluster = cluster()) {
            BrokerHandle b2 = cluster.broker(2);
            Scheduler scheduler = b2.scheduler().orElseThrow();
            Executor mine = scheduler.newSerialExecutor("my-task");
            AtomicInteger ran = new AtomicInteger();

            b2.pause();
            mine.execute(ran::incrementAndGet);
            cluster.runFor(1_000);
            assertThat(ran).as("held while paused").hasValue(0);
            b2.resume();
            cluster.runFor(10);
            assertThat(ran).as("run, late, on resume").hasValue(1);

            scheduler.schedule(mine, ran::incrementAndGet, 5_000);
            b2.kill();
            cluster.runFor(10_000);
            assertThat(ran).as("a dead broker's timer never fires").hasValue(1);
        }
    }

    @Test
    @DisplayName("PRO-3 LOG-4 a test's own produce through a broker's ReplicaManager replicates and answers its leader epoch")
    void ownCodeCallsTheRealReplicaManager() {
        try (InMemoryCluster cluster = cluster()) {
            cluster.createTopic("rep", 1, 2, 3);
            var rm = cluster.broker(1).replicaManager().orElseThrow();
            var records = new RecordBatchBuilder(0).append(cluster.nowMs(), null, "direct".getBytes(StandardCharsets.UTF_8))
                    .build();
            Map<TopicPartition, ProduceResult> answer = cluster.await(rm.produce(Map.of(REP0, records), Acks.ALL, 30_000));
            ProduceResult r = answer.get(REP0);
            assertThat(r.error()).isEqualTo(Errors.NONE);
            assertThat(r.leaderEpoch()).isEqualTo(cluster.admin().partition("rep", 0).leaderEpoch());
            assertThat(cluster.runUntil(() -> cluster.admin().highWatermark(3, "rep", 0) == 1, 10_000)).isTrue();
            assertThat(cluster.admin().records(3, "rep", 0)).extracting(ConsumedRecord::value).containsExactly("direct");
        }
    }

    @Test
    @DisplayName("FET-1 byte-level clients carry any key, value and headers byte for byte; the String view decodes the same records")
    void byteLevelClients() {
        try (InMemoryCluster cluster = cluster()) {
            cluster.createTopic("rep", 1, 2, 3);
            byte[] key = {0, (byte) 0xFF, (byte) 0xC3};                   // not UTF-8
            byte[] value = {1, 2, 3, (byte) 0x80};
            List<Header> headers = List.of(new Header("trace", new byte[] {9, 9}), new Header("empty", null));
            ProduceOutcome sent = cluster.await(cluster.producer("bytes").send("rep", 0, key, value, headers, -1, 30_000));
            assertThat(sent.isSuccess()).isTrue();
            cluster.await(cluster.producer("text").send("rep", 0, "k", "v", -1, 30_000));

            List<ConsumedBytes> got = cluster.await(cluster.consumer("c1").pollBytes("rep", 0));
            assertThat(got).hasSize(2);
            ConsumedBytes first = got.get(0);
            assertThat(first.offset()).isEqualTo(sent.offset());
            assertThat(first.leaderEpoch()).isEqualTo(sent.leaderEpoch());
            assertThat(first.key()).isEqualTo(key);
            assertThat(first.value()).isEqualTo(value);
            assertThat(first.headers()).isEqualTo(headers);
            assertThat(got.get(1).key()).isEqualTo("k".getBytes(StandardCharsets.UTF_8));

            List<ConsumedRecord> text = cluster.await(cluster.consumer("c2").poll("rep", 0));
            assertThat(text).containsExactly(ConsumedRecord.of(got.get(0)), ConsumedRecord.of(got.get(1)));
            assertThat(text.get(1)).isEqualTo(new ConsumedRecord(1, sent.leaderEpoch(), "k", "v"));
        }
    }

    @Test
    @DisplayName("PRO-1 a client sending acks other than 0, 1, -1 gets INVALID_REQUIRED_ACKS and nothing is written")
    void pro1InvalidAcksThroughTheCluster() {
        try (InMemoryCluster cluster = cluster()) {
            cluster.createTopic("rep", 1, 2, 3);
            TestProducer producer = cluster.producer("p");
            for (int bad : new int[] {2, -2}) {
                assertThat(cluster.await(producer.send("rep", 0, null, "x", bad, 1_000)).error())
                        .isEqualTo(Errors.INVALID_REQUIRED_ACKS);
            }
            assertThat(cluster.admin().logEndOffset(1, "rep", 0)).isZero();
        }
    }

    @Test
    @DisplayName("LOG-4 a produce outcome carries the epoch stamped into its batch, in every leader epoch")
    void log4OutcomeEpochIsTheStampedOne() {
        try (InMemoryCluster cluster = cluster()) {
            cluster.createTopic("rep", 1, 2, 3);
            TestProducer producer = cluster.producer("p");
            ProduceOutcome before = cluster.await(producer.send("rep", 0, null, "before", -1, 30_000));
            cluster.kill(1);
            assertThat(cluster.runUntil(() -> cluster.admin().partition("rep", 0).leader() == 2
                    && cluster.broker(2).partition(REP0).map(p -> p.isLeader()).orElse(false), 30_000)).isTrue();
            ProduceOutcome after = cluster.await(producer.send("rep", 0, null, "after", -1, 30_000));

            assertThat(after.isSuccess()).isTrue();
            assertThat(after.leaderEpoch()).isGreaterThan(before.leaderEpoch());
            List<ConsumedRecord> log = cluster.admin().records(2, "rep", 0);
            for (ProduceOutcome o : List.of(before, after)) {
                assertThat(log.get((int) o.offset()).leaderEpoch()).as("epoch at offset %d", o.offset())
                        .isEqualTo(o.leaderEpoch());
            }
        }
    }
}
