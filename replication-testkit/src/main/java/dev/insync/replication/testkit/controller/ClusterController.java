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

package dev.insync.replication.testkit.controller;

import dev.insync.replication.controller.ControllerConfig;
import dev.insync.replication.controller.QuorumController;
import dev.insync.replication.controller.api.AlterTopicConfigRequest;
import dev.insync.replication.controller.api.ControllerApi;
import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.controller.api.NotControllerException;
import dev.insync.replication.controller.log.InMemoryMetadataLog;
import dev.insync.replication.core.config.ReplicationConfig;
import dev.insync.replication.core.metadata.BrokerRegistration;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.testkit.network.ControllerRpc;
import dev.insync.replication.testkit.network.InMemoryNetwork;
import dev.insync.replication.testkit.sim.NodeId;
import dev.insync.replication.testkit.sim.NodeRuntime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * The controller of an in-process cluster: one {@link QuorumController} node
 * ({@link NodeId#CONTROLLER}, controller node id {@value #NODE_ID}) on an {@link InMemoryMetadataLog}.
 * Its calls are bound on the {@link InMemoryNetwork} ({@link ControllerRpc}), so brokers reach it
 * through their {@code QuorumControllerChannel} with every message on a link, and cuts, loss,
 * delays and pauses act on them as on any other traffic.
 *
 * <p>The process can fail: {@link #kill()} is the active controller dying (its in-memory state,
 * liveness tracking and queued work are gone; the metadata log, the durable part, survives and has
 * no leader), {@link #restart()} starts a new incarnation that rebuilds its state from the log
 * (snapshot plus tail) and becomes active, giving every broker a full session timeout before it
 * may fence it (CTL-3); {@link #pause()} / {@link #resume()} are SIGSTOP / SIGCONT.
 *
 * <p>Admin writes ({@link #createTopic}, {@link #setMinInsyncReplicas}, {@link #fence}) are
 * {@link ControllerApi} calls made in the JVM (an operator on the controller's machine): they
 * complete as the node runs, and fail with {@code NOT_CONTROLLER} while it is down. Reads
 * ({@link #partition}, {@link #describe}, {@link #history} ...) come from {@link #committed()},
 * the log as an observer sees it, whatever the node's state.
 */
public final class ClusterController implements AutoCloseable {

    /** The controller node id of {@link NodeId#CONTROLLER}. */
    public static final int NODE_ID = 0;

    private static final Logger LOG = LoggerFactory.getLogger(ClusterController.class);

    /** The controller process's state. */
    public enum Status {
        /** Serving (active once it has replayed the log). */
        RUNNING,
        /** SIGSTOP: it handles nothing, its timers are frozen, messages to it queue. */
        PAUSED,
        /** Dead (or not started): nothing reaches it. */
        DOWN
    }

    private final NodeRuntime runtime;
    private final InMemoryNetwork network;
    private final ControllerConfig config;
    private final InMemoryMetadataLog log = new InMemoryMetadataLog();
    private final CommittedMetadata committed = CommittedMetadata.observe(log);

    private volatile QuorumController node;
    private volatile Status status = Status.DOWN;
    private volatile int incarnation;
    private volatile long startedAtMs = -1;

    /** A controller for the cluster on {@code network}; call {@link #start()} to run it. */
    public ClusterController(NodeRuntime runtime, InMemoryNetwork network, ControllerConfig config) {
        this.runtime = Objects.requireNonNull(runtime, "runtime");
        this.network = Objects.requireNonNull(network, "network");
        this.config = Objects.requireNonNull(config, "config");
    }

    /**
     * The controller settings for brokers configured with {@code replication} (session timeout,
     * default min ISR and unclean election) and {@code properties} (the controller's own, e.g.
     * {@code metadata.log.max.snapshot.interval.records}).
     */
    public static ControllerConfig configFor(ReplicationConfig replication, Map<String, ?> properties) {
        ControllerConfig fromProperties = ControllerConfig.fromProperties(properties);
        return new ControllerConfig(replication.brokerSessionTimeoutMs(), replication.minInsyncReplicas(),
                replication.uncleanLeaderElectionEnable(), fromProperties.defaultReplicationFactor(),
                fromProperties.snapshotIntervalRecords(), fromProperties.metadataDeltaCacheSize(),
                fromProperties.maxParkedFetches(), fromProperties.maxPendingWrites());
    }

    // ================================================================================ the process

    /** Starts the first incarnation. Idempotent while it runs. */
    public synchronized void start() {
        if (incarnation > 0) {
            return;
        }
        launch();
    }

    /**
     * The active controller process dies (kill -9): its tasks, timers, in-memory state and liveness
     * tracking are gone, its uncommitted batches are lost, and the metadata log has no leader until
     * {@link #restart()}. What it committed stays in the log.
     *
     * @throws IllegalStateException if it is down already
     */
    public synchronized void kill() {
        if (status == Status.DOWN) {
            throw new IllegalStateException("The controller is already down");
        }
        QuorumController dead = node;
        node = null;
        runtime.kill(NodeId.CONTROLLER);
        // What the log sees of a dead process: it is gone (its executor is dead, so nothing more runs).
        dead.close();
        log.resign();
        status = Status.DOWN;
        LOG.info("Controller incarnation {} killed at offset {}", incarnation, committed.latestOffset());
    }

    /**
     * Starts a new incarnation after {@link #kill()}: it replays the durable log (snapshot and tail),
     * becomes the active controller in a new epoch, and counts every broker as heard from at that
     * moment (CTL-3).
     *
     * @throws IllegalStateException if it is not down
     */
    public synchronized void restart() {
        if (status != Status.DOWN || incarnation == 0) {
            throw new IllegalStateException("The controller is " + status + ", not down after a kill");
        }
        launch();
    }

    private void launch() {
        if (runtime.state(NodeId.CONTROLLER) == NodeRuntime.NodeState.DOWN) {
            runtime.start(NodeId.CONTROLLER);
        }
        QuorumController fresh = new QuorumController(NODE_ID, log.forNode(NODE_ID), runtime.forNode(NodeId.CONTROLLER),
                config);
        ControllerRpc.bind(network, NodeId.CONTROLLER, fresh);
        fresh.start();
        // A single-node quorum: the new node leads the log in a new epoch once it has replayed it.
        log.elect(NODE_ID);
        node = fresh;
        incarnation++;
        startedAtMs = runtime.time().milliseconds();
        status = Status.RUNNING;
        LOG.info("Controller incarnation {} started at offset {}", incarnation, committed.latestOffset());
    }

    /** SIGSTOP of the controller process. @throws IllegalStateException unless it runs */
    public synchronized void pause() {
        if (status != Status.RUNNING) {
            throw new IllegalStateException("The controller is " + status + ", not running");
        }
        runtime.pause(NodeId.CONTROLLER);
        status = Status.PAUSED;
    }

    /** SIGCONT: it handles what queued, late. @throws IllegalStateException unless paused */
    public synchronized void resume() {
        if (status != Status.PAUSED) {
            throw new IllegalStateException("The controller is " + status + ", not paused");
        }
        runtime.resume(NodeId.CONTROLLER);
        status = Status.RUNNING;
    }

    /** Running, paused or down. */
    public Status status() {
        return status;
    }

    /** How many times the controller process has started (a restart adds one). */
    public int incarnation() {
        return incarnation;
    }

    /** Wall time ({@code runtime.time().milliseconds()}) at which the current incarnation started, -1 before. */
    public long startedAtMs() {
        return startedAtMs;
    }

    /** Whether the current incarnation is the active controller (it has replayed the log and leads it). */
    public boolean isActive() {
        QuorumController n = node;
        return n != null && n.isActive();
    }

    /** The settings. */
    public ControllerConfig config() {
        return config;
    }

    /** The metadata log: the durable part, shared by every incarnation. */
    public InMemoryMetadataLog log() {
        return log;
    }

    /** What the controller committed, read from the log. */
    public CommittedMetadata committed() {
        return committed;
    }

    /**
     * The current incarnation's {@link ControllerApi}, called in the JVM (not over the network).
     *
     * @throws IllegalStateException while the controller is down
     */
    public ControllerApi api() {
        QuorumController n = node;
        if (n == null) {
            throw new IllegalStateException("The controller is down");
        }
        return n;
    }

    /** The current incarnation, if it runs. */
    public Optional<QuorumController> node() {
        return Optional.ofNullable(node);
    }

    /** Stops the node (cluster teardown). Idempotent. */
    @Override
    public synchronized void close() {
        QuorumController n = node;
        node = null;
        if (n != null) {
            n.close();
        }
        status = Status.DOWN;
    }

    // ================================================================================ admin writes

    /** Creates {@code topic} with the controller's default settings; see {@link #createTopic(String, List, int, boolean)}. */
    public CompletableFuture<List<PartitionRegistration>> createTopic(String topic, List<List<Integer>> assignment) {
        return createTopic(topic, assignment, config.defaultMinInsyncReplicas(), config.defaultUncleanLeaderElection());
    }

    /**
     * Creates {@code topic} with one partition per element of {@code assignment} (replicas in
     * assignment order, like {@code --replica-assignment 1:2:3}). The ISR is the assigned replicas
     * that are active, the leader the first of them; epochs start at 0.
     *
     * @return completes with the partitions once committed; fails with {@code INVALID_REQUEST} if the
     *         topic exists, an assignment is empty or repeats a broker, or a broker is not registered,
     *         and with {@code NOT_CONTROLLER} while the controller is down
     */
    public CompletableFuture<List<PartitionRegistration>> createTopic(String topic, List<List<Integer>> assignment,
                                                                      int minInsyncReplicas, boolean uncleanLeaderElection) {
        Map<String, String> configs = Map.of(
                ControllerConfig.MIN_INSYNC_REPLICAS, Integer.toString(minInsyncReplicas),
                ControllerConfig.UNCLEAN_LEADER_ELECTION_ENABLE, Boolean.toString(uncleanLeaderElection));
        return call(api -> api.createTopic(CreateTopicRequest.withAssignment(topic, assignment, configs)));
    }

    /**
     * Deletes {@code topic}: its partitions leave the metadata and every broker deletes its replica.
     *
     * @return completes once committed; fails with {@code UNKNOWN_TOPIC_OR_PARTITION} for an unknown
     *         topic, and with {@code NOT_CONTROLLER} while the controller is down
     */
    public CompletableFuture<Void> deleteTopic(String topic) {
        return call(api -> api.deleteTopic(topic));
    }

    /** Changes {@code min.insync.replicas} of {@code topic} at run time (ISR-7 re-evaluates its ELRs). */
    public CompletableFuture<Void> setMinInsyncReplicas(String topic, int minInsyncReplicas) {
        return call(api -> api.alterTopicConfig(new AlterTopicConfigRequest(topic, ControllerConfig.MIN_INSYNC_REPLICAS,
                Integer.toString(minInsyncReplicas))));
    }

    /** Fences {@code brokerId} now, as a session timeout would (ISR-7); completes with false if it was fenced or unknown. */
    public CompletableFuture<Boolean> fence(int brokerId) {
        return call(api -> api.fenceBroker(brokerId));
    }

    private <T> CompletableFuture<T> call(java.util.function.Function<ControllerApi, java.util.concurrent.CompletionStage<T>> op) {
        QuorumController n = node;
        if (n == null) {
            return CompletableFuture.failedFuture(new NotControllerException(NODE_ID, OptionalInt.empty()));
        }
        return op.apply(n).toCompletableFuture();
    }

    // ================================================================================ committed reads

    /** The current registration of {@code tp}, if the partition exists. */
    public Optional<PartitionRegistration> partition(TopicPartition tp) {
        return committed.partition(tp);
    }

    /** Every registration {@code tp} has had, oldest first (creation included). */
    public List<PartitionRegistration> history(TopicPartition tp) {
        return committed.history(tp);
    }

    /** The partition epochs {@code tp} went through, e.g. {@code [0, 1, 2]} in SCN-1. */
    public List<Integer> partitionEpochs(TopicPartition tp) {
        return committed.partitionEpochs(tp);
    }

    /** The id of {@code topic}, if it exists. */
    public Optional<UUID> topicId(String topic) {
        return committed.topicId(topic);
    }

    /** The current registration of {@code brokerId}, if it ever registered. */
    public Optional<BrokerRegistration> broker(int brokerId) {
        return committed.broker(brokerId);
    }

    /** Current {@code min.insync.replicas} of {@code topic}. @throws IllegalArgumentException for an unknown topic */
    public int minInsyncReplicas(String topic) {
        return committed.minInsyncReplicas(topic);
    }

    /** Offset of the last committed record, -1 before the first. */
    public long latestOffset() {
        return committed.latestOffset();
    }

    /** The delta of every committed batch, in offset order. */
    public List<MetadataDelta> metadataLog() {
        return committed.metadataLog();
    }

    /** The deltas of the batches committed after {@code offset}. */
    public List<MetadataDelta> deltasAfter(long offset) {
        return committed.deltasAfter(offset);
    }

    /** {@code kafka-topics.sh --describe}'s lines, tab separated. @throws IllegalArgumentException for an unknown topic */
    public String describe(String topic) {
        return committed.describe(topic);
    }

    /** {@link #describe} with whitespace runs collapsed, as the seed quotes it. */
    public String describeCompact(String topic) {
        return committed.describeCompact(topic);
    }
}
