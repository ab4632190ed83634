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

import dev.insync.replication.core.fetcher.Truncation.OffsetTruncationState;
import dev.insync.replication.core.fetcher.Truncation.OutOfRangeAction;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.epoch.EpochEndOffset;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.quicktheories.api.Pair;

import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

class TruncationTest {

    @Test
    @DisplayName("FOL-8 follower knows the leader's epoch: min(follower end, leader end, LEO)")
    void fol8SameEpoch() {
        // Seed's SCN-3: old leader holds epoch 0 up to 15, new leader says epoch 0 ended at 10.
        OffsetTruncationState t = Truncation.onDivergingEpoch(new EpochEndOffset(0, 10), 15, 15,
                Optional.of(new EpochEndOffset(0, 15)));
        assertThat(t).isEqualTo(new OffsetTruncationState(10, true));
        // The follower's own end of E is the smallest.
        assertThat(Truncation.onDivergingEpoch(new EpochEndOffset(3, 20), 30, 30,
                Optional.of(new EpochEndOffset(3, 12)))).isEqualTo(new OffsetTruncationState(12, true));
        // The LEO is the smallest.
        assertThat(Truncation.onDivergingEpoch(new EpochEndOffset(3, 20), 8, 8,
                Optional.of(new EpochEndOffset(3, 25)))).isEqualTo(new OffsetTruncationState(8, true));
    }

    @Test
    @DisplayName("FOL-8 follower does not know the leader's epoch: end of its largest epoch below, not completed")
    void fol8UnknownEpoch() {
        OffsetTruncationState t = Truncation.onDivergingEpoch(new EpochEndOffset(4, 50), 40, 40,
                Optional.of(new EpochEndOffset(2, 17)));
        assertThat(t).isEqualTo(new OffsetTruncationState(17, false));
        assertThat(Truncation.onDivergingEpoch(new EpochEndOffset(4, 50), 9, 9,
                Optional.of(new EpochEndOffset(2, 17)))).isEqualTo(new OffsetTruncationState(9, false));
    }

    @Test
    @DisplayName("FOL-8 follower has no epoch at or below E: min(leader end, LEO)")
    void fol8NoEpochAtOrBelow() {
        assertThat(Truncation.onDivergingEpoch(new EpochEndOffset(1, 7), 30, 30, Optional.empty()))
                .isEqualTo(new OffsetTruncationState(7, true));
        assertThat(Truncation.onDivergingEpoch(new EpochEndOffset(1, 70), 30, 30, Optional.empty()))
                .isEqualTo(new OffsetTruncationState(30, true));
    }

    @Test
    @DisplayName("FOL-8 endOffset -1 truncates to the current fetch offset; epoch -1 to min(leader end, LEO)")
    void fol8UndefinedCases() {
        assertThat(Truncation.onDivergingEpoch(new EpochEndOffset(2, -1), 21, 25,
                Optional.of(new EpochEndOffset(2, 25)))).isEqualTo(new OffsetTruncationState(21, true));
        assertThat(Truncation.onDivergingEpoch(EpochEndOffset.UNDEFINED, 21, 25, Optional.empty()))
                .isEqualTo(new OffsetTruncationState(21, true));
        assertThat(Truncation.onDivergingEpoch(new EpochEndOffset(-1, 11), 25, 25,
                Optional.of(new EpochEndOffset(0, 3)))).isEqualTo(new OffsetTruncationState(11, true));
    }

    @Test
    @DisplayName("FOL-8 the truncation offset never exceeds the LEO")
    void fol8NeverAboveLeo() {
        qt().withExamples(200)
                .forAll(integers().between(-1, 5), longs().between(0, 100), longs().between(0, 100),
                        integers().between(-1, 5).zip(longs().between(0, 100), Pair::of))
                .checkAssert((leaderEpoch, leaderEnd, leo, followerEpochAndEnd) -> {
                    int followerEpoch = followerEpochAndEnd._1;
                    long followerEnd = followerEpochAndEnd._2;
                    Optional<EpochEndOffset> follower = followerEpoch < 0 ? Optional.empty()
                            : Optional.of(new EpochEndOffset(Math.min(followerEpoch, Math.max(leaderEpoch, 0)),
                            Math.min(followerEnd, leo)));
                    OffsetTruncationState t = Truncation.onDivergingEpoch(new EpochEndOffset(leaderEpoch, leaderEnd),
                            leo, leo, follower);
                    assertThat(t.offset()).isBetween(0L, (long) leo);
                });
    }

    @Test
    @DisplayName("FOL-8 the truncation is logged as Kafka prints it")
    void fol8LogLine() {
        assertThat(Truncation.truncationMessage(new TopicPartition("div", 0), 10, new EpochEndOffset(0, 10)))
                .isEqualTo("Truncating partition div-0 to offset 10 due to leader epoch and offset "
                        + "EpochEndOffset(errorCode=0, partition=0, leaderEpoch=0, endOffset=10)");
    }

    @Test
    @DisplayName("FOL-6 OFFSET_OUT_OF_RANGE: leader LEO below ours truncates to it")
    void fol6OutOfRangeLeaderBehind() {
        assertThat(Truncation.onOffsetOutOfRange(8, 0, 12)).isEqualTo(new OutOfRangeAction.TruncateTo(8));
    }

    @Test
    @DisplayName("FOL-6 OFFSET_OUT_OF_RANGE: leader log start above our LEO restarts the log there")
    void fol6OutOfRangeLeaderAhead() {
        assertThat(Truncation.onOffsetOutOfRange(500, 300, 12))
                .isEqualTo(new OutOfRangeAction.TruncateFullyAndStartAt(300));
    }

    @Test
    @DisplayName("FOL-6 OFFSET_OUT_OF_RANGE: our LEO within the leader's range keeps the log")
    void fol6OutOfRangeWithin() {
        assertThat(Truncation.onOffsetOutOfRange(20, 5, 12)).isEqualTo(new OutOfRangeAction.FetchFrom(12));
        assertThat(Truncation.onOffsetOutOfRange(12, 12, 12)).isEqualTo(new OutOfRangeAction.FetchFrom(12));
        assertThat(Truncation.onOffsetOutOfRange(-1, -1, 12)).isEqualTo(new OutOfRangeAction.LeaderOffsetsUnknown());
    }
}
