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

package dev.insync.replication.controller;

import dev.insync.replication.controller.api.AlterTopicConfigRequest;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.core.metadata.ControllerChannel.HeartbeatResponse;
import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.controller.api.NotControllerException;
import dev.insync.replication.controller.api.RegisterBrokerRequest;
import dev.insync.replication.controller.api.TopicDescription;
import dev.insync.replication.controller.log.InMemoryMetadataLog;
import dev.insync.replication.controller.state.ControllerState;
import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionRequest.BrokerState;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.metadata.follower.MetadataFetchRequest;
import dev.insync.replication.core.metadata.follower.MetadataFetchResponse;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The controller driver on the in-memory log and a manual scheduler: no threads, no network. */
class QuorumControllerTest {

    private static final TopicPartition REP = new TopicPartition("rep", 0);

    private final ManualScheduler scheduler = new ManualScheduler(0);
    private final InMemoryMetadataLog log = new InMemoryMetadataLog();
    private final Map<Integer, QuorumController> nodes = new TreeMap<>();
    private final Map<Integer, Long> epochs = new TreeMap<>();
    private final List<Scheduler.Cancellable> heartbeaters = new ArrayList<>();

    @AfterEach
    void close() {
        nodes.values().forEach(QuorumController::close);
    }

    private QuorumController start(int nodeId, ControllerConfig config) {
        QuorumController controller = new QuorumController(nodeId, log.forNode(nodeId), scheduler, config);
        nodes.put(nodeId, controller);
        controller.start();
        scheduler.runReady();
        return controller;
    }

    private QuorumController active(ControllerConfig config) {
        QuorumController c = start(0, config);
        log.elect(0);
        scheduler.runReady();
        assertThat(c.isActive()).isTrue();
        return c;
    }

    private static <T> T done(ManualScheduler scheduler, CompletionStage<T> stage) {
        scheduler.runReady();
        CompletableFuture<T> future = stage.toCompletableFuture();
        assertThat(future).isDone();
        return future.join();
    }

    private <T> T done(CompletionStage<T> stage) {
        return done(scheduler, stage);
    }

    private long register(QuorumController c, int id) {
        long epoch = done(c.registerBroker(new RegisterBrokerRequest(id, -1))).brokerEpoch();
        epochs.put(id, epoch);
        return epoch;
    }

    private HeartbeatResponse heartbeat(QuorumController c, int id) {
        return done(c.brokerHeartbeat(new HeartbeatRequest(id, epochs.get(id), c.committedOffset(), false)));
    }

    private void startBrokers(QuorumController c, int... ids) {
        for (int id : ids) {
            register(c, id);
        }
        for (int id : ids) {
            assertThat(heartbeat(c, id).fenced()).isFalse();
        }
    }

    private PartitionRegistration partition(QuorumController c, TopicPartition tp) {
        return done(c.readCommitted(view -> view.partition(tp)));
    }

    private boolean fenced(QuorumController c, int id) {
        Boolean fenced = done(c.readCommitted(view -> view.broker(id).fenced()));
        return fenced;
    }

    private String dump(QuorumController c) {
        return done(c.readCommitted(view -> ((ControllerState) view).canonicalDump()));
    }

    /** Broker {@code id} heartbeats every 2 s, to whichever node is active. */
    private void heartbeatEvery2s(int id) {
        heartbeaters.add(scheduler.schedulePeriodically(scheduler.newSerialExecutor("hb-" + id), () -> {
            for (QuorumController c : nodes.values()) {
                if (c.isActive()) {
                    c.brokerHeartbeat(new HeartbeatRequest(id, epochs.get(id), c.committedOffset(), false));
                }
            }
        }, 2_000, 2_000));
    }

    private static void assertNotController(CompletionStage<?> stage, OptionalInt hint) {
        CompletableFuture<?> future = stage.toCompletableFuture();
        assertThat(future).isCompletedExceptionally();
        assertThatThrownBy(future::join).isInstanceOf(CompletionException.class)
                .cause().isInstanceOfSatisfying(NotControllerException.class, e -> {
                    assertThat(e.error()).isEqualTo(Errors.NOT_CONTROLLER);
                    assertThat(e.activeController()).isEqualTo(hint);
                });
    }

    @Test
    @DisplayName("CTL-1 a request is answered only once its records are committed and replayed; later operations see it at once")
    void answeredAfterCommit() {
        QuorumController c = active(ControllerConfig.DEFAULT);
        log.holdCommits(true);
        CompletableFuture<?> first = c.registerBroker(new RegisterBrokerRequest(1, -1)).toCompletableFuture();
        CompletableFuture<?> second = c.registerBroker(new RegisterBrokerRequest(2, -1)).toCompletableFuture();
        scheduler.runReady();
        assertThat(first).isNotDone();
        assertThat(second).isNotDone();
        assertThat(log.uncommittedBatches()).as("pipelined: the second is appended before the first commits").isEqualTo(2);
        assertThat(c.committedOffset()).isEqualTo(-1);
        log.holdCommits(false);
        scheduler.runReady();
        assertThat(first.join()).isEqualTo(new dev.insync.replication.controller.api.RegisterBrokerResponse(Errors.NONE, 0));
        assertThat(second.join()).isEqualTo(new dev.insync.replication.controller.api.RegisterBrokerResponse(Errors.NONE, 1));
        assertThat(c.committedOffset()).isEqualTo(1);
    }

    @Test
    @DisplayName("CTL-1 an operation that writes nothing is answered after the commit of the state it read")
    void noRecordsWaitForWhatTheyRead() {
        QuorumController c = active(ControllerConfig.DEFAULT);
        register(c, 1);
        log.holdCommits(true);
        CompletableFuture<HeartbeatResponse> unfence = c.brokerHeartbeat(
                new HeartbeatRequest(1, 0, 0, false)).toCompletableFuture();
        CompletableFuture<HeartbeatResponse> again = c.brokerHeartbeat(
                new HeartbeatRequest(1, 0, 0, false)).toCompletableFuture();
        scheduler.runReady();
        assertThat(log.uncommittedBatches()).isEqualTo(1);
        assertThat(again).as("reads the unfencing, which is not committed").isNotDone();
        log.holdCommits(false);
        assertThat(done(again)).isEqualTo(new HeartbeatResponse(Errors.NONE, false, false));
        assertThat(unfence.join().fenced()).isFalse();
    }

    @Test
    @DisplayName("CTL-4 a node that is not the active controller answers NOT_CONTROLLER, naming the active node when it knows it")
    void notController() {
        QuorumController c0 = start(0, ControllerConfig.DEFAULT);
        QuorumController c1 = start(1, ControllerConfig.DEFAULT);
        CompletionStage<?> beforeElection = c0.registerBroker(new RegisterBrokerRequest(1, -1));
        scheduler.runReady();
        assertNotController(beforeElection, OptionalInt.empty());
        log.elect(0);
        scheduler.runReady();
        CompletionStage<?> toFollower = c1.alterPartition(new AlterPartitionRequest(1, 0, List.of()));
        scheduler.runReady();
        assertNotController(toFollower, OptionalInt.of(0));
        assertThat(c1.activeController()).hasValue(0);
        assertThat(c1.isActive()).isFalse();
    }

    @Test
    @DisplayName("CTL-4 leadership lost before commit: waiting requests fail NOT_CONTROLLER, and none of their records is in the log")
    void failoverDropsUncommitted() {
        QuorumController c0 = active(ControllerConfig.DEFAULT);
        QuorumController c1 = start(1, ControllerConfig.DEFAULT);
        register(c0, 1);
        log.holdCommits(true);
        CompletionStage<?> lost = c0.registerBroker(new RegisterBrokerRequest(2, -1));
        scheduler.runReady();
        log.elect(1);
        log.holdCommits(false);
        scheduler.runReady();
        assertNotController(lost, OptionalInt.of(1));
        assertThat(c0.isActive()).isFalse();
        assertThat(c1.isActive()).isTrue();
        Boolean known = done(c1.readCommitted(view -> view.broker(2) != null));
        assertThat(known).isFalse();
        // The new active controller continues at the log's end.
        assertThat(register(c1, 2)).isEqualTo(1);
        assertThat(dump(c0)).isEqualTo(dump(c1));
    }

    @Test
    @DisplayName("CTL-1 a controller restarted from its log (with snapshots and purged batches) has exactly the state it had")
    void restartFromLog() {
        ControllerConfig config = ControllerConfig.DEFAULT.withSnapshotIntervalRecords(5);
        QuorumController c = active(config);
        startBrokers(c, 1, 2, 3);
        done(c.createTopic(CreateTopicRequest.withAssignment("rep", List.of(List.of(1, 2, 3)), Map.of("min.insync.replicas", "2"))));
        PartitionRegistration p = partition(c, REP);
        done(c.alterPartition(new AlterPartitionRequest(1, epochs.get(1), List.of(new AlterPartitionRequest.Item(REP,
                p.leaderEpoch(), p.partitionEpoch(), List.of(new BrokerState(1, epochs.get(1))), false)))));
        done(c.fenceBroker(1));
        done(c.alterTopicConfig(new AlterTopicConfigRequest("rep", "min.insync.replicas", "1")));
        assertThat(heartbeat(c, 1).fenced()).isFalse();
        String before = dump(c);
        assertThat(log.latestSnapshot()).hasValueSatisfying(s -> assertThat(s.lastOffset()).isPositive());
        assertThat(log.committedBatches()).as("a tail after the snapshot").isNotEmpty();
        assertThat(log.committedBatches().get(0).baseOffset()).as("batches covered by the snapshot are gone").isPositive();

        c.close();
        nodes.remove(0);
        QuorumController restarted = start(0, config);
        assertThat(dump(restarted)).isEqualTo(before);
        // A standby that never saw the live run rebuilds the same state too.
        assertThat(dump(start(7, config))).isEqualTo(before);
    }

    @Test
    @DisplayName("CTL-3 LDR-4 an unfenced broker without heartbeats for broker.session.timeout.ms is fenced on the manual clock, then unfenced by a heartbeat")
    void sessionExpiry() {
        QuorumController c = active(ControllerConfig.DEFAULT.withBrokerSessionTimeoutMs(30_000));
        startBrokers(c, 1, 2, 3);
        done(c.createTopic(CreateTopicRequest.withAssignment("rep", List.of(List.of(1, 2, 3)), Map.of())));
        heartbeatEvery2s(2);
        heartbeatEvery2s(3);
        // Broker 1's last contact was its unfencing heartbeat at time 0.
        scheduler.advance(29_999);
        assertThat(fenced(c, 1)).isFalse();
        scheduler.advance(1);
        assertThat(fenced(c, 1)).isTrue();
        PartitionRegistration p = partition(c, REP);
        assertThat(p.leader()).isEqualTo(2);
        assertThat(p.isr()).containsExactly(2, 3);
        scheduler.advance(60_000);
        assertThat(fenced(c, 2) || fenced(c, 3)).isFalse();
        assertThat(heartbeat(c, 1).fenced()).isFalse();
        assertThat(partition(c, REP).isr()).as("the controller does not put it back into the ISR").containsExactly(2, 3);
    }

    @Test
    @DisplayName("CTL-3 a newly active controller gives every broker a full session timeout before fencing it")
    void failoverGrace() {
        ControllerConfig config = ControllerConfig.DEFAULT.withBrokerSessionTimeoutMs(30_000);
        QuorumController c0 = active(config);
        QuorumController c1 = start(1, config);
        startBrokers(c0, 1, 2);
        heartbeatEvery2s(2);
        scheduler.advance(20_000);
        log.elect(1);
        scheduler.runReady();
        assertThat(c1.isActive()).isTrue();
        // On the old controller broker 1 would have expired at 30 s; the new one counts from 20 s.
        scheduler.advance(29_999);
        assertThat(fenced(c1, 1)).isFalse();
        scheduler.advance(1);
        assertThat(fenced(c1, 1)).isTrue();
        assertThat(fenced(c1, 2)).as("heartbeats reach the new active").isFalse();
        assertThat(dump(c0)).isEqualTo(dump(c1));
    }

    @Test
    @DisplayName("CTL-5 a metadata fetch long-polls at the log's end and is answered with the next committed delta")
    void fetchLongPoll() {
        QuorumController c = active(ControllerConfig.DEFAULT);
        register(c, 1);
        MetadataFetchResponse first = done(c.fetchMetadata(new MetadataFetchRequest(1, -1, 500, 100)));
        assertThat(first.image()).isEmpty();
        assertThat(first.deltas()).extracting(MetadataDelta::offset).containsExactly(0L);
        CompletableFuture<MetadataFetchResponse> parked = c.fetchMetadata(new MetadataFetchRequest(1, 0, 500, 100))
                .toCompletableFuture();
        scheduler.runReady();
        assertThat(parked).isNotDone();
        heartbeat(c, 1);
        assertThat(parked).isDone();
        assertThat(parked.join().afterOffset()).isZero();
        assertThat(parked.join().deltas()).singleElement().satisfies(d -> {
            assertThat(d.offset()).isEqualTo(1);
            assertThat(d.brokers()).singleElement().satisfies(b -> assertThat(b.fenced()).isFalse());
        });
        CompletableFuture<MetadataFetchResponse> idle = c.fetchMetadata(new MetadataFetchRequest(1, 1, 500, 100))
                .toCompletableFuture();
        scheduler.advance(499);
        assertThat(idle).isNotDone();
        scheduler.advance(1);
        assertThat(idle.join().deltas()).isEmpty();
        assertThat(idle.join().endOffset()).isEqualTo(1);
    }

    @Test
    @DisplayName("CTL-5 a broker behind what the node keeps, or naming no batch end, gets an image of the committed state")
    void fetchImage() {
        QuorumController c = active(ControllerConfig.DEFAULT.withMetadataDeltaCacheSize(2));
        startBrokers(c, 1, 2);
        MetadataFetchResponse behind = done(c.fetchMetadata(new MetadataFetchRequest(1, -1, 0, 100)));
        assertThat(behind.image()).hasValueSatisfying(image -> {
            assertThat(image.offset()).isEqualTo(c.committedOffset());
            assertThat(image.brokers()).hasSize(2);
        });
        assertThat(behind.deltas()).isEmpty();
        assertThat(done(c.fetchMetadata(new MetadataFetchRequest(1, 2, 0, 100))).deltas())
                .extracting(MetadataDelta::offset).containsExactly(3L);
        assertThat(done(c.fetchMetadata(new MetadataFetchRequest(1, 3, 0, 1))).image()).as("offset 3 is a batch end").isEmpty();
        assertThat(done(c.fetchMetadata(new MetadataFetchRequest(1, 1, 0, 100))).deltas()).as("just kept")
                .extracting(MetadataDelta::offset).containsExactly(2L, 3L);
        assertThat(done(c.fetchMetadata(new MetadataFetchRequest(1, 0, 0, 100))).image()).as("evicted").isPresent();
    }

    @Test
    @DisplayName("CTL-5 any node serves metadata and describe from its committed state, active or not")
    void readsFromAnyNode() {
        QuorumController c0 = active(ControllerConfig.DEFAULT);
        QuorumController c1 = start(1, ControllerConfig.DEFAULT);
        startBrokers(c0, 1, 2);
        done(c0.createTopic(CreateTopicRequest.withAssignment("rep", List.of(List.of(1, 2)), Map.of())));
        TopicDescription description = done(c1.describeTopic("rep"));
        assertThat(description.describe()).isEqualTo("Topic: rep\tPartition: 0\tLeader: 1\tReplicas: 1,2\tIsr: 1,2\tElr: \tLastKnownElr: ");
        assertThat(done(c1.fetchMetadata(new MetadataFetchRequest(2, -1, 0, 100))).deltas()).hasSize(5);
        CompletableFuture<TopicDescription> unknown = c1.describeTopic("nope").toCompletableFuture();
        scheduler.runReady();
        assertThat(unknown).isCompletedExceptionally();
    }

    @Test
    @DisplayName("ISR-6 AlterPartition through the driver: the answer carries the committed state, and a second proposal sees it")
    void alterPartitionThroughDriver() {
        QuorumController c = active(ControllerConfig.DEFAULT);
        startBrokers(c, 1, 2, 3);
        done(c.createTopic(CreateTopicRequest.withAssignment("rep", List.of(List.of(1, 2, 3)), Map.of())));
        log.holdCommits(true);
        AlterPartitionRequest shrink = new AlterPartitionRequest(1, epochs.get(1), List.of(new AlterPartitionRequest.Item(REP,
                0, 0, List.of(new BrokerState(1, epochs.get(1)), new BrokerState(2, epochs.get(2))), false)));
        CompletableFuture<AlterPartitionResponse> a = c.alterPartition(shrink).toCompletableFuture();
        CompletableFuture<AlterPartitionResponse> b = c.alterPartition(shrink).toCompletableFuture();
        scheduler.runReady();
        log.holdCommits(false);
        scheduler.runReady();
        assertThat(a.join().partitions().get(REP)).isEqualTo(new AlterPartitionResponse.PartitionResult(Errors.NONE, 1, 0,
                List.of(1, 2), 1));
        assertThat(b.join().partitions().get(REP).error()).isEqualTo(Errors.INVALID_UPDATE_VERSION);
    }

    @Test
    @DisplayName("invalid admin input fails with the ApiException, writes nothing, and the controller goes on")
    void invalidAdmin() {
        QuorumController c = active(ControllerConfig.DEFAULT);
        CompletableFuture<?> bad = c.createTopic(CreateTopicRequest.withAssignment("rep", List.of(List.of(7)), Map.of()))
                .toCompletableFuture();
        scheduler.runReady();
        assertThatThrownBy(bad::join).hasMessageContaining("Broker 7");
        assertThat(c.committedOffset()).isEqualTo(-1);
        assertThat(register(c, 1)).isZero();
    }

    @Test
    @DisplayName("writes waiting for commit are bounded: beyond insync.controller.max.pending.writes a write is refused, retriable")
    void pendingBound() {
        QuorumController c = active(ControllerConfig.DEFAULT.withMaxPendingWrites(2));
        log.holdCommits(true);
        CompletableFuture<?> a = c.registerBroker(new RegisterBrokerRequest(1, -1)).toCompletableFuture();
        CompletableFuture<?> b = c.registerBroker(new RegisterBrokerRequest(2, -1)).toCompletableFuture();
        CompletableFuture<?> refused = c.registerBroker(new RegisterBrokerRequest(3, -1)).toCompletableFuture();
        scheduler.runReady();
        assertThatThrownBy(refused::join).cause().isInstanceOfSatisfying(dev.insync.replication.log.ApiException.class,
                e -> assertThat(e.error()).isEqualTo(Errors.REQUEST_TIMED_OUT));
        log.holdCommits(false);
        scheduler.runReady();
        assertThat(a).isCompleted();
        assertThat(b).isCompleted();
        assertThat(register(c, 3)).isEqualTo(2);
    }

    @Test
    @DisplayName("ControllerConfig reads Kafka-style properties and names a bad one")
    void config() {
        ControllerConfig config = ControllerConfig.fromProperties(Map.of("broker.session.timeout.ms", "18000",
                "min.insync.replicas", 2, "unclean.leader.election.enable", "true",
                "metadata.log.max.snapshot.interval.records", "0"));
        assertThat(config.brokerSessionTimeoutMs()).isEqualTo(18_000);
        assertThat(config.defaultMinInsyncReplicas()).isEqualTo(2);
        assertThat(config.defaultUncleanLeaderElection()).isTrue();
        assertThat(config.snapshotIntervalRecords()).isZero();
        assertThatThrownBy(() -> ControllerConfig.fromProperties(Map.of("broker.session.timeout.ms", "soon")))
                .hasMessageContaining("broker.session.timeout.ms");
        assertThatThrownBy(() -> ControllerConfig.fromProperties(Map.of("min.insync.replicas", 0)))
                .hasMessageContaining("min.insync.replicas");
    }
}
