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

package dev.insync.replication.log.record;

import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The framing helpers log recovery uses to scan segment files (LOG-1 framing, LOG-5 corruption). */
class RecordBatchFileTest {

    private static MemoryRecords batch(long base, String... values) {
        RecordBatchBuilder builder = new RecordBatchBuilder(base).partitionLeaderEpoch(1);
        for (String v : values) {
            builder.append(10, null, v.getBytes(StandardCharsets.UTF_8));
        }
        return builder.build();
    }

    private static Path write(Path file, ByteBuffer... parts) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            for (ByteBuffer p : parts) {
                while (p.hasRemaining()) {
                    ch.write(p);
                }
            }
        }
        return file;
    }

    @Test
    @DisplayName("LOG-1 readFrom walks a segment batch by batch and stops with null at a torn tail")
    void scanWithTornTail(@TempDir Path dir) throws IOException {
        MemoryRecords a = batch(0, "a", "b");
        MemoryRecords c = batch(2, "c");
        ByteBuffer torn = c.buffer().limit(c.sizeInBytes() - 4);
        Path file = write(dir.resolve("seg.log"), a.buffer(), c.buffer(), torn);
        List<Long> bases = new ArrayList<>();
        long pos = 0;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            RecordBatch next;
            while ((next = RecordBatch.readFrom(ch, pos)) != null) {
                assertThat(next.isValid()).isTrue();
                bases.add(next.baseOffset());
                pos += next.sizeInBytes();
            }
            assertThat(ch.position()).as("absolute reads leave the channel position alone").isZero();
        }
        assertThat(bases).containsExactly(0L, 2L);
        assertThat(pos).as("valid prefix ends where the torn batch starts").isEqualTo(a.sizeInBytes() + c.sizeInBytes());
    }

    @Test
    @DisplayName("LOG-5 readFrom treats an impossible batchLength past the file end as a torn tail without allocating it")
    void hugeLengthIsTornTail(@TempDir Path dir) throws IOException {
        ByteBuffer bytes = batch(0, "a").buffer();
        ByteBuffer copy = ByteBuffer.allocate(bytes.remaining()).put(bytes).flip();
        copy.putInt(RecordBatch.LENGTH_OFFSET, Integer.MAX_VALUE - RecordBatch.LOG_OVERHEAD);
        Path file = write(dir.resolve("seg.log"), copy);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            assertThat(RecordBatch.readFrom(ch, 0)).isNull();
            assertThat(RecordBatch.readFrom(ch, ch.size() - 3)).isNull();
        }
    }

    @Test
    @DisplayName("LOG-5 readFrom rejects a batch with a wrong magic as CORRUPT_MESSAGE naming the file position")
    void wrongMagicInFile(@TempDir Path dir) throws IOException {
        MemoryRecords a = batch(0, "a");
        ByteBuffer bad = ByteBuffer.allocate(a.sizeInBytes()).put(batch(1, "b").buffer()).flip();
        bad.put(RecordBatch.MAGIC_OFFSET, (byte) 1);
        Path file = write(dir.resolve("seg.log"), a.buffer(), bad);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            assertThat(RecordBatch.readFrom(ch, 0).baseOffset()).isZero();
            assertThatThrownBy(() -> RecordBatch.readFrom(ch, a.sizeInBytes()))
                    .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.CORRUPT_MESSAGE))
                    .hasMessageContaining("file position " + a.sizeInBytes()).hasMessageContaining("magic 1");
        }
    }

    @Test
    @DisplayName("LOG-1 batchSizeAt frames batches inside a larger buffer at any position")
    void batchSizeAtOffsetPositions() {
        MemoryRecords a = batch(0, "a");
        MemoryRecords b = batch(1, "bb", "cc");
        ByteBuffer buf = ByteBuffer.allocate(3 + a.sizeInBytes() + b.sizeInBytes());
        buf.put(new byte[3]).put(a.buffer()).put(b.buffer()).flip();
        assertThat(RecordBatch.batchSizeAt(buf, 3)).isEqualTo(a.sizeInBytes());
        assertThat(RecordBatch.batchSizeAt(buf, 3 + a.sizeInBytes())).isEqualTo(b.sizeInBytes());
        assertThat(RecordBatch.batchSizeAt(buf, buf.limit())).isEqualTo(-1);
        RecordBatch wrapped = RecordBatch.wrap(buf.duplicate().position(3 + a.sizeInBytes()));
        assertThat(wrapped.baseOffset()).isEqualTo(1);
        assertThat(wrapped.recordCount()).isEqualTo(2);
        assertThat(buf.position()).isZero();
    }
}
