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

package dev.insync.replication.log.segment;

import dev.insync.replication.log.FileSync;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.RecordBatchBuilder;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class OpenFileBudgetTest {

    @TempDir
    Path dir;

    private static MemoryRecords batch(long base, String value) {
        RecordBatchBuilder builder = new RecordBatchBuilder(base);
        builder.append(1_000L, null, value.getBytes(StandardCharsets.UTF_8));
        return builder.build();
    }

    @Test
    @DisplayName("LOG-2 LOG-3 segments under an open-file budget of 2: at most 2 descriptors held, every segment still"
            + " appends and reads its own bytes, closed channels reopen on use")
    void boundedDescriptors() throws IOException {
        OpenFileBudget budget = new OpenFileBudget(2);
        List<LogSegment> segments = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            Path d = Files.createDirectories(dir.resolve("p-" + i));
            segments.add(LogSegment.create(d, 0, 4096, 1024, FileSync.withoutFsync(), budget));
            assertThat(budget.held()).isLessThanOrEqualTo(2);
        }
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < segments.size(); i++) {
                segments.get(i).append(batch(round, "segment " + i + " round " + round).buffer());
                assertThat(budget.held()).isLessThanOrEqualTo(2);
            }
        }
        for (int i = 0; i < segments.size(); i++) {
            for (int round = 0; round < 3; round++) {
                ByteBuffer read = segments.get(i).read(round, 1 << 20, round + 1, true);
                MemoryRecords records = MemoryRecords.readableRecords(read);
                assertThat(records.batches()).hasSize(1);
                assertThat(records.batches().get(0).baseOffset()).isEqualTo(round);
                assertThat(StandardCharsets.UTF_8.decode(records.batches().get(0).records().get(0).value()).toString())
                        .isEqualTo("segment " + i + " round " + round);
                assertThat(budget.held()).isLessThanOrEqualTo(2);
            }
        }
        assertThat(budget.closedByBudget()).as("channels were closed and reopened").isPositive();
        for (LogSegment s : segments) {
            s.close();
        }
        assertThat(budget.held()).isZero();
    }

    @Test
    @DisplayName("LOG-2 an open-file budget never closes a channel while an operation is using it")
    void neverClosesInUse() throws IOException {
        OpenFileBudget budget = new OpenFileBudget(1);
        Path a = Files.createFile(dir.resolve("a.log"));
        Path b = Files.createFile(dir.resolve("b.log"));
        SegmentChannel first = SegmentChannel.open(a, budget);
        SegmentChannel second = SegmentChannel.open(b, budget);
        first.writeFully(ByteBuffer.wrap(new byte[] {1, 2, 3}), 0);
        assertThat(first.isHeld()).isTrue();
        // While the first channel runs an operation (here: a read that opens the second channel from
        // inside it), the budget may not take its descriptor, even though that leaves it over the bound.
        first.runForTest(() -> {
            try {
                second.writeFully(ByteBuffer.wrap(new byte[] {4}), 0);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            assertThat(first.isHeld()).as("in use: not closed, though the bound is 1").isTrue();
            assertThat(second.isHeld()).as("idle again after its write: closed to get back under the bound").isFalse();
            assertThat(budget.held()).isEqualTo(1);
        });
        second.writeFully(ByteBuffer.wrap(new byte[] {5}), 1);
        assertThat(budget.held()).isEqualTo(1);
        assertThat(first.isHeld()).isFalse();
        assertThat(Files.readAllBytes(a)).containsExactly(1, 2, 3);
        assertThat(Files.readAllBytes(b)).containsExactly(4, 5);
        first.close();
        second.close();
        assertThat(budget.held()).isZero();
    }

    @Test
    @DisplayName("LOG-2 an open-file budget needs at least one file; unbounded and per-directory budgets say their limit")
    void limits() {
        assertThatThrownBy(() -> new OpenFileBudget(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("An open-file budget needs at least one file, got 0");
        OpenFileBudget one = new OpenFileBudget(1);
        assertThat(one.limit()).isEqualTo(1);
        assertThat(one).hasToString("OpenFileBudget(0 of 1 open)");
        assertThat(OpenFileBudget.unbounded().limit()).isEqualTo(Integer.MAX_VALUE);
        assertThat(OpenFileBudget.unbounded()).hasToString("OpenFileBudget(0 of unbounded open)");
        // A quarter of the process's descriptor limit, never fewer than 64.
        assertThat(OpenFileBudget.forLogDirectory().limit()).isGreaterThanOrEqualTo(64);
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.UnixOperatingSystemMXBean unix && unix.getMaxFileDescriptorCount() / 4 > 64) {
            assertThat((long) OpenFileBudget.forLogDirectory().limit())
                    .isEqualTo(Math.min(Integer.MAX_VALUE, unix.getMaxFileDescriptorCount() / 4));
        }
    }

    @Test
    @DisplayName("LOG-2 over its limit the budget closes the least recently used idle file, giving a file used since"
            + " the last pass a second chance")
    void closesTheLeastRecentlyUsed() throws IOException {
        OpenFileBudget budget = new OpenFileBudget(2);
        SegmentChannel a = SegmentChannel.open(Files.createFile(dir.resolve("a.log")), budget);
        SegmentChannel b = SegmentChannel.open(Files.createFile(dir.resolve("b.log")), budget);
        SegmentChannel c = SegmentChannel.open(Files.createFile(dir.resolve("c.log")), budget);
        a.writeFully(ByteBuffer.wrap(new byte[] {1}), 0);
        b.writeFully(ByteBuffer.wrap(new byte[] {2}), 0);
        assertThat(budget.held()).isEqualTo(2);
        assertThat(budget.closedByBudget()).isZero();
        // Both were used once; the pass clears both marks, then closes the oldest, a.
        c.writeFully(ByteBuffer.wrap(new byte[] {3}), 0);
        assertThat(budget.held()).isEqualTo(2);
        assertThat(budget.closedByBudget()).isEqualTo(1);
        assertThat(a.isHeld()).isFalse();
        assertThat(b.isHeld()).isTrue();
        assertThat(c.isHeld()).isTrue();
        // That pass cleared every mark. b is used again, c is not: reopening a closes c, and b gets its second chance.
        b.writeFully(ByteBuffer.wrap(new byte[] {5}), 1);
        a.writeFully(ByteBuffer.wrap(new byte[] {4}), 1);
        assertThat(budget.closedByBudget()).isEqualTo(2);
        assertThat(c.isHeld()).isFalse();
        assertThat(b.isHeld()).isTrue();
        assertThat(a.isHeld()).isTrue();
        // a was used since that pass, b was not: opening c closes b.
        c.writeFully(ByteBuffer.wrap(new byte[] {6}), 1);
        assertThat(budget.closedByBudget()).isEqualTo(3);
        assertThat(b.isHeld()).isFalse();
        assertThat(Files.readAllBytes(dir.resolve("b.log"))).containsExactly(2, 5);
        assertThat(Files.readAllBytes(dir.resolve("c.log"))).containsExactly(3, 6);
        assertThat(budget).hasToString("OpenFileBudget(2 of 2 open)");
        assertThat(Files.readAllBytes(dir.resolve("a.log"))).containsExactly(1, 4);
        a.close();
        b.close();
        c.close();
        assertThat(budget.held()).isZero();
        assertThatThrownBy(() -> a.readFully(ByteBuffer.allocate(1), 0)).isInstanceOf(java.nio.channels.ClosedChannelException.class);
    }

    @Test
    @DisplayName("LOG-7 a read past the end of a segment file fails naming the file, the position and what was missing")
    void readPastTheEnd() throws IOException {
        Path file = Files.write(dir.resolve("short.log"), new byte[] {1, 2, 3});
        SegmentChannel channel = SegmentChannel.open(file, OpenFileBudget.unbounded());
        ByteBuffer dst = ByteBuffer.allocate(5);
        assertThatThrownBy(() -> channel.readFully(dst, 1)).isInstanceOf(java.io.EOFException.class)
                .hasMessage("Unexpected end of " + file + " at position 3 while reading 3 more bytes");
        ByteBuffer two = ByteBuffer.allocate(2);
        channel.readFully(two, 1);
        assertThat(two.array()).containsExactly(2, 3);
        assertThat(channel.size()).isEqualTo(3);
        channel.truncate(1);
        assertThat(channel.size()).isEqualTo(1);
        channel.close();
        channel.close();
        assertThatThrownBy(() -> SegmentChannel.open(dir.resolve("absent.log"), OpenFileBudget.unbounded()))
                .isInstanceOf(java.nio.file.NoSuchFileException.class).hasMessageContaining("absent.log");
    }
}
