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

package dev.insync.replication.core.partition;

import dev.insync.replication.log.Errors;
import dev.insync.replication.log.LogAppendInfo;
import dev.insync.replication.log.LogReadInfo;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.epoch.EpochEndOffset;
import dev.insync.replication.log.record.MemoryRecords;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * A real, in-memory {@link LocalLog} for tests (Kafka's MockLog habit): one byte per record, whose value is the
 * record's leader epoch. A leader append of n bytes appends n records stamped with the leader epoch; a read
 * returns one byte per record (its epoch); a follower append takes the bytes as the records' epochs. The
 * epoch cache follows LOG-8. Every method is synchronized, so HW increments are atomic and only upward.
 */
final class InMemoryLocalLog implements LocalLog {

    private final TopicPartition topicPartition;
    private final List<Integer> epochs = new ArrayList<>(); // epoch of offset logStartOffset + i
    private final List<long[]> epochCache = new ArrayList<>(); // {epoch, startOffset}
    private long logStartOffset;
    private long highWatermark;
    /** Null: every appended record counts as flushed; else the recovery point, moved only by {@link #flush}. */
    private Long heldRecoveryPoint;

    InMemoryLocalLog(TopicPartition topicPartition) {
        this.topicPartition = topicPartition;
    }

    /** Records n bytes long (n records for this log); bytes are ignored by a leader append. */
    static MemoryRecords records(int n) {
        return MemoryRecords.readableRecords(ByteBuffer.allocate(n));
    }

    /** Records carrying these epochs, for follower appends. */
    static MemoryRecords recordsWithEpochs(int... recordEpochs) {
        ByteBuffer buffer = ByteBuffer.allocate(recordEpochs.length);
        for (int e : recordEpochs) {
            buffer.put((byte) e);
        }
        buffer.flip();
        return MemoryRecords.readableRecords(buffer);
    }

    @Override
    public TopicPartition topicPartition() {
        return topicPartition;
    }

    @Override
    public synchronized long logStartOffset() {
        return logStartOffset;
    }

    @Override
    public synchronized long logEndOffset() {
        return logStartOffset + epochs.size();
    }

    @Override
    public synchronized long highWatermark() {
        return highWatermark;
    }

    @Override
    public synchronized long updateHighWatermark(long hw) {
        highWatermark = Math.max(logStartOffset, Math.min(hw, logEndOffset()));
        return highWatermark;
    }

    @Override
    public synchronized boolean maybeIncrementHighWatermark(long hw) {
        long clamped = Math.min(hw, logEndOffset());
        if (clamped > highWatermark) {
            highWatermark = clamped;
            return true;
        }
        return false;
    }

    @Override
    public synchronized LogAppendInfo appendAsLeader(MemoryRecords records, int leaderEpoch) {
        int n = records.sizeInBytes();
        if (n == 0) {
            throw Errors.INVALID_RECORD.exception("Empty append to " + topicPartition);
        }
        long first = logEndOffset();
        for (int i = 0; i < n; i++) {
            epochs.add(leaderEpoch);
        }
        learnEpoch(leaderEpoch, first);
        return new LogAppendInfo(first, first + n - 1, n, n, -1L, -1L);
    }

    @Override
    public synchronized LogAppendInfo appendAsFollower(MemoryRecords records) {
        ByteBuffer buffer = records.buffer();
        long first = logEndOffset();
        int n = buffer.remaining();
        for (int i = 0; i < n; i++) {
            int epoch = buffer.get();
            learnEpoch(epoch, logEndOffset());
            epochs.add(epoch);
        }
        return new LogAppendInfo(first, first + n - 1, n, n, -1L, -1L);
    }

    /** From now on the recovery point stays where it is until {@link #flush} (a group commit not yet run). */
    synchronized void holdFlushes() {
        heldRecoveryPoint = logEndOffset();
    }

    @Override
    public synchronized long recoveryPoint() {
        return heldRecoveryPoint == null ? logEndOffset() : heldRecoveryPoint; // no disk: flushed unless held
    }

    @Override
    public synchronized long flush(long upToOffset) {
        if (heldRecoveryPoint != null) {
            heldRecoveryPoint = Math.max(heldRecoveryPoint, logEndOffset());
        }
        return recoveryPoint();
    }

    private void learnEpoch(int epoch, long startOffset) {
        if (epochCache.isEmpty() || epochCache.get(epochCache.size() - 1)[0] < epoch) {
            epochCache.add(new long[] {epoch, startOffset});
        }
    }

    @Override
    public synchronized LogReadInfo read(long startOffset, int maxBytes, long maxOffset) {
        long leo = logEndOffset();
        if (startOffset < logStartOffset || startOffset > leo) {
            throw Errors.OFFSET_OUT_OF_RANGE.exception("Offset " + startOffset + " out of range for " + topicPartition);
        }
        long end = Math.min(maxOffset, leo);
        int count = (int) Math.max(0, Math.min(end - startOffset, Math.max(1, maxBytes)));
        ByteBuffer buffer = ByteBuffer.allocate(count);
        for (int i = 0; i < count; i++) {
            buffer.put((byte) (int) epochs.get((int) (startOffset - logStartOffset) + i));
        }
        buffer.flip();
        return new LogReadInfo(MemoryRecords.readableRecords(buffer), startOffset, logStartOffset, leo, highWatermark);
    }

    @Override
    public synchronized OptionalInt latestEpoch() {
        return epochCache.isEmpty() ? OptionalInt.empty() : OptionalInt.of((int) epochCache.get(epochCache.size() - 1)[0]);
    }

    @Override
    public synchronized EpochEndOffset endOffsetForEpoch(int epoch) {
        if (epochCache.isEmpty()) {
            return EpochEndOffset.UNDEFINED;
        }
        long[] latest = epochCache.get(epochCache.size() - 1);
        if (latest[0] == epoch) {
            return new EpochEndOffset(epoch, logEndOffset());
        }
        if (epoch < epochCache.get(0)[0]) {
            return new EpochEndOffset(epoch, epochCache.get(0)[1]);
        }
        if (epoch > latest[0]) {
            return EpochEndOffset.UNDEFINED;
        }
        for (int i = epochCache.size() - 1; i >= 0; i--) {
            if (epochCache.get(i)[0] <= epoch) {
                return new EpochEndOffset((int) epochCache.get(i)[0], epochCache.get(i + 1)[1]);
            }
        }
        return EpochEndOffset.UNDEFINED;
    }

    @Override
    public synchronized java.util.Optional<EpochEndOffset> knownEndOffsetForEpoch(int epoch) {
        if (epochCache.isEmpty() || epochCache.get(0)[0] > epoch) {
            return java.util.Optional.empty();
        }
        EpochEndOffset found = endOffsetForEpoch(epoch);
        return found.endOffset() == EpochEndOffset.UNDEFINED_OFFSET ? java.util.Optional.empty()
                : java.util.Optional.of(found);
    }

    @Override
    public synchronized void assignEpochStartOffset(int leaderEpoch, long startOffset) {
        while (!epochCache.isEmpty() && (epochCache.get(epochCache.size() - 1)[0] >= leaderEpoch
                || epochCache.get(epochCache.size() - 1)[1] >= startOffset)) {
            epochCache.remove(epochCache.size() - 1);
        }
        epochCache.add(new long[] {leaderEpoch, startOffset});
    }

    @Override
    public synchronized boolean truncateTo(long offset) {
        if (offset >= logEndOffset()) {
            return false;
        }
        if (offset < logStartOffset) {
            truncateFullyAndStartAt(offset);
            return true;
        }
        while (logEndOffset() > offset) {
            epochs.remove(epochs.size() - 1);
        }
        epochCache.removeIf(entry -> entry[1] >= offset);
        highWatermark = Math.min(highWatermark, logEndOffset());
        return true;
    }

    @Override
    public synchronized void truncateFullyAndStartAt(long offset) {
        epochs.clear();
        epochCache.clear();
        logStartOffset = offset;
        highWatermark = offset;
    }

    @Override
    public synchronized void maybeIncrementLogStartOffset(long offset) {
        long target = Math.min(offset, highWatermark);
        while (logStartOffset < target) {
            epochs.remove(0);
            logStartOffset++;
        }
    }
}
