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

package dev.insync.replication.cli;

import dev.insync.replication.cli.chaos.ChaosRun;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.netty.client.InsyncClient;
import dev.insync.replication.netty.client.RecordMetadata;
import dev.insync.replication.testkit.process.ProcessCluster;
import dev.insync.replication.testkit.process.ProcessCluster.Flow;
import dev.insync.replication.testkit.process.ProcessGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link ProcessCluster} on the real thing: {@code insync broker --config FILE} processes (one
 * controller, three brokers), driven by {@link InsyncClient}. A leader killed with {@code kill -9}
 * and a leader cut from the controller by its proxies both lose no acknowledged acks=all record.
 */
@Timeout(240)
class ProcessClusterProcessesTest {

    static final long WAIT_MS = 60_000;

    @TempDir
    Path dir;

    private ProcessCluster cluster;
    private InsyncClient client;

    @AfterEach
    void closeAll() throws IOException {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
        ProcessGroup.reapLeftovers(dir.resolve("pids"));
    }

    /** The chaos run's cluster (short timeouts: fencing and elections within seconds), PID files under the test's directory. */
    static ProcessCluster.Builder fastCluster(Path dir) {
        return ChaosRun.clusterBuilder(dir).pidDirectory(dir.resolve("pids"));
    }

    static String controllers(ProcessCluster cluster) {
        StringBuilder sb = new StringBuilder();
        for (int id : cluster.controllerIds()) {
            sb.append(sb.length() == 0 ? "" : ",").append("127.0.0.1:").append(cluster.node(id).listenerPort());
        }
        return sb.toString();
    }

    /**
     * A client that gives up on a send after 6 s: the tests expect some sends to fail (a refusal under min ISR
     * is retried until then), and {@link #produceUntilAcknowledged} sends again when one fails.
     */
    private InsyncClient client() {
        return InsyncClient.builder(Map.of("bootstrap.servers", cluster.bootstrapServers(),
                "bootstrap.controllers", controllers(cluster), "acks", "all", "linger.ms", 0,
                "request.timeout.ms", 5000, "delivery.timeout.ms", 6000, "client.id", "test")).build();
    }

    /**
     * Starts the chaos run's cluster of three brokers and {@code controllers} controllers, and creates
     * {@code tp}'s topic (one partition, three replicas, min ISR 2); returns its registration once its ISR is full.
     */
    private PartitionRegistration startWithTopic(int controllers, TopicPartition tp) throws Exception {
        cluster = fastCluster(dir).brokers(3).controllers(controllers).start();
        client = client();
        client.createTopic(tp.topic(), 1, 3, Map.of("min.insync.replicas", "2")).get(WAIT_MS, TimeUnit.MILLISECONDS);
        return awaitPartition(tp, r -> r.leader() > 0 && r.isr().size() == 3);
    }

    /** Waits until the controller's registration of {@code tp} satisfies {@code condition}. */
    private PartitionRegistration awaitPartition(TopicPartition tp, Predicate<PartitionRegistration> condition)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        PartitionRegistration last = null;
        while (System.nanoTime() < deadline) {
            try {
                for (PartitionRegistration p : client.describeTopicConfigs(tp.topic()).get(5, TimeUnit.SECONDS).partitions()) {
                    if (p.topicPartition().equals(tp)) {
                        last = p;
                        if (condition.test(p)) {
                            return p;
                        }
                    }
                }
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                // not answered yet: ask again
            }
            Thread.sleep(100);
        }
        throw new AssertionError("partition " + tp + " never as expected; last " + last);
    }

    private long produceUntilAcknowledged(TopicPartition tp, String value) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try {
                RecordMetadata md = client.send(tp, null, value.getBytes(StandardCharsets.UTF_8)).get(30, TimeUnit.SECONDS);
                return md.offset();
            } catch (ExecutionException e) {
                last = e;
                Thread.sleep(200);
            }
        }
        throw new AssertionError("no acks=all success for " + value, last);
    }

    private Set<String> readAll(TopicPartition tp, long upTo) throws Exception {
        Set<String> values = new TreeSet<>();
        long offset = 0;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (offset < upTo && System.nanoTime() < deadline) {
            var r = client.fetch(tp, offset).get(30, TimeUnit.SECONDS);
            r.records().forEach(c -> values.add(new String(c.value(), StandardCharsets.UTF_8)));
            offset = r.nextOffset();
        }
        return values;
    }

    @Test
    @DisplayName("INV-1 on processes: kill -9 of the leader, then its restart; every acknowledged acks=all record is read back")
    void killedLeaderLosesNoAcknowledgedRecord() throws Exception {
        TopicPartition tp = new TopicPartition("kill", 0);
        PartitionRegistration p = startWithTopic(1, tp);
        List<String> acked = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            produceUntilAcknowledged(tp, "before-" + i);
            acked.add("before-" + i);
        }
        int leader = p.leader();
        assertThat(cluster.kill(leader)).isEqualTo(137);
        PartitionRegistration after = awaitPartition(tp, r -> r.leader() > 0 && r.leader() != leader);
        assertThat(after.leaderEpoch()).isGreaterThan(p.leaderEpoch());
        long last = 0;
        for (int i = 0; i < 10; i++) {
            last = produceUntilAcknowledged(tp, "after-" + i);
            acked.add("after-" + i);
        }
        cluster.restart(leader);
        awaitPartition(tp, r -> r.isr().size() == 3);
        assertThat(readAll(tp, last + 1)).containsAll(acked);
    }

    @Test
    @DisplayName("LDR-4, ISR-8 on processes: a leader blackholed from the controller is fenced and replaced; healed, it"
            + " follows and rejoins the ISR, and nothing acknowledged is lost")
    void leaderCutFromTheControllerIsReplaced() throws Exception {
        TopicPartition tp = new TopicPartition("cut", 0);
        PartitionRegistration p = startWithTopic(1, tp);
        produceUntilAcknowledged(tp, "first");
        int leader = p.leader();
        cluster.blackhole(leader, cluster.controllerIds().get(0), Flow.BOTH_WAYS);
        awaitPartition(tp, r -> r.leader() > 0 && r.leader() != leader);
        // The cut broker cannot learn that it was replaced, and still answers as the leader: heal
        // first (InsyncClient may keep asking it for metadata until then).
        cluster.heal();
        long last = produceUntilAcknowledged(tp, "second");
        awaitPartition(tp, r -> r.isr().size() == 3);
        assertThat(readAll(tp, last + 1)).contains("first", "second");
    }

    @Test
    @DisplayName("CTL-4, CTL-3 on processes: the active controller cut from its two peers (the brokers still reach it)"
            + " loses its role; the new one is found by every broker before it would fence them, and acks=all and"
            + " metadata writes go on")
    void activeControllerCutFromItsQuorumIsReplacedWithoutFencingAnyBroker() throws Exception {
        TopicPartition tp = new TopicPartition("quorum-cut", 0);
        PartitionRegistration before = startWithTopic(3, tp);
        produceUntilAcknowledged(tp, "first");
        int cut = awaitActiveController(id -> true);
        // A peer restarted first replays configuration entries that the active one wrote, with its own proxies'
        // addresses: it must still dial each peer through its own proxy, or the two left could not elect a successor.
        int restarted = cluster.controllerIds().stream().filter(id -> id != cut).findFirst().orElseThrow();
        cluster.restart(restarted);
        produceUntilAcknowledged(tp, "after-restart");
        long fencedBefore = fencingLines();
        for (int peer : cluster.controllerIds()) {
            if (peer != cut) {
                cluster.blackhole(cut, peer);
            }
        }
        int successor = awaitActiveController(id -> id != cut);
        long activeSinceNs = System.nanoTime();
        produceUntilAcknowledged(tp, "during");
        client.createTopic("created-during-the-cut", 1, 3, Map.of()).get(WAIT_MS, TimeUnit.MILLISECONDS);
        // CTL-3: the successor gave every broker a session timeout from its activation. Had the brokers
        // kept heartbeating the cut node, which may still answer them until it learns it lost the quorum, the
        // successor would fence them, and the leader would change. Watch over twice that timeout. (The ISR is not
        // watched: on a loaded machine a follower may fall behind replica.lag.time.max.ms for reasons of its own.)
        long watchNs = TimeUnit.MILLISECONDS.toNanos(2L * ChaosRun.BROKER_SESSION_TIMEOUT_MS);
        PartitionRegistration seen;
        do {
            seen = awaitPartition(tp, r -> true);
            assertThat(seen.leader()).as("leader during the quorum cut").isEqualTo(before.leader());
            assertThat(seen.leaderEpoch()).as("leader epoch during the quorum cut").isEqualTo(before.leaderEpoch());
            Thread.sleep(200);
        } while (System.nanoTime() - activeSinceNs < watchNs);
        // What a describe answered may come from the cut node's stale state; the controllers' own output does not.
        assertThat(fencingLines()).as("brokers fenced by controller " + successor + " during the quorum cut")
                .isEqualTo(fencedBefore);
        cluster.heal();
        long last = produceUntilAcknowledged(tp, "after");
        assertThat(readAll(tp, last + 1)).contains("first", "after-restart", "during", "after");
    }

    /** How many times the controllers' output says a broker is fenced for want of heartbeats (CTL-3). */
    private long fencingLines() throws IOException {
        long n = 0;
        for (int id : cluster.controllerIds()) {
            String log = java.nio.file.Files.readString(cluster.process(id).logFile(), StandardCharsets.UTF_8);
            n += log.lines().filter(l -> l.contains("sent no heartbeat for") && l.contains("fencing it")).count();
        }
        return n;
    }

    /** Waits until the controllers' output names an active controller that {@code condition} accepts. */
    private int awaitActiveController(java.util.function.IntPredicate condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (System.nanoTime() < deadline) {
            java.util.OptionalInt active = cluster.activeController();
            if (active.isPresent() && condition.test(active.getAsInt())) {
                return active.getAsInt();
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no such active controller; last named " + cluster.activeController());
    }

    @Test
    @DisplayName("ISR-1, ISR-2, PRO-2 on processes: a leader blackholed from its followers shrinks the ISR to itself, acks=all"
            + " is refused below min ISR, and after the heal the ISR regrows and acks=all succeeds")
    void leaderCutFromItsFollowersShrinksTheIsr() throws Exception {
        TopicPartition tp = new TopicPartition("shrink", 0);
        PartitionRegistration p = startWithTopic(1, tp);
        produceUntilAcknowledged(tp, "first");
        int leader = p.leader();
        for (int b : cluster.brokerIds()) {
            if (b != leader) {
                cluster.blackhole(leader, b);
            }
        }
        // ISR-1: a follower is out of sync only once the leader's LEO moved past it, so write something.
        var stalled = client.send(tp, null, "stalled".getBytes(StandardCharsets.UTF_8));
        awaitPartition(tp, r -> r.leader() == leader && r.isr().equals(List.of(leader)));
        assertThat(stalled).failsWithin(30, TimeUnit.SECONDS);
        assertThatThrownBy(() -> client.send(tp, null, "refused".getBytes(StandardCharsets.UTF_8)).get(30, TimeUnit.SECONDS))
                .hasMessageContaining("NOT_ENOUGH_REPLICAS");
        cluster.heal();
        awaitPartition(tp, r -> r.isr().size() == 3);
        long last = produceUntilAcknowledged(tp, "second");
        assertThat(readAll(tp, last + 1)).contains("first", "second").doesNotContain("refused");
        // "stalled" was appended by the leader and is kept or not: acks=all promised nothing for it.
    }
}
