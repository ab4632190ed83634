package dev.insync.replication.log;

import java.io.Closeable;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A log directory: every {@code <topic>-<partition>} log under it, the directory-level checkpoint
 * files ({@code replication-offset-checkpoint}, {@code recovery-point-offset-checkpoint},
 * {@code log-start-offset-checkpoint}), the clean-shutdown marker and a lock file that keeps a
 * second process out.
 */
public final class LogDirectory implements Closeable {

    private LogDirectory() {
    }

    /**
     * Locks and opens {@code dir}, recovering every partition log in it.
     *
     * @throws ApiException KAFKA_STORAGE_ERROR if another process holds the directory or a checkpoint is corrupt
     */
    public static LogDirectory open(Path dir, LogConfig defaultConfig) { throw new UnsupportedOperationException("log dir: issue 2"); }

    public Path path() { throw new UnsupportedOperationException("log dir: issue 2"); }

    /** The open log of this partition, if any. */
    public Optional<Log> log(TopicPartition tp) { throw new UnsupportedOperationException("log dir: issue 2"); }

    /** The partition's log, created empty if absent. */
    public Log getOrCreateLog(TopicPartition tp, LogConfig config) { throw new UnsupportedOperationException("log dir: issue 2"); }

    /** Closes and deletes a partition's log. */
    public void deleteLog(TopicPartition tp) { throw new UnsupportedOperationException("log dir: issue 2"); }

    public Map<TopicPartition, Log> logs() { throw new UnsupportedOperationException("log dir: issue 2"); }

    /** The HW read from {@code replication-offset-checkpoint} at open, for HW-5. */
    public OptionalLong checkpointedHighWatermark(TopicPartition tp) { throw new UnsupportedOperationException("log dir: issue 2"); }

    /** HW-5: writes every log's HW to {@code replication-offset-checkpoint}. */
    public void checkpointHighWatermarks() { throw new UnsupportedOperationException("log dir: issue 2"); }

    /** Writes {@code recovery-point-offset-checkpoint} and {@code log-start-offset-checkpoint}. */
    public void checkpointRecoveryPointsAndLogStartOffsets() { throw new UnsupportedOperationException("log dir: issue 2"); }

    /** The broker epoch in {@code .kafka_cleanshutdown} found at open (then deleted), or empty if the last stop was unclean (LDR-5). */
    public OptionalLong previousCleanShutdownBrokerEpoch() { throw new UnsupportedOperationException("log dir: issue 2"); }

    /** Flushes and checkpoints everything, writes the clean-shutdown marker with this broker epoch, releases the lock. */
    public void closeCleanly(long brokerEpoch) { throw new UnsupportedOperationException("log dir: issue 2"); }

    /** Closes files and releases the lock without writing the clean-shutdown marker. */
    @Override
    public void close() { throw new UnsupportedOperationException("log dir: issue 2"); }
}
