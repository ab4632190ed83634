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

package dev.insync.replication.core.fetcher;

import dev.insync.replication.log.LogAppendInfo;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.epoch.EpochEndOffset;
import dev.insync.replication.log.record.MemoryRecords;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * An in-memory follower log for fetcher tests. Records travel in a test encoding (per batch:
 * baseOffset, lastOffset, epoch) because the fetcher never looks inside them; it only hands them
 * to {@link #appendRecordsAsFollower}. An epoch of -1 carries no epoch information.
 */
final class FakeFollowerPartition implements FollowerPartition {

    record Batch(long baseOffset, long lastOffset, int epoch) {
    }

    private final TopicPartition tp;
    final List<Batch> batches = new ArrayList<>();
    long logStartOffset;
    long logEndOffset;
    long highWatermark;
    RuntimeException failNextAppend;
    RuntimeException failLogStartOffset;
    RuntimeException failNextTruncate;
    final List<String> calls = new ArrayList<>();

    FakeFollowerPartition(TopicPartition tp) {
        this.tp = tp;
    }

    /** Encodes batches for a fake response. */
    static MemoryRecords records(Batch... batches) {
        ByteBuffer buf = ByteBuffer.allocate(20 * batches.length);
        for (Batch b : batches) {
            buf.putLong(b.baseOffset()).putLong(b.lastOffset()).putInt(b.epoch());
        }
        buf.flip();
        return MemoryRecords.readableRecords(buf);
    }

    FakeFollowerPartition withBatches(Batch... bs) {
        for (Batch b : bs) {
            batches.add(b);
            logEndOffset = b.lastOffset() + 1;
        }
        return this;
    }

    FakeFollowerPartition withHighWatermark(long hw) {
        highWatermark = hw;
        return this;
    }

    @Override
    public TopicPartition topicPartition() {
        return tp;
    }

    @Override
    public long logStartOffset() {
        if (failLogStartOffset != null) {
            throw failLogStartOffset;
        }
        return logStartOffset;
    }

    @Override
    public long logEndOffset() {
        return logEndOffset;
    }

    @Override
    public long highWatermark() {
        return highWatermark;
    }

    /** (epoch, startOffset) entries as LOG-8 keeps them. */
    List<long[]> epochEntries() {
        List<long[]> entries = new ArrayList<>();
        for (Batch b : batches) {
            if (b.epoch() < 0) {
                continue;
            }
            if (entries.isEmpty() || entries.get(entries.size() - 1)[0] != b.epoch()) {
                entries.add(new long[] {b.epoch(), b.baseOffset()});
            }
        }
        return entries;
    }

    @Override
    public OptionalInt latestEpoch() {
        List<long[]> entries = epochEntries();
        return entries.isEmpty() ? OptionalInt.empty() : OptionalInt.of((int) entries.get(entries.size() - 1)[0]);
    }

    @Override
    public Optional<EpochEndOffset> endOffsetForEpoch(int epoch) {
        List<long[]> entries = epochEntries();
        int floor = -1;
        for (int i = 0; i < entries.size(); i++) {
            if (entries.get(i)[0] <= epoch) {
                floor = i;
            }
        }
        if (floor < 0 || epoch > entries.get(entries.size() - 1)[0]) {
            return Optional.empty(); // none at or below, or above the latest: LOG-8's UNDEFINED
        }
        long end = floor == entries.size() - 1 ? logEndOffset : entries.get(floor + 1)[1];
        return Optional.of(new EpochEndOffset((int) entries.get(floor)[0], end));
    }

    @Override
    public LogAppendInfo appendRecordsAsFollower(MemoryRecords records) {
        calls.add("append@" + logEndOffset);
        if (failNextAppend != null) {
            RuntimeException e = failNextAppend;
            failNextAppend = null;
            throw e;
        }
        ByteBuffer buf = records.buffer();
        long first = -1;
        int count = 0;
        while (buf.remaining() >= 20) {
            Batch b = new Batch(buf.getLong(), buf.getLong(), buf.getInt());
            if (b.baseOffset() != logEndOffset) {
                throw new IllegalStateException("batch " + b + " does not start at LEO " + logEndOffset);
            }
            if (first < 0) {
                first = b.baseOffset();
            }
            count += (int) (b.lastOffset() - b.baseOffset() + 1);
            batches.add(b);
            logEndOffset = b.lastOffset() + 1;
        }
        return new LogAppendInfo(first, logEndOffset - 1, count, records.sizeInBytes(), -1L, -1L);
    }

    @Override
    public void truncateTo(long offset) {
        calls.add("truncateTo " + offset);
        if (failNextTruncate != null) {
            RuntimeException e = failNextTruncate;
            failNextTruncate = null;
            throw e;
        }
        if (offset >= logEndOffset) {
            return;
        }
        batches.removeIf(b -> b.lastOffset() >= offset);
        logEndOffset = batches.isEmpty() ? offset : batches.get(batches.size() - 1).lastOffset() + 1;
        logStartOffset = Math.min(logStartOffset, logEndOffset);
        highWatermark = Math.min(highWatermark, logEndOffset);
    }

    @Override
    public void truncateFullyAndStartAt(long offset) {
        calls.add("truncateFullyAndStartAt " + offset);
        batches.clear();
        logStartOffset = offset;
        logEndOffset = offset;
        highWatermark = offset;
    }

    @Override
    public long updateFollowerHighWatermark(long leaderHighWatermark) {
        highWatermark = Math.max(logStartOffset, Math.min(leaderHighWatermark, logEndOffset));
        return highWatermark;
    }

    @Override
    public void maybeIncrementLogStartOffset(long leaderLogStartOffset) {
        long bounded = Math.min(leaderLogStartOffset, highWatermark);
        if (bounded > logStartOffset) {
            logStartOffset = bounded;
        }
    }
}
