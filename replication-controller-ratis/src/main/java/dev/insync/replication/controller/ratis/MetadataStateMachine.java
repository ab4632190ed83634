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

import dev.insync.replication.controller.log.LeaderAndEpoch;
import dev.insync.replication.controller.log.MetadataBatch;
import dev.insync.replication.controller.log.MetadataBatchSerde;
import dev.insync.replication.controller.log.MetadataLog;
import dev.insync.replication.controller.log.MetadataSnapshot;
import dev.insync.replication.controller.log.MetadataSnapshotSerde;
import dev.insync.replication.controller.log.NotLeaderException;
import dev.insync.replication.controller.log.UnexpectedBaseOffsetException;
import dev.insync.replication.controller.record.MetadataFormatException;
import dev.insync.replication.controller.state.ControllerState;
import dev.insync.replication.controller.state.MetadataReplayException;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftConfigurationProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;
import org.apache.ratis.io.MD5Hash;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The Ratis state machine under one controller node's {@link RatisMetadataLog}. Each Ratis log entry
 * of the state machine holds one {@link MetadataBatchSerde}-encoded batch; configuration and no-op
 * entries hold none, so record offsets are not Raft indices: the machine keeps the Raft index of
 * every batch end since the latest snapshot.
 *
 * <p>Applying an entry is deterministic on every node: a batch is accepted only if it was appended
 * in the Raft term it names as its epoch and its base offset is the next offset; otherwise it is
 * skipped (it takes a Raft index, no offsets) and its appender fails with
 * {@link NotLeaderException} or {@link UnexpectedBaseOffsetException}. That is the all-or-nothing
 * {@code requiredBaseOffset} rule, decided where every node decides it alike.
 *
 * <p>Leadership: a leader naming this node is announced in {@link #notifyLeaderReady()}, which Ratis
 * calls when this node, as leader, applies the first entry of its term: every entry of earlier
 * terms that will ever commit has then been applied. Applying any entry of a new term also fails
 * every append of an older term still waiting: it can no longer commit.
 *
 * <p>Snapshots are this module's files: {@code snapshot.<term>_<index>} in Ratis' state-machine
 * directory holding {@link MetadataSnapshotSerde} bytes (CRC-32C) with Ratis' {@code .md5} beside
 * it. A latest snapshot that does not decode stops the node with an error naming the file; there is
 * no fallback to an older one.
 *
 * <p>Locking: one monitor guards the state; it is never held while calling into Ratis' write path
 * ({@link #preAppendTransaction} runs under Ratis' log lock and so takes no monitor).
 */
final class MetadataStateMachine extends BaseStateMachine {

    private static final Logger log = LoggerFactory.getLogger(MetadataStateMachine.class);

    /** Identifies one append: the epoch it was built in and the base offset it requires. */
    record AppendKey(int epoch, long baseOffset) {
    }

    /** An append waiting for its entry to be applied (or for a later term to show it is gone). */
    static final class PendingAppend {
        final AppendKey key;
        final CompletableFuture<Long> future = new CompletableFuture<>();
        /** Set once Ratis put the entry into the log: from then on only applying decides the outcome. */
        volatile boolean inLog;

        PendingAppend(AppendKey key) {
            this.key = key;
        }
    }

    /** Asks the Ratis server for a snapshot (off the apply thread). */
    interface SnapshotTrigger {
        void requestSnapshot();
    }

    private final int nodeId;
    private final SnapshotPolicy policy;
    private final LongSupplier clockMs;
    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    private final Map<AppendKey, PendingAppend> pending = new ConcurrentHashMap<>();
    private volatile SnapshotTrigger snapshotTrigger = () -> { };
    private volatile LeaderAndEpoch delivered = LeaderAndEpoch.NONE;
    private volatile long appliedOffset = -1;

    // Guarded by this.
    private ControllerState state = new ControllerState();
    /** Last offset of each accepted batch since the latest snapshot -> its Raft index. */
    private final TreeMap<Long, Long> batchEndIndex = new TreeMap<>();
    private MetadataSnapshot latestSnapshot;
    private long snapshotOffset = -1;
    private long recordsSinceSnapshot;
    private long bytesSinceSnapshot;
    private long lastSnapshotMs;
    private boolean snapshotRequested;
    private long highestAppliedTerm;
    private MetadataLog.Listener listener;
    private Executor listenerExecutor;
    private RaftServer server;
    private RaftGroupId groupId;

    MetadataStateMachine(int nodeId, SnapshotPolicy policy, LongSupplier clockMs) {
        this.nodeId = nodeId;
        this.policy = policy;
        this.clockMs = clockMs;
    }

    void setSnapshotTrigger(SnapshotTrigger trigger) {
        this.snapshotTrigger = trigger;
    }

    // ================================================================================ lifecycle

    @Override
    public synchronized void initialize(RaftServer raftServer, RaftGroupId raftGroupId, RaftStorage raftStorage)
            throws IOException {
        super.initialize(raftServer, raftGroupId, raftStorage);
        this.server = raftServer;
        this.groupId = raftGroupId;
        getLifeCycle().startAndTransition(() -> {
            storage.init(raftStorage);
            load(storage.getLatestSnapshot());
        }, IOException.class);
    }

    @Override
    public synchronized void pause() {
        // Ratis pauses the machine before it installs a snapshot from the leader.
        if (getLifeCycle().getCurrentState() == LifeCycle.State.RUNNING) {
            getLifeCycle().transition(LifeCycle.State.PAUSING);
            getLifeCycle().transition(LifeCycle.State.PAUSED);
        }
    }

    @Override
    public synchronized void reinitialize() throws IOException {
        // After installing the leader's snapshot: the state is that snapshot (CTL-4 catch-up).
        load(storage.loadLatestSnapshot());
        if (getLifeCycle().getCurrentState() == LifeCycle.State.PAUSED) {
            getLifeCycle().transition(LifeCycle.State.STARTING);
            getLifeCycle().transition(LifeCycle.State.RUNNING);
        }
    }

    @Override
    public SimpleStateMachineStorage getStateMachineStorage() {
        return storage;
    }

    @Override
    public void close() {
        failAllPending(new NotLeaderException("Controller node " + nodeId + "'s metadata log is closed;"
                + " the batch may or may not commit", OptionalInt.empty()));
    }

    /** Loads {@code info} (null: the empty state) and tells the listener. */
    private void load(SingleFileSnapshotInfo info) throws IOException {
        MetadataSnapshot snapshot;
        TermIndex termIndex;
        if (info == null) {
            snapshot = null;
            termIndex = null;
        } else {
            Path file = info.getFile().getPath();
            snapshot = readSnapshot(file, info.getFile().getFileDigest());
            termIndex = info.getTermIndex();
        }
        ControllerState loaded;
        try {
            loaded = snapshot == null ? new ControllerState() : ControllerState.load(snapshot);
        } catch (MetadataReplayException e) {
            throw new IOException("Metadata snapshot " + info.getFile().getPath() + " is not a consistent controller state: "
                    + e.getMessage(), e);
        }
        state = loaded;
        latestSnapshot = snapshot;
        snapshotOffset = snapshot == null ? -1 : snapshot.lastOffset();
        appliedOffset = state.lastOffset();
        batchEndIndex.clear();
        recordsSinceSnapshot = 0;
        bytesSinceSnapshot = 0;
        lastSnapshotMs = clockMs.getAsLong();
        if (termIndex != null) {
            setLastAppliedTermIndex(termIndex);
            highestAppliedTerm = Math.max(highestAppliedTerm, termIndex.getTerm());
            log.info("Controller node {} loaded metadata snapshot {} (offset {}, Raft index {})", nodeId,
                    info.getFile().getPath(), snapshotOffset, termIndex.getIndex());
        }
        if (snapshot != null) {
            MetadataSnapshot s = snapshot;
            deliver(l -> l.handleSnapshot(s));
        }
    }

    /** Reads and checks one snapshot file; every failure names the file. */
    static MetadataSnapshot readSnapshot(Path file, MD5Hash expectedMd5) throws IOException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new IOException("Cannot read metadata snapshot " + file + ": " + e, e);
        }
        MetadataSnapshot snapshot;
        try {
            snapshot = MetadataSnapshotSerde.decode(bytes, file.toString());
        } catch (MetadataFormatException e) {
            throw new IOException("Corrupt metadata snapshot " + file + ": " + e.getMessage(), e);
        }
        if (expectedMd5 != null) {
            MD5Hash actual = MD5FileUtil.computeMd5ForFile(file.toFile());
            if (!actual.equals(expectedMd5)) {
                throw new IOException("Corrupt metadata snapshot " + file + ": MD5 " + actual + " differs from the stored "
                        + expectedMd5);
            }
        }
        return snapshot;
    }

    // ================================================================================ the listener

    synchronized void register(MetadataLog.Listener newListener, Executor executor) {
        if (listener != null) {
            throw new IllegalStateException("Controller node " + nodeId + " already has a metadata log listener");
        }
        listener = newListener;
        listenerExecutor = executor;
        MetadataSnapshot s = latestSnapshot;
        if (s != null) {
            deliver(l -> l.handleSnapshot(s));
        }
        for (MetadataBatch batch : readBatches(snapshotOffset, Integer.MAX_VALUE)) {
            deliver(l -> l.handleCommit(batch));
        }
        LeaderAndEpoch current = delivered;
        deliver(l -> l.handleLeaderChange(current));
    }

    synchronized void unregister() {
        listener = null;
        listenerExecutor = null;
    }

    /** Runs {@code call} on the listener's executor, in the order of the calls (the caller holds the monitor). */
    private void deliver(Consumer<MetadataLog.Listener> call) {
        MetadataLog.Listener l = listener;
        Executor e = listenerExecutor;
        if (l == null) {
            return;
        }
        try {
            e.execute(() -> {
                if (isCurrent(l)) {
                    call.accept(l);
                }
            });
        } catch (RejectedExecutionException ex) {
            log.debug("Controller node {}: listener executor stopped; delivery dropped", nodeId);
        }
    }

    private synchronized boolean isCurrent(MetadataLog.Listener l) {
        return listener == l;
    }

    // ================================================================================ reads

    LeaderAndEpoch leaderAndEpoch() {
        return delivered;
    }

    long appliedOffset() {
        return appliedOffset;
    }

    synchronized Optional<MetadataSnapshot> latestSnapshot() {
        return Optional.ofNullable(latestSnapshot);
    }

    synchronized List<MetadataBatch> read(long afterOffset, int maxBatches) {
        if (maxBatches < 1) {
            throw new IllegalArgumentException("maxBatches must be positive, got " + maxBatches);
        }
        if (afterOffset < snapshotOffset) {
            throw new IllegalArgumentException("Metadata after offset " + afterOffset + " is only in the snapshot at offset "
                    + snapshotOffset + " on controller node " + nodeId);
        }
        if (afterOffset != snapshotOffset && afterOffset <= appliedOffset && !batchEndIndex.containsKey(afterOffset)) {
            throw new IllegalArgumentException("Offset " + afterOffset + " is not the end of a committed metadata batch");
        }
        return readBatches(afterOffset, maxBatches);
    }

    /** The accepted batches after {@code afterOffset}, from the Raft log through the index map. */
    private List<MetadataBatch> readBatches(long afterOffset, int maxBatches) {
        List<MetadataBatch> result = new ArrayList<>();
        Collection<Long> indices = batchEndIndex.tailMap(afterOffset, false).values();
        if (indices.isEmpty()) {
            return result;
        }
        RaftLog raftLog = raftLog();
        for (Iterator<Long> it = indices.iterator(); it.hasNext() && result.size() < maxBatches; ) {
            long index = it.next();
            LogEntryProto entry;
            try {
                entry = raftLog.get(index);
            } catch (IOException e) {
                throw new IllegalStateException("Controller node " + nodeId + " cannot read Raft log index " + index
                        + " of a committed metadata batch: " + e, e);
            }
            if (entry == null) {
                throw new IllegalArgumentException("Raft log index " + index + " (metadata after offset " + afterOffset
                        + ") is purged on controller node " + nodeId);
            }
            result.add(MetadataBatchSerde.decode(entry.getStateMachineLogEntry().getLogData().toByteArray()).batch());
        }
        return result;
    }

    private RaftLog raftLog() {
        try {
            return server.getDivision(groupId).getRaftLog();
        } catch (IOException e) {
            throw new IllegalStateException("Controller node " + nodeId + " has no Raft division: " + e, e);
        }
    }

    // ================================================================================ appends

    /** Registers a pending append; {@code null} if one with the same key is waiting already. */
    PendingAppend newPending(AppendKey key) {
        PendingAppend p = new PendingAppend(key);
        return pending.putIfAbsent(key, p) == null ? p : null;
    }

    /** Ratis refused the request, or answered it with an error: only an append not in the log fails now. */
    void submissionFailed(PendingAppend p, Throwable cause) {
        if (!p.inLog && pending.remove(p.key, p)) {
            NotLeaderException e = new NotLeaderException("Controller node " + nodeId + " could not append the metadata batch at offset "
                    + p.key.baseOffset() + " in epoch " + p.key.epoch() + ": " + cause, delivered.leaderId());
            e.initCause(cause);
            p.future.completeExceptionally(e);
        }
    }

    @Override
    public TransactionContext preAppendTransaction(TransactionContext trx) throws IOException {
        // Runs under Ratis' log lock, in log order, just before the entry gets its index: from here on
        // the outcome is decided by applying the entry (or by a later term), not by Ratis' reply.
        AppendKey key = keyOf(trx.getClientRequest().getMessage().getContent());
        if (key != null) {
            PendingAppend p = pending.get(key);
            if (p != null) {
                p.inLog = true;
            }
        }
        return trx;
    }

    /** The epoch and base offset in a batch's header (see MetadataBatchSerde), or null if it has none. */
    private static AppendKey keyOf(ByteString bytes) {
        if (bytes.size() < 17) {
            return null;
        }
        ByteBuffer header = bytes.substring(0, 17).asReadOnlyByteBuffer();
        return new AppendKey(header.getInt(5), header.getLong(9));
    }

    private void failAllPending(RuntimeException cause) {
        for (PendingAppend p : pending.values()) {
            if (pending.remove(p.key, p)) {
                p.future.completeExceptionally(cause);
            }
        }
    }

    // ================================================================================ applying

    @Override
    public synchronized CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        long term = entry.getTerm();
        onTermApplied(term);
        ByteString data = entry.getStateMachineLogEntry().getLogData();
        MetadataBatchSerde.EpochBatch decoded;
        try {
            decoded = MetadataBatchSerde.decode(data.toByteArray());
        } catch (MetadataFormatException e) {
            // The same bytes on every node: every node skips it alike. Only a foreign client could write it.
            log.error("Controller node {}: Raft index {} holds no metadata batch ({}); skipped", nodeId, entry.getIndex(),
                    e.getMessage());
            updateLastAppliedTermIndex(term, entry.getIndex());
            return CompletableFuture.completedFuture(Message.EMPTY);
        }
        MetadataBatch batch = decoded.batch();
        PendingAppend p = pending.remove(new AppendKey(decoded.epoch(), batch.baseOffset()));
        RuntimeException rejection = null;
        if (decoded.epoch() != term) {
            rejection = new NotLeaderException("Metadata batch at offset " + batch.baseOffset() + " was built in epoch "
                    + decoded.epoch() + " but appended in Raft term " + term + "; not committed", delivered.leaderId());
        } else if (batch.baseOffset() != state.nextOffset()) {
            rejection = new UnexpectedBaseOffsetException("Append at required base offset " + batch.baseOffset()
                    + " but the metadata log's next offset is " + state.nextOffset() + " (Raft index " + entry.getIndex() + ")");
        }
        if (rejection != null) {
            log.warn("Controller node {}: Raft index {} skipped: {}", nodeId, entry.getIndex(), rejection.getMessage());
            updateLastAppliedTermIndex(term, entry.getIndex());
            if (p != null) {
                p.future.completeExceptionally(rejection);
            }
            return CompletableFuture.completedFuture(Message.EMPTY);
        }
        try {
            state.replay(batch);
        } catch (MetadataReplayException e) {
            // The leader built this batch on the state every node has: a record that does not fit is a
            // bug or a damaged log. Ratis treats a throwing apply as fatal and stops this server.
            throw new IllegalStateException("Controller node " + nodeId + " cannot replay the committed metadata batch at "
                    + "Raft index " + entry.getIndex() + ": " + e.getMessage(), e);
        }
        batchEndIndex.put(batch.lastOffset(), entry.getIndex());
        appliedOffset = batch.lastOffset();
        recordsSinceSnapshot += batch.records().size();
        bytesSinceSnapshot += data.size();
        updateLastAppliedTermIndex(term, entry.getIndex());
        deliver(l -> l.handleCommit(batch));
        if (p != null) {
            p.future.complete(batch.lastOffset());
        }
        maybeRequestSnapshot();
        return CompletableFuture.completedFuture(Message.EMPTY);
    }

    @Override
    public synchronized void notifyTermIndexUpdated(long term, long index) {
        // A configuration or no-op entry applied.
        onTermApplied(term);
        super.notifyTermIndexUpdated(term, index);
    }

    @Override
    public synchronized void notifyConfigurationChanged(long term, long index, RaftConfigurationProto newConf) {
        onTermApplied(term);
    }

    /** An entry of {@code term} is applied: appends of older terms not applied by now never will be. */
    private void onTermApplied(long term) {
        if (term <= highestAppliedTerm) {
            return;
        }
        highestAppliedTerm = term;
        for (PendingAppend p : pending.values()) {
            if (p.key.epoch() < term && pending.remove(p.key, p)) {
                p.future.completeExceptionally(new NotLeaderException("Metadata batch at offset " + p.key.baseOffset()
                        + " of epoch " + p.key.epoch() + " was not committed: Raft term " + term + " began without it",
                        delivered.leaderId()));
            }
        }
    }

    // ================================================================================ leadership

    @Override
    public void notifyLeaderReady() {
        // Called on the apply thread as this leader applies its term's first entry: everything committed
        // before is applied and delivered, so the contract's "leadership after every earlier batch" holds.
        announce(new LeaderAndEpoch(OptionalInt.of(nodeId), currentTerm()));
    }

    @Override
    public void notifyLeaderChanged(RaftGroupMemberId memberId, RaftPeerId newLeaderId) {
        int leader = RatisMetadataLog.nodeIdOf(newLeaderId);
        if (leader != nodeId) {
            announce(new LeaderAndEpoch(OptionalInt.of(leader), currentTerm()));
        }
        // This node: announced once ready (above).
    }

    @Override
    public void notifyNotLeader(Collection<TransactionContext> pendingEntries) {
        announce(new LeaderAndEpoch(OptionalInt.empty(), currentTerm()));
    }

    private int currentTerm() {
        try {
            return Math.toIntExact(server.getDivision(groupId).getInfo().getCurrentTerm());
        } catch (IOException e) {
            return delivered.epoch();
        }
    }

    private synchronized void announce(LeaderAndEpoch next) {
        LeaderAndEpoch last = delivered;
        if (next.epoch() < last.epoch() || next.equals(last)) {
            return;
        }
        delivered = next;
        deliver(l -> l.handleLeaderChange(next));
    }

    // ================================================================================ snapshots

    private void maybeRequestSnapshot() {
        if (!snapshotRequested && policy.isDue(recordsSinceSnapshot, bytesSinceSnapshot,
                clockMs.getAsLong() - lastSnapshotMs)) {
            snapshotRequested = true;
            snapshotTrigger.requestSnapshot();
        }
    }

    /** The periodic check of {@code metadata.log.max.snapshot.interval.ms}. */
    synchronized void checkSnapshotDue() {
        maybeRequestSnapshot();
    }

    synchronized void snapshotRequestDone() {
        snapshotRequested = false;
    }

    @Override
    public synchronized long takeSnapshot() throws IOException {
        TermIndex last = getLastAppliedTermIndex();
        if (last == null || last.getIndex() < 0) {
            return RaftLog.INVALID_LOG_INDEX;
        }
        MetadataSnapshot snapshot = state.snapshot();
        File file = storage.getSnapshotFile(last.getTerm(), last.getIndex());
        writeAtomically(file.toPath(), MetadataSnapshotSerde.encode(snapshot));
        MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(file);
        storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), last));
        latestSnapshot = snapshot;
        snapshotOffset = snapshot.lastOffset();
        batchEndIndex.headMap(snapshotOffset, true).clear();
        recordsSinceSnapshot = 0;
        bytesSinceSnapshot = 0;
        lastSnapshotMs = clockMs.getAsLong();
        log.info("Controller node {} wrote metadata snapshot {} at offset {} ({} records)", nodeId, file,
                snapshot.lastOffset(), snapshot.records().size());
        return last.getIndex();
    }

    /** Temp file, fsync, rename over, fsync the directory: a crash leaves the old file or the new one. */
    private static void writeAtomically(Path file, byte[] bytes) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException e) {
            log.debug("Directory fsync of {} not supported: {}", file.getParent(), e.toString());
        }
    }
}
