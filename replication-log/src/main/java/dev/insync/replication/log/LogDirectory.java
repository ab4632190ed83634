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

import dev.insync.replication.log.segment.OpenFileBudget;
import dev.insync.replication.log.checkpoint.CleanShutdownFile;
import dev.insync.replication.log.checkpoint.CorruptCheckpointException;
import dev.insync.replication.log.checkpoint.OffsetCheckpointFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;
import java.util.Collections;
import java.util.LinkedHashMap;

/**
 * A log directory: every {@code <topic>-<partition>} log under it, the directory-level checkpoint
 * files ({@code replication-offset-checkpoint}, {@code recovery-point-offset-checkpoint},
 * {@code log-start-offset-checkpoint}), the clean-shutdown marker and a lock file that keeps a
 * second process out.
 *
 * <p>Opening takes an exclusive lock on {@code <dir>/.lock}, reads the checkpoints strictly (a
 * corrupt one keeps the whole directory offline, LOG-9), reads and deletes the clean-shutdown marker
 * (so a crash from then on counts as unclean, LDR-5), opens every partition log from its
 * checkpointed recovery point and log start offset, and restores its HW clamped to
 * [logStartOffset, LEO] (HW-5).
 *
 * <p>Disk access: every file of the directory (segments, indexes, epoch and directory checkpoints,
 * the marker) is written, flushed and fsynced through one {@link FileSync} given at open: whether
 * forces wait for the disk, and the {@link StorageFaults} hook a simulator injects disk faults with.
 *
 * <p>Failure (§9, Kafka's log-dir failure): the first I/O error on any of its files, a log's or a
 * checkpoint's, takes the whole directory offline: {@link #isOffline()} turns true, every log in it
 * answers KAFKA_STORAGE_ERROR from then on (nothing half-written is served, nothing more is
 * written), checkpoints are no longer written, and only {@link #close()} is left to do. The next
 * open recovers the files (LOG-7). An interrupt of a calling thread is not an I/O error.
 *
 * <p>Thread-safe: the logs live in a concurrent map; checkpoint writes are serialized so an older
 * snapshot never overwrites a newer one. Nothing here runs on its own thread: the broker schedules
 * {@link #checkpointHighWatermarks()} (HW-5) and {@link #checkpointRecoveryPointsAndLogStartOffsets()}.
 */
public final class LogDirectory implements Closeable {

    /** The lock file's name. */
    public static final String LOCK_FILE_NAME = ".lock";
    /** Suffix of a partition directory being deleted; leftovers are removed at open. */
    static final String DELETE_SUFFIX = "-delete";

    private static final Logger log = LoggerFactory.getLogger(LogDirectory.class);

    /**
     * Directories locked by this JVM. Checked before touching the lock file because on POSIX
     * systems closing <em>any</em> channel on a file drops the process's lock on it, so a refused
     * second open must not even open the file.
     */
    private static final Set<Path> LOCKED_IN_THIS_JVM = ConcurrentHashMap.newKeySet();

    private final Path dir;
    private final LogConfig defaultConfig;
    private final LongSupplier clockMs;
    private final FileSync fileSync;
    private final LogOwner owner = new Owner();
    /** Bounds the segment files this directory keeps open at once (see {@link OpenFileBudget}). */
    private final OpenFileBudget fileBudget = OpenFileBudget.forLogDirectory();
    private final DirectoryLock lock;
    private final OffsetCheckpointFile highWatermarkCheckpoint;
    /** What each offset checkpoint last got from this directory; absent before its first write. Guarded by checkpointLock. */
    private final Map<OffsetCheckpointFile, Map<TopicPartition, Long>> lastWritten = new HashMap<>();
    private final OffsetCheckpointFile recoveryPointCheckpoint;
    private final OffsetCheckpointFile logStartOffsetCheckpoint;
    private final CleanShutdownFile cleanShutdownFile;
    private final Map<TopicPartition, Long> checkpointedHighWatermarks;
    private final Map<TopicPartition, Long> checkpointedRecoveryPoints;
    private final Map<TopicPartition, Long> checkpointedLogStartOffsets;
    private final OptionalLong previousCleanShutdownBrokerEpoch;
    private final ConcurrentHashMap<TopicPartition, Log> logs = new ConcurrentHashMap<>();
    private final Object checkpointLock = new Object();
    private final Object lifecycleLock = new Object();
    private volatile boolean closed;
    /** Why the directory went offline (§9), null while it is online. Set once, without a lock: see markOffline. */
    private final AtomicReference<String> offline = new AtomicReference<>();

    private LogDirectory(Path dir, LogConfig defaultConfig, LongSupplier clockMs, FileSync fileSync,
                         DirectoryLock lock) {
        this.clockMs = clockMs;
        this.dir = dir;
        this.defaultConfig = defaultConfig;
        this.fileSync = fileSync;
        this.lock = lock;
        this.highWatermarkCheckpoint = new OffsetCheckpointFile(
                dir.resolve(OffsetCheckpointFile.REPLICATION_OFFSET_CHECKPOINT), fileSync);
        this.recoveryPointCheckpoint = new OffsetCheckpointFile(
                dir.resolve(OffsetCheckpointFile.RECOVERY_POINT_OFFSET_CHECKPOINT), fileSync);
        this.logStartOffsetCheckpoint = new OffsetCheckpointFile(
                dir.resolve(OffsetCheckpointFile.LOG_START_OFFSET_CHECKPOINT), fileSync);
        this.cleanShutdownFile = new CleanShutdownFile(dir.resolve(CleanShutdownFile.FILE_NAME), fileSync);
        // LOG-9: a corrupt checkpoint throws here, before anything on disk changes, and the
        // directory stays offline.
        this.checkpointedHighWatermarks = highWatermarkCheckpoint.read();
        this.checkpointedRecoveryPoints = recoveryPointCheckpoint.read();
        this.checkpointedLogStartOffsets = logStartOffsetCheckpoint.read();
        this.previousCleanShutdownBrokerEpoch = readAndDeleteCleanShutdownMarker();
    }

    /**
     * Locks and opens {@code dir} (created if absent), durable ({@link FileSync#durable()}),
     * recovering every partition log in it.
     *
     * @throws ApiException KAFKA_STORAGE_ERROR if the directory is already open (in this or another
     *                      process), a checkpoint is corrupt ({@link CorruptCheckpointException}, naming
     *                      file and line) or a log cannot be opened
     */
    public static LogDirectory open(Path dir, LogConfig defaultConfig) {
        return open(dir, defaultConfig, System::currentTimeMillis);
    }

    /**
     * As {@link #open(Path, LogConfig)}, with the clock every log reads for log-append time and
     * {@code flush.ms} (a simulator passes its virtual clock).
     */
    public static LogDirectory open(Path dir, LogConfig defaultConfig, LongSupplier clockMs) {
        return open(dir, defaultConfig, clockMs, FileSync.durable());
    }

    /**
     * As {@link #open(Path, LogConfig, LongSupplier)}, with {@code fileSync} as this directory's
     * durability and fault hook: every write, flush and fsync of its files goes through it (see the
     * class comment). Other directories in the same process are not affected.
     */
    public static LogDirectory open(Path dir, LogConfig defaultConfig, LongSupplier clockMs, FileSync fileSync) {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(defaultConfig, "defaultConfig");
        Objects.requireNonNull(clockMs, "clockMs");
        Objects.requireNonNull(fileSync, "fileSync");
        DirectoryLock lock = DirectoryLock.acquire(dir);
        LogDirectory logDir = null;
        try {
            logDir = new LogDirectory(lock.dir(), defaultConfig, clockMs, fileSync, lock);
            logDir.loadLogs();
            log.info("Opened log directory {} with {} logs; previous shutdown was {}", logDir.dir, logDir.logs.size(),
                    logDir.previousCleanShutdownBrokerEpoch.isPresent() ? "clean" : "unclean");
            return logDir;
        } catch (RuntimeException e) {
            if (logDir != null) {
                logDir.closeLogsQuietly();
            }
            lock.release();
            throw e;
        }
    }

    /** LDR-5: the marker says the last stop was clean; remove it so that the next crash counts as unclean. */
    private OptionalLong readAndDeleteCleanShutdownMarker() {
        OptionalLong epoch;
        try {
            epoch = cleanShutdownFile.read();
        } catch (CorruptCheckpointException e) {
            // LDR-5: an unreadable marker means the same as a missing one.
            log.warn("Treating the last shutdown of {} as unclean: {}", dir, e.getMessage());
            epoch = OptionalLong.empty();
        }
        cleanShutdownFile.delete();
        return epoch;
    }

    private void loadLogs() {
        for (Path child : listChildren()) {
            String name = child.getFileName().toString();
            if (!Files.isDirectory(child) || name.startsWith(".")) {
                continue;
            }
            if (name.endsWith(DELETE_SUFFIX)) {
                // A deleteLog interrupted by a crash: finish it.
                deleteRecursively(child);
                continue;
            }
            TopicPartition tp;
            try {
                tp = TopicPartition.parse(name);
            } catch (IllegalArgumentException e) {
                log.warn("Ignoring {} in log directory {}: not a <topic>-<partition> directory", name, dir);
                continue;
            }
            Log partitionLog = openLog(child, tp, defaultConfig, checkpointedRecoveryPoints.getOrDefault(tp, 0L),
                    checkpointedLogStartOffsets.getOrDefault(tp, 0L));
            logs.put(tp, partitionLog);
            restoreHighWatermark(tp, partitionLog);
        }
    }

    /**
     * HW-5: restores the checkpointed HW, clamped by the log to [logStartOffset, LEO]. Above the LEO
     * is expected after a power loss (records replicated but not flushed here are gone, and fetching
     * brings them back); it is logged, naming the file, since it means this replica lost records.
     */
    private void restoreHighWatermark(TopicPartition tp, Log partitionLog) {
        Long checkpointed = checkpointedHighWatermarks.get(tp);
        long hw = partitionLog.updateHighWatermark(checkpointed == null ? 0L : checkpointed);
        if (checkpointed != null && checkpointed != hw) {
            log.warn("{} holds high watermark {} for {}, outside its log [{}, {}] after recovery; the high watermark is {}",
                    highWatermarkCheckpoint.file(), checkpointed, tp, partitionLog.logStartOffset(),
                    partitionLog.logEndOffset(), hw);
        }
    }

    private Log openLog(Path logDir, TopicPartition tp, LogConfig config, long recoveryPoint, long logStartOffset) {
        try {
            Log.OpenContext context = new Log.OpenContext(fileSync, owner,
                    "from " + recoveryPointCheckpoint.file(), "from " + logStartOffsetCheckpoint.file(), fileBudget);
            return Log.open(logDir, tp, config, recoveryPoint, logStartOffset, clockMs, context);
        } catch (ApiException e) {
            if (e.error() == Errors.KAFKA_STORAGE_ERROR) {
                // §9: a log that cannot be opened or created takes its directory offline.
                markOffline("the log of " + tp + " could not be opened: " + e.getMessage());
            }
            throw e;
        } catch (RuntimeException e) {
            ApiException failure = new ApiException(Errors.KAFKA_STORAGE_ERROR, "Could not open the log of " + tp
                    + " in " + logDir + ": " + e, e);
            markOffline(failure.getMessage());
            throw failure;
        }
    }

    private List<Path> listChildren() {
        try (Stream<Path> children = Files.list(dir)) {
            // Sorted so that opening is deterministic (INV-6).
            return children.sorted(Comparator.comparing(p -> p.getFileName().toString())).toList();
        } catch (IOException e) {
            throw new ApiException(Errors.KAFKA_STORAGE_ERROR, "Could not list log directory " + dir + ": " + e, e);
        }
    }

    /** The bound on the segment files this directory keeps open at once, and how many are open. */
    public OpenFileBudget openFileBudget() {
        return fileBudget;
    }

    /** The directory (absolute, real path). */
    public Path path() {
        return dir;
    }

    /** The config of logs opened at start-up. */
    public LogConfig defaultConfig() {
        return defaultConfig;
    }

    /** The durability and fault hook every file of this directory is written through. */
    public FileSync fileSync() {
        return fileSync;
    }

    /**
     * Whether an I/O failure took this directory offline (§9): its logs answer KAFKA_STORAGE_ERROR,
     * nothing more is written, and only {@link #close()} is left to do.
     */
    public boolean isOffline() {
        return offline.get() != null;
    }

    /** Why the directory went offline, empty while it is online. */
    public Optional<String> offlineReason() {
        return Optional.ofNullable(offline.get());
    }

    /**
     * §9: takes the directory and every log in it offline; idempotent. Logs opened later are
     * refused ({@link #getOrCreateLog} checks). Takes no lock: it runs on a failing log's thread,
     * under that log's lock, while {@link #closeCleanly} may hold the lifecycle lock and wait for it.
     */
    private void markOffline(String reason) {
        if (!offline.compareAndSet(null, reason)) {
            return;
        }
        log.error("Log directory {} is offline: {}", dir, reason);
        logs.values().forEach(l -> l.markOffline("its log directory " + dir + " is offline: " + reason));
    }

    /** Runs a checkpoint write; a storage failure takes the directory offline (§9). */
    private void writingCheckpoint(Runnable write) {
        try {
            write.run();
        } catch (ApiException e) {
            if (e.error() == Errors.KAFKA_STORAGE_ERROR) {
                markOffline(e.getMessage());
            }
            throw e;
        }
    }

    /** How the logs of this directory report to it. */
    private final class Owner implements LogOwner {
        @Override
        public void onStorageFailure(Log failed, ApiException failure) {
            markOffline("I/O error on the log of " + failed.topicPartition() + ": " + failure.getMessage());
        }

        @Override
        public void onRecoveryPointLowered(Log lowered) {
            checkpointRecoveryPointsAndLogStartOffsets();
        }
    }

    /** The open log of this partition, if any. */
    public Optional<Log> log(TopicPartition tp) {
        return Optional.ofNullable(logs.get(tp));
    }

    /**
     * The partition's log, created empty (in {@code <dir>/<topic>-<partition>}) if absent.
     *
     * @throws ApiException KAFKA_STORAGE_ERROR if the directory is closed or the log cannot be created
     */
    public Log getOrCreateLog(TopicPartition tp, LogConfig config) {
        Objects.requireNonNull(tp, "tp");
        Objects.requireNonNull(config, "config");
        ensureOpen();
        Log opened = logs.computeIfAbsent(tp, k -> openLog(dir.resolve(k.toString()), k, config, 0L, 0L));
        String reason = offline.get();
        if (reason != null) {
            // The directory failed while this log was being opened: it must not escape online.
            opened.markOffline("its log directory " + dir + " is offline: " + reason);
            ensureOpen();
        }
        return opened;
    }

    /**
     * Closes and deletes a partition's log; nothing happens if it has none. The directory is first
     * renamed to a {@code -delete} name (so a crash half way leaves no log that would be opened
     * again), then removed, and the checkpoints are rewritten without the partition so a log later
     * created under the same name does not inherit its offsets.
     *
     * @throws ApiException KAFKA_STORAGE_ERROR if the directory is closed or the deletion fails
     */
    public void deleteLog(TopicPartition tp) {
        ensureOpen();
        Log removed = logs.remove(tp);
        if (removed == null) {
            return;
        }
        removed.close();
        Path logDir = dir.resolve(tp.toString());
        Path doomed = dir.resolve(tp + "." + UUID.randomUUID().toString().replace("-", "") + DELETE_SUFFIX);
        try {
            if (Files.exists(logDir)) {
                fileSync.beforeWrite(logDir);
                Files.move(logDir, doomed, StandardCopyOption.ATOMIC_MOVE);
                fileSync.fsyncDirectory(dir);
                deleteRecursively(doomed);
            }
        } catch (IOException e) {
            ApiException failure = new ApiException(Errors.KAFKA_STORAGE_ERROR, "Could not delete the log of " + tp
                    + " at " + logDir + ": " + e, e);
            markOffline(failure.getMessage());
            throw failure;
        }
        checkpointHighWatermarks();
        checkpointRecoveryPointsAndLogStartOffsets();
        log.info("Deleted the log of {} from {}", tp, dir);
    }

    /** A snapshot of the open logs. */
    public Map<TopicPartition, Log> logs() {
        // In the directory's own order: Map.copyOf's is randomized per JVM, and callers that iterate
        // (a simulated power loss draws a torn write per log) must see the same order every run (INV-6).
        return Collections.unmodifiableMap(new LinkedHashMap<>(logs));
    }

    /** The HW read from {@code replication-offset-checkpoint} at open, for HW-5. */
    public OptionalLong checkpointedHighWatermark(TopicPartition tp) {
        Long hw = checkpointedHighWatermarks.get(tp);
        return hw == null ? OptionalLong.empty() : OptionalLong.of(hw);
    }

    /**
     * HW-5: writes every log's HW to {@code replication-offset-checkpoint}.
     *
     * @throws ApiException KAFKA_STORAGE_ERROR if the directory is closed or the write fails
     */
    public void checkpointHighWatermarks() {
        ensureOpen();
        synchronized (checkpointLock) {
            writingCheckpoint(() -> writeIfChanged(highWatermarkCheckpoint, Log::highWatermark));
        }
    }

    /**
     * Writes {@code recovery-point-offset-checkpoint} and {@code log-start-offset-checkpoint}.
     *
     * @throws ApiException KAFKA_STORAGE_ERROR if the directory is closed or a write fails
     */
    public void checkpointRecoveryPointsAndLogStartOffsets() {
        ensureOpen();
        synchronized (checkpointLock) {
            writingCheckpoint(() -> {
                writeIfChanged(recoveryPointCheckpoint, Log::recoveryPoint);
                writeIfChanged(logStartOffsetCheckpoint, Log::logStartOffset);
            });
        }
    }

    /**
     * Writes every log's {@code offset} to {@code checkpoint} unless the file already holds exactly
     * those offsets from this directory's last write of it. Rewriting (and forcing) the same content
     * every interval only costs I/O and a formatted line per partition: with thousands of partitions
     * mostly idle, the offsets seldom move between two intervals. The first write always happens.
     * Called under checkpointLock.
     */
    private void writeIfChanged(OffsetCheckpointFile checkpoint, ToLongFunction<Log> offset) {
        Map<TopicPartition, Long> last = lastWritten.get(checkpoint);
        if (last != null && holdsCurrent(last, offset)) {
            return;
        }
        Map<TopicPartition, Long> offsets = snapshot(offset);
        checkpoint.write(offsets);
        lastWritten.put(checkpoint, offsets);
    }

    /** Whether {@code written} is every open log's {@code offset} and nothing else (no map built). */
    private boolean holdsCurrent(Map<TopicPartition, Long> written, ToLongFunction<Log> offset) {
        if (written.size() != logs.size()) {
            return false;
        }
        for (Map.Entry<TopicPartition, Log> e : logs.entrySet()) {
            Long value = written.get(e.getKey());
            if (value == null || value != offset.applyAsLong(e.getValue())) {
                return false;
            }
        }
        return true;
    }

    private Map<TopicPartition, Long> snapshot(ToLongFunction<Log> offset) {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        logs.forEach((tp, partitionLog) -> offsets.put(tp, offset.applyAsLong(partitionLog)));
        return offsets;
    }

    /**
     * The broker epoch in {@code .kafka_cleanshutdown} found at open (then deleted), or empty if the
     * last stop was unclean or the marker unreadable (LDR-5).
     */
    public OptionalLong previousCleanShutdownBrokerEpoch() {
        return previousCleanShutdownBrokerEpoch;
    }

    /**
     * Flushes every log, writes every checkpoint, closes the logs, then writes the clean-shutdown
     * marker with this broker epoch and releases the lock. If any step fails, everything is closed
     * and the error is rethrown; the marker is not written (the stop counts as unclean) unless the
     * failed step is the directory fsync after the marker's rename, the very last one: then the
     * marker may be in place, and it tells the truth, for everything before it is durable. An
     * offline directory writes nothing: it is closed as by {@link #close()} and the call fails.
     *
     * @throws ApiException KAFKA_STORAGE_ERROR if the directory is already closed or offline, or a step fails
     */
    public void closeCleanly(long brokerEpoch) {
        synchronized (lifecycleLock) {
            String reason = offline.get();
            if (!closed && reason != null) {
                close();
                throw new ApiException(Errors.KAFKA_STORAGE_ERROR, "Log directory " + dir
                        + " is offline and was closed without a clean-shutdown marker: " + reason);
            }
            ensureOpen();
            boolean checkpointed = false;
            try {
                logs.values().forEach(Log::flush);
                checkpointRecoveryPointsAndLogStartOffsets();
                checkpointHighWatermarks();
                checkpointed = true;
            } finally {
                closed = true;
                try {
                    RuntimeException closeFailure = closeLogs();
                    if (closeFailure != null && checkpointed) {
                        throw closeFailure;
                    }
                    if (checkpointed) {
                        // LDR-5: the marker goes last, once everything before it is durable.
                        writingCheckpoint(() -> cleanShutdownFile.write(brokerEpoch));
                        log.info("Closed log directory {} cleanly at broker epoch {}", dir, brokerEpoch);
                    }
                } finally {
                    lock.release();
                }
            }
        }
    }

    /** Closes files and releases the lock without writing the clean-shutdown marker. Idempotent. */
    @Override
    public void close() {
        synchronized (lifecycleLock) {
            if (closed) {
                return;
            }
            closed = true;
            closeLogsQuietly();
            lock.release();
        }
    }

    private void closeLogsQuietly() {
        RuntimeException failure = closeLogs();
        if (failure != null) {
            log.warn("Could not close every log in {}: {}", dir, failure.toString());
        }
    }

    /** Closes and forgets every log; returns the first failure (the others are suppressed into it). */
    private RuntimeException closeLogs() {
        RuntimeException failure = null;
        for (Map.Entry<TopicPartition, Log> entry : logs.entrySet()) {
            try {
                entry.getValue().close();
            } catch (RuntimeException e) {
                ApiException named = new ApiException(Errors.KAFKA_STORAGE_ERROR, "Could not close the log of "
                        + entry.getKey() + " in " + dir + ": " + e, e);
                if (failure == null) {
                    failure = named;
                } else {
                    failure.addSuppressed(named);
                }
            }
        }
        logs.clear();
        return failure;
    }

    private void ensureOpen() {
        String reason = offline.get();
        if (reason != null) {
            throw new ApiException(Errors.KAFKA_STORAGE_ERROR, "Log directory " + dir + " is offline: " + reason);
        }
        if (closed) {
            throw new ApiException(Errors.KAFKA_STORAGE_ERROR, "Log directory " + dir + " is closed");
        }
    }

    private void deleteRecursively(Path root) {
        try {
            fileSync.beforeWrite(root);
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.delete(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    if (e != null) {
                        throw e;
                    }
                    Files.delete(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new ApiException(Errors.KAFKA_STORAGE_ERROR, "Could not delete " + root + ": " + e, e);
        }
    }

    @Override
    public String toString() {
        return "LogDirectory(" + dir + ", " + logs.size() + " logs" + (closed ? ", closed" : "")
                + (offline.get() != null ? ", offline" : "") + ")";
    }

    /** The exclusive lock on {@code <dir>/.lock}, against this JVM and other processes. */
    private static final class DirectoryLock {
        private final Path dir;
        private final FileChannel channel;
        private final FileLock fileLock;
        private boolean released;

        private DirectoryLock(Path dir, FileChannel channel, FileLock fileLock) {
            this.dir = dir;
            this.channel = channel;
            this.fileLock = fileLock;
        }

        static DirectoryLock acquire(Path requested) {
            Path dir;
            try {
                Files.createDirectories(requested);
                dir = requested.toRealPath();
            } catch (IOException e) {
                throw new ApiException(Errors.KAFKA_STORAGE_ERROR, "Could not create log directory " + requested + ": " + e, e);
            }
            if (!LOCKED_IN_THIS_JVM.add(dir)) {
                throw alreadyOpen(dir, "in this process");
            }
            Path lockFile = dir.resolve(LOCK_FILE_NAME);
            FileChannel channel = null;
            try {
                channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock fileLock = channel.tryLock();
                if (fileLock == null) {
                    throw alreadyOpen(dir, "by another process");
                }
                return new DirectoryLock(dir, channel, fileLock);
            } catch (OverlappingFileLockException e) {
                closeQuietly(channel);
                LOCKED_IN_THIS_JVM.remove(dir);
                throw alreadyOpen(dir, "in this process");
            } catch (IOException e) {
                closeQuietly(channel);
                LOCKED_IN_THIS_JVM.remove(dir);
                throw new ApiException(Errors.KAFKA_STORAGE_ERROR, "Could not lock log directory " + dir + " ("
                        + lockFile + "): " + e, e);
            } catch (ApiException e) {
                closeQuietly(channel);
                LOCKED_IN_THIS_JVM.remove(dir);
                throw e;
            }
        }

        private static ApiException alreadyOpen(Path dir, String where) {
            return new ApiException(Errors.KAFKA_STORAGE_ERROR, "Log directory " + dir + " is already open " + where
                    + " (it holds the lock " + dir.resolve(LOCK_FILE_NAME) + ")");
        }

        Path dir() {
            return dir;
        }

        synchronized void release() {
            if (released) {
                return;
            }
            released = true;
            try {
                fileLock.release();
            } catch (IOException e) {
                log.warn("Could not release the lock of log directory {}: {}", dir, e.toString());
            } finally {
                closeQuietly(channel);
                LOCKED_IN_THIS_JVM.remove(dir);
            }
        }

        private static void closeQuietly(FileChannel channel) {
            if (channel == null) {
                return;
            }
            try {
                channel.close();
            } catch (IOException e) {
                log.warn("Could not close lock file channel: {}", e.toString());
            }
        }
    }
}
