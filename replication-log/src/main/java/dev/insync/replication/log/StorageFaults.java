package dev.insync.replication.log;

import java.io.IOException;

/**
 * A fault-injection hook of one log directory: every write, flush and directory fsync of the
 * directory's files (segments, indexes, leader-epoch and directory checkpoints, the clean-shutdown
 * marker) is announced here just before it runs, and throwing fails it exactly as the disk failing
 * would. A failure then takes the whole log directory offline (contract §9): every log in it answers
 * {@link Errors#KAFKA_STORAGE_ERROR} from then on, nothing half-written is served, and the next
 * open recovers the files (LOG-7).
 *
 * <p>Installed per directory through {@link FileSync#withFaults(StorageFaults)}; there is no
 * global hook. The default, {@link #NONE}, lets everything through. Reads are not announced.
 *
 * <p>Called on the thread doing the I/O, sometimes under a log's lock: an implementation must be
 * fast, must not block and must not call back into the log. It may be called from several threads
 * at once (appends, reads' index repairs, flushes, checkpoints).
 */
@FunctionalInterface
public interface StorageFaults {

    /** Lets every operation through. */
    StorageFaults NONE = operation -> { };

    /**
     * Called just before {@code operation} runs.
     *
     * @throws IOException to make the operation fail as a disk error would
     */
    void beforeOperation(StorageOperation operation) throws IOException;
}
