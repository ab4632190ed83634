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

import java.util.concurrent.locks.StampedLock;

/**
 * Where the last {@link #CAPACITY} batches appended to a segment are, kept as they were appended so
 * that a read at the log's end (a follower's or consumer's next fetch starts at a batch appended
 * since its last one) finds its batch and the batches after it without reading the file: no index
 * lookup, no header walk, no system call.
 *
 * <p>Only the segment's appends, serialized by the log, write it; any thread reads it. Reads are
 * optimistic ({@link StampedLock#tryOptimisticRead}): a reader that raced a write answers "not here"
 * and the caller locates the batch in the file as if this did not exist. The entries are the
 * segment's own appends of validated batches, so they are trusted as the file is (a read never
 * goes past the end position its caller read before looking here). A truncation clears it first.
 */
final class RecentBatches {

    /** Batches remembered: more than a fetch usually finds appended since the previous one. */
    static final int CAPACITY = 16;

    /** The remembered batches, one slot each; allocated by the first append, so a segment never written costs nothing. */
    private static final class Slots {
        final int[] positions = new int[CAPACITY];
        final int[] sizes = new int[CAPACITY];
        final long[] baseOffsets = new long[CAPACITY];
        final long[] lastOffsets = new long[CAPACITY];
    }

    private final StampedLock lock = new StampedLock();
    private Slots slots;
    /** Batches recorded since the last clear; the newest is at {@code (count - 1) % CAPACITY}. */
    private long count;

    /** Records the batch just appended at {@code position}; batches are recorded in file order, back to back. */
    void record(int position, int size, long baseOffset, long lastOffset) {
        long stamp = lock.writeLock();
        try {
            if (slots == null) {
                slots = new Slots();
            }
            Slots t = slots;
            if (count > 0) {
                int newest = slot(count - 1);
                if (t.positions[newest] + t.sizes[newest] != position || t.lastOffsets[newest] >= baseOffset) {
                    // Not the batch after the newest one: only back-to-back batches make a walk.
                    count = 0;
                }
            }
            int s = slot(count);
            t.positions[s] = position;
            t.sizes[s] = size;
            t.baseOffsets[s] = baseOffset;
            t.lastOffsets[s] = lastOffset;
            count++;
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /** Forgets every batch (before the file's bytes change other than by an append). */
    void clear() {
        long stamp = lock.writeLock();
        try {
            count = 0;
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /**
     * The remembered batch {@code locate} would find for {@code offset}, the first whose last offset
     * is at least {@code offset}, if it is known to be that batch and ends by {@code endPosition};
     * else null (not remembered, or raced an append).
     */
    LogSegment.BatchPosition find(long offset, int endPosition) {
        long stamp = lock.tryOptimisticRead();
        Slots t = slots;
        long n = t == null ? 0 : count;
        long oldest = Math.max(0, n - CAPACITY);
        int position = -1;
        int size = 0;
        long base = 0;
        long last = 0;
        for (long i = n - 1; i >= oldest; i--) {
            int s = slot(i);
            if (t.lastOffsets[s] < offset) {
                break;
            }
            // The first batch ending at or after offset: the one before it (if remembered) ends before offset;
            // the oldest remembered one only if it holds offset, as nothing says where the batch before it ends.
            if (i > oldest || t.baseOffsets[s] <= offset) {
                position = t.positions[s];
                size = t.sizes[s];
                base = t.baseOffsets[s];
                last = t.lastOffsets[s];
            } else {
                position = -1;
            }
        }
        if (!lock.validate(stamp) || position < 0 || (long) position + size > endPosition) {
            return null;
        }
        return new LogSegment.BatchPosition(position, size, base, last);
    }

    /**
     * Where a walk of whole batches from the remembered batch at {@code position} ends: after the last
     * one ending by {@code limit} whose last offset is below {@code maxOffset}. Returns the end position
     * when the walk stopped at one of those bounds ({@code >= 0}), or {@code -(end + 1)} when it ran out
     * of remembered batches (or raced an append) at {@code end} and the caller must walk on from there
     * in the file.
     */
    long walkEnd(int position, int limit, long maxOffset) {
        long stamp = lock.tryOptimisticRead();
        Slots t = slots;
        long n = t == null ? 0 : count;
        long oldest = Math.max(0, n - CAPACITY);
        long i = n - 1;
        while (i >= oldest && t.positions[slot(i)] > position) {
            i--;
        }
        int pos = position;
        boolean bounded = false;
        if (i >= oldest && t.positions[slot(i)] == position) {
            for (; i < n; i++) {
                int s = slot(i);
                if ((long) pos + t.sizes[s] > limit || t.lastOffsets[s] >= maxOffset) {
                    bounded = true;
                    break;
                }
                pos += t.sizes[s];
            }
        }
        if (!lock.validate(stamp)) {
            return -(position + 1L);
        }
        return bounded ? pos : -(pos + 1L);
    }

    private static int slot(long index) {
        return (int) (index % CAPACITY);
    }
}
