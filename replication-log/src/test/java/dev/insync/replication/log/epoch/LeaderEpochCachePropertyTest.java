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

import dev.insync.replication.log.ActionSequences;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * LOG-8 / INV-8: random assign and truncate sequences against a brute-force model written from
 * the contract's text (filters over the whole list, not the cache's tail walk).
 */
class LeaderEpochCachePropertyTest {

    private static final TopicPartition TP = new TopicPartition("prop", 0);

    sealed interface Op permits Assign, TruncateEnd, TruncateStart {
    }

    record Assign(int epoch, long startOffset) implements Op {
    }

    record TruncateEnd(long endOffset) implements Op {
    }

    record TruncateStart(long startOffset) implements Op {
    }

    static Gen<List<Op>> ops() {
        Gen<Integer> epochs = integers().between(0, 12);
        Gen<Long> offsets = longs().between(0, 60);
        Gen<Op> assign = epochs.zip(offsets, Assign::new);
        Gen<Op> truncateEnd = offsets.map(TruncateEnd::new);
        Gen<Op> truncateStart = offsets.map(TruncateStart::new);
        Gen<Op> any = Generate.frequency(List.of(Pair.of(6, assign), Pair.of(1, truncateEnd), Pair.of(1, truncateStart)));
        return ActionSequences.of(any, 0, 40);
    }

    /** The model: LOG-8 applied literally to a plain list. */
    static List<EpochEntry> modelApply(List<EpochEntry> model, Op op) {
        List<EpochEntry> next = new ArrayList<>(model);
        if (op instanceof Assign a) {
            Optional<EpochEntry> latest = model.stream().max(Comparator.comparingInt(EpochEntry::epoch));
            boolean add = latest.isEmpty() || latest.get().epoch() != a.epoch()
                    || a.startOffset() < latest.get().startOffset();
            if (add) {
                next.removeIf(e -> e.epoch() >= a.epoch() || e.startOffset() >= a.startOffset());
                next.add(new EpochEntry(a.epoch(), a.startOffset()));
            }
        } else if (op instanceof TruncateEnd t) {
            next.removeIf(e -> e.startOffset() >= t.endOffset());
        } else if (op instanceof TruncateStart t) {
            Optional<EpochEntry> keep = model.stream().filter(e -> e.startOffset() <= t.startOffset())
                    .max(Comparator.comparingLong(EpochEntry::startOffset));
            if (keep.isPresent()) {
                next.removeIf(e -> e.startOffset() <= t.startOffset());
                next.add(0, new EpochEntry(keep.get().epoch(), t.startOffset()));
            }
        }
        return next;
    }

    /** The four branches of LOG-8's endOffsetFor, written as set queries over the model. */
    static EpochEndOffset modelEndOffsetFor(List<EpochEntry> model, int requested, long leo) {
        if (requested < 0 || model.isEmpty()) {
            return EpochEndOffset.UNDEFINED;
        }
        int latest = model.stream().mapToInt(EpochEntry::epoch).max().orElseThrow();
        if (requested == latest) {
            return new EpochEndOffset(latest, leo);
        }
        Optional<EpochEntry> firstAbove = model.stream().filter(e -> e.epoch() > requested)
                .min(Comparator.comparingInt(EpochEntry::epoch));
        Optional<EpochEntry> floor = model.stream().filter(e -> e.epoch() <= requested)
                .max(Comparator.comparingInt(EpochEntry::epoch));
        if (firstAbove.isEmpty()) {
            return EpochEndOffset.UNDEFINED;
        }
        return new EpochEndOffset(floor.map(EpochEntry::epoch).orElse(requested), firstAbove.get().startOffset());
    }

    @Test
    @DisplayName("LOG-8 INV-8 endOffsetFor and the entries match a brute-force model; epochs and offsets stay strictly increasing")
    void matchesModel() {
        qt().withExamples(300).forAll(ops()).checkAssert(LeaderEpochCachePropertyTest::run);
    }

    private static void run(List<Op> ops) {
        LeaderEpochCache cache = LeaderEpochCache.inMemory(TP);
        List<EpochEntry> model = new ArrayList<>();
        for (Op op : ops) {
            if (op instanceof Assign a) {
                cache.assign(a.epoch(), a.startOffset());
            } else if (op instanceof TruncateEnd t) {
                cache.truncateFromEnd(t.endOffset());
            } else if (op instanceof TruncateStart t) {
                cache.truncateFromStart(t.startOffset());
            }
            model = modelApply(model, op);
            List<EpochEntry> entries = cache.epochEntries();
            assertThat(entries).as("after %s", op).isEqualTo(model);
            for (int i = 1; i < entries.size(); i++) {
                assertThat(entries.get(i).epoch()).as("INV-8 epochs in %s", entries).isGreaterThan(entries.get(i - 1).epoch());
                assertThat(entries.get(i).startOffset()).as("INV-8 offsets in %s", entries)
                        .isGreaterThan(entries.get(i - 1).startOffset());
            }
        }
        long leo = model.stream().mapToLong(EpochEntry::startOffset).max().orElse(0) + 5;
        for (int requested = -1; requested <= 14; requested++) {
            assertThat(cache.endOffsetFor(requested, leo)).as("endOffsetFor(%d) with %s", requested, model)
                    .isEqualTo(modelEndOffsetFor(model, requested, leo));
        }
        // Every offset's epoch ends after that offset: what a follower truncates to never cuts it.
        for (long offset = 0; offset < leo; offset++) {
            int epoch = cache.epochForOffset(offset).orElse(-1);
            if (epoch >= 0) {
                EpochEndOffset end = cache.endOffsetFor(epoch, leo);
                assertThat(end.leaderEpoch()).isEqualTo(epoch);
                assertThat(end.endOffset()).as("end of epoch %d holding offset %d in %s", epoch, offset, model)
                        .isGreaterThan(offset);
            }
        }
    }
}
