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
import dev.insync.replication.controller.api.ControllerApi;
import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.controller.api.NotControllerException;
import dev.insync.replication.controller.api.RegisterBrokerRequest;
import dev.insync.replication.controller.api.RegisterBrokerResponse;
import dev.insync.replication.controller.api.TopicDescription;
import dev.insync.replication.controller.control.ClusterControl;
import dev.insync.replication.controller.control.ControllerResult;
import dev.insync.replication.controller.control.ReplicationControl;
import dev.insync.replication.controller.log.LeaderAndEpoch;
import dev.insync.replication.controller.log.MetadataBatch;
import dev.insync.replication.controller.log.MetadataLog;
import dev.insync.replication.controller.log.MetadataSnapshot;
import dev.insync.replication.controller.state.BrokerEntry;
import dev.insync.replication.controller.state.ControllerState;
import dev.insync.replication.controller.state.ControllerView;
import dev.insync.replication.controller.state.TopicEntry;
import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.metadata.follower.MetadataFetchRequest;
import dev.insync.replication.core.metadata.follower.MetadataFetchResponse;
import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One controller node, after Kafka's {@code QuorumController}: the driver of the controller state
 * machine over a {@link MetadataLog}. Every node replays the committed log into its committed
 * {@link ControllerState} and serves brokers' metadata fetches from it. The node that leads the log
 * is the active controller: it runs operations one at a time, appends their records as one batch,
 * and answers each request once its batch is committed and replayed.
 *
 * <p>Pipelining: the active controller keeps a speculative copy of the state (made from the
 * committed state when it becomes active) into which it replays its own batches at once, so the
 * next operation sees the previous one's effect before it commits. If an append fails or
 * leadership is lost, the speculative state is thrown away and rebuilt from the committed one;
 * requests whose records were not committed fail with {@link NotControllerException} (retriable).
 *
 * <p>Liveness (CTL-3): heartbeats update a {@link BrokerHeartbeatManager} in memory only; a timer at
 * the earliest session expiry writes a fence record for each unfenced broker that went
 * {@code broker.session.timeout.ms} without one. A newly active controller gives every broker a full
 * session timeout first.
 *
 * <p>Everything runs on one serial executor of the given scheduler (the simulator's event loop, or
 * a thread); public methods may be called from any thread. A node that is not active answers
 * writes with {@link NotControllerException} naming the active node if known.
 */
public final class QuorumController implements ControllerApi, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(QuorumController.class);

    private final int nodeId;
    private final MetadataLog metadataLog;
    private final Scheduler scheduler;
    private final Executor executor;
    private final ControllerConfig config;

    // Owned by the executor.
    private ControllerState committed = new ControllerState();
    private final DeltaCache deltas;
    private final List<ParkedFetch> parkedFetches = new ArrayList<>();
    private LeaderAndEpoch leader = LeaderAndEpoch.NONE;
    private Active active;
    private long lastSnapshotOffset = -1;
    private Throwable failure;

    private final Object lifecycleLock = new Object();
    private boolean started;
    private volatile boolean closed;
    private volatile boolean activeMirror;
    private volatile long committedOffsetMirror = -1;
    private volatile LeaderAndEpoch leaderMirror = LeaderAndEpoch.NONE;

    /** What only the active controller has. */
    private static final class Active {
        final int epoch;
        final BrokerHeartbeatManager heartbeats;
        final ArrayDeque<PendingWrite> pending = new ArrayDeque<>();
        ControllerState speculative;
        Scheduler.Cancellable sessionTimer;

        Active(int epoch, ControllerState speculative, BrokerHeartbeatManager heartbeats) {
            this.epoch = epoch;
            this.speculative = speculative;
            this.heartbeats = heartbeats;
        }
    }

    /**
     * A request waiting for the commit of {@code waitOffset}: its own batch, or (an operation that
     * wrote nothing) the speculative state it read.
     */
    private record PendingWrite(MetadataBatch batch, long waitOffset, Runnable answer, Consumer<Throwable> fail) {
    }

    private static final class ParkedFetch {
        final MetadataFetchRequest request;
        final CompletableFuture<MetadataFetchResponse> future;
        Scheduler.Cancellable timer;

        ParkedFetch(MetadataFetchRequest request, CompletableFuture<MetadataFetchResponse> future) {
            this.request = request;
            this.future = future;
        }
    }

    /**
     * @param nodeId      this controller node's id
     * @param metadataLog this node's view of the metadata log
     * @param scheduler   timers and the node's serial executor
     * @param config      settings
     */
    public QuorumController(int nodeId, MetadataLog metadataLog, Scheduler scheduler, ControllerConfig config) {
        this.nodeId = nodeId;
        this.metadataLog = Objects.requireNonNull(metadataLog, "metadataLog");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.config = Objects.requireNonNull(config, "config");
        if (metadataLog.nodeId() != nodeId) {
            throw new IllegalArgumentException("Controller node " + nodeId + " given the metadata log of node "
                    + metadataLog.nodeId());
        }
        this.deltas = new DeltaCache(config.metadataDeltaCacheSize());
        this.executor = scheduler.newSerialExecutor("QuorumController-" + nodeId);
    }

    /** Starts following the metadata log (replaying what it holds). Idempotent. */
    public void start() {
        synchronized (lifecycleLock) {
            if (started || closed) {
                return;
            }
            started = true;
        }
        metadataLog.register(new LogListener(), executor);
    }

    /** This node's id. */
    public int nodeId() {
        return nodeId;
    }

    /** Whether this node is the active controller now. */
    public boolean isActive() {
        return activeMirror;
    }

    /** The active controller as this node knows it. */
    public OptionalInt activeController() {
        return leaderMirror.leaderId();
    }

    /** Offset of the last committed record this node has replayed. */
    public long committedOffset() {
        return committedOffsetMirror;
    }

    /** The settings. */
    public ControllerConfig config() {
        return config;
    }

    /**
     * Runs {@code reader} on this node's committed state, on its executor (in-JVM callers only: the
     * view must not escape the function).
     */
    public <T> CompletionStage<T> readCommitted(Function<ControllerView, T> reader) {
        CompletableFuture<T> future = new CompletableFuture<>();
        run(() -> {
            if (failIfUnusable(future)) {
                return;
            }
            try {
                future.complete(reader.apply(committed));
            } catch (RuntimeException e) {
                future.completeExceptionally(e);
            }
        });
        return future;
    }

    // ====================================================================================== requests

    @Override
    public CompletionStage<RegisterBrokerResponse> registerBroker(RegisterBrokerRequest request) {
        return write(a -> {
            BrokerEntry previous = a.speculative.broker(request.brokerId());
            boolean heartbeated = previous != null && a.heartbeats.hasHeartbeated(previous.brokerId(), previous.brokerEpoch());
            ControllerResult<RegisterBrokerResponse> result = ClusterControl.registerBroker(a.speculative, request, heartbeated);
            a.heartbeats.registered(request.brokerId(), result.response().brokerEpoch(), nowMs());
            return result;
        });
    }

    @Override
    public CompletionStage<HeartbeatResponse> brokerHeartbeat(HeartbeatRequest request) {
        return write(a -> {
            BrokerEntry broker = a.speculative.broker(request.brokerId());
            if (broker != null && broker.brokerEpoch() == request.brokerEpoch()) {
                a.heartbeats.heartbeat(request.brokerId(), request.brokerEpoch(), nowMs());
            }
            return ClusterControl.heartbeat(a.speculative, request);
        });
    }

    @Override
    public CompletionStage<AlterPartitionResponse> alterPartition(AlterPartitionRequest request) {
        return write(a -> ReplicationControl.alterPartition(a.speculative, request));
    }

    @Override
    public CompletionStage<List<PartitionRegistration>> createTopic(CreateTopicRequest request) {
        return write(a -> ReplicationControl.createTopic(a.speculative, request, config));
    }

    @Override
    public CompletionStage<Void> deleteTopic(String topic) {
        return write(a -> ReplicationControl.deleteTopic(a.speculative, topic));
    }

    @Override
    public CompletionStage<Void> alterTopicConfig(AlterTopicConfigRequest request) {
        return write(a -> ReplicationControl.alterTopicConfig(a.speculative, request));
    }

    @Override
    public CompletionStage<Boolean> fenceBroker(int brokerId) {
        return write(a -> ClusterControl.fenceBroker(a.speculative, brokerId, -1));
    }

    @Override
    public CompletionStage<TopicDescription> describeTopic(String topic) {
        return readCommitted(view -> {
            TopicEntry entry = view.topic(topic);
            if (entry == null) {
                throw new ApiException(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Unknown topic " + topic);
            }
            return new TopicDescription(topic, entry.minInsyncReplicas(), entry.uncleanLeaderElection(),
                    committed.partitionsOf(topic));
        });
    }

    @Override
    public CompletionStage<MetadataFetchResponse> fetchMetadata(MetadataFetchRequest request) {
        CompletableFuture<MetadataFetchResponse> future = new CompletableFuture<>();
        run(() -> {
            if (failIfUnusable(future)) {
                return;
            }
            if (request.afterOffset() < committed.lastOffset()) {
                future.complete(answer(request));
            } else if (request.maxWaitMs() == 0 || parkedFetches.size() >= config.maxParkedFetches()) {
                future.complete(new MetadataFetchResponse(request.afterOffset(), Optional.empty(), List.of()));
            } else {
                ParkedFetch parked = new ParkedFetch(request, future);
                parked.timer = scheduler.schedule(executor, () -> expire(parked), request.maxWaitMs());
                parkedFetches.add(parked);
            }
        });
        return future;
    }

    private MetadataFetchResponse answer(MetadataFetchRequest request) {
        Optional<List<MetadataDelta>> cached = deltas.after(request.afterOffset(), request.maxDeltas());
        if (cached.isPresent()) {
            return new MetadataFetchResponse(request.afterOffset(), Optional.empty(), cached.get());
        }
        // CTL-5: the log the broker would need is gone (or it names no batch end): the whole image.
        return new MetadataFetchResponse(request.afterOffset(), Optional.of(committed.image()), List.of());
    }

    private void expire(ParkedFetch parked) {
        if (parkedFetches.remove(parked)) {
            parked.future.complete(parked.request.afterOffset() < committed.lastOffset() ? answer(parked.request)
                    : new MetadataFetchResponse(parked.request.afterOffset(), Optional.empty(), List.of()));
        }
    }

    private void wakeParkedFetches() {
        for (Iterator<ParkedFetch> it = parkedFetches.iterator(); it.hasNext(); ) {
            ParkedFetch parked = it.next();
            if (parked.request.afterOffset() < committed.lastOffset()) {
                it.remove();
                parked.timer.cancel();
                parked.future.complete(answer(parked.request));
            }
        }
    }

    // ====================================================================================== writes

    /**
     * Runs {@code operation} on the speculative state of the active controller, appends its records
     * and answers once they are committed (at once, or after the commit of what it read, when it
     * wrote nothing).
     */
    private <T> CompletionStage<T> write(Function<Active, ControllerResult<T>> operation) {
        CompletableFuture<T> future = new CompletableFuture<>();
        run(() -> {
            if (failIfUnusable(future)) {
                return;
            }
            Active a = active;
            if (a == null) {
                future.completeExceptionally(notController());
                return;
            }
            if (a.pending.size() >= config.maxPendingWrites()) {
                future.completeExceptionally(new ApiException(Errors.REQUEST_TIMED_OUT, "Controller node " + nodeId
                        + " has " + a.pending.size() + " writes waiting for commit ("
                        + ControllerConfig.MAX_PENDING_WRITES + "); retry later"));
                return;
            }
            ControllerResult<T> result;
            try {
                result = operation.apply(a);
            } catch (RuntimeException e) {
                if (!(e instanceof ApiException)) {
                    log.error("Controller node {}: operation failed", nodeId, e);
                }
                future.completeExceptionally(e);
                return;
            }
            schedule(a, result, future);
            armSessionTimer(a);
        });
        return future;
    }

    private <T> void schedule(Active a, ControllerResult<T> result, CompletableFuture<T> future) {
        Runnable answer = () -> future.complete(result.response());
        if (result.records().isEmpty()) {
            long waitOffset = a.speculative.lastOffset();
            if (committed.lastOffset() >= waitOffset) {
                answer.run();
            } else {
                a.pending.addLast(new PendingWrite(null, waitOffset, answer, future::completeExceptionally));
            }
            return;
        }
        MetadataBatch batch;
        try {
            batch = new MetadataBatch(a.speculative.nextOffset(), result.records());
            a.speculative.replay(batch);
        } catch (RuntimeException e) {
            log.error("Controller node {}: an operation's records do not replay; rebuilding the speculative state", nodeId, e);
            future.completeExceptionally(e);
            rebuildSpeculative(a);
            return;
        }
        a.pending.addLast(new PendingWrite(batch, batch.lastOffset(), answer, future::completeExceptionally));
        CompletionStage<Long> appended;
        try {
            appended = metadataLog.append(a.epoch, batch.baseOffset(), batch.records());
        } catch (RuntimeException e) {
            appended = CompletableFuture.failedFuture(e);
        }
        appended.whenComplete((lastOffset, error) -> {
            if (error != null) {
                run(() -> onAppendFailed(a, batch, error));
            }
        });
    }

    private void onAppendFailed(Active a, MetadataBatch batch, Throwable error) {
        if (active != a || batch.lastOffset() <= committed.lastOffset()) {
            return; // leadership already handled, or it committed after all
        }
        log.warn("Controller node {}: append of the batch at offset {} failed ({}); dropping the speculative state",
                nodeId, batch.baseOffset(), error.toString());
        // Everything from the failed batch on fails; what was appended before it may still commit.
        List<PendingWrite> kept = new ArrayList<>();
        List<PendingWrite> failed = new ArrayList<>();
        boolean reached = false;
        for (PendingWrite p : a.pending) {
            reached |= p.batch == batch;
            (reached ? failed : kept).add(p);
        }
        a.pending.clear();
        a.pending.addAll(kept);
        NotControllerException cause = notController();
        cause.initCause(error);
        failed.forEach(p -> p.fail.accept(cause));
        rebuildSpeculative(a);
    }

    private void rebuildSpeculative(Active a) {
        ControllerState rebuilt = committed.copy();
        List<PendingWrite> kept = new ArrayList<>();
        for (PendingWrite p : a.pending) {
            if (p.batch == null) {
                if (p.waitOffset <= rebuilt.lastOffset()) {
                    kept.add(p);
                } else {
                    p.fail.accept(notController());
                }
            } else if (p.batch.baseOffset() == rebuilt.nextOffset()) {
                rebuilt.replay(p.batch);
                kept.add(p);
            } else {
                p.fail.accept(notController());
            }
        }
        a.pending.clear();
        a.pending.addAll(kept);
        a.speculative = rebuilt;
    }

    // ====================================================================================== liveness

    private void armSessionTimer(Active a) {
        if (a.sessionTimer != null || active != a) {
            return;
        }
        long now = nowMs();
        OptionalLong deadline = a.heartbeats.nextDeadlineMs(a.speculative, now);
        if (deadline.isPresent()) {
            a.sessionTimer = scheduler.schedule(executor, () -> checkSessions(a), Math.max(0, deadline.getAsLong() - now));
        }
    }

    /** CTL-3 / LDR-4: fences every unfenced broker whose session expired, then waits for the next expiry. */
    private void checkSessions(Active a) {
        a.sessionTimer = null;
        if (active != a || closed) {
            return;
        }
        long now = nowMs();
        for (BrokerEntry broker : a.heartbeats.expired(a.speculative, now)) {
            log.info("Controller node {}: broker {} (epoch {}) sent no heartbeat for {} ms: fencing it", nodeId,
                    broker.brokerId(), broker.brokerEpoch(), config.brokerSessionTimeoutMs());
            schedule(a, ClusterControl.fenceBroker(a.speculative, broker.brokerId(), broker.brokerEpoch()),
                    new CompletableFuture<>());
        }
        armSessionTimer(a);
    }

    // ====================================================================================== the log

    private final class LogListener implements MetadataLog.Listener {
        @Override
        public void handleSnapshot(MetadataSnapshot snapshot) {
            if (failure != null || closed) {
                return;
            }
            try {
                committed = ControllerState.load(snapshot);
            } catch (RuntimeException e) {
                fatal(e);
                return;
            }
            log.info("Controller node {} loaded the snapshot at offset {}", nodeId, snapshot.lastOffset());
            deltas.reset(snapshot.lastOffset());
            lastSnapshotOffset = snapshot.lastOffset();
            committedOffsetMirror = committed.lastOffset();
            if (active != null) {
                rebuildSpeculative(active);
            }
            wakeParkedFetches();
        }

        @Override
        public void handleCommit(MetadataBatch batch) {
            if (failure != null || closed) {
                return;
            }
            MetadataDelta delta;
            try {
                delta = committed.replay(batch);
            } catch (RuntimeException e) {
                fatal(e);
                return;
            }
            deltas.add(delta);
            committedOffsetMirror = committed.lastOffset();
            Active a = active;
            if (a != null) {
                onCommitted(a, batch);
                maybeSnapshot();
            }
            wakeParkedFetches();
        }

        @Override
        public void handleLeaderChange(LeaderAndEpoch newLeader) {
            if (failure != null || closed) {
                return;
            }
            leader = newLeader;
            leaderMirror = newLeader;
            if (newLeader.isLeader(nodeId)) {
                if (active == null || active.epoch != newLeader.epoch()) {
                    if (active != null) {
                        renounce();
                    }
                    becomeActive(newLeader.epoch());
                }
            } else if (active != null) {
                renounce();
            }
        }
    }

    private void onCommitted(Active a, MetadataBatch batch) {
        PendingWrite ours = null;
        for (PendingWrite p : a.pending) {
            if (p.batch != null) {
                ours = p;
                break;
            }
        }
        if (ours == null || ours.batch.baseOffset() != batch.baseOffset() || !ours.batch.records().equals(batch.records())) {
            // Not what this controller appended: its speculation is wrong.
            log.warn("Controller node {}: committed batch at offset {} was not appended by it; rebuilding", nodeId,
                    batch.baseOffset());
            rebuildSpeculative(a);
        }
        while (!a.pending.isEmpty() && a.pending.peekFirst().waitOffset <= committed.lastOffset()) {
            a.pending.pollFirst().answer.run();
        }
    }

    private void becomeActive(int epoch) {
        Active a = new Active(epoch, committed.copy(), new BrokerHeartbeatManager(config.brokerSessionTimeoutMs()));
        // CTL-3: liveness is not in the log; every broker gets a full session timeout from now.
        a.heartbeats.activate(committed.brokers(), nowMs());
        active = a;
        activeMirror = true;
        log.info("Controller node {} is the active controller in epoch {} at offset {}", nodeId, epoch,
                committed.lastOffset());
        armSessionTimer(a);
    }

    private void renounce() {
        Active a = active;
        active = null;
        activeMirror = false;
        if (a == null) {
            return;
        }
        log.info("Controller node {} is no longer the active controller (epoch {}); now {}", nodeId, a.epoch, leader);
        if (a.sessionTimer != null) {
            a.sessionTimer.cancel();
        }
        NotControllerException cause = notController();
        a.pending.forEach(p -> p.fail.accept(cause));
        a.pending.clear();
    }

    private void maybeSnapshot() {
        int interval = config.snapshotIntervalRecords();
        if (interval > 0 && committed.lastOffset() - lastSnapshotOffset >= interval) {
            MetadataSnapshot snapshot = committed.snapshot();
            metadataLog.storeSnapshot(snapshot);
            lastSnapshotOffset = snapshot.lastOffset();
            log.info("Controller node {} stored a snapshot at offset {} ({} records)", nodeId, snapshot.lastOffset(),
                    snapshot.records().size());
        }
    }

    private void fatal(Throwable error) {
        failure = error;
        log.error("Controller node {} stops: its metadata log cannot be replayed", nodeId, error);
        metadataLog.unregister();
        renounce();
        failParked(error);
    }

    private void failParked(Throwable error) {
        for (ParkedFetch parked : parkedFetches) {
            parked.timer.cancel();
            parked.future.completeExceptionally(error);
        }
        parkedFetches.clear();
    }

    /** Stops the node: unregisters from the log, fails waiting requests. Idempotent. */
    @Override
    public void close() {
        synchronized (lifecycleLock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        metadataLog.unregister();
        activeMirror = false;
        run(() -> {
            renounce();
            failParked(new IllegalStateException("Controller node " + nodeId + " is closed"));
        });
    }

    // ====================================================================================== helpers

    private NotControllerException notController() {
        return new NotControllerException(nodeId, leader.isLeader(nodeId) ? OptionalInt.empty() : leader.leaderId());
    }

    private boolean failIfUnusable(CompletableFuture<?> future) {
        if (failure != null) {
            future.completeExceptionally(new ApiException(Errors.UNKNOWN_SERVER_ERROR, "Controller node " + nodeId
                    + " stopped after a metadata log failure: " + failure.getMessage(), failure));
            return true;
        }
        if (closed) {
            future.completeExceptionally(notController());
            return true;
        }
        return false;
    }

    private long nowMs() {
        return scheduler.time().milliseconds();
    }

    private void run(Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            log.debug("Controller node {}: task dropped, its executor is stopped", nodeId);
        }
    }
}
