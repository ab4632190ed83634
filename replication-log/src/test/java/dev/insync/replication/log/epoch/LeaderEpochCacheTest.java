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

import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.checkpoint.CorruptCheckpointException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LeaderEpochCacheTest {

    private static final TopicPartition TP = new TopicPartition("orders", 3);

    @TempDir
    Path dir;

    private Path file() {
        return dir.resolve(LeaderEpochCache.CHECKPOINT_FILE_NAME);
    }

    private LeaderEpochCache cache(long... epochStartPairs) {
        LeaderEpochCache cache = LeaderEpochCache.load(file(), TP);
        for (int i = 0; i < epochStartPairs.length; i += 2) {
            cache.assign((int) epochStartPairs[i], epochStartPairs[i + 1]);
        }
        return cache;
    }

    private static List<EpochEntry> entries(long... epochStartPairs) {
        java.util.ArrayList<EpochEntry> list = new java.util.ArrayList<>();
        for (int i = 0; i < epochStartPairs.length; i += 2) {
            list.add(new EpochEntry((int) epochStartPairs[i], epochStartPairs[i + 1]));
        }
        return list;
    }

    // ---- assign ----

    @Test
    @DisplayName("LOG-8 assign adds the first entry and a new higher epoch at a higher offset")
    void assignAppends() {
        LeaderEpochCache cache = cache(0, 0, 1, 10, 4, 25);
        assertThat(cache.epochEntries()).isEqualTo(entries(0, 0, 1, 10, 4, 25));
        assertThat(cache.latestEpoch()).isEqualTo(OptionalInt.of(4));
        assertThat(cache.latestEntry()).contains(new EpochEntry(4, 25));
        assertThat(cache.earliestEntry()).contains(new EpochEntry(0, 0));
    }

    @Test
    @DisplayName("LOG-8 assign of the latest epoch with an equal or larger offset is ignored")
    void assignSameEpochLargerOffsetIgnored() throws IOException {
        LeaderEpochCache cache = cache(0, 0, 1, 10);
        String before = Files.readString(file());
        cache.assign(1, 10);
        cache.assign(1, 15);
        assertThat(cache.epochEntries()).isEqualTo(entries(0, 0, 1, 10));
        assertThat(Files.readString(file())).isEqualTo(before);
    }

    @Test
    @DisplayName("LOG-8 assign of the latest epoch with a smaller offset replaces it")
    void assignSameEpochSmallerOffset() {
        LeaderEpochCache cache = cache(0, 0, 1, 10);
        cache.assign(1, 5);
        assertThat(cache.epochEntries()).isEqualTo(entries(0, 0, 1, 5));
    }

    @Test
    @DisplayName("LOG-8 assign removes tail entries whose start offset is at or above the new start")
    void assignRemovesTailByOffset() {
        LeaderEpochCache cache = cache(0, 0, 1, 10, 2, 20);
        cache.assign(3, 10);
        assertThat(cache.epochEntries()).isEqualTo(entries(0, 0, 3, 10));
    }

    @Test
    @DisplayName("LOG-8 assign of a lower epoch removes tail entries whose epoch is at or above it")
    void assignLowerEpochRemovesTailByEpoch() {
        LeaderEpochCache cache = cache(0, 0, 2, 10, 5, 20);
        cache.assign(2, 30);
        assertThat(cache.epochEntries()).isEqualTo(entries(0, 0, 2, 30));
    }

    @Test
    @DisplayName("LOG-8 assign of the latest epoch at a smaller offset than earlier entries removes them too")
    void assignSameEpochBelowEarlierEntries() {
        LeaderEpochCache cache = cache(0, 0, 1, 10, 2, 20);
        cache.assign(2, 0);
        assertThat(cache.epochEntries()).isEqualTo(entries(2, 0));
    }

    @Test
    @DisplayName("LOG-8 assign rejects a negative epoch or offset without a change")
    void assignRejectsNegative() {
        LeaderEpochCache cache = cache(0, 0);
        assertThatThrownBy(() -> cache.assign(-1, 5)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("orders-3");
        assertThatThrownBy(() -> cache.assign(1, -5)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("orders-3");
        assertThat(cache.epochEntries()).isEqualTo(entries(0, 0));
    }

    @Test
    @DisplayName("LOG-8 LOG-9 assign is written to leader-epoch-checkpoint before it returns")
    void assignPersistsSynchronously() throws IOException {
        LeaderEpochCache cache = cache(0, 0);
        cache.assign(1, 10);
        assertThat(Files.readAllLines(file())).containsExactly("0", "2", "0 0", "1 10");
        assertThat(LeaderEpochCache.load(file(), TP).epochEntries()).isEqualTo(entries(0, 0, 1, 10));
    }

    // ---- endOffsetFor: the seed's example cache 0 0 / 1 10, LEO 15 ----

    @Test
    @DisplayName("LOG-8 endOffsetFor the latest epoch is (latestEpoch, LEO)")
    void endOffsetForLatest() {
        LeaderEpochCache cache = cache(0, 0, 1, 10);
        assertThat(cache.endOffsetFor(1, 15)).isEqualTo(new EpochEndOffset(1, 15));
    }

    @Test
    @DisplayName("LOG-8 endOffsetFor an earlier epoch ends where the next epoch starts (seed: epoch 0 ends at 10)")
    void endOffsetForEarlier() {
        LeaderEpochCache cache = cache(0, 0, 1, 10);
        assertThat(cache.endOffsetFor(0, 15)).isEqualTo(new EpochEndOffset(0, 10));
    }

    @Test
    @DisplayName("LOG-8 endOffsetFor an unknown epoch between known ones is (largest known epoch below, start of the next)")
    void endOffsetForGap() {
        LeaderEpochCache cache = cache(1, 10, 3, 20, 6, 40);
        assertThat(cache.endOffsetFor(2, 50)).isEqualTo(new EpochEndOffset(1, 20));
        assertThat(cache.endOffsetFor(4, 50)).isEqualTo(new EpochEndOffset(3, 40));
        assertThat(cache.endOffsetFor(5, 50)).isEqualTo(new EpochEndOffset(3, 40));
    }

    @Test
    @DisplayName("LOG-8 endOffsetFor an epoch below every known one is (requested, start of the first epoch)")
    void endOffsetForBelowAll() {
        LeaderEpochCache cache = cache(2, 10, 3, 20);
        assertThat(cache.endOffsetFor(0, 25)).isEqualTo(new EpochEndOffset(0, 10));
        assertThat(cache.endOffsetFor(1, 25)).isEqualTo(new EpochEndOffset(1, 10));
    }

    @Test
    @DisplayName("LOG-8 endOffsetFor an epoch above every known one, UNDEFINED_EPOCH or an empty cache is (-1, -1)")
    void endOffsetForUndefined() {
        LeaderEpochCache cache = cache(0, 0, 1, 10);
        assertThat(cache.endOffsetFor(2, 15)).isEqualTo(EpochEndOffset.UNDEFINED);
        assertThat(cache.endOffsetFor(EpochEndOffset.UNDEFINED_EPOCH, 15)).isEqualTo(EpochEndOffset.UNDEFINED);
        assertThat(LeaderEpochCache.inMemory(TP).endOffsetFor(0, 0)).isEqualTo(new EpochEndOffset(-1, -1L));
    }

    // ---- truncation, lookup, clear ----

    @Test
    @DisplayName("LOG-8 truncateFromEnd removes entries starting at or after the end offset, and persists")
    void truncateFromEnd() {
        LeaderEpochCache cache = cache(0, 0, 1, 10, 2, 20);
        cache.truncateFromEnd(25);
        assertThat(cache.epochEntries()).isEqualTo(entries(0, 0, 1, 10, 2, 20));
        cache.truncateFromEnd(20);
        assertThat(cache.epochEntries()).isEqualTo(entries(0, 0, 1, 10));
        cache.truncateFromEnd(5);
        assertThat(cache.epochEntries()).isEqualTo(entries(0, 0));
        assertThat(LeaderEpochCache.load(file(), TP).epochEntries()).isEqualTo(entries(0, 0));
        cache.truncateFromEnd(0);
        assertThat(cache.isEmpty()).isTrue();
        assertThatThrownBy(() -> cache.truncateFromEnd(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    @DisplayName("LOG-8 truncateFromStart keeps the last entry starting at or below o, rewritten to start at o")
    void truncateFromStart() {
        LeaderEpochCache cache = cache(0, 0, 1, 10, 2, 20);
        cache.truncateFromStart(15);
        assertThat(cache.epochEntries()).isEqualTo(entries(1, 15, 2, 20));
        cache.truncateFromStart(20);
        assertThat(cache.epochEntries()).isEqualTo(entries(2, 20));
        cache.truncateFromStart(5);
        assertThat(cache.epochEntries()).isEqualTo(entries(2, 20));
        cache.truncateFromStart(100);
        assertThat(cache.epochEntries()).isEqualTo(entries(2, 100));
        assertThat(LeaderEpochCache.load(file(), TP).epochEntries()).isEqualTo(entries(2, 100));
    }

    @Test
    @DisplayName("LOG-8 epochForOffset is the epoch of the last entry starting at or below the offset")
    void epochForOffset() {
        LeaderEpochCache cache = cache(1, 10, 3, 20);
        assertThat(cache.epochForOffset(5)).isEmpty();
        assertThat(cache.epochForOffset(10)).hasValue(1);
        assertThat(cache.epochForOffset(19)).hasValue(1);
        assertThat(cache.epochForOffset(20)).hasValue(3);
        assertThat(cache.epochForOffset(1000)).hasValue(3);
    }

    @Test
    @DisplayName("LOG-8 clear empties the cache and the file")
    void clear() throws IOException {
        LeaderEpochCache cache = cache(0, 0, 1, 10);
        cache.clear();
        assertThat(cache.isEmpty()).isTrue();
        assertThat(cache.latestEpoch()).isEmpty();
        assertThat(Files.readAllLines(file())).containsExactly("0", "0");
    }

    // ---- loading ----

    @Test
    @DisplayName("LOG-9 a missing leader-epoch-checkpoint loads an empty cache")
    void loadMissing() {
        LeaderEpochCache cache = LeaderEpochCache.load(file(), TP);
        assertThat(cache.isEmpty()).isTrue();
        assertThat(cache.file()).contains(file());
        assertThat(LeaderEpochCache.inMemory(TP).file()).isEmpty();
    }

    @Test
    @DisplayName("LOG-9 INV-8 a checkpoint whose entries are not strictly increasing refuses to load, naming file and line")
    void loadNonMonotonic() throws IOException {
        Files.writeString(file(), "0\n3\n0 0\n2 10\n1 20\n");
        assertThatThrownBy(() -> LeaderEpochCache.load(file(), TP))
                .isInstanceOfSatisfying(CorruptCheckpointException.class, e -> assertThat(e.lineNumber()).isEqualTo(5))
                .hasMessageContaining(file().toString()).hasMessageContaining("orders-3");
        Files.writeString(file(), "0\n2\n0 10\n1 10\n");
        assertThatThrownBy(() -> LeaderEpochCache.load(file(), TP))
                .isInstanceOfSatisfying(CorruptCheckpointException.class, e -> assertThat(e.lineNumber()).isEqualTo(4));
        Files.writeString(file(), "0\n2\n1 0\n1 10\n");
        assertThatThrownBy(() -> LeaderEpochCache.load(file(), TP))
                .isInstanceOfSatisfying(CorruptCheckpointException.class, e -> assertThat(e.lineNumber()).isEqualTo(4));
    }

    @Test
    @DisplayName("LOG-9 a garbage leader-epoch-checkpoint line refuses to load, naming file and line")
    void loadGarbage() throws IOException {
        Files.writeString(file(), "0\n2\n0 0\n1 ten\n");
        assertThatThrownBy(() -> LeaderEpochCache.load(file(), TP))
                .isInstanceOfSatisfying(CorruptCheckpointException.class, e -> assertThat(e.lineNumber()).isEqualTo(4))
                .hasMessageContaining("line 4");
    }

    @Test
    @DisplayName("LOG-8 a failed write changes nothing in memory")
    void failedWriteChangesNothing() throws IOException {
        LeaderEpochCache cache = cache(0, 0);
        // Make the atomic rename impossible: the temp file's name is taken by a non-empty directory.
        Path tmp = dir.resolve(LeaderEpochCache.CHECKPOINT_FILE_NAME + ".tmp");
        Files.createDirectories(tmp.resolve("blocker"));
        assertThatThrownBy(() -> cache.assign(1, 10)).hasMessageContaining(LeaderEpochCache.CHECKPOINT_FILE_NAME);
        assertThat(cache.epochEntries()).isEqualTo(entries(0, 0));
        assertThat(LeaderEpochCache.load(file(), TP).epochEntries()).isEqualTo(entries(0, 0));
    }

    /** Makes every later checkpoint write fail: the temp file's name is taken by a non-empty directory. */
    private void breakCheckpointWrites() throws IOException {
        Files.createDirectories(dir.resolve(LeaderEpochCache.CHECKPOINT_FILE_NAME + ".tmp").resolve("blocker"));
    }

    @Test
    @DisplayName("LOG-8 assign of the latest epoch at its own start offset writes nothing, so a broken disk does not fail it")
    void assignSameEntryWritesNothing() throws IOException {
        LeaderEpochCache cache = cache(0, 0, 1, 10);
        breakCheckpointWrites();
        cache.assign(1, 10);
        cache.assign(1, 11);
        assertThat(cache.epochEntries()).isEqualTo(entries(0, 0, 1, 10));
        assertThatThrownBy(() -> cache.assign(1, 9)).hasMessageContaining(LeaderEpochCache.CHECKPOINT_FILE_NAME);
    }

    @Test
    @DisplayName("LOG-8 truncateFromStart at the first entry's start changes and writes nothing")
    void truncateFromStartAtFirstEntryWritesNothing() throws IOException {
        LeaderEpochCache cache = cache(1, 10, 2, 20);
        breakCheckpointWrites();
        cache.truncateFromStart(10);
        cache.truncateFromStart(3);
        assertThat(cache.epochEntries()).isEqualTo(entries(1, 10, 2, 20));
        assertThatThrownBy(() -> cache.truncateFromStart(11)).hasMessageContaining(LeaderEpochCache.CHECKPOINT_FILE_NAME);
    }

    @Test
    @DisplayName("LOG-8 isEmpty is false once an entry is assigned and true again after clear")
    void isEmptyFollowsEntries() {
        LeaderEpochCache cache = LeaderEpochCache.inMemory(TP);
        assertThat(cache.isEmpty()).isTrue();
        cache.assign(0, 0);
        assertThat(cache.isEmpty()).isFalse();
        cache.clear();
        assertThat(cache.isEmpty()).isTrue();
    }

    @Test
    @DisplayName("LOG-8 a change made on one thread releases the cache for a change on another (bounded wait)")
    void mutationLockReleasedAcrossThreads() throws Exception {
        LeaderEpochCache cache = cache(0, 0);
        java.util.concurrent.ExecutorService first = java.util.concurrent.Executors.newSingleThreadExecutor();
        java.util.concurrent.ExecutorService second = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            first.submit(() -> cache.assign(1, 10)).get(10, java.util.concurrent.TimeUnit.SECONDS);
            second.submit(() -> cache.assign(2, 20)).get(10, java.util.concurrent.TimeUnit.SECONDS);
            first.submit(() -> cache.truncateFromEnd(20)).get(10, java.util.concurrent.TimeUnit.SECONDS);
            second.submit(() -> cache.truncateFromStart(5)).get(10, java.util.concurrent.TimeUnit.SECONDS);
        } finally {
            first.shutdownNow();
            second.shutdownNow();
        }
        assertThat(cache.epochEntries()).isEqualTo(entries(0, 5, 1, 10));
    }

    // ---- recovery (assignNewerEpochs) ----

    @Test
    @DisplayName("LOG-7 LOG-8 recovery rebuilds an empty cache from the epoch starts found in the batches, in one write")
    void assignNewerEpochsRebuildsEmptyCache() {
        LeaderEpochCache cache = cache();
        List<EpochEntry> added = cache.assignNewerEpochs(entries(0, 0, 2, 7, 5, 30));
        assertThat(added).isEqualTo(entries(0, 0, 2, 7, 5, 30));
        assertThat(cache.epochEntries()).isEqualTo(entries(0, 0, 2, 7, 5, 30));
        assertThat(LeaderEpochCache.load(file(), TP).epochEntries()).isEqualTo(entries(0, 0, 2, 7, 5, 30));
    }

    @Test
    @DisplayName("LOG-7 LOG-8 recovery catches a lagging checkpoint up; epochs already known keep their recorded start offsets")
    void assignNewerEpochsKeepsKnownEpochs() {
        LeaderEpochCache cache = cache(0, 0, 1, 10);
        // The batches show epoch 1 from offset 12 (its first batches were truncated away) and epoch 3 from 40.
        List<EpochEntry> added = cache.assignNewerEpochs(entries(0, 0, 1, 12, 3, 40));
        assertThat(added).isEqualTo(entries(3, 40));
        assertThat(cache.epochEntries()).isEqualTo(entries(0, 0, 1, 10, 3, 40));
        assertThat(LeaderEpochCache.load(file(), TP).epochEntries()).isEqualTo(entries(0, 0, 1, 10, 3, 40));
    }

    @Test
    @DisplayName("LOG-7 LOG-8 recovery: a latest entry at or above a newer epoch's start (it wrote nothing there) gives way to it")
    void assignNewerEpochsReplacesEmptyLatestEpoch() {
        LeaderEpochCache cache = cache(0, 0, 1, 50);
        assertThat(cache.assignNewerEpochs(entries(2, 50))).isEqualTo(entries(2, 50));
        assertThat(cache.epochEntries()).isEqualTo(entries(0, 0, 2, 50));
    }

    @Test
    @DisplayName("LOG-7 recovery that finds no newer epoch changes and writes nothing")
    void assignNewerEpochsNothingNewWritesNothing() throws IOException {
        LeaderEpochCache cache = cache(0, 0, 4, 10);
        breakCheckpointWrites();
        assertThat(cache.assignNewerEpochs(entries(0, 0, 4, 11))).isEmpty();
        assertThat(cache.assignNewerEpochs(List.of())).isEmpty();
        assertThat(cache.epochEntries()).isEqualTo(entries(0, 0, 4, 10));
    }

    @Test
    @DisplayName("INV-8 concurrent readers always see a strictly increasing snapshot while a writer assigns and truncates")
    void concurrentReadersSeeConsistentSnapshots() throws Exception {
        LeaderEpochCache cache = LeaderEpochCache.inMemory(TP);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(3);
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        try {
            java.util.concurrent.Future<?> writer = pool.submit(() -> {
                for (int epoch = 0; epoch < 500; epoch++) {
                    cache.assign(epoch, epoch * 10L);
                    if (epoch > 0 && epoch % 7 == 0) {
                        cache.truncateFromEnd(epoch * 10L - 5);
                    }
                    if (epoch % 11 == 0) {
                        cache.truncateFromStart(epoch * 5L);
                    }
                }
                done.set(true);
            });
            List<java.util.concurrent.Future<Integer>> readers = new java.util.ArrayList<>();
            for (int r = 0; r < 2; r++) {
                readers.add(pool.submit(() -> {
                    int checks = 0;
                    while (!done.get() || checks == 0) {
                        List<EpochEntry> snapshot = cache.epochEntries();
                        for (int i = 1; i < snapshot.size(); i++) {
                            assertThat(snapshot.get(i).epoch()).isGreaterThan(snapshot.get(i - 1).epoch());
                            assertThat(snapshot.get(i).startOffset()).isGreaterThan(snapshot.get(i - 1).startOffset());
                        }
                        checks++;
                    }
                    return checks;
                }));
            }
            writer.get(60, java.util.concurrent.TimeUnit.SECONDS);
            for (java.util.concurrent.Future<Integer> reader : readers) {
                assertThat(reader.get(60, java.util.concurrent.TimeUnit.SECONDS)).isPositive();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(cache.latestEpoch()).hasValue(499);
    }
}
