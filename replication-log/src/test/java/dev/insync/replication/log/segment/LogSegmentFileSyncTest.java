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
import dev.insync.replication.log.StorageOperation;
import dev.insync.replication.log.record.RecordBatchBuilder;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * LOG-11: every write, truncation, flush and deletion of a segment's files is announced to its
 * directory's {@link FileSync} before it happens (its durability setting and fault hook), in the
 * order the rule fixes for a flush; an announcement that fails stops the change before the data file
 * is touched.
 */
class LogSegmentFileSyncTest {

    @TempDir
    Path dir;

    /** Records every announced operation; fails the writes of one file while {@link #failWritesOf} is set. */
    private final List<StorageOperation> operations = new ArrayList<>();
    private Path failWritesOf;

    private FileSync fileSync() {
        return FileSync.withoutFsync().withFaults(op -> {
            operations.add(op);
            if (op.kind() == StorageOperation.Kind.WRITE && op.file().equals(failWritesOf)) {
                throw new IOException("injected write failure on " + op.file());
            }
        });
    }

    private static ByteBuffer batch(long base) {
        RecordBatchBuilder builder = new RecordBatchBuilder(base);
        builder.append(100 + base, null, new byte[20]);
        builder.append(101 + base, null, new byte[20]);
        return builder.build().buffer();
    }

    private List<StorageOperation> drain() {
        List<StorageOperation> out = List.copyOf(operations);
        operations.clear();
        return out;
    }

    private static StorageOperation write(Path file) {
        return new StorageOperation(StorageOperation.Kind.WRITE, file, false);
    }

    private static StorageOperation flush(Path file) {
        return new StorageOperation(StorageOperation.Kind.FLUSH, file, false);
    }

    @Test
    @DisplayName("LOG-11 a segment announces its writes and flushes: the data, then the offset index, then the time index")
    void log11WritesAndFlushesAreAnnounced() throws IOException {
        LogSegment segment = LogSegment.create(dir, 0, 1, 4096, fileSync());
        Path log = segment.logFile();
        Path index = segment.offsetIndex().file();
        Path timeIndex = segment.timeIndex().file();
        assertThat(drain()).startsWith(write(log)).contains(write(index), write(timeIndex));

        segment.append(batch(0));
        assertThat(drain()).containsExactly(write(log));
        segment.append(batch(2));
        assertThat(drain()).as("the second batch gets index entries").containsExactly(write(log), write(index), write(timeIndex));

        segment.flush();
        assertThat(drain()).containsExactly(flush(log), flush(index), flush(timeIndex));
        segment.flushIndexes();
        assertThat(drain()).containsExactly(flush(index), flush(timeIndex));

        assertThat(segment.truncateTo(2)).isPositive();
        assertThat(drain()).contains(write(log));
        segment.deleteFiles();
        assertThat(drain()).contains(write(log), write(index), write(timeIndex));
        assertThat(log).doesNotExist();
        assertThat(index).doesNotExist();
        assertThat(timeIndex).doesNotExist();
    }

    @Test
    @DisplayName("LOG-11 a failed write announcement stops an append, a truncation, a recovery cut and a deletion before"
            + " the data file changes")
    void log11FailedAnnouncementChangesNoData() throws IOException {
        LogSegment segment = LogSegment.create(dir, 0, 1 << 20, 4096, fileSync());
        Path log = segment.logFile();
        segment.append(batch(0));
        segment.append(batch(2));
        int size = segment.size();
        failWritesOf = log;

        assertThatThrownBy(() -> segment.append(batch(4))).isInstanceOf(IOException.class)
                .hasMessage("injected write failure on " + log);
        assertThat(segment.size()).isEqualTo(size);
        assertThat(Files.size(log)).isEqualTo(size);

        assertThatThrownBy(() -> segment.truncateTo(2)).isInstanceOf(IOException.class);
        assertThat(Files.size(log)).isEqualTo(size);

        Files.write(log, new byte[30], java.nio.file.StandardOpenOption.APPEND);
        segment.closeWithoutWrites();
        LogSegment reopened = LogSegment.openUnchecked(dir, 0, 1 << 20, 4096, fileSync());
        assertThatThrownBy(reopened::recover).as("cutting the 30-byte tail is a write").isInstanceOf(IOException.class);
        assertThat(Files.size(log)).isEqualTo(size + 30);

        assertThatThrownBy(reopened::deleteFiles).isInstanceOf(IOException.class);
        assertThat(log).exists();

        failWritesOf = null;
        LogSegment again = LogSegment.openUnchecked(dir, 0, 1 << 20, 4096, fileSync());
        assertThat(again.recover().truncatedBytes()).isEqualTo(30);
        again.deleteFiles();
        assertThat(log).doesNotExist();
    }

    @Test
    @DisplayName("LOG-2 resizing a segment's indexes changes what they can hold; a truncation of a rolled segment"
            + " preallocates them again")
    void log2ResizeIndexes() throws IOException {
        LogSegment segment = LogSegment.create(dir, 0, 1, 4096, fileSync());
        segment.append(batch(0));
        segment.append(batch(2));
        segment.append(batch(4));
        segment.onBecomeInactiveSegment();
        assertThat(segment.offsetIndex().maxEntries()).isEqualTo(2);
        assertThat(segment.timeIndex().maxEntries()).isEqualTo(2);
        assertThat(segment.indexIsFull()).isTrue();
        segment.truncateTo(4);
        assertThat(segment.offsetIndex().maxEntries()).isEqualTo(4096 / OffsetIndex.ENTRY_SIZE);
        assertThat(segment.timeIndex().maxEntries()).isEqualTo(4096 / TimeIndex.ENTRY_SIZE);
        segment.resizeIndexes(240);
        assertThat(segment.offsetIndex().maxEntries()).isEqualTo(30);
        assertThat(segment.timeIndex().maxEntries()).isEqualTo(20);
        assertThat(Files.size(segment.offsetIndex().file())).isEqualTo(240);
        segment.close();
    }
}
