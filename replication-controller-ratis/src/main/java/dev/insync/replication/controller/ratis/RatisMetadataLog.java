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
import dev.insync.replication.controller.log.NotLeaderException;
import dev.insync.replication.controller.log.UnexpectedBaseOffsetException;
import dev.insync.replication.controller.record.MetadataRecord;
import dev.insync.replication.core.time.Scheduler;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SnapshotManagementRequest;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link MetadataLog} replicated by an Apache Ratis quorum of 1, 3 or 5 controller nodes (CTL-4):
 * the Ratis leader is the active controller; a batch is committed once a majority has it fsynced in
 * its segmented Raft log; each node snapshots its state by itself (see {@link SnapshotPolicy}) and
 * Ratis purges the log up to the snapshot, installing the snapshot on a peer that needs purged
 * entries. It honours the {@link MetadataLog} contract exactly:
 * <ul>
 *   <li>committed batches reach the listener in offset order, once, on its executor; registering
 *       delivers the latest snapshot, the batches after it, then the leadership;</li>
 *   <li>this node as leader is announced only once it has applied its term's first entry, so every
 *       batch committed in earlier terms came first;</li>
 *   <li>{@link #append} commits the whole batch at {@code requiredBaseOffset} or nothing: it fails with
 *       {@link NotLeaderException} when this node does not lead in {@code epoch} (or the batch can no
 *       longer commit) and with {@link UnexpectedBaseOffsetException} when the offset is not the next
 *       one; an append that Ratis has put into its log is decided only by applying it (a step-down
 *       leaves it pending until a later term's entry shows it is gone, or it commits).</li>
 * </ul>
 * Offers of {@link #storeSnapshot} are ignored: this log snapshots by itself.
 *
 * <p>Ratis settings it fixes: {@code raft.server.log.unsafe-flush.enabled=false} and
 * {@code async-flush.enabled=false} (a follower acknowledges, and the leader counts itself, only
 * after {@code FileChannel.force}); {@code raft.server.log.purge.upto.snapshot.index=true};
 * {@code raft.server.log.appender.install.snapshot.enabled=true}; a follower's wait for the leader
 * drawn from [half of {@code controller.quorum.election.timeout.ms}, all of it].
 */
public final class RatisMetadataLog implements MetadataLog, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RatisMetadataLog.class);

    /** The one Raft group of an Insync controller quorum (named after KRaft's {@code __cluster_metadata}). */
    public static final RaftGroupId GROUP_ID =
            RaftGroupId.valueOf(UUID.nameUUIDFromBytes("__cluster_metadata".getBytes(StandardCharsets.UTF_8)));

    /** Head room of a Raft entry over its batch bytes (entry header, client id, call id). */
    private static final int ENTRY_OVERHEAD_BYTES = 1024;

    private final RatisControllerConfig config;
    private final MetadataStateMachine stateMachine;
    private final RaftServer server;
    private final RaftPeerId peerId;
    private final ClientId clientId = ClientId.randomId();
    private final AtomicLong callIds = new AtomicLong();
    private final Executor snapshotExecutor;
    private final Scheduler scheduler;
    private final int maxEntryBytes;
    private final Object lifecycleLock = new Object();
    private Scheduler.Cancellable snapshotTimer;
    private boolean started;
    private volatile boolean closed;

    /**
     * Builds the Raft server of node {@code config.nodeId()} on {@code config.metadataLogDir()}; it
     * starts with {@link #start()}.
     *
     * @param scheduler for the periodic snapshot check and its executor
     * @throws IOException if Ratis cannot build its server
     */
    public RatisMetadataLog(RatisControllerConfig config, Scheduler scheduler) throws IOException {
        this.config = Objects.requireNonNull(config, "config");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.peerId = peerIdOf(config.nodeId());
        this.stateMachine = new MetadataStateMachine(config.nodeId(), config.snapshotPolicy(),
                () -> scheduler.time().milliseconds());
        this.snapshotExecutor = scheduler.newSerialExecutor("RatisMetadataLog-" + config.nodeId() + "-snapshots");
        this.maxEntryBytes = config.maxBatchBytes();
        stateMachine.setSnapshotTrigger(() -> snapshotExecutor.execute(this::requestSnapshot));
        RaftGroup group = RaftGroup.valueOf(GROUP_ID, config.voters().stream()
                .map(v -> RaftPeer.newBuilder().setId(peerIdOf(v.nodeId())).setAddress(v.address()).build())
                .toList());
        this.server = RaftServer.newBuilder()
                .setServerId(peerId)
                .setGroup(group)
                .setStateMachine(stateMachine)
                .setProperties(raftProperties(config))
                .setOption(RaftStorage.StartupOption.RECOVER)
                .build();
    }

    /** The Ratis settings this log runs with (see the class javadoc). */
    static RaftProperties raftProperties(RatisControllerConfig config) {
        RaftProperties p = new RaftProperties();
        QuorumVoter self = config.self();
        RaftServerConfigKeys.setStorageDir(p, List.of(config.metadataLogDir().toFile()));
        GrpcConfigKeys.Server.setHost(p, self.host());
        GrpcConfigKeys.Server.setPort(p, self.port());
        // Durability: nothing counts towards a commit before it is forced to disk.
        RaftServerConfigKeys.Log.setUnsafeFlushEnabled(p, false);
        RaftServerConfigKeys.Log.setAsyncFlushEnabled(p, false);
        RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(config.segmentBytes()));
        RaftServerConfigKeys.Log.setPreallocatedSize(p, SizeInBytes.valueOf(Math.min(config.segmentBytes(), 4L << 20)));
        // One batch is one Raft entry: the appender's buffer, the write buffer and gRPC's message size must hold it.
        SizeInBytes entryLimit = SizeInBytes.valueOf((long) config.maxBatchBytes() + ENTRY_OVERHEAD_BYTES);
        RaftServerConfigKeys.Log.Appender.setBufferByteLimit(p, entryLimit);
        RaftServerConfigKeys.Log.setWriteBufferSize(p, SizeInBytes.valueOf(Math.max(8L << 20,
                2L * entryLimit.getSize())));
        GrpcConfigKeys.setMessageSizeMax(p, SizeInBytes.valueOf(Math.max(64L << 20, 2L * entryLimit.getSize())));
        // Snapshots: ours (SnapshotPolicy), then purge up to them; a peer that needs purged entries gets the snapshot.
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, false);
        RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, 2);
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
        RaftServerConfigKeys.Log.setPurgeGap(p, 1);
        RaftServerConfigKeys.Log.Appender.setInstallSnapshotEnabled(p, true);
        // Elections: Kafka's controller.quorum.election.timeout.ms is the longest a follower waits without
        // hearing from the leader before it stands; Ratis draws each wait from [min, max].
        long electionMs = config.electionTimeoutMs();
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(Math.max(1, electionMs / 2), TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(electionMs, TimeUnit.MILLISECONDS));
        // controller.quorum.fetch.timeout.ms bounds one replication request from the leader to a follower.
        RaftServerConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(config.fetchTimeoutMs(), TimeUnit.MILLISECONDS));
        // Writes the active controller may hold uncommitted (its own bound is insync.controller.max.pending.writes).
        RaftServerConfigKeys.Write.setElementLimit(p, config.controllerConfig().maxPendingWrites() + 64);
        return p;
    }

    static RaftPeerId peerIdOf(int nodeId) {
        return RaftPeerId.valueOf("n" + nodeId);
    }

    static int nodeIdOf(RaftPeerId peerId) {
        String s = peerId.toString();
        if (!s.startsWith("n")) {
            throw new IllegalArgumentException("Raft peer " + s + " is not an Insync controller node");
        }
        return Integer.parseInt(s.substring(1));
    }

    /**
     * Starts the Raft server: loads the latest snapshot, then follows the quorum. Idempotent.
     *
     * @throws IOException if the server cannot start, e.g. its latest snapshot is corrupt (the message
     *                     names the file)
     */
    public void start() throws IOException {
        synchronized (lifecycleLock) {
            if (started || closed) {
                return;
            }
            started = true;
        }
        try {
            server.start();
        } catch (IOException | RuntimeException e) {
            String why = rootMessage(e);
            closeServerQuietly();
            throw new IOException("Controller node " + config.nodeId() + " cannot start its metadata log in "
                    + config.metadataLogDir() + ": " + why, e);
        }
        long intervalMs = config.snapshotPolicy().maxSnapshotIntervalMs();
        if (intervalMs > 0) {
            long periodMs = Math.max(50, Math.min(intervalMs / 4, 60_000));
            snapshotTimer = scheduler.schedulePeriodically(snapshotExecutor, stateMachine::checkSnapshotDue, periodMs, periodMs);
        }
    }

    private static String rootMessage(Throwable e) {
        // Ratis wraps the state machine's IOException in CompletionExceptions; the innermost names the file.
        String message = e.toString();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null) {
                message = t.getMessage();
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return message;
    }

    private void requestSnapshot() {
        if (closed) {
            return;
        }
        SnapshotManagementRequest request = SnapshotManagementRequest.newCreate(clientId, peerId, GROUP_ID,
                callIds.incrementAndGet(), 60_000, 1);
        CompletableFuture<RaftClientReply> reply;
        try {
            reply = server.snapshotManagementAsync(request);
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        reply.whenComplete((r, e) -> {
            stateMachine.snapshotRequestDone();
            if (e != null || !r.isSuccess()) {
                log.warn("Controller node {}: snapshot request failed: {}", config.nodeId(),
                        e != null ? e.toString() : r.getException());
            }
        });
    }

    /** The settings this log runs with. */
    public RatisControllerConfig config() {
        return config;
    }

    // ================================================================================ MetadataLog

    @Override
    public int nodeId() {
        return config.nodeId();
    }

    @Override
    public void register(Listener listener, Executor executor) {
        stateMachine.register(Objects.requireNonNull(listener, "listener"), Objects.requireNonNull(executor, "executor"));
    }

    @Override
    public void unregister() {
        stateMachine.unregister();
    }

    @Override
    public CompletionStage<Long> append(int epoch, long requiredBaseOffset, List<MetadataRecord> records) {
        LeaderAndEpoch leader = stateMachine.leaderAndEpoch();
        if (closed || !leader.isLeader(config.nodeId()) || leader.epoch() != epoch) {
            return CompletableFuture.failedFuture(new NotLeaderException("Controller node " + config.nodeId()
                    + " does not lead the metadata log in epoch " + epoch + "; " + leader, leader.leaderId()));
        }
        long next = stateMachine.appliedOffset() + 1;
        if (requiredBaseOffset < next) {
            return CompletableFuture.failedFuture(new UnexpectedBaseOffsetException("Append at required base offset "
                    + requiredBaseOffset + " but offsets up to " + (next - 1) + " are committed"));
        }
        byte[] bytes = MetadataBatchSerde.encode(epoch, new MetadataBatch(requiredBaseOffset, records));
        if (bytes.length > maxEntryBytes) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("Metadata batch at offset " + requiredBaseOffset
                    + " is " + bytes.length + " bytes; " + RatisControllerConfig.METADATA_MAX_BATCH_BYTES + " is "
                    + maxEntryBytes));
        }
        MetadataStateMachine.PendingAppend p =
                stateMachine.newPending(new MetadataStateMachine.AppendKey(epoch, requiredBaseOffset));
        if (p == null) {
            return CompletableFuture.failedFuture(new UnexpectedBaseOffsetException("A metadata batch at offset "
                    + requiredBaseOffset + " is already being appended in epoch " + epoch));
        }
        RaftClientRequest request = RaftClientRequest.newBuilder()
                .setClientId(clientId)
                .setServerId(peerId)
                .setGroupId(GROUP_ID)
                .setCallId(callIds.incrementAndGet())
                .setMessage(Message.valueOf(ByteString.copyFrom(bytes)))
                .setType(RaftClientRequest.writeRequestType())
                .build();
        CompletableFuture<RaftClientReply> reply;
        try {
            // Synchronous up to the local log append (Ratis' client executor is joined): appends
            // reach the Raft log in the order of these calls.
            reply = server.submitClientRequestAsync(request);
        } catch (IOException | RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        reply.whenComplete((r, e) -> {
            if (e != null) {
                stateMachine.submissionFailed(p, e);
            } else if (!r.isSuccess()) {
                stateMachine.submissionFailed(p, r.getException());
            }
        });
        return p.future;
    }

    @Override
    public LeaderAndEpoch leaderAndEpoch() {
        return stateMachine.leaderAndEpoch();
    }

    @Override
    public long committedOffset() {
        return stateMachine.appliedOffset();
    }

    @Override
    public List<MetadataBatch> read(long afterOffset, int maxBatches) {
        return stateMachine.read(afterOffset, maxBatches);
    }

    @Override
    public Optional<MetadataSnapshot> latestSnapshot() {
        return stateMachine.latestSnapshot();
    }

    /** Ignored: this log writes its own snapshots ({@link SnapshotPolicy}). */
    @Override
    public void storeSnapshot(MetadataSnapshot snapshot) {
    }

    /** The Raft term-index of this node's latest snapshot, -1 if none (for tests and tools). */
    public long latestSnapshotIndex() {
        var info = stateMachine.getLatestSnapshot();
        return info == null ? -1 : info.getIndex();
    }

    /** The first index still in this node's Raft log (advances when it is purged after a snapshot). */
    public long raftLogStartIndex() {
        try {
            return server.getDivision(GROUP_ID).getRaftLog().getStartIndex();
        } catch (IOException e) {
            return -1;
        }
    }

    /** Whether this node's Raft server is running (it stops by itself after a fatal state-machine error). */
    public boolean isRunning() {
        try {
            return !closed && server.getDivision(GROUP_ID).getInfo().isAlive();
        } catch (IOException e) {
            return false;
        }
    }

    /** Stops the Raft server (its RPC, log and threads); waiting appends fail. Idempotent. */
    @Override
    public void close() {
        synchronized (lifecycleLock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        if (snapshotTimer != null) {
            snapshotTimer.cancel();
        }
        stateMachine.unregister();
        closeServerQuietly();
        stateMachine.close();
    }

    private void closeServerQuietly() {
        try {
            server.close();
        } catch (IOException | RuntimeException e) {
            log.warn("Controller node {}: closing the Raft server failed: {}", config.nodeId(), e.toString());
        }
    }

    @Override
    public String toString() {
        return "RatisMetadataLog(node " + config.nodeId() + ", " + leaderAndEpoch() + ")";
    }

}
