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
}
