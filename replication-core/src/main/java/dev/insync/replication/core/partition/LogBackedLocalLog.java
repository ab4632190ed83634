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

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/** {@link LocalLog} over a real {@link Log}: every call delegates. */
final class LogBackedLocalLog implements LocalLog {

    private final Log log;

    LogBackedLocalLog(Log log) {
        this.log = Objects.requireNonNull(log, "log");
    }

    @Override
    public TopicPartition topicPartition() {
        return log.topicPartition();
    }

    @Override
    public long logStartOffset() {
        return log.logStartOffset();
    }

    @Override
    public long logEndOffset() {
        return log.logEndOffset();
    }

    @Override
    public long highWatermark() {
        return log.highWatermark();
    }

    @Override
    public long updateHighWatermark(long hw) {
        return log.updateHighWatermark(hw);
    }

    @Override
    public boolean maybeIncrementHighWatermark(long hw) {
        return log.maybeIncrementHighWatermark(hw);
    }

    @Override
    public LogAppendInfo appendAsLeader(MemoryRecords records, int leaderEpoch) {
        return log.appendAsLeader(records, leaderEpoch);
    }

    @Override
    public LogAppendInfo appendAsFollower(MemoryRecords records) {
        return log.appendAsFollower(records);
    }

    @Override
    public LogReadInfo read(long startOffset, int maxBytes, long maxOffset) {
        return log.read(startOffset, maxBytes, maxOffset);
    }

    @Override
    public Records readFileRecords(long startOffset, int maxBytes, long maxOffset) {
        return log.readFileRecords(startOffset, maxBytes, maxOffset);
    }

    @Override
    public OptionalInt latestEpoch() {
        return log.latestEpoch();
    }

    @Override
    public EpochEndOffset endOffsetForEpoch(int epoch) {
        return log.endOffsetForEpoch(epoch);
    }

    @Override
    public Optional<EpochEndOffset> knownEndOffsetForEpoch(int epoch) {
        return log.knownEndOffsetForEpoch(epoch);
    }

    @Override
    public void assignEpochStartOffset(int leaderEpoch, long startOffset) {
        log.assignEpochStartOffset(leaderEpoch, startOffset);
    }

    @Override
    public boolean truncateTo(long offset) {
        return log.truncateTo(offset);
    }

    @Override
    public void truncateFullyAndStartAt(long offset) {
        log.truncateFullyAndStartAt(offset);
    }

    @Override
    public void maybeIncrementLogStartOffset(long offset) {
        log.maybeIncrementLogStartOffset(offset);
    }

    @Override
    public long recoveryPoint() {
        return log.recoveryPoint();
    }

    @Override
    public long flush(long upToOffset) {
        return log.flush(upToOffset);
    }

    @Override
    public Optional<Log> underlyingLog() {
        return Optional.of(log);
    }
}
