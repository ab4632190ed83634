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

package dev.insync.replication.log;

import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.Records;
import dev.insync.replication.log.segment.FileRecords;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * NET-3 against LOG-3: through the model's interleavings of appends, truncations, rolls, retention and
 * reopens, {@link Log#readFileRecords} returns exactly the batches {@link Log#read} copies, for any
 * start, byte bound and offset bound; and a file slice (or an open transfer of it) taken before an
 * action yields after it either the bytes it read or a failure, never other bytes.
 */
class LogFileRecordsPropertiesTest {

    /** How the held slices ended, over all runs: each outcome must occur, or the property proves little. */
    private static final class Outcomes {
        int sameBytes;
        int refused;
        int transferSame;
        int transferChanged;
    }

    /** JUnit deletes it after the test: each example's log lives in a directory under it. */
    @TempDir
    Path examples;

    @Test
    @DisplayName("LOG-3 NET-3 file slices equal heap reads for any bounds, and a held slice never yields other bytes after truncation, retention or reopen")
    void fileSlicesEqualHeapReadsAndNeverChangeUnderneath() {
        Outcomes outcomes = new Outcomes();
        qt().withExamples(80).forAll(LogModelPropertiesTest.actions(), longs().all())
                .checkAssert((actions, seed) -> run(examples, actions, new Random(seed), outcomes));
        assertThat(outcomes.sameBytes).isPositive();
        assertThat(outcomes.refused).isPositive();
        assertThat(outcomes.transferSame).isPositive();
        assertThat(outcomes.transferChanged).isPositive();
    }

    private static void run(Path examples, List<LogModelPropertiesTest.Action> actions, Random r, Outcomes outcomes) {
        LogModelPropertiesTest.State state;
        try {
            state = new LogModelPropertiesTest.State(Files.createTempDirectory(examples, "log-file-records-")
                    .resolve("model-0"));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        try {
            for (LogModelPropertiesTest.Action action : actions) {
                Held held = hold(state, r);
                state = action.run(state);
                if (held != null) {
                    held.check(outcomes);
                }
                compareReads(state, r);
            }
        } finally {
            state.close();
        }
    }

    /** A slice of what the log holds now, its expected bytes, and (half the time) a transfer opened on it. */
    private record Held(FileRecords slice, MemoryRecords expected, FileRecords.Transfer transfer) {
        void check(Outcomes outcomes) {
            try {
                assertThat(slice.toMemoryRecords()).isEqualTo(expected);
                outcomes.sameBytes++;
            } catch (ApiException e) {
                assertThat(e.error()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
                outcomes.refused++;
            }
            if (transfer != null) {
                try {
                    ByteBuffer bytes = ByteBuffer.allocate(transfer.size());
                    boolean read;
                    try {
                        transfer.readFully(bytes, 0);
                        read = true;
                    } catch (IOException e) {
                        read = false; // the file is shorter now: a truncation, which bytesUnchanged reports
                    }
                    if (transfer.bytesUnchanged()) {
                        assertThat(read).isTrue();
                        assertThat(MemoryRecords.readableRecords(bytes.flip())).isEqualTo(expected);
                        outcomes.transferSame++;
                    } else {
                        outcomes.transferChanged++;
                    }
                } finally {
                    transfer.close();
                }
            }
        }
    }

    private static Held hold(LogModelPropertiesTest.State s, Random r) {
        Log log = s.log;
        long start = log.logStartOffset();
        long leo = log.logEndOffset();
        if (start >= leo) {
            return null;
        }
        long from = start + (long) r.nextInt((int) Math.min(Integer.MAX_VALUE, leo - start));
        Records slice = log.readFileRecords(from, Integer.MAX_VALUE, leo);
        MemoryRecords expected = log.read(from, Integer.MAX_VALUE, leo).records();
        assertThat(slice).isInstanceOf(FileRecords.class);
        FileRecords file = (FileRecords) slice;
        FileRecords.Transfer transfer = null;
        if (r.nextBoolean()) {
            try {
                transfer = file.openTransfer();
            } catch (IOException e) {
                throw new AssertionError("A transfer of a slice just read must open", e);
            }
        }
        return new Held(file, expected, transfer);
    }

    /** Random reads, in and out of range: the file slice and the heap read agree, errors included. */
    private static void compareReads(LogModelPropertiesTest.State s, Random r) {
        Log log = s.log;
        long start = log.logStartOffset();
        long leo = log.logEndOffset();
        long hw = log.highWatermark();
        List<Long> starts = new ArrayList<>(List.of(start, leo, start - 1, leo + 1));
        for (int i = 0; i < 6; i++) {
            starts.add(start + (leo > start ? r.nextInt((int) (leo - start)) : 0));
        }
        int[] maxBytes = {0, 1, 61 + r.nextInt(300), r.nextInt(1200), Integer.MAX_VALUE};
        for (long from : starts) {
            if (from < 0) {
                continue;
            }
            for (int mb : maxBytes) {
                long[] bounds = {leo, hw, from + 1 + r.nextInt(8), Long.MAX_VALUE};
                for (long bound : bounds) {
                    MemoryRecords heap;
                    try {
                        heap = log.read(from, mb, bound).records();
                    } catch (ApiException e) {
                        assertThatThrownBy(() -> log.readFileRecords(from, mb, bound))
                                .isInstanceOf(ApiException.class)
                                .satisfies(t -> assertThat(((ApiException) t).error()).isEqualTo(e.error()));
                        continue;
                    }
                    Records file = log.readFileRecords(from, mb, bound);
                    assertThat(file.sizeInBytes()).as("size of the read at %d, %d bytes, bound %d", from, mb, bound)
                            .isEqualTo(heap.sizeInBytes());
                    assertThat(file.toMemoryRecords()).as("read at %d, %d bytes, bound %d", from, mb, bound)
                            .isEqualTo(heap);
                    if (heap.sizeInBytes() == 0) {
                        assertThat(file).isSameAs(MemoryRecords.EMPTY);
                    }
                }
            }
        }
    }
}
