package dev.insync.replication.log.segment;

import dev.insync.replication.log.FileSync;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.OptionalLong;

/**
 * One segment of a partition log (LOG-2): the {@code .log} file of whole v2 batches plus its
 * {@code .index} and {@code .timeindex}, all named by the 20-digit zero-padded base offset.
 *
 * <p>Threads: the owning log serializes every mutation (append, truncate, recover, roll, close).
 * Reads may run concurrently with appends: {@link #size()} is volatile and raised only after the
 * bytes are written, and index entries are added only after the bytes they point at, so a reader
 * bounded by the size it read sees only complete batches. Truncation and deletion must exclude
 * readers (the log does that).
 */
public final class LogSegment {

    /** Suffix of the data file. */
    public static final String LOG_SUFFIX = ".log";
    /** Suffix of the offset index. */
    public static final String INDEX_SUFFIX = ".index";
    /** Suffix of the time index. */
    public static final String TIME_INDEX_SUFFIX = ".timeindex";

    /** Bytes of a batch header needed to walk batches: up to and including lastOffsetDelta. */
    private static final int WALK_HEADER_SIZE = BatchFraming.LAST_OFFSET_DELTA_OFFSET + 4;
    /** Smallest unmapped tail worth a (re)map: below it, reads use the scan buffer. */
    private static final int MIN_MAP_GROWTH_BYTES = 1024 * 1024;
    /** Bytes read at a time while recovering or scanning a segment. */
    private static final int SCAN_CHUNK_BYTES = 64 * 1024;

    private final Path dir;
    private final long baseOffset;
    private final int indexIntervalBytes;
    private final int maxIndexSize;
    private final Path logFile;
    private final FileChannel channel;
    private final OffsetIndex offsetIndex;
    private final TimeIndex timeIndex;
    private final boolean indexesWereMissing;

    private volatile int size;
    /**
     * Read-only map of {@code [0, capacity)} of the {@code .log} file (never past the published
     * size at mapping time), so locating a batch reads headers without a syscall. Null until a
     * read of a large enough segment; replaced when enough has been appended past it (reads of the
     * unmapped tail use the scan buffer meanwhile); dropped before any truncation, which readers
     * are excluded from, so no reader touches a mapped page beyond the end of the file.
     */
    private volatile MappedByteBuffer readMap;
    private int bytesSinceLastIndexEntry;
    private volatile long maxTimestampSoFar = TimeIndex.NO_TIMESTAMP;
    private volatile long offsetOfMaxTimestampSoFar;

    private LogSegment(Path dir, long baseOffset, int indexIntervalBytes, int maxIndexSize, boolean create)
            throws IOException {
        this.dir = dir;
        this.baseOffset = baseOffset;
        this.indexIntervalBytes = indexIntervalBytes;
        this.maxIndexSize = maxIndexSize;
        this.logFile = logFile(dir, baseOffset);
        Path indexFile = indexFile(dir, baseOffset);
        Path timeIndexFile = timeIndexFile(dir, baseOffset);
        if (create) {
            // A new segment starts clean: leftovers of an earlier segment at this offset are stale.
            Files.deleteIfExists(indexFile);
            Files.deleteIfExists(timeIndexFile);
        }
        this.indexesWereMissing = !create && (!Files.exists(indexFile) || !Files.exists(timeIndexFile));
        this.channel = create
                ? FileChannel.open(logFile, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE)
                : FileChannel.open(logFile, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            long length = channel.size();
            if (length > Integer.MAX_VALUE) {
                throw new IOException("Segment " + logFile + " is " + length + " bytes, above the 2 GiB limit");
            }
            this.size = (int) length;
            this.offsetIndex = new OffsetIndex(indexFile, baseOffset, maxIndexSize);
            this.timeIndex = new TimeIndex(timeIndexFile, baseOffset, maxIndexSize);
            this.offsetOfMaxTimestampSoFar = baseOffset;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** Creates a new, empty segment at {@code baseOffset}; its indexes are preallocated. */
    public static LogSegment create(Path dir, long baseOffset, int indexIntervalBytes, int maxIndexSize)
            throws IOException {
        return new LogSegment(dir, baseOffset, indexIntervalBytes, maxIndexSize, true);
    }

    /**
     * Opens an existing segment. Indexes are mapped as found (missing ones are created empty, see
     * {@link #indexesWereMissing()}); call {@link #sanityCheck()} or {@link #recover()} before use.
     */
    public static LogSegment open(Path dir, long baseOffset, int indexIntervalBytes, int maxIndexSize)
            throws IOException {
        LogSegment segment = new LogSegment(dir, baseOffset, indexIntervalBytes, maxIndexSize, false);
        segment.loadLargestTimestamp();
        return segment;
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
        ByteBuffer toWrite = batches.duplicate();
        long writePos = physicalStart;
        try {
            while (toWrite.hasRemaining()) {
                writePos += channel.write(toWrite, writePos);
            }
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

    private void indexBatches(ByteBuffer buf, int from, int to, int physicalStart) {
        int pos = from;
        while (pos < to) {
            int batchSize = BatchFraming.sizeInBytes(buf, pos);
            long lastOffset = BatchFraming.lastOffset(buf, pos);
            long maxTimestamp = BatchFraming.maxTimestamp(buf, pos);
            indexBatch(physicalStart + (pos - from), batchSize, lastOffset, maxTimestamp);
            pos += batchSize;
        }
    }

    private void indexBatch(int physicalPosition, int batchSize, long lastOffset, long maxTimestamp) {
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
        int pos = 0;
        // First read: up to the next index entry's header when there is one, else up to one
        // interval and the slack; later refills (rare) take as much as the buffer holds.
        long firstReadEnd = (long) indexIntervalBytes + ScanBuffer.SLACK_BYTES;
        if (offset > baseOffset) {
            long range = offsetIndex.scanRange(offset);
            pos = (int) (range >>> 32);
            int next = (int) range;
            firstReadEnd = next >= 0 ? (long) next + WALK_HEADER_SIZE : pos + firstReadEnd;
        } else if (offsetIndex.entries() > 0) {
            firstReadEnd = (long) offsetIndex.entry(0).position() + WALK_HEADER_SIZE;
        }
        MappedByteBuffer map = readMapCovering(endPosition);
        int mapped = map == null ? 0 : Math.min(map.capacity(), endPosition);
        scan.invalidate();
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
            if (batchSize < BatchFraming.HEADER_SIZE || (long) pos + batchSize > endPosition) {
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
     * the loser's map is simply dropped (the garbage collector unmaps it).
     */
    private MappedByteBuffer readMapCovering(int endPosition) throws IOException {
        MappedByteBuffer map = readMap;
        int mapped = map == null ? 0 : map.capacity();
        if ((long) endPosition - mapped >= Math.max(MIN_MAP_GROWTH_BYTES, mapped / 4)) {
            map = channel.map(FileChannel.MapMode.READ_ONLY, 0, endPosition);
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

    private void readFully(ByteBuffer dst, long position) throws IOException {
        long pos = position;
        while (dst.hasRemaining()) {
            int n = channel.read(dst, pos);
            if (n < 0) {
                throw new EOFException("Unexpected end of " + logFile + " at position " + pos
                        + " while reading " + dst.remaining() + " more bytes");
            }
            pos += n;
        }
    }

    /** The offset after the last batch, or the base offset if the segment is empty. */
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

    // ---- recovery (LOG-7) ----

    /**
     * The outcome of {@link #recover()}.
     *
     * @param validBytes      bytes of whole, valid batches kept
     * @param truncatedBytes  bytes cut off the tail
     * @param nextOffset      the offset after the last kept batch (the base offset if none)
     * @param reason          why the tail was cut, null if nothing was
     */
    public record RecoveryResult(int validBytes, int truncatedBytes, long nextOffset, String reason) {
    }

    /**
     * LOG-7: scans every batch from the start, checking framing, magic, CRC and that offsets
     * increase from the base offset; cuts the file at the first invalid batch and rebuilds both
     * indexes from the kept batches.
     */
    public RecoveryResult recover() throws IOException {
        long fileSize = channel.size();
        offsetIndex.reset();
        timeIndex.reset();
        offsetIndex.resize(maxIndexSize);
        timeIndex.resize(maxIndexSize);
        maxTimestampSoFar = TimeIndex.NO_TIMESTAMP;
        offsetOfMaxTimestampSoFar = baseOffset;
        bytesSinceLastIndexEntry = 0;

        long next = baseOffset;
        long validBytes = 0;
        String reason = null;
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
                    reason = "base offset " + batchBase + " is below the expected next offset " + next;
                } else if (!canConvertToRelativeOffset(lastOffset)) {
                    reason = "last offset " + lastOffset + " does not fit relative to base offset " + baseOffset;
                }
            }
            if (reason != null) {
                reason = "batch at position " + validBytes + " (offset " + next + "): " + reason;
                break;
            }
            int batchSize = BatchFraming.sizeInBytes(buf, rel);
            // A full index (a segment written with a larger segment.index.bytes) only gets sparser:
            // indexBatch skips the entry, and a valid batch is never cut for it.
            indexBatch((int) validBytes, batchSize, BatchFraming.lastOffset(buf, rel), BatchFraming.maxTimestamp(buf, rel));
            next = BatchFraming.lastOffset(buf, rel) + 1;
            validBytes += batchSize;
        }
        int truncated = (int) (fileSize - validBytes);
        if (truncated > 0) {
            readMap = null;
            channel.truncate(validBytes);
        }
        size = (int) validBytes;
        return new RecoveryResult((int) validBytes, truncated, next, truncated > 0 ? reason : null);
    }

    /** Checks both indexes against the file; returns null if they are sound, else why not. */
    public String sanityCheck() {
        if (indexesWereMissing) {
            return "index file missing";
        }
        String reason = offsetIndex.sanityCheck(size);
        if (reason != null) {
            return "offset index " + offsetIndex.file() + ": " + reason;
        }
        reason = timeIndex.sanityCheck(size);
        if (reason != null) {
            return "time index " + timeIndex.file() + ": " + reason;
        }
        return null;
    }

    private void loadLargestTimestamp() throws IOException {
        TimeIndex.Entry last = timeIndex.entries() == 0 ? new TimeIndex.Entry(TimeIndex.NO_TIMESTAMP, baseOffset)
                : timeIndex.lastEntry();
        maxTimestampSoFar = last.timestamp();
        offsetOfMaxTimestampSoFar = last.offset();
        int end = size;
        int pos = offsetIndex.entries() == 0 ? 0 : offsetIndex.lastEntry().position();
        int headerBytes = BatchFraming.MAX_TIMESTAMP_OFFSET + 8;
        ScanBuffer scan = ScanBuffer.forThread(indexIntervalBytes);
        scan.invalidate();
        while (pos + headerBytes <= end) {
            int rel = bufferHolding(scan, pos, headerBytes, end);
            ByteBuffer header = scan.bytes;
            int batchSize = BatchFraming.sizeInBytes(header, rel);
            if (batchSize < BatchFraming.HEADER_SIZE) {
                return; // corrupt: recovery or the sanity check will deal with it
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
        if (maxTimestampSoFar >= 0) {
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

    /** Forces the {@code .log} file's bytes and metadata to disk (through {@link FileSync}). */
    public void flushData() throws IOException {
        FileSync.force(channel, true);
    }

    /** Forces both index mappings to disk. */
    public void flushIndexes() {
        offsetIndex.flush();
        timeIndex.flush();
    }

    /** Records the final timestamp entry, trims the indexes and closes the file; flushes nothing. */
    public void close() throws IOException {
        readMap = null;
        try {
            if (channel.isOpen()) {
                onBecomeInactiveSegment();
            }
        } finally {
            channel.close();
        }
    }

    /** Closes and deletes the three files. */
    public void deleteFiles() throws IOException {
        readMap = null;
        channel.close();
        Files.deleteIfExists(logFile);
        offsetIndex.deleteIfExists();
        timeIndex.deleteIfExists();
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
