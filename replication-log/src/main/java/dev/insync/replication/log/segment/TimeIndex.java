package dev.insync.replication.log.segment;

import dev.insync.replication.log.FileSync;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;

/**
 * The {@code .timeindex} file (LOG-2): entries of (timestamp int64, offset relative to the segment's
 * base offset int32), the layout Kafka reads. An entry says "the largest timestamp up to this
 * offset"; timestamps strictly increase. One slot is kept free while the segment is active so the
 * segment's final largest timestamp can always be written when it rolls, as Kafka does.
 */
public final class TimeIndex extends MappedIndex {

    /** Bytes per entry. */
    public static final int ENTRY_SIZE = 12;
    /** Kafka's "no timestamp" value. */
    public static final long NO_TIMESTAMP = -1L;

    /** A timestamp and the offset at which it was reached. */
    public record Entry(long timestamp, long offset) {
    }

    /** A durable index ({@link FileSync#durable()}), see {@link #TimeIndex(Path, long, int, FileSync)}. */
    public TimeIndex(Path file, long baseOffset, int maxIndexSize) throws IOException {
        this(file, baseOffset, maxIndexSize, FileSync.durable());
    }

    /** Opens or creates the index at {@code file}; a new one is preallocated to {@code maxIndexSize}. */
    public TimeIndex(Path file, long baseOffset, int maxIndexSize, FileSync fileSync) throws IOException {
        super(file, baseOffset, maxIndexSize, ENTRY_SIZE, fileSync);
    }

    /** One slot stays reserved for the entry written at roll. */
    @Override
    public boolean isFull() {
        return entries() >= maxEntries() - 1;
    }

    /**
     * Appends (timestamp, offset) if the timestamp is above the last entry's.
     *
     * @param skipFullCheck true only for the final entry written when the segment rolls
     */
    public void maybeAppend(long timestamp, long offset, boolean skipFullCheck) throws IOException {
        int n = entries();
        if (!skipFullCheck && isFull()) {
            throw new IllegalStateException("Time index " + file() + " is full at " + n + " entries");
        }
        if (n >= maxEntries()) {
            return;
        }
        Entry last = lastEntry();
        if (timestamp <= last.timestamp()) {
            return;
        }
        if (n > 0 && offset < last.offset()) {
            throw new IllegalArgumentException("Time index entry (" + timestamp + ", " + offset
                    + ") goes back from " + last + " in " + file());
        }
        ByteBuffer entry = ByteBuffer.allocate(ENTRY_SIZE); // see OffsetIndex#append
        entry.putLong(0, timestamp);
        entry.putInt(8, relativeOffset(offset));
        writeEntry(n, entry);
        publishEntry();
    }

    /** The entry at {@code slot}. */
    public Entry entry(int slot) {
        MappedByteBuffer buf = buffer();
        return new Entry(buf.getLong(slot * ENTRY_SIZE), baseOffset + buf.getInt(slot * ENTRY_SIZE + 8));
    }

    /** The last entry, or (NO_TIMESTAMP, baseOffset) if there is none. */
    public Entry lastEntry() {
        int n = entries();
        return n == 0 ? new Entry(NO_TIMESTAMP, baseOffset) : entry(n - 1);
    }

    /**
     * The entry with the largest timestamp at most {@code timestamp}, or (NO_TIMESTAMP, baseOffset):
     * records with that timestamp or later are at or after the returned offset's batch.
     */
    public Entry lookup(long timestamp) {
        int slot = largestLowerBoundSlot(timestamp);
        return slot < 0 ? new Entry(NO_TIMESTAMP, baseOffset) : entry(slot);
    }

    /** Removes every entry whose offset is at or above {@code offset}. */
    public void truncateTo(long offset) {
        int keep = entries();
        while (keep > 0 && entry(keep - 1).offset() >= offset) {
            keep--;
        }
        truncateToEntries(keep);
    }

    @Override
    protected long keyAt(int slot) {
        return buffer().getLong(slot * ENTRY_SIZE);
    }

    /**
     * LOG-7: timestamps not negative and strictly increasing, offsets never going back and inside
     * the segment ({@code [baseOffset, nextOffset)}). Reads only the index; the last entry is checked
     * against its batch when the segment is opened ({@link LogSegment}).
     */
    @Override
    public String sanityCheck(int logSizeInBytes, long nextOffset) {
        if (entries() == 0) {
            return null;
        }
        MappedByteBuffer buf = buffer();
        long prevTimestamp = NO_TIMESTAMP;
        long prevOffset = 0;
        for (int i = 0; i < entries(); i++) {
            long ts = buf.getLong(i * ENTRY_SIZE);
            int rel = buf.getInt(i * ENTRY_SIZE + 8);
            String entry = "entry " + i + " (timestamp " + ts + ", relative offset " + rel + ")";
            if (ts < 0 || rel < 0) {
                return entry + " is negative";
            }
            if (i > 0 && (ts <= prevTimestamp || rel < prevOffset)) {
                return entry + " does not follow entry " + (i - 1) + " (timestamp " + prevTimestamp
                        + ", relative offset " + prevOffset + "): timestamps must increase and offsets not go back";
            }
            if (baseOffset + rel >= nextOffset) {
                return entry + " names offset " + (baseOffset + rel) + ", at or past the segment's end offset "
                        + nextOffset;
            }
            prevTimestamp = ts;
            prevOffset = rel;
        }
        return null;
    }
}
