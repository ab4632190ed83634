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

import dev.insync.replication.log.Log;
import dev.insync.replication.log.LogAppendInfo;
import dev.insync.replication.log.LogReadInfo;
import dev.insync.replication.log.record.Records;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.epoch.EpochEndOffset;
import dev.insync.replication.log.record.MemoryRecords;

import java.util.OptionalInt;

/**
 * The operations of a partition's local log that replication uses: the seam between {@link Partition} and
 * {@link Log} (STYLE: logic in the middle, I/O at the edges). Production wraps a {@link Log} with
 * {@link #of(Log)}; tests may supply an in-memory implementation. Every method has {@link Log}'s contract;
 * in particular {@link #maybeIncrementHighWatermark} is atomic and only moves the HW up.
 */
public interface LocalLog {

    /** The partition this log belongs to. */
    TopicPartition topicPartition();

    /** LOG-10. */
    long logStartOffset();

    /** The offset the next record will get. */
    long logEndOffset();

    /** The current HW. */
    long highWatermark();

    /** Sets the HW clamped to [logStartOffset, LEO], possibly lower (FOL-5); returns the value set. */
    long updateHighWatermark(long hw);

    /** HW-3: raises the HW to {@code hw} (clamped to the LEO) if higher; returns whether it moved. */
    boolean maybeIncrementHighWatermark(long hw);

    /**
     * LOG-4: assigns offsets from the LEO and stamps {@code leaderEpoch}. A log whose owner defers
     * leader flushes reports a due flush in {@link LogAppendInfo#flushDue()} instead of forcing.
     */
    LogAppendInfo appendAsLeader(MemoryRecords records, int leaderEpoch);

    /** LOG-4/FOL-4: appends the leader's bytes as they are. */
    LogAppendInfo appendAsFollower(MemoryRecords records);

    /** LOG-3: whole batches from the one containing {@code startOffset}, none at or above {@code maxOffset}. */
    LogReadInfo read(long startOffset, int maxBytes, long maxOffset);

    /**
     * NET-3: {@link #read}'s batches left in the log's files where it has files
     * ({@link Log#readFileRecords}); a log without files returns them in memory.
     */
    default Records readFileRecords(long startOffset, int maxBytes, long maxOffset) {
        return read(startOffset, maxBytes, maxOffset).records();
    }

    /** The latest epoch in the epoch cache, empty without epoch information. */
    OptionalInt latestEpoch();

    /** LOG-8 with this log's LEO. */
    EpochEndOffset endOffsetForEpoch(int epoch);

    /** FOL-8's follower lookup: {@link Log#knownEndOffsetForEpoch}. */
    java.util.Optional<EpochEndOffset> knownEndOffsetForEpoch(int epoch);

    /** LDR-1: records that {@code leaderEpoch} starts at {@code startOffset}. */
    void assignEpochStartOffset(int leaderEpoch, long startOffset);

    /** LOG-6; returns whether any data was removed. */
    boolean truncateTo(long offset);

    /** LOG-6. */
    void truncateFullyAndStartAt(long offset);

    /** LOG-10: a follower takes the leader's log start offset. */
    void maybeIncrementLogStartOffset(long offset);

    /** LOG-11: every record below this offset is on stable storage (a log without a disk reports its LEO). */
    long recoveryPoint();

    /**
     * LOG-11 group commit ({@link Log#flush(long)}): forces everything appended so far if the
     * recovery point is below {@code upToOffset}, without blocking appends; returns the recovery point.
     */
    long flush(long upToOffset);

    /** The {@link Log} behind this view, if any (for the fetcher and checkpointing). */
    default java.util.Optional<Log> underlyingLog() {
        return java.util.Optional.empty();
    }

    /** A view over a real {@link Log}. */
    static LocalLog of(Log log) {
        return new LogBackedLocalLog(log);
    }
}
