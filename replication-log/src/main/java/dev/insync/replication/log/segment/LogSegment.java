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

package dev.insync.replication.log.segment;

import dev.insync.replication.log.FileSync;
import dev.insync.replication.log.epoch.EpochEntry;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.Records;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * One segment of a partition log (LOG-2): the {@code .log} file of whole v2 batches plus its
 * {@code .index} and {@code .timeindex}, all named by the 20-digit zero-padded base offset.
 *
 * <p>Threads: the owning log serializes every mutation (append, truncate, recover, roll, close).
 * Reads may run concurrently with appends: {@link #size()} is volatile and raised only after the
 * bytes are written, and index entries are added only after the bytes they point at, so a reader
 * bounded by the size it read sees only complete batches. Truncation and deletion must exclude
 * readers (the log does that).
 *
 * <p>Trust (LOG-7): an opened segment's indexes are not used until {@link #checkTrusted} passes or
 * {@link #recover()} rebuilt them. A lookup also checks that the batch its index entry points at
 * ends at the entry's offset, and throws {@link CorruptIndexException} (never a wrong answer) if
 * not; the owner then rebuilds the indexes with {@link #rebuildIndexes(boolean)}.
 *
 * <p>I/O: the {@code .log} file is a {@link SegmentChannel}, which an interrupted caller cannot
 * break; every write, flush and file creation or deletion goes through the directory's
 * {@link FileSync} (durability and fault hook).
 */
public final class LogSegment {

    /** Suffix of the data file. */
    public static final String LOG_SUFFIX = ".log";
    /** Suffix of the offset index. */
    public static final String INDEX_SUFFIX = ".index";
    /** Suffix of the time index. */
    public static final String TIME_INDEX_SUFFIX = ".timeindex";
    /**
     * Appended to the name of a segment's file renamed for deletion (Kafka's suffix):
     * the file is deleted once the log's locks are released, or, after a crash, by the next open.
     */
    public static final String DELETED_SUFFIX = ".deleted";

    /** Bytes of a batch header needed to walk batches: up to and including lastOffsetDelta. */
    private static final int WALK_HEADER_SIZE = BatchFraming.LAST_OFFSET_DELTA_OFFSET + 4;
    /** Smallest unmapped tail worth a (re)map: below it, reads use the scan buffer. */
    private static final int MIN_MAP_GROWTH_BYTES = 1024 * 1024;
    /** Bytes read at a time while recovering or scanning a segment. */
    private static final int SCAN_CHUNK_BYTES = 64 * 1024;
    /** Bytes of a batch header up to and including maxTimestamp: what trust checks read. */
    private static final int TIMESTAMP_HEADER_SIZE = BatchFraming.MAX_TIMESTAMP_OFFSET + 8;

    private final Path dir;
    private final long baseOffset;
    private final int indexIntervalBytes;
    private final int maxIndexSize;
    private final Path logFile;
    private final FileSync fileSync;
    private final SegmentChannel channel;
    private final OffsetIndex offsetIndex;
    private final TimeIndex timeIndex;
    private final boolean indexesWereMissing;
    /** NET-3: the file as {@link FileRecords} send it (reference counted, opened on first use). */
    private final SendChannel sendChannel;

    private volatile int size;
    /**
     * NET-3: how many times bytes of the file were cut off, counted before the file changes (under the
     * log's exclusion of readers), so a {@link FileRecords} can tell whether its bytes are still the
     * ones it read.
     */
    private volatile long truncations;
    /**
     * Read-only map of {@code [0, capacity)} of the {@code .log} file (never past the published
     * size at mapping time), so locating a batch reads headers without a syscall. Null until a
     * read of a large enough segment; replaced when enough has been appended past it (reads of the
     * unmapped tail use the scan buffer meanwhile); dropped before any truncation, which readers
     * are excluded from, so no reader touches a mapped page beyond the end of the file.
     */
    private volatile MappedByteBuffer readMap;
    /** Every read map made, unmapped when the segment closes or is deleted ({@link #releaseMappings}). */
    private final FileMappings readMaps = new FileMappings();
    /** The last batches appended, so reads at the log's end locate and walk them without the file. */
    private final RecentBatches recent = new RecentBatches();
    /** Positional reads of the {@code .log} file so far (tests check that reads at the end need none to locate). */
    private final LongAdder fileReads = new LongAdder();
    private int bytesSinceLastIndexEntry;
    private volatile long maxTimestampSoFar = TimeIndex.NO_TIMESTAMP;
    private volatile long offsetOfMaxTimestampSoFar;

    private LogSegment(Path dir, long baseOffset, int indexIntervalBytes, int maxIndexSize, boolean create,
                       FileSync fileSync, OpenFileBudget fileBudget) throws IOException {
        this.dir = dir;
        this.baseOffset = baseOffset;
        this.indexIntervalBytes = indexIntervalBytes;
        this.maxIndexSize = maxIndexSize;
        this.fileSync = fileSync;
        this.logFile = logFile(dir, baseOffset);
        Path indexFile = indexFile(dir, baseOffset);
        Path timeIndexFile = timeIndexFile(dir, baseOffset);
        if (create) {
            fileSync.beforeWrite(logFile);
            // A new segment starts clean: leftovers of an earlier segment at this offset are stale.
            Files.deleteIfExists(indexFile);
            Files.deleteIfExists(timeIndexFile);
        }
        this.indexesWereMissing = !create && (!Files.exists(indexFile) || !Files.exists(timeIndexFile));
        this.channel = create ? SegmentChannel.create(logFile, fileBudget) : SegmentChannel.open(logFile, fileBudget);
        this.sendChannel = new SendChannel(logFile);
        OffsetIndex offsets = null;
        try {
            long length = channel.size();
            if (length > Integer.MAX_VALUE) {
                throw new IOException("Segment " + logFile + " is " + length + " bytes, above the 2 GiB limit");
            }
            this.size = (int) length;
            offsets = new OffsetIndex(indexFile, baseOffset, maxIndexSize, fileSync);
            this.offsetIndex = offsets;
            this.timeIndex = new TimeIndex(timeIndexFile, baseOffset, maxIndexSize, fileSync);
            this.offsetOfMaxTimestampSoFar = baseOffset;
        } catch (IOException | RuntimeException e) {
            if (offsets != null) {
                offsets.close();
            }
            channel.close();
            throw e;
        }
    }

    /** Creates a new, empty, durable segment ({@link FileSync#durable()}). */
    public static LogSegment create(Path dir, long baseOffset, int indexIntervalBytes, int maxIndexSize)
            throws IOException {
        return create(dir, baseOffset, indexIntervalBytes, maxIndexSize, FileSync.durable());
    }

    /** Creates a new, empty segment at {@code baseOffset}; its indexes are preallocated. */
    public static LogSegment create(Path dir, long baseOffset, int indexIntervalBytes, int maxIndexSize,
                                    FileSync fileSync) throws IOException {
        return create(dir, baseOffset, indexIntervalBytes, maxIndexSize, fileSync, OpenFileBudget.unbounded());
    }

    /** As {@link #create(Path, long, int, int, FileSync)}, its {@code .log} file open under {@code fileBudget}. */
    public static LogSegment create(Path dir, long baseOffset, int indexIntervalBytes, int maxIndexSize,
                                    FileSync fileSync, OpenFileBudget fileBudget) throws IOException {
        return new LogSegment(dir, baseOffset, indexIntervalBytes, maxIndexSize, true, fileSync, fileBudget);
    }

    /**
     * Opens an existing durable segment ({@link FileSync#durable()}) and checks it as a segment below
     * the recovery point ({@link #checkTrusted}); a segment that fails the check is recovered.
     */
    public static LogSegment open(Path dir, long baseOffset, int indexIntervalBytes, int maxIndexSize)
            throws IOException {
        LogSegment segment = openUnchecked(dir, baseOffset, indexIntervalBytes, maxIndexSize, FileSync.durable());
        if (segment.checkTrusted(-1).problem() != null) {
            segment.recover();
        }
        return segment;
    }

    /**
     * Opens an existing segment without reading its indexes: they are mapped as found (missing ones
     * are created empty, see {@link #indexesWereMissing()}) and must not be used before
     * {@link #checkTrusted} passes or {@link #recover()} rebuilds them.
     */
    public static LogSegment openUnchecked(Path dir, long baseOffset, int indexIntervalBytes, int maxIndexSize,
                                           FileSync fileSync) throws IOException {
        return openUnchecked(dir, baseOffset, indexIntervalBytes, maxIndexSize, fileSync, OpenFileBudget.unbounded());
    }

    /** As {@link #openUnchecked(Path, long, int, int, FileSync)}, its {@code .log} file open under {@code fileBudget}. */
    public static LogSegment openUnchecked(Path dir, long baseOffset, int indexIntervalBytes, int maxIndexSize,
                                           FileSync fileSync, OpenFileBudget fileBudget) throws IOException {
        return new LogSegment(dir, baseOffset, indexIntervalBytes, maxIndexSize, false, fileSync, fileBudget);
    }

    // ---- file naming (LOG-2) ----

    /** The 20-digit zero-padded base offset Kafka names segment files by. */
    public static String filenamePrefix(long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("Negative segment base offset " + offset);
        }
        String digits = Long.toString(offset);
        return "0".repeat(20 - digits.length()) + digits;
    }

    public static Path logFile(Path dir, long baseOffset) {
        return dir.resolve(filenamePrefix(baseOffset) + LOG_SUFFIX);
    }

    public static Path indexFile(Path dir, long baseOffset) {
        return dir.resolve(filenamePrefix(baseOffset) + INDEX_SUFFIX);
    }

    public static Path timeIndexFile(Path dir, long baseOffset) {
        return dir.resolve(filenamePrefix(baseOffset) + TIME_INDEX_SUFFIX);
    }

    /** The base offset of a file named {@code <20 digits><suffix>}, or empty if it is not one. */
    public static OptionalLong parseBaseOffset(String fileName, String suffix) {
        if (!fileName.endsWith(suffix) || fileName.length() != 20 + suffix.length()) {
            return OptionalLong.empty();
        }
        for (int i = 0; i < 20; i++) {
            if (!Character.isDigit(fileName.charAt(i))) {
                return OptionalLong.empty();
            }
        }
        try {
            return OptionalLong.of(Long.parseLong(fileName.substring(0, 20)));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    // ---- accessors ----

    public long baseOffset() {
        return baseOffset;
    }

    /** Bytes of complete batches in the {@code .log} file. */
    public int size() {
        return size;
    }

    public Path logFile() {
        return logFile;
    }

    public OffsetIndex offsetIndex() {
        return offsetIndex;
    }

    public TimeIndex timeIndex() {
        return timeIndex;
    }

    /** Whether an index file was absent when the segment was opened (LOG-7: it must be rebuilt). */
    public boolean indexesWereMissing() {
        return indexesWereMissing;
    }

    /** Largest batch max timestamp in the segment, or -1 if no batch carries one. */
    public long maxTimestampSoFar() {
        return maxTimestampSoFar;
    }

    /** Whether the segment cannot take another index entry (LOG-2 roll condition). */
    public boolean indexIsFull() {
        return offsetIndex.isFull() || timeIndex.isFull();
    }

    /** Whether {@code offset} fits the 32-bit relative offset of this segment's indexes. */
    public boolean canConvertToRelativeOffset(long offset) {
        long rel = offset - baseOffset;
        return rel >= 0 && rel <= Integer.MAX_VALUE;
    }

    // ---- append ----

    /**
     * Appends whole, already validated batches (the buffer's position to its limit) at the end of
     * the file and indexes them. The size is published only after the bytes are written.
     */
    public void append(ByteBuffer batches) throws IOException {
        int start = batches.position();
        int length = batches.remaining();
        if (length == 0) {
            return;
        }
        int physicalStart = size;
        if ((long) physicalStart + length > Integer.MAX_VALUE) {
            throw new IOException("Append of " + length + " bytes would overflow segment " + logFile);
        }
        try {
            fileSync.beforeWrite(logFile);
            channel.writeFully(batches, physicalStart);
        } catch (IOException e) {
            // Best effort: do not leave a partial batch behind the published size.
            try {
                channel.truncate(physicalStart);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        size = physicalStart + length;
        indexBatches(batches, start, start + length, physicalStart);
    }

    private void indexBatches(ByteBuffer buf, int from, int to, int physicalStart) throws IOException {
        int pos = from;
        while (pos < to) {
            int batchSize = BatchFraming.sizeInBytes(buf, pos);
            long lastOffset = BatchFraming.lastOffset(buf, pos);
            long maxTimestamp = BatchFraming.maxTimestamp(buf, pos);
            indexBatch(physicalStart + (pos - from), batchSize, lastOffset, maxTimestamp);
            recent.record(physicalStart + (pos - from), batchSize, BatchFraming.baseOffset(buf, pos), lastOffset);
            pos += batchSize;
        }
    }

    private void indexBatch(int physicalPosition, int batchSize, long lastOffset, long maxTimestamp)
            throws IOException {
        if (maxTimestamp > maxTimestampSoFar) {
            maxTimestampSoFar = maxTimestamp;
            offsetOfMaxTimestampSoFar = lastOffset;
        }
        if (bytesSinceLastIndexEntry > indexIntervalBytes && !indexIsFull()) {
            offsetIndex.append(lastOffset, physicalPosition);
            timeIndex.maybeAppend(maxTimestampSoFar, offsetOfMaxTimestampSoFar, false);
            bytesSinceLastIndexEntry = 0;
        }
        bytesSinceLastIndexEntry += batchSize;
    }

    // ---- read ----

    /** Where a batch is in the file and its offsets. */
    public record BatchPosition(int position, int sizeInBytes, long baseOffset, long lastOffset) {
    }

    /**
     * The first batch whose last offset is at least {@code offset}, starting the scan at the index
     * entry below it and never past {@code endPosition}; null if there is none.
     */
    public BatchPosition translateOffset(long offset, int endPosition) throws IOException {
        return locate(offset, endPosition, ScanBuffer.forThread(indexIntervalBytes));
    }

    /**
     * The index lookup is a binary search over the mapped index (no I/O beyond the page cache);
     * the headers from the entry's position on are then read in ONE positional read into the
     * thread's scan buffer, which holds an index interval plus slack, and walked in memory. A
     * batch whose header lies past the buffer (a sparser index, or a batch larger than the slack)
     * triggers a refill from that batch, so correctness never depends on the buffer size.
     */
    private BatchPosition locate(long offset, int endPosition, ScanBuffer scan) throws IOException {
        // The scan buffer may hold another segment's bytes: a caller must not copy from it after this.
        scan.invalidate();
        BatchPosition recentBatch = recent.find(offset, endPosition);
        if (recentBatch != null) {
            return recentBatch;
        }
        int pos = 0;
        // First read: up to the next index entry's header when there is one, else up to one
        // interval and the slack; later refills (rare) take as much as the buffer holds.
        long firstReadEnd = (long) indexIntervalBytes + ScanBuffer.SLACK_BYTES;
        int slot = offset > baseOffset ? offsetIndex.floorSlot(offset) : -1;
        // The offset the batch at pos must end at (the index entry's), or -1 when pos is the segment start.
        long entryOffset = -1;
        if (slot >= 0) {
            pos = offsetIndex.positionAt(slot);
            entryOffset = offsetIndex.offsetAt(slot);
            int next = slot + 1 < offsetIndex.entries() ? offsetIndex.positionAt(slot + 1) : -1;
            firstReadEnd = next >= 0 ? (long) next + WALK_HEADER_SIZE : pos + firstReadEnd;
            if (pos < 0 || (long) pos + BatchFraming.HEADER_SIZE > endPosition) {
                throw new CorruptIndexException(offsetIndex.file(), "entry " + slot + " (offset " + entryOffset
                        + ") points at position " + pos + ", outside the " + endPosition + " bytes of " + logFile);
            }
        } else if (offsetIndex.entries() > 0) {
            firstReadEnd = (long) offsetIndex.positionAt(0) + WALK_HEADER_SIZE;
        }
        MappedByteBuffer map = readMapCovering(endPosition);
        int mapped = map == null ? 0 : Math.min(map.capacity(), endPosition);
        while (pos + WALK_HEADER_SIZE <= endPosition) {
            ByteBuffer buf;
            int rel;
            if (pos + WALK_HEADER_SIZE <= mapped) {
                buf = map;
                rel = pos;
            } else {
                rel = bufferHolding(scan, pos, WALK_HEADER_SIZE, scan.holdsAny() ? endPosition
                        : (int) Math.min(endPosition, Math.max(firstReadEnd, (long) pos + WALK_HEADER_SIZE)));
                buf = scan.bytes;
            }
            int batchSize = BatchFraming.sizeInBytes(buf, rel);
            long batchBase = BatchFraming.baseOffset(buf, rel);
            long lastOffset = batchBase + BatchFraming.lastOffsetDelta(buf, rel);
            boolean framed = batchSize >= BatchFraming.HEADER_SIZE && (long) pos + batchSize <= endPosition;
            if (entryOffset >= 0) {
                // LOG-7: an index entry is trusted only if the batch at its position ends at its offset.
                if (!framed || lastOffset != entryOffset) {
                    throw new CorruptIndexException(offsetIndex.file(), "entry " + slot + " (offset " + entryOffset
                            + ", position " + pos + ") does not point at the batch ending at that offset in "
                            + logFile + " (found size " + batchSize + ", last offset " + lastOffset + ")");
                }
                entryOffset = -1;
            }
            if (!framed) {
                throw new IOException("Corrupt batch header at position " + pos + " of " + logFile
                        + " (size " + batchSize + ", segment end " + endPosition + ")");
            }
            if (lastOffset >= offset) {
                return new BatchPosition(pos, batchSize, batchBase, lastOffset);
            }
            pos += batchSize;
        }
        return null;
    }

    /**
     * The read map, first (re)mapping the file up to {@code endPosition} if the part past the
     * current map is at least {@link #MIN_MAP_GROWTH_BYTES} and a quarter of the map, so a growing
     * active segment is remapped a bounded number of times. Concurrent readers may both remap;
     * the loser's map is simply dropped (the garbage collector unmaps it, or the segment's end of
     * life does, {@link #releaseMappings}).
     */
    private MappedByteBuffer readMapCovering(int endPosition) throws IOException {
        MappedByteBuffer map = readMap;
        int mapped = map == null ? 0 : map.capacity();
        if ((long) endPosition - mapped >= Math.max(MIN_MAP_GROWTH_BYTES, mapped / 4)) {
            map = readMaps.track(channel.mapReadOnly(endPosition));
            readMap = map;
        }
        return map;
    }

    /**
     * Makes the scan buffer hold file bytes {@code [pos, pos + length)}, refilling it from
     * {@code pos} (one read of as much as fits before {@code end}) if it does not already;
     * returns the index of {@code pos} in the buffer. The caller has checked {@code pos + length <= end}.
     */
    private int bufferHolding(ScanBuffer scan, int pos, int length, int end) throws IOException {
        if (!scan.holds(pos, length)) {
            ByteBuffer bytes = scan.bytes;
            bytes.clear();
            bytes.limit((int) Math.min(bytes.capacity(), (long) end - pos));
            scan.fileStart = pos;
            try {
                readFully(bytes, pos);
            } catch (IOException e) {
                scan.invalidate();
                throw e;
            }
            bytes.flip();
            if (bytes.limit() < length) {
                // Only a capacity below one header could get here; callers ask for a header at most.
                throw new IOException("Scan buffer of " + bytes.capacity() + " bytes cannot hold " + length
                        + " bytes at position " + pos + " of " + logFile);
            }
        }
        return pos - scan.fileStart;
    }

    /**
     * A thread's reusable direct buffer holding the file bytes {@code [fileStart, fileStart +
     * bytes.limit())} of whichever segment last scanned on this thread. Thread-confined, so
     * concurrent readers of one segment never share it; a scan invalidates it before use.
     */
    private static final class ScanBuffer {
        /** Bytes kept beyond index.interval.bytes: the batch that crossed the interval, and a header. */
        private static final int SLACK_BYTES = 16 * 1024;
        /** Cap per thread, so a huge index.interval.bytes does not pin memory (scans then refill). */
        private static final int MAX_BYTES = 1024 * 1024;
        private static final ThreadLocal<ScanBuffer> PER_THREAD = new ThreadLocal<>();

        final ByteBuffer bytes;
        int fileStart;

        private ScanBuffer(int capacity) {
            bytes = ByteBuffer.allocateDirect(capacity);
        }

        static ScanBuffer forThread(int indexIntervalBytes) {
            int wanted = (int) Math.min(MAX_BYTES, (long) indexIntervalBytes + SLACK_BYTES);
            ScanBuffer scan = PER_THREAD.get();
            if (scan == null || scan.bytes.capacity() < wanted) {
                scan = new ScanBuffer(wanted);
                PER_THREAD.set(scan);
            }
            return scan;
        }

        void invalidate() {
            bytes.clear().limit(0);
            fileStart = 0;
        }

        /** Whether a read has filled the buffer since {@link #invalidate()}. */
        boolean holdsAny() {
            return bytes.limit() > 0;
        }

        /** Whether the file range {@code [position, position + length)} is in the buffer. */
        boolean holds(int position, int length) {
            return position >= fileStart && (long) position + length <= (long) fileStart + bytes.limit();
        }
    }

    /**
     * LOG-3: whole batches starting with the one that contains {@code startOffset}, none whose last
     * offset is at or above {@code maxOffset}, at most {@code maxBytes} unless the first batch alone
     * is larger and {@code minOneBatch} is set.
     *
     * @return null if no batch of this segment ends at or after {@code startOffset} (the caller moves
     *         to the next segment); an empty buffer if the first such batch is excluded
     */
    public ByteBuffer read(long startOffset, int maxBytes, long maxOffset, boolean minOneBatch) throws IOException {
        int end = size;
        ScanBuffer scan = ScanBuffer.forThread(indexIntervalBytes);
        BatchPosition first = locate(startOffset, end, scan);
        if (first == null) {
            return null;
        }
        if (first.lastOffset() >= maxOffset || (!minOneBatch && first.sizeInBytes() > maxBytes)) {
            return ByteBuffer.allocate(0);
        }
        int available = end - first.position();
        int chunk = Math.min(available, Math.max(maxBytes, first.sizeInBytes()));
        ByteBuffer buf = ByteBuffer.allocate(chunk);
        MappedByteBuffer map = readMap;
        if (map != null && (long) first.position() + chunk <= Math.min(map.capacity(), end)) {
            buf.put(0, map, first.position(), chunk);
        } else if (scan.holds(first.position(), chunk)) {
            // The locating read already brought these bytes in: copy them rather than read again.
            buf.put(0, scan.bytes, first.position() - scan.fileStart, chunk);
        } else {
            readFully(buf, first.position());
            buf.flip();
        }
        int pos = 0;
        while (pos + WALK_HEADER_SIZE <= chunk) {
            int batchSize = BatchFraming.sizeInBytes(buf, pos);
            if (batchSize < BatchFraming.HEADER_SIZE || pos + (long) batchSize > chunk) {
                break;
            }
            if (BatchFraming.lastOffset(buf, pos) >= maxOffset) {
                break;
            }
            pos += batchSize;
        }
        buf.limit(pos);
        return buf;
    }

    /**
     * NET-3: {@link #read}'s batches (the same LOG-3 bounds) as a slice of this file, without copying
     * them: the batch headers are walked in the read map or the scan buffer to find where the last
     * whole batch ends.
     *
     * @return null if no batch of this segment ends at or after {@code startOffset} (the caller moves
     *         to the next segment); {@link MemoryRecords#EMPTY} if the first such batch is excluded
     */
    public Records readFileRecords(long startOffset, int maxBytes, long maxOffset, boolean minOneBatch)
            throws IOException {
        long truncationsAtRead = truncations;
        int end = size;
        ScanBuffer scan = ScanBuffer.forThread(indexIntervalBytes);
        BatchPosition first = locate(startOffset, end, scan);
        if (first == null) {
            return null;
        }
        if (first.lastOffset() >= maxOffset || (!minOneBatch && first.sizeInBytes() > maxBytes)) {
            return MemoryRecords.EMPTY;
        }
        int limit = first.position() + Math.min(end - first.position(), Math.max(maxBytes, first.sizeInBytes()));
        long walked = recent.walkEnd(first.position() + first.sizeInBytes(), limit, maxOffset);
        if (walked >= 0) {
            return new FileRecords(this, first.position(), (int) walked - first.position(), truncationsAtRead);
        }
        // The remembered batches ran out before a bound: walk on from where they ended.
        int pos = (int) -(walked + 1);
        MappedByteBuffer map = readMap;
        int mapped = map == null ? 0 : Math.min(map.capacity(), end);
        while (pos + WALK_HEADER_SIZE <= limit) {
            ByteBuffer buf;
            int rel;
            if (pos + WALK_HEADER_SIZE <= mapped) {
                buf = map;
                rel = pos;
            } else {
                rel = bufferHolding(scan, pos, WALK_HEADER_SIZE, end);
                buf = scan.bytes;
            }
            int batchSize = BatchFraming.sizeInBytes(buf, rel);
            if (batchSize < BatchFraming.HEADER_SIZE || pos + (long) batchSize > limit) {
                break;
            }
            if (BatchFraming.lastOffset(buf, rel) >= maxOffset) {
                break;
            }
            pos += batchSize;
        }
        return new FileRecords(this, first.position(), pos - first.position(), truncationsAtRead);
    }

    /** Positional reads of the {@code .log} file by this segment so far. */
    long fileReads() {
        return fileReads.sum();
    }

    /** NET-3: truncations of this file so far (see {@link FileRecords}). */
    long truncations() {
        return truncations;
    }

    SendChannel sendChannel() {
        return sendChannel;
    }

    private void readFully(ByteBuffer dst, long position) throws IOException {
        fileReads.increment();
        channel.readFully(dst, position);
    }

    /**
     * The offset after the last batch, or the base offset if the segment is empty; walks the batch
     * headers from the last offset-index entry, so the indexes must be trusted.
     */
    public long readNextOffset() throws IOException {
        int end = size;
        int pos = offsetIndex.lastEntry().position();
        long next = baseOffset;
        ScanBuffer scan = ScanBuffer.forThread(indexIntervalBytes);
        scan.invalidate();
        while (pos + WALK_HEADER_SIZE <= end) {
            int rel = bufferHolding(scan, pos, WALK_HEADER_SIZE, end);
            int batchSize = BatchFraming.sizeInBytes(scan.bytes, rel);
            if (batchSize < BatchFraming.HEADER_SIZE) {
                throw new IOException("Corrupt batch header at position " + pos + " of " + logFile);
            }
            next = BatchFraming.lastOffset(scan.bytes, rel) + 1;
            pos += batchSize;
        }
        return next;
    }

    // ---- trust and recovery (LOG-7) ----

    /**
     * The outcome of {@link #checkTrusted}.
     *
     * @param problem    why the segment cannot be used as it is (naming the file), null if it can
     * @param nextOffset the offset after the last batch when there is no problem, else -1
     */
    public record TrustCheck(String problem, long nextOffset) {
    }

    /**
     * LOG-7, for a segment below the recovery point: its bytes were flushed, so they are not
     * rescanned, but nothing in its files is believed before this check, which reads the indexes
     * and at most about {@code index.interval.bytes} of the log (never the whole segment):
     * <ul>
     *   <li>both index files exist and are whole numbers of entries;</li>
     *   <li>the offset index's last entry points at the start of the batch ending at its offset,
     *       and from there the batches are whole, of magic 2, contiguous, and end exactly at the end
     *       of the file (a torn tail is a problem, not a shorter segment);</li>
     *   <li>the segment ends at {@code expectedNextOffset} (the next segment's base offset);</li>
     *   <li>every offset-index entry increases over the previous one by at least one offset and one
     *       batch header, below the segment's end offset and inside the file
     *       ({@link OffsetIndex#sanityCheck}); every time-index entry has a larger timestamp and
     *       an offset inside the segment ({@link TimeIndex#sanityCheck});</li>
     *   <li>the time index's last entry names the last offset of a batch whose max timestamp it is.</li>
     * </ul>
     * Other offset-index entries are checked when a lookup lands on one ({@link CorruptIndexException}).
     * On success the largest timestamp is loaded.
     *
     * @param expectedNextOffset the next segment's base offset, or -1 for the last segment
     */
    public TrustCheck checkTrusted(long expectedNextOffset) throws IOException {
        if (indexesWereMissing) {
            return distrust("an index file of " + logFile + " is missing");
        }
        String problem = offsetIndex.lengthProblem();
        if (problem != null) {
            return distrust("offset index " + offsetIndex.file() + ": " + problem);
        }
        problem = timeIndex.lengthProblem();
        if (problem != null) {
            return distrust("time index " + timeIndex.file() + ": " + problem);
        }
        int end = size;
        ScanBuffer scan = ScanBuffer.forThread(indexIntervalBytes);
        scan.invalidate();
        int pos = 0;
        long next = baseOffset;
        boolean checkBase = true;
        int entries = offsetIndex.entries();
        if (entries > 0) {
            long entryOffset = offsetIndex.offsetAt(entries - 1);
            pos = offsetIndex.positionAt(entries - 1);
            String entry = "its last entry " + (entries - 1) + " (offset " + entryOffset + ", position " + pos + ")";
            if (pos < 0 || (long) pos + TIMESTAMP_HEADER_SIZE > end) {
                return distrust("offset index " + offsetIndex.file() + ": " + entry + " points outside the "
                        + end + " bytes of " + logFile);
            }
            int rel = bufferHolding(scan, pos, TIMESTAMP_HEADER_SIZE, end);
            int batchSize = BatchFraming.sizeInBytes(scan.bytes, rel);
            if (batchSize < BatchFraming.HEADER_SIZE || (long) pos + batchSize > end
                    || BatchFraming.lastOffset(scan.bytes, rel) != entryOffset) {
                return distrust("offset index " + offsetIndex.file() + ": " + entry
                        + " does not point at the batch ending at that offset in " + logFile);
            }
            // That batch's base offset is whatever the batch before it ended at; later ones must follow on.
            checkBase = false;
        }
        while (pos < end) {
            if (end - pos < BatchFraming.HEADER_SIZE) {
                return distrust(logFile + " ends in " + (end - pos) + " bytes at position " + pos
                        + " that are not a whole batch");
            }
            int rel = bufferHolding(scan, pos, TIMESTAMP_HEADER_SIZE, end);
            ByteBuffer header = scan.bytes;
            int batchSize = BatchFraming.sizeInBytes(header, rel);
            long batchBase = BatchFraming.baseOffset(header, rel);
            int lastOffsetDelta = BatchFraming.lastOffsetDelta(header, rel);
            if (batchSize < BatchFraming.HEADER_SIZE || (long) pos + batchSize > end) {
                return distrust("the batch at position " + pos + " of " + logFile + " (size " + batchSize
                        + ") runs past its end at " + end);
            }
            if (BatchFraming.magic(header, rel) != BatchFraming.MAGIC_V2 || lastOffsetDelta < 0) {
                return distrust("the batch at position " + pos + " of " + logFile + " has magic "
                        + BatchFraming.magic(header, rel) + " and lastOffsetDelta " + lastOffsetDelta);
            }
            if (checkBase && batchBase != next) {
                return distrust("the batch at position " + pos + " of " + logFile + " has base offset " + batchBase
                        + ", not the next offset " + next);
            }
            checkBase = true;
            next = batchBase + lastOffsetDelta + 1;
            pos += batchSize;
        }
        if (expectedNextOffset >= 0 && next != expectedNextOffset) {
            return distrust(logFile + " ends at offset " + next + " but the next segment starts at "
                    + expectedNextOffset);
        }
        problem = offsetIndex.sanityCheck(end, next);
        if (problem != null) {
            return distrust("offset index " + offsetIndex.file() + ": " + problem);
        }
        problem = timeIndex.sanityCheck(end, next);
        if (problem != null) {
            return distrust("time index " + timeIndex.file() + ": " + problem);
        }
        if (timeIndex.entries() > 0) {
            problem = checkLastTimeIndexEntry(end, scan);
            if (problem != null) {
                return distrust(problem);
            }
        }
        loadLargestTimestamp();
        return new TrustCheck(null, next);
    }

    private static TrustCheck distrust(String problem) {
        return new TrustCheck(problem, -1);
    }

    /** The time index's last entry must be (max timestamp, last offset) of one batch. */
    private String checkLastTimeIndexEntry(int end, ScanBuffer scan) throws IOException {
        TimeIndex.Entry last = timeIndex.lastEntry();
        String entry = "time index " + timeIndex.file() + ": its last entry (timestamp " + last.timestamp()
                + ", offset " + last.offset() + ")";
        BatchPosition batch;
        try {
            batch = locate(last.offset(), end, scan);
        } catch (CorruptIndexException e) {
            return e.getMessage();
        }
        if (batch == null || batch.lastOffset() != last.offset()) {
            return entry + " does not name the last offset of a batch in " + logFile;
        }
        int rel = bufferHolding(scan, batch.position(), TIMESTAMP_HEADER_SIZE, end);
        long maxTimestamp = BatchFraming.maxTimestamp(scan.bytes, rel);
        if (maxTimestamp != last.timestamp()) {
            return entry + " does not match the max timestamp " + maxTimestamp + " of the batch ending there in "
                    + logFile;
        }
        return null;
    }

    /**
     * The outcome of {@link #recover()}.
     *
     * @param validBytes      bytes of whole, valid batches kept
     * @param truncatedBytes  bytes cut off the tail
     * @param nextOffset      the offset after the last kept batch (the base offset if none)
     * @param reason          why the tail was cut, null if nothing was
     * @param epochStarts     (partitionLeaderEpoch, base offset) of every kept batch whose epoch differs from
     *                        the batch before it in this segment, oldest first (LOG-8: the cache is rebuilt
     *                        from these)
     */
    public record RecoveryResult(int validBytes, int truncatedBytes, long nextOffset, String reason,
                                 List<EpochEntry> epochStarts) {
    }

    /**
     * LOG-7: scans every batch from the start, checking framing, magic, CRC and that each batch
     * starts exactly where the previous one ended (the first at the base offset): a base offset
     * rewritten forwards (a gap, LOG-4) or backwards (an overlap) is not covered by the CRC and is
     * caught here. Cuts the file at the first invalid batch and rebuilds both indexes from the kept
     * batches.
     */
    public RecoveryResult recover() throws IOException {
        long fileSize = channel.size();
        resetIndexes();
        maxTimestampSoFar = TimeIndex.NO_TIMESTAMP;
        offsetOfMaxTimestampSoFar = baseOffset;
        bytesSinceLastIndexEntry = 0;

        long next = baseOffset;
        long validBytes = 0;
        String reason = null;
        List<EpochEntry> epochStarts = new ArrayList<>();
        int lastEpoch = -1;
        ByteBuffer buf = ByteBuffer.allocate(SCAN_CHUNK_BYTES);
        long bufStart = 0;
        buf.limit(0);
        while (validBytes < fileSize) {
            int rel = (int) (validBytes - bufStart);
            if (buf.limit() - rel < BatchFraming.HEADER_SIZE || buf.limit() - rel < BatchFraming.sizeInBytes(buf, rel)) {
                // Refill so that the batch at validBytes is whole in the buffer if the file holds it.
                int needed = BatchFraming.HEADER_SIZE;
                if (buf.limit() - rel >= BatchFraming.LOG_OVERHEAD) {
                    int length = BatchFraming.batchLength(buf, rel);
                    if (length >= 0 && length <= Integer.MAX_VALUE - BatchFraming.LOG_OVERHEAD) {
                        needed = Math.max(needed, length + BatchFraming.LOG_OVERHEAD);
                    }
                }
                long wanted = Math.min(fileSize - validBytes, Math.max(SCAN_CHUNK_BYTES, (long) needed));
                if (wanted > buf.capacity()) {
                    buf = ByteBuffer.allocate((int) wanted);
                }
                buf.clear();
                buf.limit((int) wanted);
                readFully(buf, validBytes);
                buf.flip();
                bufStart = validBytes;
                rel = 0;
            }
            reason = BatchFraming.invalidReason(buf, rel, buf.limit());
            if (reason == null) {
                long batchBase = BatchFraming.baseOffset(buf, rel);
                long lastOffset = BatchFraming.lastOffset(buf, rel);
                if (batchBase < next) {
                    reason = "base offset " + batchBase + " goes back over offsets up to " + (next - 1)
                            + " already in the log";
                } else if (batchBase > next) {
                    reason = "base offset " + batchBase + " leaves a gap after offset " + (next - 1)
                            + ": offsets would not be contiguous (LOG-4)";
                } else if (!canConvertToRelativeOffset(lastOffset)) {
                    reason = "last offset " + lastOffset + " does not fit relative to base offset " + baseOffset;
                }
            }
            if (reason != null) {
                reason = "batch at position " + validBytes + " (offset " + next + "): " + reason;
                break;
            }
            int batchSize = BatchFraming.sizeInBytes(buf, rel);
            int epoch = BatchFraming.partitionLeaderEpoch(buf, rel);
            if (epoch >= 0 && epoch != lastEpoch) {
                epochStarts.add(new EpochEntry(epoch, next));
                lastEpoch = epoch;
            }
            // A full index (a segment written with a larger segment.index.bytes) only gets sparser:
            // indexBatch skips the entry, and a valid batch is never cut for it.
            indexBatch((int) validBytes, batchSize, BatchFraming.lastOffset(buf, rel), BatchFraming.maxTimestamp(buf, rel));
            next = BatchFraming.lastOffset(buf, rel) + 1;
            validBytes += batchSize;
        }
        int truncated = (int) (fileSize - validBytes);
        if (truncated > 0) {
            readMap = null;
            truncations++; // NET-3: before the bytes change
            fileSync.beforeWrite(logFile);
            channel.truncate(validBytes);
        }
        size = (int) validBytes;
        return new RecoveryResult((int) validBytes, truncated, next, truncated > 0 ? reason : null,
                List.copyOf(epochStarts));
    }

    /**
     * LOG-7: rebuilds both indexes from the batches, after a lookup found an entry that does not
     * point at its batch ({@link CorruptIndexException}). Walks the batch headers only: the bytes
     * themselves were checked when the log was opened. The caller excludes readers and appends.
     *
     * @param active whether this is the log's active segment (its indexes stay preallocated)
     * @throws IOException if the headers do not frame the file (the data itself is damaged)
     */
    public void rebuildIndexes(boolean active) throws IOException {
        resetIndexes();
        maxTimestampSoFar = TimeIndex.NO_TIMESTAMP;
        offsetOfMaxTimestampSoFar = baseOffset;
        bytesSinceLastIndexEntry = 0;
        int end = size;
        int pos = 0;
        ScanBuffer scan = ScanBuffer.forThread(indexIntervalBytes);
        scan.invalidate();
        while (pos < end) {
            if (end - pos < BatchFraming.HEADER_SIZE) {
                throw new IOException("Cannot rebuild the indexes of " + logFile + ": " + (end - pos)
                        + " bytes at position " + pos + " are not a whole batch");
            }
            int rel = bufferHolding(scan, pos, TIMESTAMP_HEADER_SIZE, end);
            int batchSize = BatchFraming.sizeInBytes(scan.bytes, rel);
            if (batchSize < BatchFraming.HEADER_SIZE || (long) pos + batchSize > end) {
                throw new IOException("Cannot rebuild the indexes of " + logFile + ": the batch at position " + pos
                        + " (size " + batchSize + ") runs past the end at " + end);
            }
            indexBatch(pos, batchSize, BatchFraming.lastOffset(scan.bytes, rel), BatchFraming.maxTimestamp(scan.bytes, rel));
            pos += batchSize;
        }
        if (!active) {
            onBecomeInactiveSegment();
        }
    }

    private void resetIndexes() throws IOException {
        offsetIndex.reset();
        timeIndex.reset();
        offsetIndex.resize(maxIndexSize);
        timeIndex.resize(maxIndexSize);
    }

    private void loadLargestTimestamp() throws IOException {
        TimeIndex.Entry last = timeIndex.entries() == 0 ? new TimeIndex.Entry(TimeIndex.NO_TIMESTAMP, baseOffset)
                : timeIndex.lastEntry();
        maxTimestampSoFar = last.timestamp();
        offsetOfMaxTimestampSoFar = last.offset();
        int end = size;
        int pos = offsetIndex.entries() == 0 ? 0 : offsetIndex.lastEntry().position();
        ScanBuffer scan = ScanBuffer.forThread(indexIntervalBytes);
        scan.invalidate();
        while (pos + TIMESTAMP_HEADER_SIZE <= end) {
            int rel = bufferHolding(scan, pos, TIMESTAMP_HEADER_SIZE, end);
            ByteBuffer header = scan.bytes;
            int batchSize = BatchFraming.sizeInBytes(header, rel);
            if (batchSize < BatchFraming.HEADER_SIZE) {
                return; // the callers have checked the framing; stop rather than loop on garbage
            }
            long ts = BatchFraming.maxTimestamp(header, rel);
            if (ts > maxTimestampSoFar) {
                maxTimestampSoFar = ts;
                offsetOfMaxTimestampSoFar = BatchFraming.lastOffset(header, rel);
            }
            pos += batchSize;
        }
    }

    // ---- truncation, roll, flush, close ----

    /**
     * LOG-6: removes every batch whose last offset is at or above {@code offset} and the index
     * entries pointing at them; returns the bytes removed.
     *
     * @throws CorruptIndexException if the lookup found a bad index entry (nothing changed)
     */
    public int truncateTo(long offset) throws IOException {
        int end = size;
        BatchPosition first = translateOffset(offset, end);
        if (first == null) {
            return 0;
        }
        offsetIndex.truncateTo(offset);
        timeIndex.truncateTo(offset);
        offsetIndex.resize(maxIndexSize);
        timeIndex.resize(maxIndexSize);
        readMap = null;
        recent.clear();
        truncations++; // NET-3: before the bytes change, so a FileRecords of them sees it
        fileSync.beforeWrite(logFile);
        channel.truncate(first.position());
        size = first.position();
        bytesSinceLastIndexEntry = 0;
        loadLargestTimestamp();
        return end - first.position();
    }

    /** Resizes both index files (preallocate when the segment becomes active again). */
    public void resizeIndexes(int newSize) throws IOException {
        offsetIndex.resize(newSize);
        timeIndex.resize(newSize);
    }

    /** Called when a newer segment takes over: records the final largest timestamp and trims the indexes. */
    public void onBecomeInactiveSegment() throws IOException {
        if (maxTimestampSoFar >= 0 && maxTimestampSoFar > timeIndex.lastEntry().timestamp()) {
            if (timeIndex.entries() >= timeIndex.maxEntries()) {
                // An index mapped to exactly its entries (opened from disk): make room for the final one.
                timeIndex.resize(timeIndex.sizeInBytes() + TimeIndex.ENTRY_SIZE);
            }
            timeIndex.maybeAppend(maxTimestampSoFar, offsetOfMaxTimestampSoFar, true);
        }
        offsetIndex.trimToValidSize();
        timeIndex.trimToValidSize();
    }

    /** LOG-11: forces the data, then the indexes. */
    public void flush() throws IOException {
        flushData();
        flushIndexes();
    }

    /** Forces the {@code .log} file's bytes and metadata to disk (through the directory's {@link FileSync}). */
    public void flushData() throws IOException {
        channel.force(fileSync);
    }

    /** Forces both index mappings to disk. */
    public void flushIndexes() throws IOException {
        offsetIndex.flush();
        timeIndex.flush();
    }

    /**
     * Records the final timestamp entry, trims the indexes, unmaps the files and closes them;
     * flushes nothing. No read or append of this segment may run during or after it.
     */
    public void close() throws IOException {
        sendChannel.close();
        try {
            onBecomeInactiveSegment();
        } finally {
            releaseMappings();
            channel.close();
        }
    }

    /**
     * Closes the file without writing anything (no final time-index entry, no trim): for a log
     * whose directory went offline, whose files are left for the next open to recover.
     */
    public void closeWithoutWrites() throws IOException {
        releaseMappings();
        sendChannel.close(); // before a deletion, so a send channel is never opened on another file of its name
        channel.close();
    }

    /**
     * Unmaps, closes and deletes the three files. No read or append of this segment may run during
     * or after it.
     */
    public void deleteFiles() throws IOException {
        closeWithoutWrites();
        fileSync.beforeWrite(logFile);
        Files.deleteIfExists(logFile);
        offsetIndex.deleteIfExists();
        timeIndex.deleteIfExists();
    }

    /**
     * A deletion under the log's locks (retention, LOG-10; truncation, LOG-6): unmaps and closes the
     * files and renames each that exists to {@code <name>}{@value #DELETED_SUFFIX}, returning the renamed files for the caller to
     * delete after it released the locks. A rename is a metadata operation; deleting a large file
     * frees its page cache (45 ms for 1 GiB on the 2-vCPU VM, 2.7 ms for 64 MiB), which under the
     * append lock stalled every produce and fetch of the partition, so it is left out of the locks,
     * as Kafka's asynchronous delete leaves it. The new names can never be a segment's, so a segment
     * created meanwhile at one of these base offsets is not hit. No read or append of this segment
     * may run during or after it.
     */
    public List<Path> renameForDeletion() throws IOException {
        closeWithoutWrites();
        List<Path> renamed = new ArrayList<>(3);
        for (Path file : List.of(logFile, offsetIndex.file(), timeIndex.file())) {
            if (Files.exists(file)) {
                fileSync.beforeWrite(file);
                Path target = file.resolveSibling(file.getFileName() + DELETED_SUFFIX);
                Files.move(file, target, StandardCopyOption.REPLACE_EXISTING);
                renamed.add(target);
            }
        }
        return renamed;
    }

    /**
     * Drops and unmaps the {@code .log} file's read maps and both indexes' mappings: only at the
     * segment's end of life, when no read or append can run ({@link FileMappings} says why).
     */
    private void releaseMappings() {
        readMap = null;
        readMaps.unmapAll();
        offsetIndex.release();
        timeIndex.release();
    }

    /**
     * LOG-8: (partitionLeaderEpoch, base offset) of every batch whose epoch differs from the batch
     * before it, oldest first, from a walk of the batch headers (the framing is trusted: call after
     * {@link #checkTrusted} or {@link #recover()}). For rebuilding a lost leader-epoch checkpoint.
     */
    public List<EpochEntry> readEpochStarts() throws IOException {
        List<EpochEntry> starts = new ArrayList<>();
        int end = size;
        int pos = 0;
        int lastEpoch = -1;
        ScanBuffer scan = ScanBuffer.forThread(indexIntervalBytes);
        scan.invalidate();
        while (pos + TIMESTAMP_HEADER_SIZE <= end) {
            int rel = bufferHolding(scan, pos, TIMESTAMP_HEADER_SIZE, end);
            int batchSize = BatchFraming.sizeInBytes(scan.bytes, rel);
            if (batchSize < BatchFraming.HEADER_SIZE) {
                throw new IOException("Corrupt batch header at position " + pos + " of " + logFile);
            }
            int epoch = BatchFraming.partitionLeaderEpoch(scan.bytes, rel);
            if (epoch >= 0 && epoch != lastEpoch) {
                starts.add(new EpochEntry(epoch, BatchFraming.baseOffset(scan.bytes, rel)));
                lastEpoch = epoch;
            }
            pos += batchSize;
        }
        return starts;
    }

    /** The last-modified time of the {@code .log} file, for retention of segments without timestamps. */
    public long lastModifiedMs() throws IOException {
        return Files.getLastModifiedTime(logFile).toMillis();
    }

    @Override
    public String toString() {
        return "LogSegment(" + dir.getFileName() + "/" + filenamePrefix(baseOffset) + ", size=" + size + ")";
    }
}
