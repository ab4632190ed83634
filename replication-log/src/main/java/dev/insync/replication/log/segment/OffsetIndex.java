package dev.insync.replication.log.segment;

import dev.insync.replication.log.FileSync;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;

/**
 * The {@code .index} file (LOG-2): entries of (offset relative to the segment's base offset, int32;
 * file position, int32), the layout Kafka reads. An entry maps the last offset of a batch to the
 * position where that batch starts; one is added every {@code index.interval.bytes} of log data.
 * A lookup returns the entry of the largest indexed offset at most the target, from where a short
 * scan finds the batch containing the target.
 */
public final class OffsetIndex extends MappedIndex {

    /** Bytes per entry. */
    public static final int ENTRY_SIZE = 8;

    /** An offset and the file position of the batch ending at (or containing) it. */
    public record Position(long offset, int position) {
    }

    /** A durable index ({@link FileSync#durable()}), see {@link #OffsetIndex(Path, long, int, FileSync)}. */
    public OffsetIndex(Path file, long baseOffset, int maxIndexSize) throws IOException {
        this(file, baseOffset, maxIndexSize, FileSync.durable());
    }

    /** Opens or creates the index at {@code file}; a new one is preallocated to {@code maxIndexSize}. */
    public OffsetIndex(Path file, long baseOffset, int maxIndexSize, FileSync fileSync) throws IOException {
        super(file, baseOffset, maxIndexSize, ENTRY_SIZE, fileSync);
    }

    /** Appends an entry; offsets and positions must increase. */
    public void append(long offset, int position) throws IOException {
        int n = entries();
        if (n >= maxEntries()) {
            throw new IllegalStateException("Index " + file() + " is full at " + n + " entries; cannot add offset " + offset);
        }
        MappedByteBuffer buf = buffer();
        // Read the previous entry in place: this runs on every indexed append.
        if (n > 0 && (offset <= baseOffset + buf.getInt((n - 1) * ENTRY_SIZE)
                      || position <= buf.getInt((n - 1) * ENTRY_SIZE + 4))) {
            throw new IllegalArgumentException("Index entry (" + offset + ", " + position + ") does not follow "
                    + lastEntry() + " in " + file());
        }
        // A buffer per entry rather than one per index: an entry is written every index.interval.bytes
        // of log, while a field would cost every idle replica its bytes.
        ByteBuffer entry = ByteBuffer.allocate(ENTRY_SIZE);
        entry.putInt(0, relativeOffset(offset));
        entry.putInt(4, position);
        writeEntry(n, entry);
        publishEntry();
    }

    /** The entry at {@code slot}. */
    public Position entry(int slot) {
        MappedByteBuffer buf = buffer();
        return new Position(baseOffset + buf.getInt(slot * ENTRY_SIZE), buf.getInt(slot * ENTRY_SIZE + 4));
    }

    /** The slot of the entry with the largest offset at most {@code targetOffset}, or -1 if none. */
    public int floorSlot(long targetOffset) {
        long rel = targetOffset - baseOffset;
        return rel < 0 ? -1 : largestLowerBoundSlot(rel);
    }

    /** The offset of the entry at {@code slot} (no allocation). */
    public long offsetAt(int slot) {
        return baseOffset + buffer().getInt(slot * ENTRY_SIZE);
    }

    /** The position of the entry at {@code slot} (no allocation). */
    public int positionAt(int slot) {
        return buffer().getInt(slot * ENTRY_SIZE + 4);
    }

    /** The last entry, or (baseOffset, 0) if there is none. */
    public Position lastEntry() {
        int n = entries();
        return n == 0 ? new Position(baseOffset, 0) : entry(n - 1);
    }

    /**
     * The entry with the largest offset at most {@code targetOffset}, or (baseOffset, 0): the batch
     * containing {@code targetOffset} starts at or after the returned position.
     */
    public Position lookup(long targetOffset) {
        int slot = largestLowerBoundSlot(targetOffset - baseOffset);
        return slot < 0 ? new Position(baseOffset, 0) : entry(slot);
    }

    /**
     * Where to scan for {@code targetOffset}, in one binary search over the mapped entries and
     * without allocating: the high 32 bits are the position {@link #lookup} returns; the low 32 bits
     * are the position of the entry after it, or -1 if there is none. The batch holding the target
     * starts at or after the first and at or before the second (that entry's offset is above the
     * target), so a scan needs the bytes up to the second position plus one batch header.
     */
    public long scanRange(long targetOffset) {
        int n = entries();
        if (n == 0) {
            return -1L & 0xffffffffL; // from 0, no next entry
        }
        int slot = largestLowerBoundSlot(targetOffset - baseOffset);
        MappedByteBuffer buf = buffer();
        int from = slot < 0 ? 0 : buf.getInt(slot * ENTRY_SIZE + 4);
        int next = slot + 1 < n ? buf.getInt((slot + 1) * ENTRY_SIZE + 4) : -1;
        return ((long) from << 32) | (next & 0xffffffffL);
    }

    /** Removes every entry whose offset is at or above {@code offset}. */
    public void truncateTo(long offset) {
        int slot = largestLowerBoundSlot(offset - baseOffset);
        int keep;
        if (slot < 0) {
            keep = 0;
        } else {
            keep = entry(slot).offset() == offset ? slot : slot + 1;
        }
        truncateToEntries(keep);
    }

    @Override
    protected long keyAt(int slot) {
        return buffer().getInt(slot * ENTRY_SIZE);
    }

    /**
     * LOG-7: entries strictly increasing in offset and position, at least one batch header apart,
     * no offset at or beyond {@code nextOffset} and no position at which a whole batch header would
     * not fit in the log. Reads only the index. Whether each entry points at the start of the batch
     * ending at its offset is checked where it is used: the last entry when the segment is opened,
     * any other when a lookup lands on it ({@link LogSegment}).
     */
    @Override
    public String sanityCheck(int logSizeInBytes, long nextOffset) {
        if (entries() == 0) {
            return null;
        }
        MappedByteBuffer buf = buffer();
        long prevOffset = -1;
        long prevPosition = -1;
        for (int i = 0; i < entries(); i++) {
            int rel = buf.getInt(i * ENTRY_SIZE);
            int pos = buf.getInt(i * ENTRY_SIZE + 4);
            String entry = "entry " + i + " (relative offset " + rel + ", position " + pos + ")";
            if (rel < 0 || pos < 0) {
                return entry + " is negative";
            }
            if (i > 0 && (rel <= prevOffset || pos < prevPosition + BatchFraming.HEADER_SIZE)) {
                return entry + " does not follow entry " + (i - 1) + " (relative offset " + prevOffset + ", position "
                        + prevPosition + "): entries must increase by at least one offset and one batch header";
            }
            if ((long) pos + BatchFraming.HEADER_SIZE > logSizeInBytes) {
                return entry + " points beyond the last batch header of the log (" + logSizeInBytes + " bytes)";
            }
            if (baseOffset + rel >= nextOffset) {
                return entry + " names offset " + (baseOffset + rel) + ", at or past the segment's end offset "
                        + nextOffset;
            }
            prevOffset = rel;
            prevPosition = pos;
        }
        return null;
    }
}
