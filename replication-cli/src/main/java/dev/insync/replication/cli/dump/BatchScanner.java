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

package dev.insync.replication.cli.dump;

import dev.insync.replication.log.record.RecordBatch;
import dev.insync.replication.log.segment.BatchFraming;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Walks the v2 record batches (LOG-1) of a segment file's bytes from position 0, tolerating
 * whatever a crash or a disk may leave at the end. Each call to {@link #next()} returns the next
 * whole batch, CRC not checked (the dump prints {@code isvalid} instead); the walk stops at the
 * first bytes that cannot frame a batch: fewer bytes than a batch header, a declared length below
 * a v2 header, a batch running past the end of the file (a torn write), or a magic other than 2.
 * From there to the end of the file is the invalid tail, reported with {@link #stopReason()}.
 *
 * <p>Nothing is allocated per batch beyond a view over the (memory-mapped) file bytes, and a
 * garbage length never makes the scanner allocate anything: it is checked against the file size.
 */
final class BatchScanner {

    /** A batch and the file position it starts at. */
    record ScannedBatch(int position, RecordBatch batch) {
    }

    private final ByteBuffer file;
    private int position;
    private String stopReason;

    /** @param file the whole file, position 0 .. limit */
    BatchScanner(ByteBuffer file) {
        this.file = file.duplicate();
        this.file.position(0);
    }

    /** The next whole batch, or null at the end of the file or at the first bytes that are not one. */
    ScannedBatch next() {
        if (stopReason != null) {
            return null;
        }
        int remaining = file.limit() - position;
        if (remaining == 0) {
            return null;
        }
        if (remaining < RecordBatch.FRAMING_HEADER_SIZE) {
            return stop("only " + remaining + " bytes remain at position " + position + ", fewer than the "
                    + RecordBatch.FRAMING_HEADER_SIZE + "-byte batch framing header");
        }
        long baseOffset = file.getLong(position);
        int batchLength = file.getInt(position + BatchFraming.LENGTH_OFFSET);
        byte magic = file.get(position + BatchFraming.MAGIC_OFFSET);
        if (batchLength < RecordBatch.HEADER_SIZE - RecordBatch.LOG_OVERHEAD) {
            return stop("the batch at position " + position + " (base offset " + baseOffset + ") declares batchLength "
                    + batchLength + ", below the minimum " + (RecordBatch.HEADER_SIZE - RecordBatch.LOG_OVERHEAD)
                    + " of a v2 batch");
        }
        long size = (long) batchLength + RecordBatch.LOG_OVERHEAD;
        if (size > remaining) {
            return stop("the batch at position " + position + " (base offset " + baseOffset + ") declares " + size
                    + " bytes but only " + remaining + " remain in the file (a torn write)");
        }
        if (magic != RecordBatch.MAGIC_V2) {
            return stop("the batch at position " + position + " (base offset " + baseOffset + ") has magic " + magic
                    + "; only magic " + RecordBatch.MAGIC_V2 + " is supported");
        }
        ScannedBatch scanned = new ScannedBatch(position, RecordBatch.wrap(file.duplicate().position(position)));
        position += (int) size;
        return scanned;
    }

    private ScannedBatch stop(String reason) {
        stopReason = reason;
        return null;
    }

    /** Every remaining batch up to the end or the invalid tail. */
    List<ScannedBatch> remaining() {
        List<ScannedBatch> out = new ArrayList<>();
        for (ScannedBatch b = next(); b != null; b = next()) {
            out.add(b);
        }
        return out;
    }

    /** Bytes of whole batches read so far: where the next batch (or the invalid tail) starts. */
    int validBytes() {
        return position;
    }

    /** Bytes after the last whole batch; meaningful once {@link #next()} has returned null. */
    int invalidBytes() {
        return file.limit() - position;
    }

    /** Why the scan stopped before the end of the file, or null if it did not. */
    String stopReason() {
        return stopReason;
    }
}
