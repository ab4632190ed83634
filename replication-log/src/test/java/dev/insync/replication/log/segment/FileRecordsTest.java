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

import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.record.RecordBatchBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * NET-3: a {@link FileRecords} is a slice of one segment file, read without copying; its transfers
 * share one reference-counted read-only channel and know when the slice's bytes may no longer be
 * the ones read.
 */
class FileRecordsTest {

    @TempDir
    Path dir;

    private LogSegment segment;
    private int batchSize;

    @BeforeEach
    void fill() throws IOException {
        segment = LogSegment.create(dir, 0, 4096, 4096);
        for (int i = 0; i < 3; i++) {
            RecordBatchBuilder builder = new RecordBatchBuilder(2L * i);
            builder.append(100, null, new byte[] {(byte) i});
            builder.append(101, null, new byte[] {(byte) i});
            ByteBuffer batch = builder.build().buffer();
            batchSize = batch.remaining();
            segment.append(batch);
        }
    }

    @AfterEach
    void close() throws IOException {
        segment.close();
    }

    private FileRecords slice(long from) throws IOException {
        return (FileRecords) segment.readFileRecords(from, Integer.MAX_VALUE, Long.MAX_VALUE, false);
    }

    @Test
    @DisplayName("NET-3 a slice needs a position at or after 0 and at least one byte, and says which file it is of")
    void net3SliceBounds() {
        Path log = segment.logFile();
        assertThatThrownBy(() -> new FileRecords(segment, 0, 0, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Bad file slice at position 0, 0 bytes of " + log);
        assertThatThrownBy(() -> new FileRecords(segment, -1, 10, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Bad file slice at position -1, 10 bytes of " + log);
        FileRecords one = new FileRecords(segment, 0, 1, segment.truncations());
        assertThat(one.sizeInBytes()).isEqualTo(1);
        assertThat(one.file()).isEqualTo(log);
        assertThat(one.toString()).isEqualTo("FileRecords(00000000000000000000.log, position 0, 1 bytes)");
    }

    @Test
    @DisplayName("NET-3 a transfer reads exactly the slice: positional reads inside it, anything outside refused")
    void net3TransferReadsInsideTheSlice() throws IOException {
        FileRecords second = slice(2);
        assertThat(second.position()).isEqualTo(batchSize);
        assertThat(second.sizeInBytes()).isEqualTo(2 * batchSize);
        ByteBuffer expected = segment.read(2, Integer.MAX_VALUE, Long.MAX_VALUE, false);
        try (FileRecords.Transfer t = second.openTransfer()) {
            assertThat(t.position()).isEqualTo(batchSize);
            assertThat(t.size()).isEqualTo(2 * batchSize);
            ByteBuffer tail = ByteBuffer.allocate(batchSize);
            t.readFully(tail, batchSize);
            assertThat(tail.flip()).isEqualTo(expected.duplicate().position(batchSize));
            ByteBuffer none = ByteBuffer.allocate(0);
            t.readFully(none, 2 * batchSize);
            assertThatThrownBy(() -> t.readFully(ByteBuffer.allocate(1), 2 * batchSize))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("Read of 1 bytes at " + 2 * batchSize + " is outside the " + 2 * batchSize + " bytes of "
                            + second);
            assertThatThrownBy(() -> t.readFully(ByteBuffer.allocate(1), -1)).isInstanceOf(IllegalArgumentException.class);
            assertThat(t.bytesUnchanged()).isTrue();
        }
        assertThat(second.toMemoryRecords().buffer()).isEqualTo(expected);
    }

    @Test
    @DisplayName("NET-3 transfers share one channel: closing one (even twice) leaves the others open; the segment's close"
            + " closes it once the last is done")
    void net3TransfersShareOneChannel() throws IOException {
        FileRecords all = slice(0);
        FileRecords.Transfer a = all.openTransfer();
        FileRecords.Transfer b = all.openTransfer();
        assertThat(a.channel()).isSameAs(b.channel());
        a.close();
        a.close();
        a.close();
        assertThat(a.bytesUnchanged()).as("a closed transfer vouches for nothing").isFalse();
        assertThat(b.channel().isOpen()).isTrue();
        assertThat(b.bytesUnchanged()).isTrue();
        assertThat(segment.sendChannel().isOpen()).isTrue();
        segment.sendChannel().close();
        assertThat(b.channel().isOpen()).as("b still holds it").isTrue();
        assertThat(segment.sendChannel().isOpen()).isFalse();
        assertThatThrownBy(all::openTransfer).isInstanceOf(IOException.class)
                .hasMessage(segment.logFile() + " is closed: its segment was deleted, or its log closed");
        ByteBuffer dst = ByteBuffer.allocate(all.sizeInBytes());
        b.readFully(dst, 0);
        assertThat(dst.flip()).isEqualTo(segment.read(0, Integer.MAX_VALUE, Long.MAX_VALUE, false));
        b.close();
        assertThat(b.channel().isOpen()).as("the last reference closes it").isFalse();
    }

    @Test
    @DisplayName("NET-3 a send channel released more often than retained is a bug, reported naming the file")
    void net3OverReleaseIsRefused() throws IOException {
        SendChannel channel = new SendChannel(segment.logFile());
        assertThat(channel.isOpen()).isFalse();
        SendChannel.Handle h = channel.retain();
        assertThat(channel.retain()).isSameAs(h);
        channel.release(h);
        channel.release(h);
        assertThat(channel.isOpen()).isTrue();
        channel.close();
        assertThat(h.channel.isOpen()).isFalse();
        assertThatThrownBy(() -> channel.release(h)).isInstanceOf(IllegalStateException.class)
                .hasMessage("Send channel of " + segment.logFile() + " released more often than retained");
    }

    @Test
    @DisplayName("NET-3 a slice whose segment was truncated since the read is refused, as NOT_LEADER_OR_FOLLOWER for a"
            + " copy, naming file, position and size")
    void net3TruncatedSliceIsRefused() throws IOException {
        FileRecords last = slice(4);
        FileRecords.Transfer open = last.openTransfer();
        assertThat(segment.truncateTo(4)).isEqualTo(batchSize);
        assertThat(open.bytesUnchanged()).isFalse();
        open.close();
        assertThatThrownBy(last::openTransfer).isInstanceOf(IOException.class)
                .hasMessage(segment.logFile() + " was truncated after the read of " + batchSize + " bytes at position "
                        + 2 * batchSize);
        assertThatThrownBy(last::toMemoryRecords).isInstanceOf(ApiException.class)
                .satisfies(e -> assertThat(((ApiException) e).error()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER))
                .hasMessageStartingWith("The " + batchSize + " bytes read at position " + 2 * batchSize + " of "
                        + segment.logFile() + " are no longer there: ");
        assertThat(slice(0).toMemoryRecords().sizeInBytes()).isEqualTo(2 * batchSize);
        // The refused transfers let go of the shared channel: closing the segment's reference closes it.
        FileRecords.Transfer held = slice(0).openTransfer();
        held.close();
        assertThat(held.channel().isOpen()).isTrue();
        segment.sendChannel().close();
        assertThat(held.channel().isOpen()).isFalse();
    }
}
