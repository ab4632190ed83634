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

package dev.insync.replication.log.epoch;

/**
 * The answer of {@code endOffsetFor}: the largest known epoch at or below the requested one and
 * the offset where it ends (LOG-8). Kafka prints it as {@code EpochEndOffset(... leaderEpoch=0, endOffset=10)}.
 */
public record EpochEndOffset(int leaderEpoch, long endOffset) {

    /** Kafka's UNDEFINED_EPOCH. */
    public static final int UNDEFINED_EPOCH = -1;
    /** Kafka's UNDEFINED_EPOCH_OFFSET. */
    public static final long UNDEFINED_OFFSET = -1L;
    /** Neither epoch nor offset is known. */
    public static final EpochEndOffset UNDEFINED = new EpochEndOffset(UNDEFINED_EPOCH, UNDEFINED_OFFSET);

    @Override
    public String toString() {
        return "EpochEndOffset(errorCode=0, partition=0, leaderEpoch=" + leaderEpoch + ", endOffset=" + endOffset + ")";
    }
}
