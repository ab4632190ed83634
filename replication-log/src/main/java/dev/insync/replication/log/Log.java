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

package dev.insync.replication.log;

import dev.insync.replication.log.epoch.EpochEndOffset;
import dev.insync.replication.log.epoch.EpochEntry;
import dev.insync.replication.log.epoch.LeaderEpochCache;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.Records;
import dev.insync.replication.log.record.RecordsSummary;
import dev.insync.replication.log.record.RecordsValidator;
import dev.insync.replication.log.segment.BatchFraming;
import dev.insync.replication.log.segment.CorruptIndexException;
import dev.insync.replication.log.segment.FileRecords;
import dev.insync.replication.log.segment.LogSegment;
import dev.insync.replication.log.segment.OpenFileBudget;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

/**
 * One partition's log (Kafka's {@code UnifiedLog}): segments on disk, the leader-epoch cache,
 * the log start offset, the high watermark and the recovery point. Appends and truncations are
 * serialized; reads run concurrently and see only whole batches.
 *
 * <p>Concurrency: every mutation holds {@code lock}. Appends write bytes first and publish the
 * segment size, then the LEO (volatile), so a reader that bounds itself by the LEO it read sees
 * only complete batches. Operations that remove bytes (truncation, segment deletion, close) also
 * take the write side of {@code segmentsLock}, whose read side every read holds, so a reader
 * never reads a file while it shrinks. The group-commit {@link #flush(long)} forces under that
 * read side too, not under {@code lock}, so appends never wait for the disk there.
 *
 * <p>Errors: bad input is an {@link ApiException} and leaves the log exactly as it was; any I/O
 * failure is {@link Errors#KAFKA_STORAGE_ERROR} naming the file and offset, and takes the log
 * offline for good (§9): every later operation answers KAFKA_STORAGE_ERROR, so nothing a failed
 * write may have left half-done is served; the next open recovers the files (LOG-7). A log opened
 * by a {@link LogDirectory} takes the whole directory offline with it. An interrupt of a calling
 * thread is not an I/O failure: the segment's channel is reopened and the operation retried, and
 * the caller's interrupt flag stays set.
 *
 * <p>Disk access goes through the {@link FileSync} the log was opened with: durability (whether
 * forces wait for the disk) and the {@link StorageFaults} hook.
 */
public final class Log implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(Log.class);
    /**
     * Largest leader append copied into the calling thread's reusable direct buffer (one copy, and
     * the channel writes it without another); larger ones use a one-off heap buffer. Per thread, not
     * per log, so thousands of partitions do not each pin a buffer.
     */
    private static final int MAX_REUSED_APPEND_BUFFER_BYTES = 1024 * 1024;
    private static final ThreadLocal<ByteBuffer> APPEND_BUFFER = new ThreadLocal<>();

    private final Path dir;
    private final TopicPartition topicPartition;
    private final LogConfig config;
    private final LongSupplier clockMs;
    private final FileSync fileSync;
    /** The directory's bound on open segment files (a standalone log's own, unbounded). */
    private final OpenFileBudget fileBudget;
    private final LogOwner owner;
    private final LeaderEpochCache leaderEpochCache;
    /** What opening the log found and repaired (LOG-7); written only while opening. */
    private final List<RecoveryFinding> findings = new ArrayList<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final ReentrantReadWriteLock segmentsLock = new ReentrantReadWriteLock();
    private final ConcurrentNavigableMap<Long, LogSegment> segments = new ConcurrentSkipListMap<>();

    private volatile long logEndOffset;
    private volatile long logStartOffset;
    /** Told of every log start move (see {@link #setLogStartOffsetListener}). */
    private volatile Runnable logStartOffsetListener = () -> { };
    private volatile long highWatermark;
    private volatile long recoveryPoint;
    private volatile boolean closed;
    /** Why the log went offline (§9), null while it is online. */
    private volatile String offlineReason;
    private volatile boolean leaderFlushDeferred;

    /**
     * Files of segments deleted by retention (LOG-10) or truncation (LOG-6), renamed under the locks
     * ({@link LogSegment#renameForDeletion}) and deleted by {@link #deleteRenamedFiles} once they are released.
     */
    private final ConcurrentLinkedQueue<Path> renamedForDeletion = new ConcurrentLinkedQueue<>();

    // Guarded by lock.
    private long unflushedMessages;
    private long lastFlushMs;
    /** Segment files created so far, and how many of them the last directory fsync covered. */
    private long dirChanges;
    private long dirChangesSynced;
    /**
     * Truncations so far: a flush that forced outside the lock ({@link #flush(long)}) advances the
     * recovery point only if none happened meanwhile, since the offsets it forced may hold other
     * bytes now.
     */
    private long truncations;

    private Log(Path dir, TopicPartition topicPartition, LogConfig config, LongSupplier clockMs, OpenContext context,
                LeaderEpochCache leaderEpochCache) {
        this.dir = dir;
        this.topicPartition = topicPartition;
        this.config = config;
        this.clockMs = clockMs;
        this.fileSync = context.fileSync();
        this.fileBudget = context.fileBudget();
        this.owner = context.owner();
        this.leaderEpochCache = leaderEpochCache;
        this.lastFlushMs = clockMs.getAsLong();
    }

    /**
     * Where an opening log's disk settings and checkpointed offsets come from: the directory's
     * {@link FileSync}, its owner, and the names of the files the recovery point and log start
     * offset were read from (for the warnings when they do not fit the files, LOG-7).
     */
    record OpenContext(FileSync fileSync, LogOwner owner, String recoveryPointSource, String logStartSource,
                       OpenFileBudget fileBudget) {
        static OpenContext standalone(FileSync fileSync) {
            return new OpenContext(fileSync, LogOwner.NONE, "the requested recovery point",
                    "the requested log start offset", OpenFileBudget.unbounded());
        }
    }

    /**
     * Opens (creating if absent) a durable log in {@code dir}, recovering from {@code recoveryPoint}
     * (LOG-7), with the system clock for log-append time and {@code flush.ms}.
     */
    public static Log open(Path dir, TopicPartition topicPartition, LogConfig config, long recoveryPoint,
                           long logStartOffset) {
        return open(dir, topicPartition, config, recoveryPoint, logStartOffset, System::currentTimeMillis);
    }

    /** As {@link #open(Path, TopicPartition, LogConfig, long, long, LongSupplier, FileSync)}, durable. */
    public static Log open(Path dir, TopicPartition topicPartition, LogConfig config, long recoveryPoint,
                           long logStartOffset, LongSupplier clockMs) {
        return open(dir, topicPartition, config, recoveryPoint, logStartOffset, clockMs, FileSync.durable());
    }

    /**
     * Opens (creating if absent) the log in {@code dir} (LOG-7). A segment that ends at or below
     * {@code recoveryPoint} was flushed and is only checked, cheaply ({@link LogSegment#checkTrusted}:
     * its indexes and its tail after the last index entry, never its whole data); one that fails the
     * check, and every segment with data at or above the recovery point, is rescanned batch by batch
     * (framing, magic, CRC, contiguous offsets) and its indexes rebuilt. The log ends at the last
     * valid batch that continues the one before it: a torn, corrupt or non-contiguous tail is cut off
     * and later segments are deleted. A recovery point above the resulting log end offset does not
     * describe these files, so then every segment is rescanned. A missing or empty leader-epoch
     * checkpoint is rebuilt from the batches' partitionLeaderEpoch, and epochs newer than the
     * checkpoint's are added from the rescanned batches (LOG-8). A log start offset above the log
     * end offset is clamped to it. Each of these is logged with the file, the offset and the
     * reason, and listed in {@link #recoveryFindings()}. The HW starts at the log start offset (the
     * owner restores a checkpointed HW with {@link #updateHighWatermark}).
     *
     * @param clockMs  wall clock in ms: log-append time, {@code flush.ms}
     * @param fileSync durability and fault hook for every file of the log
     * @throws ApiException KAFKA_STORAGE_ERROR naming the file on an I/O failure
     */
    public static Log open(Path dir, TopicPartition topicPartition, LogConfig config, long recoveryPoint,
                           long logStartOffset, LongSupplier clockMs, FileSync fileSync) {
        return open(dir, topicPartition, config, recoveryPoint, logStartOffset, clockMs,
                OpenContext.standalone(Objects.requireNonNull(fileSync, "fileSync")));
    }

    static Log open(Path dir, TopicPartition topicPartition, LogConfig config, long recoveryPoint,
                    long logStartOffset, LongSupplier clockMs, OpenContext context) {
        try {
            if (!Files.isDirectory(dir)) {
                context.fileSync().beforeWrite(dir);
                Files.createDirectories(dir);
                // The new partition directory's entry in its parent must survive a power loss too:
                // the directory checkpoints will name this partition.
                Path parent = dir.toAbsolutePath().getParent();
                if (parent != null) {
                    context.fileSync().fsyncDirectory(parent);
                }
            }
        } catch (IOException e) {
            throw new ApiException(Errors.KAFKA_STORAGE_ERROR, "Cannot create log directory " + dir + " for "
                    + topicPartition + ": " + e, e);
        }
        Path epochFile = dir.resolve(LeaderEpochCache.CHECKPOINT_FILE_NAME);
        LeaderEpochCache cache = LeaderEpochCache.load(epochFile, topicPartition, context.fileSync());
        Log log = new Log(dir, topicPartition, config, clockMs, context, cache);
        try {
            log.load(Math.max(0, recoveryPoint), Math.max(0, logStartOffset), context, epochFile);
        } catch (IOException e) {
            log.closeQuietly();
            throw new ApiException(Errors.KAFKA_STORAGE_ERROR, "Cannot open log of " + topicPartition + " in " + dir
                    + ": " + e, e);
        } catch (RuntimeException e) {
            log.closeQuietly();
            throw e;
        }
        return log;
    }

    private void load(long requestedRecoveryPoint, long requestedLogStart, OpenContext context, Path epochFile)
            throws IOException {
        TreeMap<Long, Path> logFiles = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = file.getFileName().toString();
                if (name.endsWith(LogSegment.DELETED_SUFFIX)) {
                    // A segment deletion renamed it and the process stopped before deleting it: out of the log already.
                    LOG.info("Deleting {} of {}, left from a segment deletion", name, topicPartition);
                    Files.delete(file);
                    continue;
                }
                OptionalLong base = LogSegment.parseBaseOffset(name, LogSegment.LOG_SUFFIX);
                if (base.isPresent()) {
                    logFiles.put(base.getAsLong(), file);
                }
            }
        }
        deleteOrphanIndexes(logFiles);
        for (long base : logFiles.keySet()) {
            segments.put(base, LogSegment.openUnchecked(dir, base, config.indexIntervalBytes(),
                    config.segmentIndexBytes(), fileSync, fileBudget));
        }
        List<EpochEntry> epochStarts = recoverSegments(requestedRecoveryPoint);
        long leo = segments.isEmpty() ? requestedLogStart : segments.lastEntry().getValue().readNextOffset();
        if (requestedRecoveryPoint > leo) {
            // LOG-7: the checkpoint vouches for data these files do not hold (segment files lost, or a
            // crash right after a truncation), so it vouches for nothing here: trust no segment.
            finding(RecoveryFinding.Kind.RESCANNED_ALL, segments.isEmpty() ? dir : segments.firstEntry().getValue().logFile(),
                    leo, "recovery point " + requestedRecoveryPoint + " (" + context.recoveryPointSource()
                            + ") is above the log end offset " + leo + "; rescanning every segment");
            epochStarts = recoverSegments(0);
        }
        if (segments.isEmpty()) {
            segments.put(requestedLogStart, LogSegment.create(dir, requestedLogStart, config.indexIntervalBytes(),
                    config.segmentIndexBytes(), fileSync, fileBudget));
            dirChanges++;
        }
        for (LogSegment segment : segments.values()) {
            if (segment != segments.lastEntry().getValue()) {
                // Writes the final time-index entry of a rebuilt segment and trims; nothing for a trusted one.
                segment.onBecomeInactiveSegment();
            }
        }
        LogSegment active = segments.lastEntry().getValue();
        active.resizeIndexes(config.segmentIndexBytes());
        leo = active.readNextOffset();
        logEndOffset = leo;
        long start = Math.max(requestedLogStart, segments.firstKey());
        if (start > leo) {
            // Clamped, not an error: the log start only ever moves over records below the HW, and
            // moving it raises the recovery point without a flush, so a power loss can leave the
            // flushed log shorter than a checkpointed log start. Every record left below it was
            // deleted before the crash, so none is hidden that was visible. Kafka instead starts the
            // log empty at the checkpointed offset; that would make this replica's LEO, which a
            // follower acknowledges with (FET-4), claim offsets it never held. And an error would take
            // the directory offline after an ordinary power loss.
            finding(RecoveryFinding.Kind.CLAMPED_LOG_START, segments.firstEntry().getValue().logFile(), leo,
                    "log start offset " + start + " (" + context.logStartSource() + ") is above the log end offset "
                            + leo + " after recovery; the log starts at " + leo
                            + " (the records below it were deleted before the crash)");
            start = leo;
        }
        logStartOffset = start;
        recoveryPoint = Math.min(requestedRecoveryPoint, leo);
        highWatermark = logStartOffset;
        rebuildEpochCache(epochStarts, epochFile);
        if (!leaderEpochCache.isEmpty()) {
            leaderEpochCache.truncateFromEnd(leo);
            leaderEpochCache.truncateFromStart(logStartOffset);
            restoreLogStartFromEpochCache(epochFile);
        }
        LOG.info("Loaded log of {} in {}: {} segments, log start offset {}, log end offset {}, recovery point {}",
                topicPartition, dir, segments.size(), logStartOffset, logEndOffset, recoveryPoint);
    }

    /**
     * LOG-8, as Kafka's recovery: epochs newer than the cache's latest, seen in the rescanned
     * batches, are added; and a cache that is empty although the log holds batches (its
     * {@code leader-epoch-checkpoint} was missing or emptied) is rebuilt from the partitionLeaderEpoch
     * of every batch, trusted segments included.
     */
    private void rebuildEpochCache(List<EpochEntry> rescannedEpochStarts, Path epochFile) throws IOException {
        List<EpochEntry> found = rescannedEpochStarts;
        boolean rebuildAll = leaderEpochCache.isEmpty() && logEndOffset > segments.firstKey();
        if (rebuildAll) {
            found = new ArrayList<>();
            for (LogSegment segment : segments.values()) {
                found.addAll(segment.readEpochStarts());
            }
        }
        List<EpochEntry> added = leaderEpochCache.assignNewerEpochs(found);
        if (!added.isEmpty()) {
            finding(RecoveryFinding.Kind.REBUILT_EPOCH_CACHE, epochFile, added.get(0).startOffset(),
                    (rebuildAll ? "the leader-epoch checkpoint is missing or empty although the log holds batches"
                            : "the leader-epoch checkpoint lags the recovered batches")
                            + "; added from the batches' partitionLeaderEpoch: " + added);
        }
    }

    /**
     * LOG-8/LOG-10: moving the log start rewrites the epoch cache at once (its first entry starts at
     * the new log start) but the log-start checkpoint only periodically, so a crash in between
     * reopens the log at an older start than the cache's. The cache proves where the log started
     * before the crash: the log start is restored to it (the records below it were deleted, as they
     * were on the leader whose log start this broker took, or by retention), so the cache describes
     * the log again.
     */
    private void restoreLogStartFromEpochCache(Path epochFile) {
        Optional<EpochEntry> first = leaderEpochCache.earliestEntry();
        if (first.isEmpty() || first.get().startOffset() <= logStartOffset || first.get().startOffset() > logEndOffset) {
            return;
        }
        long restored = first.get().startOffset();
        finding(RecoveryFinding.Kind.CLAMPED_LOG_START, epochFile, restored, "the log start offset " + logStartOffset
                + " is below the leader-epoch checkpoint's first entry " + first.get() + ", which moving the log start"
                + " wrote before the log-start checkpoint could; the log starts at " + restored + " again");
        logStartOffset = restored;
        highWatermark = logStartOffset;
    }

    private void finding(RecoveryFinding.Kind kind, Path file, long offset, String reason) {
        findings.add(new RecoveryFinding(kind, file, offset, reason));
        LOG.warn("Recovery of {}: {} {} at offset {}: {}", topicPartition, kind, file, offset, reason);
    }

    private void deleteOrphanIndexes(Map<Long, Path> logFiles) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = file.getFileName().toString();
                OptionalLong base = LogSegment.parseBaseOffset(name, LogSegment.INDEX_SUFFIX);
                if (base.isEmpty()) {
                    base = LogSegment.parseBaseOffset(name, LogSegment.TIME_INDEX_SUFFIX);
                }
                if (base.isPresent() && !logFiles.containsKey(base.getAsLong())) {
                    LOG.warn("Deleting index {} of {}: it has no .log file", file, topicPartition);
                    fileSync.beforeWrite(file);
                    Files.delete(file);
                }
            }
        }
    }

    /**
     * LOG-7: checks every segment that ends at or below {@code requestedRecoveryPoint} (flushed) and
     * rescans any that fails the check and every later one; stops at the first cut. Returns the
     * epoch starts of the rescanned batches, oldest first.
     */
    private List<EpochEntry> recoverSegments(long requestedRecoveryPoint) throws IOException {
        List<EpochEntry> epochStarts = new ArrayList<>();
        List<LogSegment> ordered = new ArrayList<>(segments.values());
        long expectedNext = -1;
        for (int i = 0; i < ordered.size(); i++) {
            LogSegment segment = ordered.get(i);
            if (expectedNext >= 0 && segment.baseOffset() != expectedNext) {
                finding(RecoveryFinding.Kind.DELETED_SEGMENT, segment.logFile(), expectedNext, "the segment starts at "
                        + segment.baseOffset() + " but the previous one ends at " + expectedNext
                        + "; the log is cut there (offsets must be contiguous, LOG-4)");
                deleteSegmentsFrom(segment.baseOffset());
                return epochStarts;
            }
            boolean last = i == ordered.size() - 1;
            long nextBase = last ? -1 : ordered.get(i + 1).baseOffset();
            // Flushed: every batch is below the recovery point. The last segment's end is known only
            // once its tail has been walked, so it is checked when it starts below it.
            boolean flushed = last ? segment.baseOffset() < requestedRecoveryPoint : nextBase <= requestedRecoveryPoint;
            if (flushed) {
                LogSegment.TrustCheck check;
                try {
                    check = segment.checkTrusted(nextBase);
                } catch (IOException e) {
                    check = new LogSegment.TrustCheck("reading it failed: " + e, -1);
                }
                if (check.problem() == null && check.nextOffset() <= requestedRecoveryPoint) {
                    expectedNext = check.nextOffset();
                    continue;
                }
                if (check.problem() != null) {
                    finding(RecoveryFinding.Kind.REBUILT_INDEX, segment.logFile(), segment.baseOffset(),
                            "rescanning the segment below the recovery point " + requestedRecoveryPoint
                                    + " and rebuilding its indexes: " + check.problem());
                }
            }
            LogSegment.RecoveryResult result = segment.recover();
            epochStarts.addAll(result.epochStarts());
            expectedNext = result.nextOffset();
            if (result.truncatedBytes() > 0) {
                finding(RecoveryFinding.Kind.TRUNCATED_TAIL, segment.logFile(), result.nextOffset(), "cut "
                        + result.truncatedBytes() + " bytes at position " + result.validBytes() + ": " + result.reason());
                deleteSegmentsFrom(segment.baseOffset() + 1);
                return epochStarts;
            }
        }
        return epochStarts;
    }

    private void deleteSegmentsFrom(long fromBaseOffset) throws IOException {
        for (LogSegment later : new ArrayList<>(segments.tailMap(fromBaseOffset, true).values())) {
            LOG.warn("Deleting segment {} of {}: it follows a cut in the log", later.logFile(), topicPartition);
            segments.remove(later.baseOffset());
            later.deleteFiles();
            dirChanges++;
        }
    }

    // ---- accessors ----

    public TopicPartition topicPartition() {
        return topicPartition;
    }

    public Path dir() {
        return dir;
    }

    public LogConfig config() {
        return config;
    }

    public long logStartOffset() {
        return logStartOffset;
    }

    public long logEndOffset() {
        return logEndOffset;
    }

    public long highWatermark() {
        return highWatermark;
    }

    public long recoveryPoint() {
        return recoveryPoint;
    }

    public LeaderEpochCache leaderEpochCache() {
        return leaderEpochCache;
    }

    /** The durability and fault hook this log's files are written through. */
    public FileSync fileSync() {
        return fileSync;
    }

    /** What opening this log found and repaired (LOG-7), in order; empty after a clean open. */
    public List<RecoveryFinding> recoveryFindings() {
        return List.copyOf(findings);
    }

    /**
     * Whether an I/O failure took this log (and its directory) offline (§9): every operation but
     * the accessors and {@link #close()} then answers KAFKA_STORAGE_ERROR.
     */
    public boolean isOffline() {
        return offlineReason != null;
    }

    /**
     * §9: takes the log offline (its directory failed); idempotent. Nothing is written from now on,
     * not even by {@link #close()}: the next open recovers the files.
     */
    void markOffline(String reason) {
        if (offlineReason == null) {
            offlineReason = reason;
        }
    }

    /** Base offsets of the segments, oldest first. */
    public List<Long> segmentBaseOffsets() {
        return List.copyOf(segments.keySet());
    }

    /** Bytes on disk in all segments. */
    public long size() {
        long total = 0;
        for (LogSegment segment : segments.values()) {
            total += segment.size();
        }
        return total;
    }

    // ---- append (LOG-4, LOG-5) ----

    /**
     * LOG-4: validates the whole input first (LOG-5: CORRUPT_MESSAGE, MESSAGE_TOO_LARGE,
     * INVALID_RECORD, RECORD_LIST_TOO_LARGE for a batch larger than {@code segment.bytes}), then
     * gives each batch {@code baseOffset = LEO} and {@code partitionLeaderEpoch = leaderEpoch}
     * (the CRC does not cover them, so it is recomputed only when LOG_APPEND_TIME batches get the
     * log-append time) and records a new epoch in the leader-epoch cache. The caller's bytes are not
     * modified. On any error nothing is written.
     *
     * @throws ApiException FENCED_LEADER_EPOCH if {@code leaderEpoch} is below the latest epoch in the cache
     */
    public LogAppendInfo appendAsLeader(MemoryRecords records, int leaderEpoch) {
        if (leaderEpoch < 0) {
            throw new IllegalArgumentException("Negative leader epoch " + leaderEpoch + " for an append to " + topicPartition);
        }
        RecordsSummary summary = RecordsValidator.validate(records, config.maxMessageBytes(), topicPartition);
        lock.lock();
        try {
            ensureOpen();
            if (summary.batchCount() == 0) {
                return emptyAppendInfo();
            }
            OptionalInt latest = leaderEpochCache.latestEpoch();
            if (latest.isPresent() && leaderEpoch < latest.getAsInt()) {
                throw new ApiException(Errors.FENCED_LEADER_EPOCH, "Append to " + topicPartition + " in leader epoch "
                        + leaderEpoch + ", below the log's latest epoch " + latest.getAsInt());
            }
            ByteBuffer buf = copyToAppendBuffer(records);
            checkBatchSizesFitSegment(buf);
            long now = clockMs.getAsLong();
            long nextOffset = logEndOffset;
            long firstOffset = nextOffset;
            long maxTimestamp = -1;
            boolean logAppendTime = false;
            for (int pos = 0; pos < buf.limit(); pos += BatchFraming.sizeInBytes(buf, pos)) {
                buf.putLong(pos + BatchFraming.BASE_OFFSET_OFFSET, nextOffset);
                buf.putInt(pos + BatchFraming.PARTITION_LEADER_EPOCH_OFFSET, leaderEpoch);
                if (BatchFraming.isLogAppendTime(buf, pos)) {
                    // LOG-4: maxTimestamp is covered by the CRC, so this is the one rewrite that recomputes it.
                    logAppendTime = true;
                    buf.putLong(pos + BatchFraming.MAX_TIMESTAMP_OFFSET, now);
                    BatchFraming.rewriteCrc(buf, pos, BatchFraming.sizeInBytes(buf, pos));
                }
                maxTimestamp = Math.max(maxTimestamp, BatchFraming.maxTimestamp(buf, pos));
                nextOffset += BatchFraming.lastOffsetDelta(buf, pos) + 1L;
            }
            if (latest.isEmpty() || latest.getAsInt() != leaderEpoch) {
                updateEpochCache(() -> leaderEpochCache.assign(leaderEpoch, firstOffset));
            }
            boolean flushDue = appendValidated(buf, summary.recordCount(), leaderFlushDeferred);
            return new LogAppendInfo(firstOffset, nextOffset - 1, summary.recordCount(), buf.limit(),
                    logAppendTime ? now : -1, maxTimestamp, flushDue);
        } finally {
            lock.unlock();
        }
    }

    /**
     * LOG-4: appends the leader's bytes unchanged (validated for framing, CRC and record count, not
     * for {@code max.message.bytes} nor record by record: {@link RecordsValidator#validateShallow}) and, FOL-4, records {@code (partitionLeaderEpoch, baseOffset)} in
     * the epoch cache for every batch that starts a new epoch.
     *
     * @throws ApiException OFFSET_OUT_OF_RANGE if the first batch does not start exactly at the LEO
     *                      (below it, or a gap above it); INVALID_RECORD if offsets do not increase;
     *                      the validation errors of LOG-5. The log is unchanged on any of them.
     */
    public LogAppendInfo appendAsFollower(MemoryRecords records) {
        RecordsSummary summary = RecordsValidator.validateShallow(records, topicPartition);
        lock.lock();
        try {
            ensureOpen();
            if (summary.batchCount() == 0) {
                return emptyAppendInfo();
            }
            long leo = logEndOffset;
            if (summary.firstOffset() != leo) {
                throw new ApiException(Errors.OFFSET_OUT_OF_RANGE, "Follower append to " + topicPartition
                        + " starts at offset " + summary.firstOffset() + " but the log end offset is " + leo
                        + (summary.firstOffset() < leo ? " (below it)" : " (a gap above it)"));
            }
            if (!summary.offsetsMonotonic()) {
                throw new ApiException(Errors.INVALID_RECORD, "Follower append to " + topicPartition
                        + " at offset " + leo + " has batches whose offsets do not increase");
            }
            ByteBuffer buf = records.buffer();
            checkBatchSizesFitSegment(buf);
            long maxTimestamp = -1;
            List<long[]> newEpochs = new ArrayList<>(1);
            OptionalInt latest = leaderEpochCache.latestEpoch();
            int latestEpoch = latest.isPresent() ? latest.getAsInt() : -1;
            for (int pos = buf.position(); pos < buf.limit(); pos += BatchFraming.sizeInBytes(buf, pos)) {
                int epoch = BatchFraming.partitionLeaderEpoch(buf, pos);
                if (epoch >= 0 && epoch != latestEpoch) {
                    newEpochs.add(new long[] {epoch, BatchFraming.baseOffset(buf, pos)});
                    latestEpoch = epoch;
                }
                maxTimestamp = Math.max(maxTimestamp, BatchFraming.maxTimestamp(buf, pos));
            }
            for (long[] entry : newEpochs) {
                updateEpochCache(() -> leaderEpochCache.assign((int) entry[0], entry[1]));
            }
            // Follower appends flush in place (one force per fetch response already covers many records).
            appendValidated(buf, summary.recordCount(), false);
            return new LogAppendInfo(summary.firstOffset(), summary.lastOffset(), summary.recordCount(),
                    summary.sizeInBytes(), -1, maxTimestamp);
        } finally {
            lock.unlock();
        }
    }

    private LogAppendInfo emptyAppendInfo() {
        return new LogAppendInfo(-1, -1, 0, 0, -1, -1);
    }

    /** A private copy of the caller's bytes to stamp offsets into (the caller's buffer is not ours to change). */
    private static ByteBuffer copyToAppendBuffer(MemoryRecords records) {
        int size = records.sizeInBytes();
        ByteBuffer buf;
        if (size > MAX_REUSED_APPEND_BUFFER_BYTES) {
            buf = ByteBuffer.allocate(size);
        } else {
            buf = APPEND_BUFFER.get();
            if (buf == null || buf.capacity() < size) {
                buf = ByteBuffer.allocateDirect(Math.min(MAX_REUSED_APPEND_BUFFER_BYTES,
                        Math.max(64 * 1024, Integer.highestOneBit(Math.max(1, size - 1)) << 1)));
                APPEND_BUFFER.set(buf);
            }
            buf.clear();
        }
        buf.put(records.buffer());
        return buf.flip();
    }

    private void checkBatchSizesFitSegment(ByteBuffer buf) {
        for (int pos = buf.position(); pos < buf.limit(); pos += BatchFraming.sizeInBytes(buf, pos)) {
            int batchSize = BatchFraming.sizeInBytes(buf, pos);
            if (batchSize > config.segmentBytes()) {
                throw new ApiException(Errors.RECORD_LIST_TOO_LARGE, "Batch at position " + (pos - buf.position())
                        + " of an append to " + topicPartition + " at offset " + logEndOffset + " is " + batchSize
                        + " bytes, above segment.bytes " + config.segmentBytes());
            }
        }
    }

    /**
     * Writes validated, offset-assigned batches, rolling to a new segment before a batch that would
     * push the active one past {@code segment.bytes} or that its index cannot take (LOG-2), then
     * publishes the LEO. Then LOG-11's automatic flush: done here, or with {@code deferFlush} only
     * reported.
     *
     * @return whether a flush is due that {@code deferFlush} left to the owner
     */
    private boolean appendValidated(ByteBuffer buf, int recordCount, boolean deferFlush) {
        long leo = logEndOffset;
        LogSegment active = segments.lastEntry().getValue();
        int groupStart = buf.position();
        int groupBytes = 0;
        try {
            for (int pos = buf.position(); pos < buf.limit(); ) {
                int batchSize = BatchFraming.sizeInBytes(buf, pos);
                long batchBase = BatchFraming.baseOffset(buf, pos);
                long lastOffset = batchBase + BatchFraming.lastOffsetDelta(buf, pos);
                int activeSize = active.size() + groupBytes;
                boolean full = activeSize > 0 && ((long) activeSize + batchSize > config.segmentBytes()
                        || active.indexIsFull() || !active.canConvertToRelativeOffset(lastOffset));
                if (full) {
                    active.append(buf.duplicate().limit(pos).position(groupStart));
                    active = roll(batchBase);
                    groupStart = pos;
                    groupBytes = 0;
                }
                groupBytes += batchSize;
                pos += batchSize;
            }
            active.append(buf.duplicate().position(groupStart));
        } catch (IOException e) {
            throw storageError("append at offset " + leo + " to " + active.logFile(), e);
        }
        int lastPos = lastBatchPosition(buf);
        logEndOffset = BatchFraming.lastOffset(buf, lastPos) + 1;
        unflushedMessages += recordCount;
        return maybeFlush(deferFlush);
    }

    private static int lastBatchPosition(ByteBuffer buf) {
        int pos = buf.position();
        int last = pos;
        while (pos < buf.limit()) {
            last = pos;
            pos += BatchFraming.sizeInBytes(buf, pos);
        }
        return last;
    }

    private LogSegment roll(long newBaseOffset) throws IOException {
        LogSegment previous = segments.lastEntry().getValue();
        previous.onBecomeInactiveSegment();
        LogSegment segment = LogSegment.create(dir, newBaseOffset, config.indexIntervalBytes(), config.segmentIndexBytes(),
                fileSync, fileBudget);
        segments.put(newBaseOffset, segment);
        dirChanges++;
        LOG.debug("Rolled {} to a new segment at offset {}", topicPartition, newBaseOffset);
        return segment;
    }

    /**
     * LOG-11: the automatic flush of {@code flush.messages} / {@code flush.ms}; with {@code defer}
     * it is not done, only reported (the owner flushes with {@link #flush(long)}).
     *
     * @return whether a flush is due and was left to the owner
     */
    private boolean maybeFlush(boolean defer) {
        long now = clockMs.getAsLong();
        if (unflushedMessages >= config.flushMessages() || now - lastFlushMs >= config.flushMs()) {
            if (defer) {
                return true;
            }
            flushLocked(now);
        }
        return false;
    }

    /**
     * LOG-11 group commit, the owner's opt-in: with {@code deferred}, a leader append that makes a
     * flush due ({@code flush.messages} / {@code flush.ms}) does not force the disk under the
     * append lock; it reports {@link LogAppendInfo#flushDue()} and the owner calls
     * {@link #flush(long)} later (one call covers every append made meanwhile). Follower appends,
     * {@link #flushIfDue()} and {@link #flush()} are unaffected. Off by default: a log nobody opted
     * in for flushes inside its appends, as Kafka's does.
     */
    public void setLeaderFlushDeferred(boolean deferred) {
        leaderFlushDeferred = deferred;
    }

    /** Whether leader appends leave due flushes to the owner ({@link #setLeaderFlushDeferred}). */
    public boolean isLeaderFlushDeferred() {
        return leaderFlushDeferred;
    }

    /**
     * LOG-11: flushes if {@code flush.ms} has passed since the last flush; for the owner's periodic
     * task, since a quiet log gets no append to trigger it.
     */
    public void flushIfDue() {
        lock.lock();
        try {
            ensureOpen();
            if (unflushedMessages > 0 && clockMs.getAsLong() - lastFlushMs >= config.flushMs()) {
                flushLocked(clockMs.getAsLong());
            }
        } finally {
            lock.unlock();
        }
    }

    // ---- read (LOG-3) ----

    /**
     * LOG-3: whole batches from the one containing {@code startOffset}, none whose last offset is
     * at or above {@code maxOffset} (a batch straddling {@code maxOffset} is left out, as Kafka
     * bounds a read by the position of {@code maxOffset}), at least one batch even if it is larger
     * than {@code maxBytes}. Reads within one segment. Offsets in {@code [maxOffset, LEO]} read
     * empty.
     *
     * @throws ApiException OFFSET_OUT_OF_RANGE below the log start offset or above the LEO
     */
    public LogReadInfo read(long startOffset, int maxBytes, long maxOffset) {
        if (maxBytes < 0) {
            throw new IllegalArgumentException("Negative maxBytes " + maxBytes + " reading " + topicPartition);
        }
        long endOffset = logEndOffset;
        if (startOffset == endOffset) {
            // A read at the LEO (a caught-up follower's, every fetch round) touches no segment, so it
            // skips the segments lock; the offsets are the same volatile reads the locked path makes.
            ensureOpen();
            long start = logStartOffset;
            if (start <= startOffset) {
                return new LogReadInfo(MemoryRecords.EMPTY, startOffset, start, endOffset, highWatermark);
            }
        }
        return (LogReadInfo) readRepairingIndexes(startOffset, maxBytes, maxOffset, false);
    }

    /**
     * NET-3: the batches {@link #read} would return (the same LOG-3 bounds and errors), left in the
     * segment file: a {@link FileRecords} slice that a network server sends from the file to the
     * socket without copying it into the heap, or {@link MemoryRecords#EMPTY} when there is nothing
     * to return. See {@link FileRecords} for what happens when the segment is deleted or truncated
     * before the bytes are sent (they are never other bytes than those read).
     *
     * @throws ApiException OFFSET_OUT_OF_RANGE below the log start offset or above the LEO
     */
    public Records readFileRecords(long startOffset, int maxBytes, long maxOffset) {
        if (maxBytes < 0) {
            throw new IllegalArgumentException("Negative maxBytes " + maxBytes + " reading " + topicPartition);
        }
        if (startOffset == logEndOffset) {
            ensureOpen();
            if (logStartOffset <= startOffset) {
                return MemoryRecords.EMPTY;
            }
        }
        return (Records) readRepairingIndexes(startOffset, maxBytes, maxOffset, true);
    }

    /** {@link #readLocked} or {@link #readFileLocked}, rebuilding a segment's indexes once if a lookup refuses them. */
    private Object readRepairingIndexes(long startOffset, int maxBytes, long maxOffset, boolean fileSlice) {
        for (int attempt = 1; ; attempt++) {
            LogSegment corrupt;
            CorruptIndexException cause;
            segmentsLock.readLock().lock();
            try {
                return fileSlice ? readFileLocked(startOffset, maxBytes, maxOffset)
                        : readLocked(startOffset, maxBytes, maxOffset);
            } catch (CorruptIndexReadException e) {
                corrupt = e.segment;
                cause = e.cause;
            } finally {
                segmentsLock.readLock().unlock();
            }
            if (attempt > 1) {
                throw storageError("read at offset " + startOffset + " from " + corrupt.logFile()
                        + " after rebuilding its indexes", cause);
            }
            // LOG-7: the lookup refused an index entry that does not point at its batch; rebuild the
            // segment's indexes (readers and appends excluded) and read again.
            repairIndexes(corrupt, cause);
        }
    }

    /** Carries a corrupt index out of the read path, which holds the read side of segmentsLock. */
    private static final class CorruptIndexReadException extends RuntimeException {
        private final transient LogSegment segment;
        private final transient CorruptIndexException cause;

        CorruptIndexReadException(LogSegment segment, CorruptIndexException cause) {
            super(cause.getMessage(), null, false, false);
            this.segment = segment;
            this.cause = cause;
        }
    }

    private LogReadInfo readLocked(long startOffset, int maxBytes, long maxOffset) {
        ensureOpen();
        long hw = highWatermark;
        long leo = logEndOffset;
        long start = logStartOffset;
        checkReadable(startOffset, start, leo);
        long bound = Math.min(maxOffset, leo);
        if (startOffset >= bound) {
            return new LogReadInfo(MemoryRecords.EMPTY, startOffset, start, leo, hw);
        }
        Map.Entry<Long, LogSegment> entry = segments.floorEntry(startOffset);
        if (entry == null) {
            entry = segments.firstEntry();
        }
        while (entry != null) {
            LogSegment segment = entry.getValue();
            ByteBuffer bytes;
            try {
                bytes = segment.read(startOffset, maxBytes, bound, true);
            } catch (CorruptIndexException e) {
                throw new CorruptIndexReadException(segment, e);
            } catch (IOException e) {
                throw storageError("read at offset " + startOffset + " from " + segment.logFile(), e);
            }
            if (bytes != null) {
                return new LogReadInfo(MemoryRecords.readableRecords(bytes), startOffset, start, leo, hw);
            }
            entry = segments.higherEntry(entry.getKey());
        }
        return new LogReadInfo(MemoryRecords.EMPTY, startOffset, start, leo, hw);
    }

    /** {@link #readLocked} without the copy: the same segments, bounds and errors (NET-3). */
    private Records readFileLocked(long startOffset, int maxBytes, long maxOffset) {
        ensureOpen();
        long leo = logEndOffset;
        checkReadable(startOffset, logStartOffset, leo);
        long bound = Math.min(maxOffset, leo);
        if (startOffset >= bound) {
            return MemoryRecords.EMPTY;
        }
        Map.Entry<Long, LogSegment> entry = segments.floorEntry(startOffset);
        if (entry == null) {
            entry = segments.firstEntry();
        }
        while (entry != null) {
            LogSegment segment = entry.getValue();
            Records records;
            try {
                records = segment.readFileRecords(startOffset, maxBytes, bound, true);
            } catch (CorruptIndexException e) {
                throw new CorruptIndexReadException(segment, e);
            } catch (IOException e) {
                throw storageError("read at offset " + startOffset + " from " + segment.logFile(), e);
            }
            if (records != null) {
                return records;
            }
            entry = segments.higherEntry(entry.getKey());
        }
        return MemoryRecords.EMPTY;
    }

    /** LOG-3: OFFSET_OUT_OF_RANGE below the log start or above the LEO. */
    private void checkReadable(long startOffset, long start, long leo) {
        if (startOffset < start || startOffset > leo) {
            throw new ApiException(Errors.OFFSET_OUT_OF_RANGE, "Offset " + startOffset + " is out of range for "
                    + topicPartition + ": the log holds [" + start + ", " + leo + ")");
        }
    }

    /**
     * LOG-7: rebuilds the indexes of {@code segment} after a lookup refused one of its entries,
     * excluding appends ({@code lock}) and reads (the write side of {@code segmentsLock}).
     */
    private void repairIndexes(LogSegment segment, CorruptIndexException cause) {
        lock.lock();
        try {
            ensureOpen();
            segmentsLock.writeLock().lock();
            try {
                rebuildIndexesLocked(segment, cause);
            } finally {
                segmentsLock.writeLock().unlock();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Called holding {@code lock} and the write side of {@code segmentsLock}. */
    private void rebuildIndexesLocked(LogSegment segment, CorruptIndexException cause) {
        if (segments.get(segment.baseOffset()) != segment) {
            return; // deleted or replaced meanwhile
        }
        LOG.warn("Rebuilding the indexes of {} of {}: {}", segment.logFile(), topicPartition, cause.getMessage());
        try {
            segment.rebuildIndexes(segment == segments.lastEntry().getValue());
        } catch (IOException e) {
            throw storageError("rebuilding the indexes of " + segment.logFile(), e);
        }
    }

    // ---- high watermark ----

    /** Sets the HW clamped to [logStartOffset, LEO]; returns the value set. */
    public long updateHighWatermark(long hw) {
        lock.lock();
        try {
            long clamped = Math.min(Math.max(hw, logStartOffset), logEndOffset);
            highWatermark = clamped;
            return clamped;
        } finally {
            lock.unlock();
        }
    }

    /** Raises the HW to {@code hw} if higher (clamped to the LEO); returns whether it moved. */
    public boolean maybeIncrementHighWatermark(long hw) {
        lock.lock();
        try {
            long candidate = Math.min(hw, logEndOffset);
            if (candidate > highWatermark) {
                highWatermark = candidate;
                return true;
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    // ---- leader epochs ----

    /** The epoch of the latest cache entry, empty if the log has no epoch information. */
    public OptionalInt latestEpoch() {
        return leaderEpochCache.latestEpoch();
    }

    /** {@link LeaderEpochCache#endOffsetFor} with this log's LEO. */
    public EpochEndOffset endOffsetForEpoch(int epoch) {
        return leaderEpochCache.endOffsetFor(epoch, logEndOffset);
    }

    /**
     * FOL-8's follower-side lookup, as Kafka's {@code UnifiedLog.endOffsetForEpoch}: empty when the
     * log has no epoch information or {@code epoch} is above every epoch it knows; otherwise the
     * cache's answer. For an epoch below every known one that is {@code (epoch, start of the first
     * epoch)}: every record here was written in a later epoch than the leader's, so a follower
     * truncates to where its first epoch starts. (Treating that case as "no epoch at or below E"
     * would truncate to {@code min(leaderEndOffset, LEO)}, keep the diverged records and retry
     * forever.)
     */
    public Optional<EpochEndOffset> knownEndOffsetForEpoch(int epoch) {
        if (leaderEpochCache.isEmpty()) {
            return Optional.empty();
        }
        EpochEndOffset found = endOffsetForEpoch(epoch);
        if (found.endOffset() == EpochEndOffset.UNDEFINED_OFFSET || found.leaderEpoch() > epoch) {
            return Optional.empty();
        }
        return Optional.of(found);
    }

    /** Records the start of a new leader epoch at the LEO (LDR-1). */
    public void assignEpochStartOffset(int leaderEpoch, long startOffset) {
        lock.lock();
        try {
            ensureOpen();
            if (startOffset > logEndOffset) {
                throw new IllegalArgumentException("Epoch " + leaderEpoch + " cannot start at " + startOffset
                        + ", above the log end offset " + logEndOffset + " of " + topicPartition);
            }
            updateEpochCache(() -> leaderEpochCache.assign(leaderEpoch, startOffset));
        } finally {
            lock.unlock();
        }
    }

    // ---- truncation (LOG-6) ----

    /**
     * LOG-6: at or beyond the LEO no data changes (the epoch cache is still cut at the LEO); below
     * the first segment's base offset it is {@link #truncateFullyAndStartAt}; otherwise every batch
     * whose last offset is at or beyond {@code offset} is removed and segments wholly beyond it are
     * deleted. The LEO becomes the end of the last kept batch (at most {@code offset}; Kafka
     * assumes a batch boundary and sets exactly {@code offset}). Then log start = min(log start,
     * LEO), HW = min(HW, LEO), recovery point = min(recovery point, LEO), and the epoch cache is
     * truncated from the end at the LEO.
     *
     * @return whether any data was removed
     */
    public boolean truncateTo(long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("Cannot truncate " + topicPartition + " to negative offset " + offset);
        }
        lock.lock();
        try {
            ensureOpen();
            long leo = logEndOffset;
            if (offset >= leo) {
                updateEpochCache(() -> leaderEpochCache.truncateFromEnd(leo));
                return false;
            }
            if (offset < segments.firstKey()) {
                truncateFullyAndStartAt(offset);
                return true;
            }
            long recoveryPointBefore = recoveryPoint;
            segmentsLock.writeLock().lock();
            try {
                LOG.info("Truncating {} to offset {} (log end offset {})", topicPartition, offset, leo);
                truncations++;
                LogSegment target = segments.floorEntry(offset).getValue();
                for (LogSegment later : new ArrayList<>(segments.tailMap(offset, false).values())) {
                    segments.remove(later.baseOffset());
                    deleteSegment(later);
                }
                long newLeo;
                try {
                    truncateSegment(target, offset);
                    target.resizeIndexes(config.segmentIndexBytes());
                    newLeo = target.readNextOffset();
                } catch (IOException e) {
                    throw storageError("truncation to offset " + offset + " of " + target.logFile(), e);
                }
                logEndOffset = newLeo;
                logStartOffset = Math.min(logStartOffset, newLeo);
                highWatermark = Math.min(highWatermark, newLeo);
                recoveryPoint = Math.min(recoveryPoint, newLeo);
            } finally {
                segmentsLock.writeLock().unlock();
            }
            updateEpochCache(() -> leaderEpochCache.truncateFromEnd(logEndOffset));
            if (recoveryPoint < recoveryPointBefore) {
                // Before any new append (we hold the lock): a checkpoint still vouching for the removed
                // offsets would make recovery trust the new, unflushed bytes written there.
                persistLoweredRecoveryPoint();
            }
            return true;
        } finally {
            lock.unlock();
            deleteRenamedFiles();
        }
    }

    /** LOG-6 under the write lock: a lookup that refuses an index entry rebuilds the indexes and retries once. */
    private void truncateSegment(LogSegment target, long offset) throws IOException {
        try {
            target.truncateTo(offset);
        } catch (CorruptIndexException e) {
            rebuildIndexesLocked(target, e);
            target.truncateTo(offset);
        }
    }

    private void persistLoweredRecoveryPoint() {
        try {
            owner.onRecoveryPointLowered(this);
        } catch (ApiException e) {
            markOffline("the lowered recovery point could not be checkpointed: " + e.getMessage());
            throw e;
        }
    }

    /** LOG-6: deletes every segment, clears the epoch cache and starts the log empty at {@code offset}. */
    public void truncateFullyAndStartAt(long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("Cannot start " + topicPartition + " at negative offset " + offset);
        }
        lock.lock();
        try {
            ensureOpen();
            LOG.info("Truncating {} fully and starting at offset {} (log end offset was {})", topicPartition, offset,
                    logEndOffset);
            long recoveryPointBefore;
            segmentsLock.writeLock().lock();
            try {
                for (LogSegment segment : new ArrayList<>(segments.values())) {
                    segments.remove(segment.baseOffset());
                    deleteSegment(segment);
                }
                try {
                    segments.put(offset, LogSegment.create(dir, offset, config.indexIntervalBytes(),
                            config.segmentIndexBytes(), fileSync, fileBudget));
                } catch (IOException e) {
                    throw storageError("creating the segment at offset " + offset + " in " + dir, e);
                }
                dirChanges++;
                truncations++;
                logEndOffset = offset;
                logStartOffset = offset;
                highWatermark = offset;
                recoveryPointBefore = recoveryPoint;
                recoveryPoint = offset;
                unflushedMessages = 0;
            } finally {
                segmentsLock.writeLock().unlock();
            }
            updateEpochCache(() -> leaderEpochCache.clear());
            if (recoveryPoint < recoveryPointBefore) {
                persistLoweredRecoveryPoint();
            }
        } finally {
            lock.unlock();
            deleteRenamedFiles();
        }
    }

    /**
     * Under the locks, of a segment already out of {@link #segments}: renames its files for
     * {@link #deleteRenamedFiles}, which the public method that got here calls after unlocking.
     */
    private void deleteSegment(LogSegment segment) {
        try {
            renamedForDeletion.addAll(segment.renameForDeletion());
        } catch (IOException e) {
            throw storageError("deleting segment " + segment.logFile(), e);
        }
    }

    // ---- flush (LOG-11) ----

    /** LOG-11: forces data, then indexes, then advances the recovery point to the LEO. */
    public void flush() {
        lock.lock();
        try {
            ensureOpen();
            flushLocked(clockMs.getAsLong());
        } finally {
            lock.unlock();
        }
    }

    /**
     * LOG-11 group commit (Kafka's {@code UnifiedLog.flush(offset)}): if the recovery point is
     * below {@code upToOffset} (capped at the LEO), forces every byte appended so far (the data of
     * every segment from the recovery point's on, then their indexes, then the directory if a
     * segment file was created) and then advances the recovery point to the LEO seen at the start.
     * The forces run without the append lock, so appends go on meanwhile and the next call covers
     * them; only reading the state and advancing the recovery point take it. Forcing excludes
     * truncation, segment deletion and close (it holds the read side of the segments lock, as
     * reads do), and if a truncation slipped in between the recovery point is left alone: the
     * offsets forced may hold other bytes by then.
     *
     * @return the recovery point after the call
     * @throws ApiException KAFKA_STORAGE_ERROR if a force fails or the log is closed
     */
    public long flush(long upToOffset) {
        long flushTo;
        long fromRecoveryPoint;
        long messagesCovered;
        long dirTarget;
        long truncationsAtStart;
        lock.lock();
        try {
            ensureOpen();
            if (recoveryPoint >= Math.min(upToOffset, logEndOffset)) {
                return recoveryPoint;
            }
            flushTo = logEndOffset;
            fromRecoveryPoint = recoveryPoint;
            messagesCovered = unflushedMessages;
            dirTarget = dirChanges > dirChangesSynced ? dirChanges : -1;
            truncationsAtStart = truncations;
        } finally {
            lock.unlock();
        }
        segmentsLock.readLock().lock();
        try {
            ensureOpen();
            forceSegmentsFrom(fromRecoveryPoint, flushTo, dirTarget >= 0);
        } finally {
            segmentsLock.readLock().unlock();
        }
        lock.lock();
        try {
            if (closed || truncations != truncationsAtStart) {
                return recoveryPoint;
            }
            if (dirTarget >= 0) {
                dirChangesSynced = Math.max(dirChangesSynced, dirTarget);
            }
            recoveryPoint = Math.max(recoveryPoint, flushTo);
            unflushedMessages = Math.max(0, unflushedMessages - messagesCovered);
            lastFlushMs = clockMs.getAsLong();
            return recoveryPoint;
        } finally {
            lock.unlock();
        }
    }

    private void flushLocked(long now) {
        long leo = logEndOffset;
        boolean dir = dirChanges > dirChangesSynced;
        forceSegmentsFrom(recoveryPoint, leo, dir);
        if (dir) {
            dirChangesSynced = dirChanges;
        }
        recoveryPoint = Math.max(recoveryPoint, leo);
        unflushedMessages = 0;
        lastFlushMs = now;
    }

    /**
     * LOG-11's order: the data of every segment from the one holding {@code fromOffset}, then
     * their indexes, then (if asked) the directory; the caller then advances the recovery point.
     * The caller holds {@code lock} or the read side of {@code segmentsLock}, so no segment is
     * closed or deleted meanwhile.
     */
    private void forceSegmentsFrom(long fromOffset, long upToOffset, boolean directory) {
        Long from = segments.floorKey(fromOffset);
        Map<Long, LogSegment> toFlush = from == null ? segments : segments.tailMap(from, true);
        List<LogSegment> dirty = new ArrayList<>(toFlush.values());
        for (LogSegment segment : dirty) {
            try {
                segment.flushData();
            } catch (IOException e) {
                throw storageError("flush of " + segment.logFile() + " up to offset " + upToOffset, e);
            }
        }
        for (LogSegment segment : dirty) {
            try {
                segment.flushIndexes();
            } catch (IOException e) {
                throw storageError("flush of the indexes of " + segment.logFile() + " up to offset " + upToOffset, e);
            }
        }
        if (directory) {
            try {
                fileSync.fsyncDirectory(dir);
            } catch (IOException e) {
                throw storageError("flush of directory " + dir, e);
            }
        }
    }

    // ---- log start offset and retention (LOG-10) ----

    /**
     * LOG-10: moves the log start offset to {@code offset} and deletes the whole segments below it.
     *
     * @throws ApiException OFFSET_OUT_OF_RANGE if {@code offset} is above the HW (nothing changes)
     */
    public void deleteRecordsBefore(long offset) {
        lock.lock();
        try {
            ensureOpen();
            if (offset > highWatermark) {
                throw new ApiException(Errors.OFFSET_OUT_OF_RANGE, "Cannot delete records of " + topicPartition
                        + " before offset " + offset + ": it is above the high watermark " + highWatermark);
            }
            moveLogStartOffset(offset);
        } finally {
            lock.unlock();
            deleteRenamedFiles();
        }
    }

    /**
     * LOG-10: {@code listener} runs after every move of the log start offset, whatever moved it
     * (retention, DeleteRecords, a follower taking its leader's), replacing the previous listener.
     * It runs on the moving thread with this log's lock held, so it must only take note of the move
     * (a leader's fetch sessions re-check the partition at their next fetch, FET-7).
     */
    public void setLogStartOffsetListener(Runnable listener) {
        logStartOffsetListener = Objects.requireNonNull(listener, "listener");
    }

    /** LOG-10: a follower takes the leader's log start offset, bounded by its own HW. */
    public void maybeIncrementLogStartOffset(long offset) {
        lock.lock();
        try {
            ensureOpen();
            moveLogStartOffset(Math.min(offset, highWatermark));
        } finally {
            lock.unlock();
            deleteRenamedFiles();
        }
    }

    private void moveLogStartOffset(long offset) {
        if (offset <= logStartOffset) {
            return;
        }
        LOG.info("Incrementing the log start offset of {} to {}", topicPartition, offset);
        logStartOffset = offset;
        logStartOffsetListener.run();
        recoveryPoint = Math.max(recoveryPoint, offset);
        updateEpochCache(() -> leaderEpochCache.truncateFromStart(offset));
        List<LogSegment> deletable = new ArrayList<>();
        for (Map.Entry<Long, LogSegment> e : segments.entrySet()) {
            Long next = segments.higherKey(e.getKey());
            if (next == null || next > offset) {
                break;
            }
            deletable.add(e.getValue());
        }
        deleteSegments(deletable);
    }

    /**
     * LOG-10: deletes the oldest segments while they are past {@code retention.ms} (by their
     * largest timestamp, or the file's modification time if no batch carries one) or while the log
     * is larger than {@code retention.bytes}. A segment is deleted only if all its records are
     * below the HW; the active segment is rolled first when it is itself deletable. The log start
     * offset moves to the new first segment.
     *
     * @return how many segments were deleted
     */
    public int deleteOldSegments(long nowMs) {
        lock.lock();
        try {
            ensureOpen();
            List<LogSegment> deletable = new ArrayList<>();
            long excessBytes = config.retentionBytes() < 0 ? 0 : size() - config.retentionBytes();
            List<LogSegment> ordered = new ArrayList<>(segments.values());
            for (int i = 0; i < ordered.size(); i++) {
                LogSegment segment = ordered.get(i);
                long end = i + 1 < ordered.size() ? ordered.get(i + 1).baseOffset() : logEndOffset;
                if (end > highWatermark || segment.size() == 0) {
                    break;
                }
                boolean pastTime = config.retentionMs() >= 0 && nowMs - largestTimestamp(segment) > config.retentionMs();
                boolean pastSize = excessBytes - segment.size() >= 0;
                if (!pastTime && !pastSize) {
                    break;
                }
                if (pastSize) {
                    excessBytes -= segment.size();
                }
                deletable.add(segment);
            }
            if (deletable.isEmpty()) {
                return 0;
            }
            if (deletable.get(deletable.size() - 1) == segments.lastEntry().getValue()) {
                try {
                    roll(logEndOffset);
                } catch (IOException e) {
                    throw storageError("roll at offset " + logEndOffset + " before retention", e);
                }
            }
            long newStart = segments.higherKey(deletable.get(deletable.size() - 1).baseOffset());
            LOG.info("Retention deletes {} segments of {} below offset {}", deletable.size(), topicPartition, newStart);
            if (newStart > logStartOffset) {
                logStartOffset = newStart;
                recoveryPoint = Math.max(recoveryPoint, newStart);
                updateEpochCache(() -> leaderEpochCache.truncateFromStart(newStart));
            }
            deleteSegments(deletable);
            return deletable.size();
        } finally {
            lock.unlock();
            deleteRenamedFiles();
        }
    }

    private long largestTimestamp(LogSegment segment) {
        long ts = segment.maxTimestampSoFar();
        if (ts >= 0) {
            return ts;
        }
        try {
            return segment.lastModifiedMs();
        } catch (IOException e) {
            throw storageError("reading the modification time of " + segment.logFile(), e);
        }
    }

    /** Under the log lock: takes the segments out and renames their files; the caller calls {@link #deleteRenamedFiles} after unlocking. */
    private void deleteSegments(List<LogSegment> deletable) {
        if (deletable.isEmpty()) {
            return;
        }
        segmentsLock.writeLock().lock();
        try {
            for (LogSegment segment : deletable) {
                segments.remove(segment.baseOffset());
                deleteSegment(segment);
            }
        } finally {
            segmentsLock.writeLock().unlock();
        }
    }

    /**
     * Deletes the files {@link #deleteSegment} renamed, without the log's locks, so appends and reads
     * go on meanwhile. Each deletion passes the {@link StorageFaults} hook as a write; a failure is
     * the directory's, as Kafka's asynchronous delete treats it (§9): the log goes offline, and
     * whatever is left renamed is deleted by the next open. A nested call (a full truncation inside
     * {@link #truncateTo}) leaves the files to the outermost, which runs unlocked.
     */
    private void deleteRenamedFiles() {
        if (lock.isHeldByCurrentThread()) {
            return;
        }
        for (Path file = renamedForDeletion.poll(); file != null; file = renamedForDeletion.poll()) {
            if (offlineReason != null) {
                renamedForDeletion.clear();
                return;
            }
            try {
                fileSync.beforeWrite(file);
                Files.deleteIfExists(file);
            } catch (IOException e) {
                renamedForDeletion.clear();
                throw storageError("deleting " + file.getFileName() + ", renamed for deletion", e);
            }
        }
    }

    // ---- close ----

    /** Flushes nothing; closes files and trims preallocated indexes. Later calls fail with KAFKA_STORAGE_ERROR. */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            segmentsLock.writeLock().lock();
            try {
                closed = true;
                boolean offline = offlineReason != null;
                IOException failure = null;
                for (LogSegment segment : segments.values()) {
                    try {
                        if (offline) {
                            segment.closeWithoutWrites();
                        } else {
                            segment.close();
                        }
                    } catch (IOException e) {
                        failure = failure == null ? e : failure;
                    }
                }
                if (failure != null && !offline) {
                    throw storageError("closing the log in " + dir, failure);
                }
            } finally {
                segmentsLock.writeLock().unlock();
            }
        } finally {
            lock.unlock();
        }
    }

    private void closeQuietly() {
        for (LogSegment segment : segments.values()) {
            try {
                // Nothing is written after a failed open: its indexes may not have been checked.
                segment.closeWithoutWrites();
            } catch (IOException | RuntimeException e) {
                LOG.warn("Failed to close {} of {} after a failed open", segment.logFile(), topicPartition, e);
            }
        }
        closed = true;
    }

    private void ensureOpen() {
        String offline = offlineReason;
        if (offline != null) {
            throw new ApiException(Errors.KAFKA_STORAGE_ERROR, "The log of " + topicPartition + " in " + dir
                    + " is offline: " + offline);
        }
        if (closed) {
            throw new ApiException(Errors.KAFKA_STORAGE_ERROR, "The log of " + topicPartition + " in " + dir
                    + " is closed");
        }
    }

    /**
     * §9: an I/O failure takes the log offline for good (nothing half-written is ever served; the
     * next open recovers) and tells the owning directory, which goes offline with all its logs.
     */
    private ApiException storageError(String what, IOException e) {
        LOG.error("I/O error on the log of {}: {}; the log is offline", topicPartition, what, e);
        return storageFailure(new ApiException(Errors.KAFKA_STORAGE_ERROR, "I/O error on the log of " + topicPartition
                + " during " + what + ": " + e, e));
    }

    private ApiException storageFailure(ApiException failure) {
        // Also while closing: trimming the indexes is a write, and its failure is the directory's too.
        markOffline(failure.getMessage());
        owner.onStorageFailure(this, failure);
        return failure;
    }

    /**
     * Runs a change of the leader-epoch cache, which writes {@code leader-epoch-checkpoint}: a
     * failed write is a storage failure of this log like any other (§9).
     */
    private void updateEpochCache(Runnable change) {
        try {
            change.run();
        } catch (ApiException e) {
            if (e.error() == Errors.KAFKA_STORAGE_ERROR) {
                LOG.error("Writing the leader-epoch checkpoint of {} failed; the log is offline: {}", topicPartition,
                        e.getMessage());
                throw storageFailure(e);
            }
            throw e;
        }
    }

    @Override
    public String toString() {
        return "Log(" + topicPartition + ", dir=" + dir + ", logStartOffset=" + logStartOffset + ", logEndOffset="
                + logEndOffset + ", highWatermark=" + highWatermark + ")";
    }
}
