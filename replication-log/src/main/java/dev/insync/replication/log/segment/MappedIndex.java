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
import dev.insync.replication.log.UninterruptibleIo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A memory-mapped, sparse, fixed-entry-size index file shared by {@link OffsetIndex} and
 * {@link TimeIndex} (LOG-2). A new index is preallocated to {@code maxIndexSize} bytes so appends
 * never grow the file; it is trimmed to its real size when its segment stops being active or is
 * closed, so Kafka's tools see exactly the entries written.
 *
 * <p>The file is mapped only when an entry is first read or written, not when the index is created
 * or opened (as Kafka's {@code LazyIndex}): most segments of a broker with tens of thousands of
 * partitions never get an index entry (one comes every {@code index.interval.bytes}, 4 KiB), and a
 * mapping per index of every partition would take two of the process's {@code vm.max_map_count}
 * mappings (65,530 by default) and 2 x {@code segment.index.bytes} of address space per replica. Until
 * then a new index file exists, empty, and is given its preallocated length by its first mapping.
 *
 * <p>Threads: one writer at a time (the log's lock); readers may search concurrently. The entry
 * count is volatile and is raised only after the entry's bytes are written, so a reader never sees
 * a half-written entry. A mapping replaced or dropped while readers may still search it is left to
 * the GC; {@link #release} unmaps every mapping at the end of the index's life ({@link FileMappings}).
 *
 * <p>Entries are stored into the mapping, except that the first entry written into a page of the
 * file that may still be a hole of the sparse preallocated file also goes in with a positional
 * write first (see {@link #writeEntry}).
 *
 * <p>An index found on disk is mapped as it is, every whole entry counted; nothing in it is trusted
 * until {@link #lengthProblem()} and {@link #sanityCheck} pass (LOG-7), and a lookup still checks
 * the batch its entry points at ({@link LogSegment}). Every write, resize and force goes through the
 * directory's {@link FileSync}.
 */
abstract sealed class MappedIndex permits OffsetIndex, TimeIndex {

    /**
     * The page size assumed for {@link #writeEntry}: a smaller guess than the real page only costs
     * an extra positional write per real page.
     */
    static final int PAGE_BYTES = 4096;

    protected final long baseOffset;
    protected final int entrySize;
    protected final FileSync fileSync;
    /** Length of the file when opened (before any resize), for {@link #lengthProblem()}. */
    private final long lengthAtOpen;
    /**
     * Whole pages from the start of the file written since this mapping was made (so allocated on
     * disk, not holes). Only the writer (under the log's lock) reads or changes it.
     */
    private int backedBytes;
    /** Positional writes {@link #writeEntry} made to back a page; for tests. Writer only. */
    private long pageBackingWrites;
    private volatile Path file;
    /** Null until the first read or write of an entry maps the file ({@link #buffer()}). */
    private volatile MappedByteBuffer mmap;
    /** Every mapping made of the file, unmapped by {@link #release}. */
    private final FileMappings mappings = new FileMappings();
    /** The size the mapping has, or will have when made (the file is extended to it then). */
    private volatile int capacityBytes;
    private volatile int entries;
    private volatile int maxEntries;

    MappedIndex(Path file, long baseOffset, int maxIndexSize, int entrySize, FileSync fileSync) throws IOException {
        this.file = file;
        this.baseOffset = baseOffset;
        this.entrySize = entrySize;
        this.fileSync = fileSync;
        // Decided once, before any (retryable) mapping: a retry after an interrupt finds the file
        // already extended to the map size and must not take that for entries.
        long length = Files.exists(file) ? Files.size(file) : 0;
        if (length > Integer.MAX_VALUE) {
            throw new IOException("Index file " + file + " is " + length + " bytes, above the 2 GiB limit");
        }
        if (length == 0) {
            fileSync.beforeWrite(file);
            UninterruptibleIo.run(() -> {
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                    // Created empty; the first mapping preallocates it.
                }
            });
        }
        this.capacityBytes = length == 0 ? roundDown(maxIndexSize) : roundDown((int) length);
        this.lengthAtOpen = length;
        this.maxEntries = capacityBytes / entrySize;
        this.entries = length == 0 ? 0 : maxEntries;
    }

    private int roundDown(int bytes) {
        return Math.max(0, bytes / entrySize * entrySize);
    }

    /** The index file. */
    public Path file() {
        return file;
    }

    /** The segment's base offset: entries store offsets relative to it. */
    public long baseOffset() {
        return baseOffset;
    }

    /** Number of entries written. */
    public int entries() {
        return entries;
    }

    /** Maximum number of entries the current mapping holds. */
    public int maxEntries() {
        return maxEntries;
    }

    /** Bytes of real entries (what the file is trimmed to). */
    public int sizeInBytes() {
        return entries * entrySize;
    }

    /** Whether no further entry fits. */
    public boolean isFull() {
        return entries >= maxEntries;
    }

    /**
     * The mapping, made now if this is the first use (extending a new file to its preallocated
     * size). Call it only to read or write an entry: an index without entries is never mapped.
     *
     * @throws UncheckedIOException if the file cannot be mapped
     */
    protected final MappedByteBuffer buffer() {
        MappedByteBuffer map = mmap;
        return map != null ? map : mapNow();
    }

    /** Whether the file is mapped (an entry was read or written since it was opened). */
    final boolean isMapped() {
        return mmap != null;
    }

    private synchronized MappedByteBuffer mapNow() {
        MappedByteBuffer map = mmap;
        if (map != null) {
            return map;
        }
        int size = capacityBytes;
        try {
            map = UninterruptibleIo.call(() -> {
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                        StandardOpenOption.WRITE)) {
                    return mappings.track(ch.map(FileChannel.MapMode.READ_WRITE, 0, size));
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot map index " + file, e);
        }
        mmap = map;
        return map;
    }

    /**
     * Writes one entry's bytes ({@code entry} from 0 to {@link #entrySize}) at {@code slot}.
     *
     * <p>A new index is a sparse file, so the first store into each page of the mapping faults on a
     * hole and the kernel allocates the block inside the page fault. On ext4 that fault was
     * measured at 2-100 ms with thousands of index files (3 brokers x 3,000 partitions: every
     * partition's first indexed append stalled the appending thread, and an acks=all load spread
     * over the partitions stopped for seconds), against about 5 us for a positional
     * {@code write} of the same bytes into the same hole. So the first entry written into a page
     * not known to be allocated goes in with a positional write (opening the file for it: the index
     * holds no descriptor, as thousands of them would exhaust the process's file limit), and then
     * into the mapping as every entry does; later entries of that page are plain stores. The
     * mapping stays what readers and {@link #flush()} use; if the positional write fails, the store
     * into the mapping alone still writes the entry (the write only spares the page fault).
     */
    protected final void writeEntry(int slot, ByteBuffer entry) throws IOException {
        fileSync.beforeWrite(file);
        int position = slot * entrySize;
        int end = position + entrySize;
        if (end > backedBytes) {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ByteBuffer src = entry.duplicate().position(0).limit(entrySize);
                int at = position;
                while (src.hasRemaining()) {
                    at += ch.write(src, at);
                }
                pageBackingWrites++;
                backedBytes = (end + PAGE_BYTES - 1) / PAGE_BYTES * PAGE_BYTES;
            } catch (IOException e) {
                // Only the page fault is spared by the write above; the store below writes the entry.
                // (An interrupt that closed the channel leaves the caller's flag set, as it should.)
            }
        }
        buffer().put(position, entry, 0, entrySize);
    }

    /** How many positional writes {@link #writeEntry} made to back a fresh page (tests). */
    long pageBackingWrites() {
        return pageBackingWrites;
    }

    /** Publishes one more entry whose bytes the subclass has just written at slot {@code entries}. */
    protected final void publishEntry() {
        entries = entries + 1;
    }

    protected final void truncateToEntries(int n) {
        if (n < 0 || n > entries) {
            throw new IllegalArgumentException("Cannot truncate index " + file + " with " + entries + " entries to " + n);
        }
        entries = n;
    }

    protected final int relativeOffset(long offset) {
        long rel = offset - baseOffset;
        if (rel < 0 || rel > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("Offset " + offset + " is not representable relative to base offset "
                    + baseOffset + " in " + file);
        }
        return (int) rel;
    }

    /**
     * Resizes the file and the mapping to {@code newSize} bytes (rounded down to whole entries,
     * never below the written entries): preallocates for the active segment, trims otherwise.
     */
    public void resize(int newSize) throws IOException {
        int size = Math.max(roundDown(newSize), sizeInBytes());
        if (size == capacityBytes) {
            return;
        }
        MappedByteBuffer current;
        synchronized (this) {
            // Under the monitor a first mapping (mapNow) takes, so it cannot map the old size meanwhile.
            current = mmap;
            if (current == null) {
                resizeUnmapped(size);
                return;
            }
        }
        fileSync.force(current, file);
        if (size < capacityBytes) {
            // A trim (the segment becomes inactive or closes): cut the file and drop the mapping instead of
            // mapping the shorter file again. A second mapping per trim would count against the process's
            // vm.max_map_count until the collector released the first, and with tens of thousands of
            // indexes that limit is reached. The next lookup, if any, maps what is left; a reader still
            // holding the old mapping reads only entries below the count, which the cut keeps.
            synchronized (this) {
                mmap = null;
                resizeUnmapped(size);
            }
            return;
        }
        fileSync.beforeWrite(file);
        MappedByteBuffer remapped = UninterruptibleIo.call(() -> {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                if (ch.size() > size) {
                    ch.truncate(size);
                    // Pages past the new end are freed; once the mapping grows again they are holes.
                    backedBytes = Math.min(backedBytes, size / PAGE_BYTES * PAGE_BYTES);
                }
                return mappings.track(ch.map(FileChannel.MapMode.READ_WRITE, 0, size));
            }
        });
        this.mmap = remapped;
        this.capacityBytes = size;
        this.maxEntries = size / entrySize;
    }

    /**
     * {@link #resize} of an index not mapped (since it was opened, or since a trim dropped its mapping
     * after forcing it): nothing written through this object is left unforced; a longer file is cut
     * now, a shorter one is extended by the mapping that needs it.
     */
    private void resizeUnmapped(int size) throws IOException {
        long length = Files.exists(file) ? Files.size(file) : 0;
        if (length > size) {
            fileSync.beforeWrite(file);
            UninterruptibleIo.run(() -> {
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                    ch.truncate(size);
                }
            });
            backedBytes = Math.min(backedBytes, size / PAGE_BYTES * PAGE_BYTES);
        }
        this.capacityBytes = size;
        this.maxEntries = size / entrySize;
    }

    /** Trims the file to the written entries. */
    public void trimToValidSize() throws IOException {
        resize(sizeInBytes());
    }

    /** Forces the written entries to disk (through the directory's {@link FileSync}). */
    public void flush() throws IOException {
        MappedByteBuffer current = mmap;
        if (current != null) {
            fileSync.force(current, file);
        }
        // Never mapped since it was opened: nothing was written through this index to force.
    }

    /** Removes every entry. */
    public void reset() {
        entries = 0;
    }

    /** Trims the file and {@link #release releases} its mappings. */
    public void close() throws IOException {
        try {
            trimToValidSize();
        } finally {
            release();
        }
    }

    /**
     * Unmaps every mapping of the file now, not when the GC collects them: the end of the index's
     * life (its segment closes or is deleted). The caller excludes every reader and writer of this
     * index from now on: an access to an unmapped buffer would crash the JVM. Nothing is forced
     * (the kernel still writes dirty pages back); a later lookup would map the file again.
     */
    public void release() {
        synchronized (this) {
            mmap = null;
        }
        mappings.unmapAll();
    }

    /** Deletes the file if present. */
    public void deleteIfExists() throws IOException {
        if (Files.exists(file)) {
            fileSync.beforeWrite(file);
            Files.deleteIfExists(file);
        }
    }

    /**
     * LOG-7: null if the file's length when opened was a whole number of entries, else why not (a
     * torn or truncated entry). Checks no entry.
     */
    public String lengthProblem() {
        if (lengthAtOpen % entrySize != 0) {
            return "its length " + lengthAtOpen + " is not a multiple of the " + entrySize + "-byte entry size";
        }
        return null;
    }

    /**
     * LOG-7: checks every entry is well formed, in memory (no read of the log): null if so, else
     * why not, naming the entry.
     *
     * @param logSizeInBytes the size of the segment's log file
     * @param nextOffset     the offset after the segment's last batch: every entry's offset is below it
     */
    public abstract String sanityCheck(int logSizeInBytes, long nextOffset);

    /**
     * Binary search: the largest slot whose key is at most {@code target}, or -1 if none.
     */
    protected final int largestLowerBoundSlot(long target) {
        int lo = 0;
        int hi = entries - 1;
        if (hi < 0 || keyAt(0) > target) {
            return -1;
        }
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (keyAt(mid) <= target) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /** The search key of the entry at {@code slot}. */
    protected abstract long keyAt(int slot);
}
