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

package dev.insync.replication.netty.client;

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.netty.LoopbackCluster;
import dev.insync.replication.netty.client.ProduceFailedException.Written;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static dev.insync.replication.netty.LoopbackCluster.WAIT_MS;
import static dev.insync.replication.netty.LoopbackCluster.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link InsyncClient} against three real brokers replicating over Netty on loopback: acks=0/1/all,
 * leader changes during produce and consume.
 */
class InsyncClientClusterTest {

    private static final TopicPartition REP0 = new TopicPartition("rep", 0);

    @TempDir
    Path tmp;

    private LoopbackCluster cluster;
    private final List<InsyncClient> clients = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        clients.forEach(InsyncClient::close);
        if (cluster != null) {
            cluster.close();
        }
    }

    private void start() {
        cluster = new LoopbackCluster(tmp, 3);
        cluster.setPartition(PartitionRegistration.builder(REP0).replicas(1, 2, 3).isr(1, 2, 3).leader(1).build());
    }

    private InsyncClient client(Object... kv) {
        Map<String, Object> props = new HashMap<>(Map.of("bootstrap.servers", cluster.bootstrapServers(),
                "retry.backoff.ms", 20, "reconnect.backoff.ms", 20, "request.timeout.ms", 5_000,
                "delivery.timeout.ms", 20_000, "fetch.max.wait.ms", 100));
        for (int i = 0; i < kv.length; i += 2) {
            props.put((String) kv[i], kv[i + 1]);
        }
        InsyncClient c = InsyncClient.builder(props).build();
        clients.add(c);
        return c;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(ConsumerRecord r) {
        return new String(r.value(), StandardCharsets.UTF_8);
    }

    private static List<String> readAll(InsyncClient c, long upTo) throws InterruptedException {
        PartitionConsumer consumer = c.consumer(REP0, 0);
        List<String> out = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (consumer.position() < upTo && System.nanoTime() < deadline) {
            consumer.poll(1_000).forEach(r -> out.add(text(r)));
        }
        return out;
    }

    @Test
    @DisplayName("PRO-3 FET-1 acks=all through the client: batched records get consecutive offsets in leader epoch 0, and a consumer reads them all below the HW")
    void acksAllAndConsume() throws Exception {
        start();
        InsyncClient c = client("acks", "all", "linger.ms", 20);
        List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            futures.add(c.send(REP0, null, utf8("r" + i)));
        }
        c.flush().get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertThat(futures).as("flush completes after every record sent before it has its outcome")
                .allMatch(CompletableFuture::isDone);
        for (int i = 0; i < 20; i++) {
            assertThat(futures.get(i).get()).isEqualTo(new RecordMetadata(REP0, i, 0));
        }
        // acks=all: acknowledged means below the leader's HW (PRO-3).
        assertThat(cluster.broker(1).hw(REP0)).isEqualTo(20);
        // Linger batched them: fewer batches in the log than records.
        assertThat(cluster.broker(1).logDir.log(REP0).orElseThrow().read(0, 1 << 20, 20).records().batches().size())
                .isLessThan(20);
        List<String> read = readAll(c, 20);
        assertThat(read).hasSize(20).startsWith("r0", "r1").endsWith("r19");
        assertThat(InsyncClient.describeLine(c.describeTopic("rep").get(WAIT_MS, TimeUnit.MILLISECONDS).get(0)))
                .isEqualTo("Topic: rep\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2,3\tElr: \tLastKnownElr: ");
    }

    @Test
    @DisplayName("PRO-3 with both followers gone: acks=1 is acknowledged on the leader's append, acks=all times out as appended, acks=0 completes without an offset and is appended")
    void acksSemantics() throws Exception {
        start();
        cluster.broker(2).close();
        cluster.broker(3).close();
        InsyncClient one = client("acks", "1", "linger.ms", 0);
        RecordMetadata md = one.send(REP0, null, utf8("one")).get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertThat(md).isEqualTo(new RecordMetadata(REP0, 0, 0));
        assertThat(cluster.broker(1).leo(REP0)).isEqualTo(1);
        assertThat(cluster.broker(1).hw(REP0)).as("no follower has it: not committed").isZero();

        InsyncClient all = client("acks", "all", "linger.ms", 0, "request.timeout.ms", 500, "delivery.timeout.ms", 5_000);
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> all.send(REP0, null, utf8("all")).get(WAIT_MS, TimeUnit.MILLISECONDS));
        ProduceFailedException failed = (ProduceFailedException) e.getCause();
        assertThat(failed.error()).isEqualTo(Errors.REQUEST_TIMED_OUT);
        assertThat(failed.written()).isEqualTo(Written.APPENDED);
        assertThat(cluster.broker(1).leo(REP0)).as("appended once, not resent").isEqualTo(2);

        InsyncClient zero = client("acks", "0", "linger.ms", 0);
        assertThat(zero.send(REP0, null, utf8("zero")).get(WAIT_MS, TimeUnit.MILLISECONDS))
                .isEqualTo(new RecordMetadata(REP0, -1, -1));
        await("the acks=0 record appended", () -> cluster.broker(1).leo(REP0) == 3);
    }

    @Test
    @DisplayName("PRO-5 INV-1 LDR-2 the leader goes away during produce: the client learns the new leader, every call ends once, every acknowledged record is read back exactly once and nothing is duplicated")
    void leaderChangeDuringProduce() throws Exception {
        start();
        InsyncClient c = client("acks", "all", "linger.ms", 2, "max.in.flight.requests.per.connection", 1);
        List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            futures.add(c.send(REP0, null, utf8("a" + i)));
        }
        futures.get(9).get(WAIT_MS, TimeUnit.MILLISECONDS);
        // Broker 1 stops listening; the controller elects 2 in epoch 1 (ISR 2,3).
        cluster.broker(1).stopServer();
        cluster.setPartition(PartitionRegistration.builder(REP0).replicas(1, 2, 3).isr(2, 3).leader(2).leaderEpoch(1)
                .partitionEpoch(cluster.controller().partition(REP0).partitionEpoch() + 1).build());
        for (int i = 50; i < 100; i++) {
            futures.add(c.send(REP0, null, utf8("a" + i)));
        }
        c.flush().get(WAIT_MS, TimeUnit.MILLISECONDS);
        Set<String> acked = new HashSet<>();
        int unknown = 0;
        for (int i = 0; i < futures.size(); i++) {
            CompletableFuture<RecordMetadata> f = futures.get(i);
            assertThat(f).as("PRO-5: record " + i + " has an outcome").isDone();
            try {
                RecordMetadata md = f.get();
                acked.add("a" + i);
                if (i >= 50) {
                    assertThat(md.leaderEpoch()).as("written by the new leader").isEqualTo(1);
                }
            } catch (ExecutionException e) {
                ProduceFailedException p = (ProduceFailedException) e.getCause();
                assertThat(p.written()).as(p.getMessage()).isIn(Written.UNKNOWN, Written.APPENDED);
                unknown++;
            }
        }
        assertThat(acked).as("records sent after the election were all acknowledged by broker 2")
                .containsAll(java.util.stream.IntStream.range(50, 100).mapToObj(i -> "a" + i).toList());
        assertThat(c.knownLeaders().get(WAIT_MS, TimeUnit.MILLISECONDS)).containsEntry(REP0, 2);
        long hw = cluster.broker(2).hw(REP0);
        List<String> read = readAll(c, hw);
        assertThat(read).as("INV-1: every acknowledged record is there").containsAll(acked);
        assertThat(new HashSet<>(read)).as("no record written twice").hasSize(read.size());
        assertThat(read.size()).isLessThanOrEqualTo(acked.size() + unknown);
    }

    @Test
    @DisplayName("FET-2 a consumer follows a leader change: its fetch to the new leader with the old epoch is fenced, it learns epoch 1 and reads on from its position")
    void consumerFollowsLeaderChange() throws Exception {
        start();
        InsyncClient c = client("acks", "all", "linger.ms", 0);
        for (int i = 0; i < 5; i++) {
            c.send(REP0, null, utf8("b" + i));
        }
        c.flush().get(WAIT_MS, TimeUnit.MILLISECONDS);
        PartitionConsumer consumer = c.consumer(REP0, 0);
        List<String> read = new ArrayList<>();
        while (consumer.position() < 5) {
            consumer.poll(WAIT_MS).forEach(r -> read.add(text(r)));
        }
        await("followers at HW 5", () -> cluster.broker(2).hw(REP0) == 5 && cluster.broker(3).hw(REP0) == 5);
        // Broker 2 leads in epoch 1; broker 1 still listens, and as a follower refuses consumer fetches.
        cluster.setPartition(PartitionRegistration.builder(REP0).replicas(1, 2, 3).isr(1, 2, 3).leader(2).leaderEpoch(1)
                .partitionEpoch(cluster.controller().partition(REP0).partitionEpoch() + 1).build());
        InsyncClient producer = client("acks", "all", "linger.ms", 0);
        for (int i = 5; i < 10; i++) {
            producer.send(REP0, null, utf8("b" + i));
        }
        producer.flush().get(WAIT_MS, TimeUnit.MILLISECONDS);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (consumer.position() < 10 && System.nanoTime() < deadline) {
            consumer.poll(1_000).forEach(r -> read.add(text(r)));
        }
        assertThat(read).containsExactly("b0", "b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "b9");
        assertThat(c.knownLeaderEpoch(REP0).get(WAIT_MS, TimeUnit.MILLISECONDS)).hasValue(1);
        assertThat(InsyncClient.describeLine(c.describeTopic("rep").get(WAIT_MS, TimeUnit.MILLISECONDS).get(0)))
                .startsWith("Topic: rep\tPartition: 0\tLeader: 2\t");
    }

    @Test
    @DisplayName("FET-1 a fetch returns only records below the HW, starting at the asked offset inside a batch")
    void fetchFromInsideABatch() throws Exception {
        start();
        InsyncClient c = client("acks", "all", "linger.ms", 50);
        for (int i = 0; i < 6; i++) {
            c.send(REP0, null, utf8("c" + i));
        }
        c.flush().get(WAIT_MS, TimeUnit.MILLISECONDS);
        FetchResult r = c.fetch(REP0, 3).get(WAIT_MS, TimeUnit.MILLISECONDS);
        assertThat(r.error()).isEqualTo(Errors.NONE);
        assertThat(r.records()).extracting(ConsumerRecord::offset).containsExactly(3L, 4L, 5L);
        assertThat(r.nextOffset()).isEqualTo(6);
        assertThat(r.highWatermark()).isEqualTo(6);
    }
}
