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

package dev.insync.replication.netty.protocol;

import dev.insync.replication.log.Log;
import dev.insync.replication.log.LogConfig;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.log.record.SimpleRecord;
import dev.insync.replication.log.segment.FileRecords;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.FileRegion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * NET-3: record slices written as file regions, and what happens when the segment changes under
 * them: deletion is harmless (the transfer holds the file), truncation is caught by the last-byte
 * guard before the frame can complete; without file regions (TLS) the bytes are copied once.
 */
class SegmentRegionsTest {

    private static final TopicPartition TP = new TopicPartition("zc", 0);

    @TempDir
    Path tmp;
    private Log log;

    @AfterEach
    void close() {
        if (log != null) {
            log.close();
        }
    }

    private static MemoryRecords batch(String prefix, int n) {
        SimpleRecord[] rs = new SimpleRecord[n];
        for (int i = 0; i < n; i++) {
            rs[i] = new SimpleRecord(1000L + i, null, (prefix + "-" + i).getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(rs);
    }

    private FileRecords slice(long from) {
        return (FileRecords) log.readFileRecords(from, Integer.MAX_VALUE, log.logEndOffset());
    }

    private static OutboundFrame frameOf(FileRecords records, boolean fileRegions) {
        WireWriter w = new WireWriter(ByteBufAllocator.DEFAULT, fileRegions);
        w.int32(42).records(records).int16(7);
        return w.finishFrame();
    }

    private static byte[] transfer(FileRegion region) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        WritableByteChannel target = Channels.newChannel(out);
        while (region.transferred() < region.count()) {
            region.transferTo(target, region.transferred());
        }
        return out.toByteArray();
    }

    private static byte[] bytes(ByteBuf b) {
        byte[] a = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), a);
        return a;
    }

    @Test
    @DisplayName("NET-3 fields, a sendfile region of all record bytes but the last, a one-byte guard, fields: the bytes of the slice")
    void regionsCarryTheSlice() throws IOException {
        log = Log.open(tmp.resolve("zc-0"), TP, LogConfig.defaults(), 0, 0, () -> 0L);
        log.appendAsLeader(batch("a", 3), 0);
        log.appendAsLeader(batch("b", 2), 0);
        FileRecords records = slice(0);
        OutboundFrame frame = frameOf(records, true);
        try {
            assertThat(frame.parts()).hasSize(4);
            assertThat(frame.fileRegionCount()).isEqualTo(2);
            assertThat(frame.parts().get(1)).isInstanceOf(DefaultFileRegion.class);
            assertThat(frame.sizeInBytes()).isEqualTo(4 + 4 + records.sizeInBytes() + 2);
            byte[] head = bytes((ByteBuf) frame.parts().get(0));
            byte[] bulk = transfer((FileRegion) frame.parts().get(1));
            byte[] last = transfer((FileRegion) frame.parts().get(2));
            byte[] tail = bytes((ByteBuf) frame.parts().get(3));
            assertThat(head).hasSize(8);
            assertThat(java.nio.ByteBuffer.wrap(head).getInt(4)).as("the records' length").isEqualTo(records.sizeInBytes());
            byte[] sent = new byte[bulk.length + last.length];
            System.arraycopy(bulk, 0, sent, 0, bulk.length);
            System.arraycopy(last, 0, sent, bulk.length, last.length);
            assertThat(MemoryRecords.readableRecords(java.nio.ByteBuffer.wrap(sent))).isEqualTo(records.toMemoryRecords());
            assertThat(tail).containsExactly(0, 7);
        } finally {
            frame.release();
        }
    }

    @Test
    @DisplayName("NET-3 truncation and new appends after the bulk went out: the guard refuses the last byte, so the frame never completes")
    void truncationUnderTheSendFailsTheGuard() throws IOException {
        log = Log.open(tmp.resolve("zc-0"), TP, LogConfig.defaults(), 0, 0, () -> 0L);
        log.appendAsLeader(batch("old", 4), 0);
        OutboundFrame frame = frameOf(slice(0), true);
        try {
            transfer((FileRegion) frame.parts().get(1));
            log.truncateTo(0);
            log.appendAsLeader(batch("new", 4), 1); // other bytes at the same positions
            FileRegion guard = (FileRegion) frame.parts().get(2);
            assertThatThrownBy(() -> transfer(guard)).isInstanceOf(SegmentChangedException.class)
                    .hasMessageContaining("truncated");
            assertThat(guard.transferred()).isZero();
        } finally {
            frame.release();
        }
    }

    @Test
    @DisplayName("NET-3 retention deletes the segment after the frame was encoded: the regions still send the bytes read")
    void deletionAfterEncodingIsHarmless() throws IOException {
        log = Log.open(tmp.resolve("zc-0"), TP, LogConfig.defaults().withSegmentBytes(200), 0, 0, () -> 0L);
        for (int i = 0; i < 6; i++) {
            log.appendAsLeader(batch("r" + i, 2), 0);
        }
        FileRecords records = slice(0);
        MemoryRecords expected = records.toMemoryRecords();
        OutboundFrame frame = frameOf(records, true);
        try {
            log.updateHighWatermark(log.logEndOffset());
            log.deleteRecordsBefore(log.logEndOffset());
            assertThat(records.file()).doesNotExist();
            byte[] bulk = transfer((FileRegion) frame.parts().get(1));
            byte[] last = transfer((FileRegion) frame.parts().get(2));
            byte[] sent = Arrays.copyOf(bulk, bulk.length + 1);
            sent[bulk.length] = last[0];
            assertThat(MemoryRecords.readableRecords(java.nio.ByteBuffer.wrap(sent))).isEqualTo(expected);
        } finally {
            frame.release();
        }
        // Encoding after the deletion is refused before anything is written.
        assertThatThrownBy(() -> frameOf(records, true)).isInstanceOf(RecordsUnavailableException.class);
    }

    @Test
    @DisplayName("NET-3 without file regions (TLS) a slice is copied into the frame once: one buffer, the same bytes")
    void withoutFileRegionsTheSliceIsCopied() {
        log = Log.open(tmp.resolve("zc-0"), TP, LogConfig.defaults(), 0, 0, () -> 0L);
        log.appendAsLeader(batch("t", 5), 0);
        FileRecords records = slice(0);
        OutboundFrame frame = frameOf(records, false);
        try {
            assertThat(frame.parts()).hasSize(1);
            assertThat(frame.fileRegionCount()).isZero();
            byte[] all = bytes((ByteBuf) frame.parts().get(0));
            byte[] recordBytes = Arrays.copyOfRange(all, 8, all.length - 2);
            assertThat(MemoryRecords.readableRecords(java.nio.ByteBuffer.wrap(recordBytes)))
                    .isEqualTo(records.toMemoryRecords());
        } finally {
            frame.release();
        }
    }
}
