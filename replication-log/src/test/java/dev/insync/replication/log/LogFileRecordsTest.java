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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

import static dev.insync.replication.log.LogFixtures.TP;
import static dev.insync.replication.log.LogFixtures.batch;
import static dev.insync.replication.log.LogFixtures.smallConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** NET-3: a file slice's lifetime across retention, truncation and close (see {@link FileRecords}). */
class LogFileRecordsTest {

    @TempDir
    Path tmp;
    private Log log;

    @AfterEach
    void close() {
        if (log != null) {
            log.close();
        }
    }

    private Log openWithSegments(int batches) {
        log = Log.open(tmp.resolve(TP.toString()), TP, smallConfig().withSegmentBytes(300), 0, 0, () -> 0L);
        for (int i = 0; i < batches; i++) {
            log.appendAsLeader(batch("b" + i, 3), 0);
        }
        assertThat(log.segmentBaseOffsets()).hasSizeGreaterThan(2);
        return log;
    }

    private static MemoryRecords readAll(FileRecords.Transfer t) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(t.size());
        t.readFully(b, 0);
        return MemoryRecords.readableRecords(b.flip());
    }

    @Test
    @DisplayName("NET-3 a read leaves the batches in the segment file: a slice at the batch's position, LOG-3's bytes")
    void sliceOfTheSegmentFile() throws IOException {
        openWithSegments(10);
        long second = log.segmentBaseOffsets().get(1);
        Records records = log.readFileRecords(second, 1, log.logEndOffset());
        assertThat(records).isInstanceOf(FileRecords.class);
        FileRecords slice = (FileRecords) records;
        assertThat(slice.file()).isEqualTo(tmp.resolve(TP.toString()).resolve(
                dev.insync.replication.log.segment.LogSegment.filenamePrefix(second) + ".log"));
        assertThat(slice.position()).isZero();
        assertThat(slice.toMemoryRecords()).isEqualTo(log.read(second, 1, log.logEndOffset()).records());
        assertThat(slice.toMemoryRecords().batches()).hasSize(1);
        try (FileRecords.Transfer t = slice.openTransfer()) {
            assertThat(t.position()).isZero();
            assertThat(t.size()).isEqualTo(slice.sizeInBytes());
            assertThat(readAll(t)).isEqualTo(slice.toMemoryRecords());
            assertThat(t.bytesUnchanged()).isTrue();
        }
        assertThat(log.readFileRecords(log.logEndOffset(), 100, log.logEndOffset())).isSameAs(MemoryRecords.EMPTY);
        assertThatThrownBy(() -> log.readFileRecords(log.logEndOffset() + 1, 100, Long.MAX_VALUE))
                .isInstanceOf(ApiException.class).hasMessageContaining("out of range");
    }

    @Test
    @DisplayName("NET-3 retention deletes a segment under an open transfer: it still reads the bytes read; later transfers are refused")
    void deletionUnderAnOpenTransfer() throws IOException {
        openWithSegments(10);
        FileRecords slice = (FileRecords) log.readFileRecords(0, Integer.MAX_VALUE, log.logEndOffset());
        MemoryRecords expected = log.read(0, Integer.MAX_VALUE, log.logEndOffset()).records();
        FileRecords.Transfer open = slice.openTransfer();
        log.updateHighWatermark(log.logEndOffset());
        log.deleteRecordsBefore(log.logEndOffset());
        assertThat(Files.exists(slice.file())).isFalse();

        assertThat(open.bytesUnchanged()).isTrue();
        assertThat(readAll(open)).isEqualTo(expected);
        open.close();
        assertThat(open.channel().isOpen()).as("the last reference closes the deleted file's channel").isFalse();
        assertThatThrownBy(slice::openTransfer).isInstanceOf(IOException.class).hasMessageContaining("closed");
        assertThatThrownBy(slice::toMemoryRecords).isInstanceOf(ApiException.class)
                .satisfies(e -> assertThat(((ApiException) e).error()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER));
    }

    @Test
    @DisplayName("NET-3 truncation then appends at the same positions: the slice and its transfer know their bytes are gone")
    void truncationAndReappendAreDetected() throws IOException {
        log = Log.open(tmp.resolve(TP.toString()), TP, LogConfig.defaults(), 0, 0, () -> 0L);
        log.appendAsLeader(batch("old-a", 2), 0);
        log.appendAsLeader(batch("old-b", 2), 0);
        FileRecords slice = (FileRecords) log.readFileRecords(2, Integer.MAX_VALUE, log.logEndOffset());
        FileRecords.Transfer open = slice.openTransfer();
        log.truncateTo(2);
        log.appendAsLeader(batch("new-b", 2), 1); // the same positions, other bytes
        assertThat(readAll(open)).isNotEqualTo(log.read(2, Integer.MAX_VALUE, 2).records()); // (sanity: bytes differ)
        assertThat(open.bytesUnchanged()).isFalse();
        open.close();
        assertThatThrownBy(slice::openTransfer).isInstanceOf(IOException.class).hasMessageContaining("truncated");
        assertThatThrownBy(slice::toMemoryRecords).isInstanceOf(ApiException.class)
                .satisfies(e -> assertThat(((ApiException) e).error()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER));
        // A new read serves the new bytes.
        assertThat(log.readFileRecords(2, Integer.MAX_VALUE, log.logEndOffset()).toMemoryRecords())
                .isEqualTo(log.read(2, Integer.MAX_VALUE, log.logEndOffset()).records());
    }

    @Test
    @DisplayName("NET-3 closing the log refuses new transfers; one already open keeps reading the bytes read")
    void closeOfTheLog() throws IOException {
        openWithSegments(10);
        FileRecords slice = (FileRecords) log.readFileRecords(0, Integer.MAX_VALUE, log.logEndOffset());
        MemoryRecords expected = slice.toMemoryRecords();
        FileRecords.Transfer open = slice.openTransfer();
        log.close();
        log = null;
        assertThat(readAll(open)).isEqualTo(expected);
        assertThat(open.bytesUnchanged()).isTrue();
        open.close();
        assertThatThrownBy(slice::openTransfer).isInstanceOf(IOException.class);
    }
}
