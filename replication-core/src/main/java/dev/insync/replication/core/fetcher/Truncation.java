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

import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.epoch.EpochEndOffset;

import java.util.Optional;

/**
 * The follower's truncation decisions as pure functions over offsets and epochs (FOL-6, FOL-8),
 * so every branch is testable without a log or a thread.
 */
public final class Truncation {

    private Truncation() {
    }

    /**
     * Where to truncate and whether that settles the divergence (Kafka's {@code OffsetTruncationState}).
     *
     * @param offset               truncate to this offset
     * @param truncationCompleted  false when the follower did not know the leader's epoch: it
     *                             fetches again and may truncate once more
     */
    public record OffsetTruncationState(long offset, boolean truncationCompleted) {
    }

    /**
     * FOL-8: the truncation offset for a fetch answered with {@code divergingEpoch}.
     *
     * @param divergingEpoch           the leader's (epoch E, endOffset) from the response
     * @param fetchOffset              the partition's current fetch offset
     * @param logEndOffset             the follower's LEO
     * @param followerEndOffsetForEpoch the follower's largest epoch at or below E and its end
     *                                  offset, empty if it knows no epoch at or below E
     */
    public static OffsetTruncationState onDivergingEpoch(EpochEndOffset divergingEpoch, long fetchOffset,
                                                         long logEndOffset,
                                                         Optional<EpochEndOffset> followerEndOffsetForEpoch) {
        if (divergingEpoch.endOffset() == EpochEndOffset.UNDEFINED_OFFSET) {
            // The leader knows no end for the epoch: fall back to the position we fetch from.
            return new OffsetTruncationState(fetchOffset, true);
        }
        if (divergingEpoch.leaderEpoch() == EpochEndOffset.UNDEFINED_EPOCH) {
            return new OffsetTruncationState(Math.min(divergingEpoch.endOffset(), logEndOffset), true);
        }
        if (followerEndOffsetForEpoch.isEmpty()) {
            // No epoch at or below E here: the leader's end offset is the best bound we have.
            return new OffsetTruncationState(Math.min(divergingEpoch.endOffset(), logEndOffset), true);
        }
        EpochEndOffset follower = followerEndOffsetForEpoch.get();
        if (follower.leaderEpoch() != divergingEpoch.leaderEpoch()) {
            // The follower does not know E: cut to the end of its largest epoch below E and ask again.
            return new OffsetTruncationState(Math.min(follower.endOffset(), logEndOffset), false);
        }
        long offset = Math.min(Math.min(follower.endOffset(), divergingEpoch.endOffset()), logEndOffset);
        return new OffsetTruncationState(offset, true);
    }

    /**
     * FOL-8: the line logged for a truncation on divergence, as Kafka prints it:
     * {@code Truncating partition div-0 to offset 10 due to leader epoch and offset EpochEndOffset(...)}.
     */
    public static String truncationMessage(TopicPartition tp, long offset, EpochEndOffset divergingEpoch) {
        return "Truncating partition " + tp + " to offset " + offset + " due to leader epoch and offset "
                + divergingEpoch;
    }

    /** FOL-6: what a follower does about {@code OFFSET_OUT_OF_RANGE}. */
    public sealed interface OutOfRangeAction {
        /** The leader's LEO is below ours: truncate to it. */
        record TruncateTo(long offset) implements OutOfRangeAction {
        }

        /** The leader's log starts above our LEO: empty the log and start at the leader's log start. */
        record TruncateFullyAndStartAt(long offset) implements OutOfRangeAction {
        }

        /** Our log is within the leader's range: keep it and fetch again from our LEO. */
        record FetchFrom(long offset) implements OutOfRangeAction {
        }

        /** The response did not carry the leader's offsets: back off and ask again. */
        record LeaderOffsetsUnknown() implements OutOfRangeAction {
        }
    }

    /**
     * FOL-6: the reaction to {@code OFFSET_OUT_OF_RANGE} given the leader's LEO and log start
     * offset (-1 when the response does not carry them) and the follower's LEO.
     */
    public static OutOfRangeAction onOffsetOutOfRange(long leaderLogEndOffset, long leaderLogStartOffset,
                                                      long logEndOffset) {
        if (leaderLogEndOffset < 0 || leaderLogStartOffset < 0) {
            return new OutOfRangeAction.LeaderOffsetsUnknown();
        }
        if (leaderLogEndOffset < logEndOffset) {
            return new OutOfRangeAction.TruncateTo(leaderLogEndOffset);
        }
        if (leaderLogStartOffset > logEndOffset) {
            return new OutOfRangeAction.TruncateFullyAndStartAt(leaderLogStartOffset);
        }
        return new OutOfRangeAction.FetchFrom(logEndOffset);
    }
}
