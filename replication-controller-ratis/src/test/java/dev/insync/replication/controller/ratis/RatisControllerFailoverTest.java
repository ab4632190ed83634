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

package dev.insync.replication.controller.ratis;

import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.controller.channel.QuorumControllerChannel;
import dev.insync.replication.controller.log.MetadataBatch;
import dev.insync.replication.controller.record.MetadataRecord;
import dev.insync.replication.controller.record.MetadataRecordType;
import dev.insync.replication.controller.record.PartitionChangeRecord;
import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse.PartitionResult;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.time.ThreadScheduler;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The active controller of a 3-node Ratis quorum dies while brokers (core's real lifecycle and
 * AlterPartition managers, through {@link QuorumControllerChannel}) heartbeat and change ISRs.
 */
class RatisControllerFailoverTest {

    private static final long ELECTION_TIMEOUT_MS = 1000; // Kafka's default
    private static final int PARTITIONS = 6;
    private static final List<Integer> BROKERS = List.of(101, 102, 103);
    /** The per-partition errors ISR-5 says the Partition handles (revert, stay pending, or resubmit). */
    private static final Set<Errors> HANDLED = EnumSet.of(Errors.INVALID_UPDATE_VERSION, Errors.FENCED_LEADER_EPOCH,
            Errors.NOT_CONTROLLER, Errors.OPERATION_NOT_ATTEMPTED, Errors.INELIGIBLE_REPLICA, Errors.NEW_LEADER_ELECTED);

    @TempDir
    Path dir;

    private record Outcome(TopicPartition tp, PartitionResult result, Throwable error) {
    }

    @Test
    @DisplayName("CTL-4 CTL-3 the active controller dies under heartbeats and AlterPartitions: a new one within the election "
            + "timeout + 1 s, no committed record lost, every proposal applied once or answered with an error ISR-5 handles, "
            + "no broker fenced")
    void ctl4FailoverUnderLoad() throws Exception {
        Map<String, Object> props = Map.of("controller.quorum.election.timeout.ms", ELECTION_TIMEOUT_MS,
                "broker.session.timeout.ms", 9000, "broker.heartbeat.interval.ms", 500);
        ScheduledExecutorService driver = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "isr-driver"));
        List<TestBroker> brokers = new ArrayList<>();
        try (RatisQuorum quorum = new RatisQuorum(dir, 3, props).startAll();
             ThreadScheduler scheduler = new ThreadScheduler()) {
            RatisControllerNode first = quorum.awaitActive(15_000);
            QuorumControllerChannel channel = new QuorumControllerChannel(QuorumEndpoints.of(quorum), scheduler,
                    new QuorumControllerChannel.Settings(50, 400, 2_000, 5));
            Map<Integer, TestBroker> byId = new TreeMap<>();
            for (int id : BROKERS) {
                TestBroker b = new TestBroker(id, channel, scheduler, 500).start();
                brokers.add(b);
                byId.put(id, b);
            }
            RatisQuorum.awaitCondition(15_000, () -> brokers.stream().noneMatch(b -> b.lifecycle.isFenced()),
                    "every broker unfenced");
            List<List<Integer>> assignment = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                assignment.add(List.of(BROKERS.get(p % 3), BROKERS.get((p + 1) % 3), BROKERS.get((p + 2) % 3)));
            }
            first.controllerApi().createTopic(CreateTopicRequest.withAssignment("t", assignment, Map.of()))
                    .toCompletableFuture().get(10, TimeUnit.SECONDS);
            RatisQuorum.awaitCondition(10_000, () -> brokers.stream().allMatch(b -> b.partitions.size() == PARTITIONS),
                    "every broker sees the topic");

            // ISR changes, one proposal in flight per partition, each built on the latest state known.
            Map<TopicPartition, PartitionRegistration> known = new ConcurrentHashMap<>(brokers.get(0).partitions);
            Map<TopicPartition, CompletableFuture<?>> inFlight = new ConcurrentHashMap<>();
            List<Outcome> outcomes = new CopyOnWriteArrayList<>();
            driver.scheduleWithFixedDelay(() -> {
                for (int p = 0; p < PARTITIONS; p++) {
                    TopicPartition tp = new TopicPartition("t", p);
                    if (inFlight.containsKey(tp)) {
                        continue;
                    }
                    PartitionRegistration reg = newest(known.get(tp), brokers.get(0).partitions.get(tp));
                    TestBroker leader = byId.get(reg.leader());
                    List<Integer> isr = reg.isr().size() == 3 ? reg.replicas().subList(0, 2) : reg.replicas();
                    List<AlterPartitionRequest.BrokerState> members = isr.stream()
                            .map(id -> new AlterPartitionRequest.BrokerState(id, id == reg.leader() ? leader.lifecycle.brokerEpoch() : -1))
                            .toList();
                    CompletableFuture<PartitionResult> f = leader.alterPartitions.submit(
                            new AlterPartitionRequest.Item(tp, reg.leaderEpoch(), reg.partitionEpoch(), members, false));
                    inFlight.put(tp, f);
                    f.whenComplete((result, error) -> {
                        outcomes.add(new Outcome(tp, result, error));
                        if (result != null && result.error() == Errors.NONE) {
                            known.put(tp, new PartitionRegistration(tp, reg.replicas(), result.isr(), List.of(), List.of(),
                                    result.leaderId(), result.leaderEpoch(), result.partitionEpoch(), false));
                        }
                        inFlight.remove(tp);
                    });
                }
            }, 0, 5, TimeUnit.MILLISECONDS);
            RatisQuorum.awaitCondition(10_000, () -> outcomes.size() >= 30, "30 AlterPartitions answered before the kill");

            // Kill the active controller (in another thread: closing takes a while) and time the failover.
            RatisControllerNode dying = quorum.active().orElseThrow();
            int oldEpoch = dying.metadataLog().leaderAndEpoch().epoch();
            List<MetadataBatch> committedBefore = dying.metadataLog().read(-1, Integer.MAX_VALUE);
            int answeredBefore = outcomes.size();
            long killedAt = System.nanoTime();
            quorum.nodes.remove(dying.nodeId()); // gone for the brokers' endpoints and for quorum.active() at once
            Thread killer = new Thread(dying::close, "killer");
            killer.start();
            RatisQuorum.awaitCondition(ELECTION_TIMEOUT_MS + 1000, () -> quorum.active().isPresent(),
                    "a new active controller within the election timeout + 1 s");
            long failoverMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            RatisControllerNode successor = quorum.active().orElseThrow();
            assertThat(successor.nodeId()).isNotEqualTo(dying.nodeId());
            assertThat(successor.metadataLog().leaderAndEpoch().epoch()).isGreaterThan(oldEpoch);
            killer.join(10_000);
            assertThat(killer.isAlive()).isFalse();

            // Keep going on the new active controller, then stop and let every proposal finish.
            RatisQuorum.awaitCondition(10_000, () -> outcomes.size() >= answeredBefore + 30,
                    "30 more AlterPartitions answered after the failover (" + failoverMs + " ms)");
            driver.shutdown();
            assertThat(driver.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
            RatisQuorum.awaitCondition(10_000, inFlight::isEmpty, "every proposal answered: " + inFlight.keySet());

            // CTL-3: nobody was fenced by the failover (a full session timeout of grace).
            assertThat(brokers).allSatisfy(b -> assertThat(b.lifecycle.isFenced()).isFalse());

            // No committed record lost: the survivors' logs start with everything the dead leader had committed.
            long end = successor.controller().committedOffset();
            quorum.awaitCommitted(end, 10_000);
            List<MetadataBatch> after = successor.metadataLog().read(-1, Integer.MAX_VALUE);
            assertThat(after.subList(0, committedBefore.size())).isEqualTo(committedBefore);
            for (RatisControllerNode survivor : quorum.nodes.values()) {
                assertThat(survivor.metadataLog().read(-1, Integer.MAX_VALUE)).startsWith(committedBefore.toArray(MetadataBatch[]::new));
                assertThat(RatisQuorum.dump(survivor)).isEqualTo(RatisQuorum.dump(successor));
            }
            List<MetadataRecord> records = after.stream().flatMap(b -> b.records().stream()).toList();
            assertThat(records).noneMatch(r -> r.type() == MetadataRecordType.FENCE_BROKER);

            // Every proposal: applied exactly once (its change is in the log once), or an error ISR-5 handles.
            int applied = 0;
            for (Outcome o : outcomes) {
                if (o.error != null) {
                    assertThat(o.error).isInstanceOf(ApiException.class);
                    assertThat(((ApiException) o.error).error()).isEqualTo(Errors.OPERATION_NOT_ATTEMPTED);
                } else if (o.result.error() == Errors.NONE) {
                    applied++;
                    List<PartitionChangeRecord> changes = records.stream()
                            .filter(r -> r instanceof PartitionChangeRecord c && c.topicPartition().equals(o.tp)
                                    && c.partitionEpoch() == o.result.partitionEpoch())
                            .map(r -> (PartitionChangeRecord) r).toList();
                    assertThat(changes).as("the change of %s to partition epoch %d", o.tp, o.result.partitionEpoch())
                            .hasSize(1);
                    assertThat(changes.get(0).isr()).isEqualTo(o.result.isr());
                } else {
                    assertThat(HANDLED).as("error for %s", o.tp).contains(o.result.error());
                }
            }
            assertThat(applied).isGreaterThan(40);
            channel.close();
        } finally {
            driver.shutdownNow();
            brokers.forEach(TestBroker::close);
        }
    }

    private static PartitionRegistration newest(PartitionRegistration a, PartitionRegistration b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        return b.leaderEpoch() > a.leaderEpoch()
                || (b.leaderEpoch() == a.leaderEpoch() && b.partitionEpoch() > a.partitionEpoch()) ? b : a;
    }
}
