package dev.insync.replication.log.segment;

import java.io.IOException;
import java.nio.file.Path;

/**
 * LOG-7: a lookup found an offset-index entry that does not point at the start of the batch ending
 * at its offset. Nothing was read from the wrong place; the owner rebuilds the segment's indexes
 * ({@link LogSegment#rebuildIndexes}) and retries. Not a disk error: it must not take the log offline.
 */
public final class CorruptIndexException extends IOException {

    private final Path file;

    /**
     * @param file   the index file
     * @param reason what is wrong, naming the entry
     */
    public CorruptIndexException(Path file, String reason) {
        super("Corrupt index " + file + ": " + reason);
        this.file = file;
    }

    /** The index file. */
    public Path file() {
        return file;
    }
}
