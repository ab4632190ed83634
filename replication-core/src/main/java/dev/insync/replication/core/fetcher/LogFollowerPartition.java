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

import dev.insync.replication.log.Log;
import dev.insync.replication.log.LogAppendInfo;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.epoch.EpochEndOffset;
import dev.insync.replication.log.record.MemoryRecords;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A {@link FollowerPartition} straight over a {@link Log}, for embedders and tests that follow a
 * log without a {@code Partition} around it.
 */
public final class LogFollowerPartition implements FollowerPartition {

    private final Log log;

    /** Follows into {@code log}. */
    public LogFollowerPartition(Log log) {
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
    public OptionalInt latestEpoch() {
        return log.latestEpoch();
    }

    @Override
    public Optional<EpochEndOffset> endOffsetForEpoch(int epoch) {
        return log.knownEndOffsetForEpoch(epoch);
    }

    @Override
    public LogAppendInfo appendRecordsAsFollower(MemoryRecords records) {
        return log.appendAsFollower(records);
    }

    @Override
    public void truncateTo(long offset) {
        log.truncateTo(offset);
    }

    @Override
    public void truncateFullyAndStartAt(long offset) {
        log.truncateFullyAndStartAt(offset);
    }

    @Override
    public long updateFollowerHighWatermark(long leaderHighWatermark) {
        return log.updateHighWatermark(leaderHighWatermark);
    }

    @Override
    public void maybeIncrementLogStartOffset(long leaderLogStartOffset) {
        log.maybeIncrementLogStartOffset(leaderLogStartOffset);
    }
}
