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

package dev.insync.replication.controller.log;

import dev.insync.replication.controller.record.MetadataRecord;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * A metadata log in one JVM, standing for a replicated log and its quorum: the test or simulator
 * keeps this object, so what it committed survives a controller node's restart (a new controller
 * registers and gets the snapshot and batches back). Each controller node reaches it through
 * {@link #forNode(int)}. Leadership is decided by the owner: {@link #elect(int)} starts a new epoch
 * with a new leader (the simulator's failover), {@link #resign()} leaves it leaderless.
 *
 * <p>An append by the leader is committed at once unless commits are {@link #holdCommits held}
 * (so tests can see the time between append and commit, and leadership moving in between: held
 * batches are then dropped, their appends fail with {@link NotLeaderException}). Every appended
 * batch goes through its binary encoding and back ({@link MetadataBatchSerde}), as a real log
 * would store it. Thread-safe; deliveries run on each listener's executor, in order.
 */
public final class InMemoryMetadataLog {

    private final Map<Integer, NodeLog> nodes = new TreeMap<>();
    private final List<MetadataBatch> committed = new ArrayList<>();
    private final Deque<Pending> uncommitted = new ArrayDeque<>();
    private MetadataSnapshot snapshot;
    private long committedOffset = -1;
    private long endOffset = -1;
    private LeaderAndEpoch leader = LeaderAndEpoch.NONE;
    private boolean commitsHeld;

    private record Pending(MetadataBatch batch, NodeLog appender, CompletableFuture<Long> future) {
    }

    /** An empty log with no leader. */
    public InMemoryMetadataLog() {
    }

    /** The view of controller node {@code nodeId} (one per id). */
    public synchronized MetadataLog forNode(int nodeId) {
        if (nodeId < 0) {
            throw new IllegalArgumentException("Invalid controller node id " + nodeId);
        }
        return nodes.computeIfAbsent(nodeId, NodeLog::new);
    }

    /** Makes {@code nodeId} the leader in a new epoch; uncommitted batches of the old leader are dropped. */
    public synchronized void elect(int nodeId) {
        forNode(nodeId);
        changeLeader(new LeaderAndEpoch(OptionalInt.of(nodeId), leader.epoch() + 1));
    }

    /** Leaves the log without a leader in a new epoch (the leader died); uncommitted batches are dropped. */
    public synchronized void resign() {
        changeLeader(new LeaderAndEpoch(OptionalInt.empty(), leader.epoch() + 1));
    }

    /** The current leadership. */
    public synchronized LeaderAndEpoch leaderAndEpoch() {
        return leader;
    }

    /** While held, appends stay uncommitted; releasing commits them in order. */
    public synchronized void holdCommits(boolean hold) {
        commitsHeld = hold;
        if (!hold) {
            commitAll();
        }
    }

    /** Batches appended but not committed. */
    public synchronized int uncommittedBatches() {
        return uncommitted.size();
    }

    /** Offset of the last committed record, -1 before any. */
    public synchronized long committedOffset() {
        return committedOffset;
    }

    /** Every committed batch still held (those covered by a stored snapshot are dropped). */
    public synchronized List<MetadataBatch> committedBatches() {
        return List.copyOf(committed);
    }

    /** The latest snapshot stored. */
    public synchronized Optional<MetadataSnapshot> latestSnapshot() {
        return Optional.ofNullable(snapshot);
    }

    private void changeLeader(LeaderAndEpoch next) {
        leader = next;
        dropUncommitted("leadership moved to " + next);
        for (NodeLog node : nodes.values()) {
            node.deliver(l -> l.handleLeaderChange(next));
        }
    }

    private void dropUncommitted(String why) {
        while (!uncommitted.isEmpty()) {
            Pending p = uncommitted.pollFirst();
            p.appender.complete(p.future, null, new NotLeaderException("Metadata batch at offset " + p.batch.baseOffset()
                    + " was not committed: " + why, leader.leaderId()));
        }
        endOffset = committedOffset;
    }

    private void commitAll() {
        while (!uncommitted.isEmpty()) {
            Pending p = uncommitted.pollFirst();
            committed.add(p.batch);
            committedOffset = p.batch.lastOffset();
            for (NodeLog node : nodes.values()) {
                node.deliver(l -> l.handleCommit(p.batch));
            }
            p.appender.complete(p.future, p.batch.lastOffset(), null);
        }
    }

    private synchronized CompletionStage<Long> append(NodeLog node, int epoch, long requiredBaseOffset,
                                                      List<MetadataRecord> records) {
        if (!leader.isLeader(node.nodeId) || leader.epoch() != epoch) {
            return CompletableFuture.failedFuture(new NotLeaderException("Controller node " + node.nodeId
                    + " does not lead the metadata log in epoch " + epoch + "; " + leader, leader.leaderId()));
        }
        if (requiredBaseOffset != endOffset + 1) {
            return CompletableFuture.failedFuture(new UnexpectedBaseOffsetException("Append at required base offset "
                    + requiredBaseOffset + " but the metadata log's next offset is " + (endOffset + 1)));
        }
        // Through the bytes and back, as a stored log would hold it.
        MetadataBatch batch = MetadataBatchSerde.decode(
                MetadataBatchSerde.encode(epoch, new MetadataBatch(requiredBaseOffset, records))).batch();
        CompletableFuture<Long> future = new CompletableFuture<>();
        uncommitted.addLast(new Pending(batch, node, future));
        endOffset = batch.lastOffset();
        if (!commitsHeld) {
            commitAll();
        }
        return future;
    }

    private synchronized List<MetadataBatch> read(long afterOffset, int maxBatches) {
        if (maxBatches < 1) {
            throw new IllegalArgumentException("maxBatches must be positive, got " + maxBatches);
        }
        long snapshotOffset = snapshot == null ? -1 : snapshot.lastOffset();
        if (afterOffset < snapshotOffset) {
            throw new IllegalArgumentException("Metadata after offset " + afterOffset + " is only in the snapshot at offset "
                    + snapshotOffset);
        }
        List<MetadataBatch> result = new ArrayList<>();
        boolean boundary = afterOffset == snapshotOffset;
        for (MetadataBatch batch : committed) {
            if (batch.lastOffset() == afterOffset) {
                boundary = true;
            } else if (batch.lastOffset() > afterOffset && result.size() < maxBatches) {
                result.add(batch);
            }
        }
        if (!boundary && afterOffset <= committedOffset) {
            throw new IllegalArgumentException("Offset " + afterOffset + " is not the end of a committed metadata batch");
        }
        return result;
    }

    private synchronized void storeSnapshot(MetadataSnapshot offered) {
        if (offered.lastOffset() > committedOffset) {
            throw new IllegalArgumentException("Snapshot at offset " + offered.lastOffset() + " is beyond the committed offset "
                    + committedOffset);
        }
        if (snapshot != null && offered.lastOffset() <= snapshot.lastOffset()) {
            return;
        }
        if (offered.lastOffset() >= 0 && committed.stream().noneMatch(b -> b.lastOffset() == offered.lastOffset())) {
            throw new IllegalArgumentException("Snapshot at offset " + offered.lastOffset()
                    + " is not at the end of a committed batch");
        }
        snapshot = offered;
        committed.removeIf(b -> b.lastOffset() <= offered.lastOffset());
    }

    private synchronized void register(NodeLog node, MetadataLog.Listener listener, Executor executor) {
        if (node.listener != null) {
            throw new IllegalStateException("Controller node " + node.nodeId + " already has a metadata log listener");
        }
        node.listener = listener;
        node.executor = executor;
        MetadataSnapshot s = snapshot;
        if (s != null) {
            node.deliver(l -> l.handleSnapshot(s));
        }
        for (MetadataBatch batch : committed) {
            node.deliver(l -> l.handleCommit(batch));
        }
        LeaderAndEpoch current = leader;
        node.deliver(l -> l.handleLeaderChange(current));
    }

    private synchronized void unregister(NodeLog node) {
        node.listener = null;
        node.executor = null;
    }

    /** One controller node's view. */
    private final class NodeLog implements MetadataLog {
        private final int nodeId;
        private Listener listener;
        private Executor executor;

        NodeLog(int nodeId) {
            this.nodeId = nodeId;
        }

        /** Runs {@code call} on the listener's executor; called under the log's lock, so deliveries keep their order. */
        void deliver(java.util.function.Consumer<Listener> call) {
            Listener l = listener;
            Executor e = executor;
            if (l != null) {
                e.execute(() -> {
                    // Dropped if the node unregistered meanwhile (it died).
                    if (isCurrent(this, l)) {
                        call.accept(l);
                    }
                });
            }
        }

        void complete(CompletableFuture<Long> future, Long lastOffset, Throwable error) {
            Executor e = executor;
            Runnable completion = () -> {
                if (error != null) {
                    future.completeExceptionally(error);
                } else {
                    future.complete(lastOffset);
                }
            };
            if (e != null) {
                e.execute(completion);
            } else {
                completion.run();
            }
        }

        @Override
        public int nodeId() {
            return nodeId;
        }

        @Override
        public void register(Listener listener, Executor executor) {
            InMemoryMetadataLog.this.register(this, listener, executor);
        }

        @Override
        public void unregister() {
            InMemoryMetadataLog.this.unregister(this);
        }

        @Override
        public CompletionStage<Long> append(int epoch, long requiredBaseOffset, List<MetadataRecord> records) {
            return InMemoryMetadataLog.this.append(this, epoch, requiredBaseOffset, records);
        }

        @Override
        public LeaderAndEpoch leaderAndEpoch() {
            return InMemoryMetadataLog.this.leaderAndEpoch();
        }

        @Override
        public long committedOffset() {
            return InMemoryMetadataLog.this.committedOffset();
        }

        @Override
        public List<MetadataBatch> read(long afterOffset, int maxBatches) {
            return InMemoryMetadataLog.this.read(afterOffset, maxBatches);
        }

        @Override
        public Optional<MetadataSnapshot> latestSnapshot() {
            return InMemoryMetadataLog.this.latestSnapshot();
        }

        @Override
        public void storeSnapshot(MetadataSnapshot snapshot) {
            InMemoryMetadataLog.this.storeSnapshot(snapshot);
        }
    }

    private synchronized boolean isCurrent(NodeLog node, MetadataLog.Listener listener) {
        return node.listener == listener;
    }
}
