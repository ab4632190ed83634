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

package dev.insync.replication.log.checkpoint;

import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CheckpointFileTest {

    /** A plain "name number" entry used to exercise the generic file format. */
    record Item(String name, long value) {
    }

    static final EntryFormat<Item> ITEM = new EntryFormat<>() {
        @Override
        public String format(Item entry) {
            return entry.name() + " " + entry.value();
        }

        @Override
        public Item parse(String line) {
            String[] f = EntryFormat.fields(line, 2);
            return new Item(f[0], EntryFormat.nonNegativeLong(f[1], "value"));
        }
    };

    @TempDir
    Path dir;

    private CheckpointFile<Item> file() {
        return new CheckpointFile<>(dir.resolve("items"), ITEM);
    }

    @Test
    @DisplayName("LOG-9 round trip: version, count, one line per entry, read back in order")
    void roundTrip() throws IOException {
        CheckpointFile<Item> cp = file();
        List<Item> items = List.of(new Item("a", 3), new Item("b", 0), new Item("c", Long.MAX_VALUE));
        cp.write(items);
        assertThat(Files.readAllLines(cp.file())).containsExactly("0", "3", "a 3", "b 0", "c " + Long.MAX_VALUE);
        assertThat(cp.read()).isEqualTo(items);
        assertThat(new CheckpointFile<>(cp.file(), ITEM).read()).isEqualTo(items);
    }

    @Test
    @DisplayName("LOG-9 zero entries round trip")
    void emptyRoundTrip() throws IOException {
        CheckpointFile<Item> cp = file();
        cp.write(List.of(new Item("x", 1)));
        cp.write(List.of());
        assertThat(Files.readAllLines(cp.file())).containsExactly("0", "0");
        assertThat(cp.read()).isEmpty();
    }

    @Test
    @DisplayName("LOG-9 a missing file has no entries")
    void missingFile() {
        assertThat(file().read()).isEmpty();
    }

    @Test
    @DisplayName("LOG-9 a zero-byte file has no entries")
    void emptyFile() throws IOException {
        Files.createFile(dir.resolve("items"));
        assertThat(file().read()).isEmpty();
    }

    @Test
    @DisplayName("LOG-9 the write replaces atomically and leaves no temp file")
    void atomicReplaceLeavesNoTemp() throws IOException {
        CheckpointFile<Item> cp = file();
        cp.write(List.of(new Item("a", 1)));
        cp.write(List.of(new Item("b", 2), new Item("c", 3)));
        assertThat(cp.read()).containsExactly(new Item("b", 2), new Item("c", 3));
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("items");
        }
    }

    @Test
    @DisplayName("LOG-9 a write failing half way leaves the old content intact and no temp file")
    void failedWriteKeepsOldContent() throws IOException {
        Path path = dir.resolve("items");
        new CheckpointFile<>(path, ITEM).write(List.of(new Item("old", 7)));
        byte[] before = Files.readAllBytes(path);
        EntryFormat<Item> failing = new EntryFormat<>() {
            @Override
            public String format(Item entry) {
                if (entry.name().equals("boom")) {
                    throw new IllegalArgumentException("cannot format " + entry);
                }
                // Enough bytes to be flushed into the temp file before the failure.
                return entry.name() + " " + entry.value();
            }

            @Override
            public Item parse(String line) {
                return ITEM.parse(line);
            }
        };
        List<Item> items = IntStream.range(0, 5000).mapToObj(i -> new Item("entry" + i, i)).collect(
                java.util.stream.Collectors.toCollection(java.util.ArrayList::new));
        items.add(new Item("boom", 1));
        CheckpointFile<Item> cp = new CheckpointFile<>(path, failing);
        assertThatThrownBy(() -> cp.write(items)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("boom");
        assertThat(Files.readAllBytes(path)).isEqualTo(before);
        assertThat(AtomicFileWrite.tempFileFor(path)).doesNotExist();
        assertThat(cp.read()).containsExactly(new Item("old", 7));
    }

    @Test
    @DisplayName("LOG-9 an entry formatting to two lines is refused and the old file stays")
    void multiLineEntryRefused() {
        CheckpointFile<Item> cp = file();
        cp.write(List.of(new Item("a", 1)));
        assertThatThrownBy(() -> cp.write(List.of(new Item("x\ny", 1)))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(cp.file().toString());
        assertThat(cp.read()).containsExactly(new Item("a", 1));
    }

    @Test
    @DisplayName("LOG-9 an I/O failure is a KAFKA_STORAGE_ERROR naming the file")
    void ioFailureNamesFile() {
        CheckpointFile<Item> cp = new CheckpointFile<>(dir.resolve("no-such-dir").resolve("items"), ITEM);
        assertThatThrownBy(() -> cp.write(List.of(new Item("a", 1))))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR))
                .hasMessageContaining("no-such-dir");
    }

    private CorruptCheckpointException corruptRead(String content) throws IOException {
        Path path = dir.resolve("items");
        Files.writeString(path, content);
        try {
            file().read();
        } catch (CorruptCheckpointException e) {
            assertThat(e.error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
            assertThat(e.file()).isEqualTo(path);
            assertThat(e.getMessage()).contains(path.toString());
            return e;
        }
        throw new AssertionError("expected a corrupt checkpoint error for " + content);
    }

    @Test
    @DisplayName("LOG-9 a bad version is an error naming the file and line 1")
    void badVersion() throws IOException {
        CorruptCheckpointException e = corruptRead("1\n1\na 1\n");
        assertThat(e.lineNumber()).isEqualTo(1);
        assertThat(e.getMessage()).contains("line 1").contains("version 1");
        assertThat(corruptRead("zero\n0\n").lineNumber()).isEqualTo(1);
    }

    @Test
    @DisplayName("LOG-9 a missing or garbage count is an error naming line 2")
    void badCount() throws IOException {
        assertThat(corruptRead("0\n").lineNumber()).isEqualTo(2);
        CorruptCheckpointException e = corruptRead("0\ntwo\na 1\nb 2\n");
        assertThat(e.lineNumber()).isEqualTo(2);
        assertThat(e.getMessage()).contains("line 2").contains("two");
        assertThat(corruptRead("0\n-1\n").lineNumber()).isEqualTo(2);
    }

    @Test
    @DisplayName("LOG-9 a count too high (fewer lines than announced) is an error naming the missing line")
    void countTooHigh() throws IOException {
        CorruptCheckpointException e = corruptRead("0\n3\na 1\nb 2\n");
        assertThat(e.lineNumber()).isEqualTo(5);
        assertThat(e.getMessage()).contains("line 5").contains("expected 3 entries but found only 2");
    }

    @Test
    @DisplayName("LOG-9 a count too low (more lines than announced) is an error naming the extra line")
    void countTooLow() throws IOException {
        CorruptCheckpointException e = corruptRead("0\n1\na 1\nb 2\n");
        assertThat(e.lineNumber()).isEqualTo(4);
        assertThat(e.getMessage()).contains("line 4").contains("more entries than the count 1");
    }

    @Test
    @DisplayName("LOG-9 a garbage entry line is an error naming its line")
    void garbageLine() throws IOException {
        CorruptCheckpointException e = corruptRead("0\n3\na 1\nb two\nc 3\n");
        assertThat(e.lineNumber()).isEqualTo(4);
        assertThat(e.getMessage()).contains("line 4").contains("b two");
        assertThat(corruptRead("0\n1\na  1\n").lineNumber()).isEqualTo(3);
        assertThat(corruptRead("0\n1\n\n").lineNumber()).isEqualTo(3);
        assertThat(corruptRead("0\n1\na 1 extra\n").lineNumber()).isEqualTo(3);
    }

    @Test
    @DisplayName("LOG-9 concurrent writes never interleave: the file is always one complete write")
    void concurrentWrites() throws Exception {
        CheckpointFile<Item> cp = file();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> futures = IntStream.range(0, 4).<Future<?>>mapToObj(t -> pool.submit(() -> {
                for (int i = 0; i < 20; i++) {
                    int n = t * 100 + i;
                    cp.write(List.of(new Item("w" + n, n), new Item("v" + n, n)));
                }
            })).toList();
            for (Future<?> f : futures) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        List<Item> result = cp.read();
        assertThat(result).hasSize(2);
        assertThat(result.get(0).value()).isEqualTo(result.get(1).value());
    }

    @Test
    @DisplayName("LOG-9 offset checkpoints are 'topic partition offset' lines, sorted, and reject duplicates")
    void offsetCheckpoint() throws IOException {
        OffsetCheckpointFile cp = new OffsetCheckpointFile(dir.resolve(OffsetCheckpointFile.REPLICATION_OFFSET_CHECKPOINT));
        TopicPartition b0 = new TopicPartition("b", 0);
        TopicPartition a1 = new TopicPartition("a-x", 1);
        TopicPartition a0 = new TopicPartition("a-x", 0);
        cp.write(Map.of(b0, 5L, a1, 10L, a0, 0L));
        assertThat(Files.readAllLines(cp.file())).containsExactly("0", "3", "a-x 0 0", "a-x 1 10", "b 0 5");
        assertThat(cp.read()).containsExactlyEntriesOf(new java.util.LinkedHashMap<>(Map.of(a0, 0L))
                {{ put(a1, 10L); put(b0, 5L); }});

        Files.writeString(cp.file(), "0\n2\nt 0 1\nt 0 2\n");
        assertThatThrownBy(cp::read).isInstanceOfSatisfying(CorruptCheckpointException.class,
                e -> assertThat(e.lineNumber()).isEqualTo(4)).hasMessageContaining("t-0 listed twice");
        Files.writeString(cp.file(), "0\n1\nt -1 1\n");
        assertThatThrownBy(cp::read).isInstanceOfSatisfying(CorruptCheckpointException.class,
                e -> assertThat(e.lineNumber()).isEqualTo(3));
        Files.writeString(cp.file(), "0\n1\nt 0 -5\n");
        assertThatThrownBy(cp::read).isInstanceOfSatisfying(CorruptCheckpointException.class,
                e -> assertThat(e.lineNumber()).isEqualTo(3)).hasMessageContaining("negative");
        assertThatThrownBy(() -> cp.write(Map.of(b0, -1L))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("b-0");
    }
}
