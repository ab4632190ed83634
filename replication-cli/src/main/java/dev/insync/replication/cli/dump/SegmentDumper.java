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

import dev.insync.replication.cli.dump.BatchScanner.ScannedBatch;
import dev.insync.replication.log.record.Record;
import dev.insync.replication.log.record.RecordBatch;
import dev.insync.replication.log.record.TimestampType;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Prints segment files the way Kafka's {@code kafka-dump-log.sh --files} does (Kafka 4.x), so our
 * segments and Kafka's can be compared line by line (LOG-1, LOG-2):
 * <ul>
 *   <li>{@code .log}: {@code Dumping <file>}, {@code Log starting offset: <base>}, one line per
 *       batch, with deep iteration one {@code |} line per record, and {@code Found N invalid bytes
 *       at the end of <name>} for a tail that is not a whole batch;</li>
 *   <li>{@code .index}: {@code offset: O position: P} per entry, each checked against the batch at
 *       that position in the segment's {@code .log};</li>
 *   <li>{@code .timeindex}: {@code timestamp: T offset: O} per entry, each checked against the
 *       batch ending at that offset.</li>
 * </ul>
 * Files are only read (mapped read-only). Deliberate differences from Kafka's tool, all on corrupt
 * or unusual input:
 * <ul>
 *   <li>it never stops with a stack trace: a batch header that cannot be framed (a length below a
 *       v2 header, zeros left by preallocation, a magic other than 2) ends the scan like a torn
 *       write does, with {@code Found N invalid bytes}, and stderr says why;</li>
 *   <li>every problem (CRC failure, invalid tail, undecodable records, index mismatch) is also a
 *       line on stderr and makes the command exit with 1, where Kafka's tool exits 0;</li>
 *   <li>an index whose {@code .log} is missing is still printed, unchecked (Kafka's tool fails);</li>
 *   <li>only magic-2 batches are read (gzip, snappy, lz4 and zstd ones are decompressed for deep
 *       iteration, at most {@code RecordBatch.DEFAULT_MAX_DECOMPRESSED_BYTES} per batch); KRaft
 *       snapshot and voter control records print as {@code controlType: NAME(id)} rather than
 *       Kafka's JSON;</li>
 *   <li>non-consecutive offsets are listed in file order (Kafka's tool lists them newest first).</li>
 * </ul>
 */
final class SegmentDumper {

    /** What to print for a {@code .log} file. */
    record Options(boolean deepIteration, boolean printDataLog, boolean skipRecordMetadata) {
    }

    private final PrintWriter out;
    private final Findings findings;
    private final Options options;

    SegmentDumper(PrintWriter out, Findings findings, Options options) {
        this.out = out;
        this.findings = findings;
        this.options = options;
    }

    /**
     * Dumps one file by its suffix.
     *
     * @throws DumpException naming the file if it is missing, a directory or not named like a segment file
     * @throws IOException   if reading fails
     */
    void dump(Path path) throws IOException {
        SegmentFile file = SegmentFile.of(path);
        ByteBuffer bytes = SegmentFile.mapReadOnly(path);
        out.println("Dumping " + path);
        switch (file.kind()) {
            case LOG -> dumpLog(file, bytes);
            case INDEX -> dumpOffsetIndex(file, bytes);
            case TIME_INDEX -> dumpTimeIndex(file, bytes);
        }
        out.flush();
    }

    private void dumpLog(SegmentFile file, ByteBuffer bytes) {
        out.println("Log starting offset: " + file.baseOffset());
        BatchScanner scanner = new BatchScanner(bytes);
        String where = file.path().toAbsolutePath().toString();
        long lastOffset = -1;
        for (ScannedBatch scanned = scanner.next(); scanned != null; scanned = scanner.next()) {
            RecordBatch batch = scanned.batch();
            out.println(DumpFormat.batchLine(batch, scanned.position()));
            checkBatch(file, scanned);
            if (options.deepIteration()) {
                lastOffset = dumpRecords(file, batch, where, lastOffset);
            }
        }
        if (scanner.invalidBytes() > 0) {
            out.println("Found " + scanner.invalidBytes() + " invalid bytes at the end of " + file.path().getFileName());
            findings.problem(file.path() + ": " + scanner.invalidBytes() + " invalid bytes from position "
                    + scanner.validBytes() + ": " + scanner.stopReason());
        }
    }

    private void checkBatch(SegmentFile file, ScannedBatch scanned) {
        RecordBatch batch = scanned.batch();
        if (!batch.isValid()) {
            findings.problem(file.path() + ": corrupt batch at position " + scanned.position() + " (base offset "
                    + batch.baseOffset() + "): stored crc " + batch.checksum() + ", computed " + batch.computeChecksum());
        }
        if (!DumpFormat.isKnownCodec(batch.compressionCodec())) {
            findings.problem(file.path() + ": batch at position " + scanned.position() + " (base offset "
                    + batch.baseOffset() + ") has unknown compression codec id " + batch.compressionCodec());
        }
    }

    /** Prints the batch's records; returns the last record offset seen (for the consecutiveness check). */
    private long dumpRecords(SegmentFile file, RecordBatch batch, String where, long lastOffset) {
        List<Record> records;
        try {
            records = RecordDecoder.records(batch);
        } catch (IllegalArgumentException e) {
            findings.problem(file.path() + ": " + e.getMessage());
            return lastOffset;
        }
        long last = lastOffset;
        for (Record record : records) {
            if (last != -1 && record.offset() != last + 1) {
                findings.nonConsecutive(where, last, record.offset());
            }
            last = record.offset();
            try {
                out.println(DumpFormat.recordLine(batch, record, options.skipRecordMetadata(), options.printDataLog()));
            } catch (IllegalArgumentException e) {
                findings.problem(file.path() + ": " + e.getMessage());
            }
        }
        return last;
    }

    private void dumpOffsetIndex(SegmentFile file, ByteBuffer bytes) throws IOException {
        int entries = bytes.limit() / 8;
        if (entries == 0) {
            out.println(file.path() + " is empty.");
            return;
        }
        List<ScannedBatch> batches = logBatches(file);
        String where = file.path().toAbsolutePath().toString();
        for (int i = 0; i < entries; i++) {
            long offset = file.baseOffset() + bytes.getInt(i * 8);
            int position = bytes.getInt(i * 8 + 4);
            // A preallocated index left by a crash ends in zero entries: stop at the first one.
            if (offset == file.baseOffset() && i > 0) {
                return;
            }
            if (batches != null) {
                ScannedBatch at = batchAt(batches, position);
                long logOffset = at == null ? -1 : at.batch().lastOffset();
                if (logOffset != offset) {
                    findings.indexMismatch(where, offset, logOffset);
                }
            }
            out.println("offset: " + offset + " position: " + position);
        }
    }

    private void dumpTimeIndex(SegmentFile file, ByteBuffer bytes) throws IOException {
        int entries = bytes.limit() / 12;
        List<ScannedBatch> batches = logBatches(file);
        String where = file.path().toAbsolutePath().toString();
        long previousTimestamp = RecordBatch.NO_TIMESTAMP;
        for (int i = 0; i < entries; i++) {
            long timestamp = bytes.getLong(i * 12);
            long offset = file.baseOffset() + bytes.getInt(i * 12 + 8);
            if (offset == file.baseOffset() && i > 0) {
                return;
            }
            if (batches != null) {
                checkTimeIndexEntry(file, batches, where, timestamp, offset, previousTimestamp);
            }
            out.println("timestamp: " + timestamp + " offset: " + offset);
            previousTimestamp = timestamp;
        }
    }

    private void checkTimeIndexEntry(SegmentFile file, List<ScannedBatch> batches, String where, long timestamp,
                                     long offset, long previousTimestamp) {
        ScannedBatch found = firstEndingAtOrAfter(batches, offset);
        if (found == null) {
            findings.indexedOffsetNotFound(where, offset, -1);
            return;
        }
        RecordBatch batch = found.batch();
        if (batch.lastOffset() != offset) {
            findings.indexedOffsetNotFound(where, offset, batch.lastOffset());
            return;
        }
        long maxTimestamp = maxRecordTimestamp(file, batch);
        if (maxTimestamp != timestamp) {
            findings.timestampMismatch(where, timestamp, maxTimestamp);
        }
        if (previousTimestamp >= timestamp) {
            findings.outOfOrderTimestamp(where, timestamp, previousTimestamp);
        }
    }

    /** The largest record timestamp of the batch (its maxTimestamp for log-append time). */
    private long maxRecordTimestamp(SegmentFile file, RecordBatch batch) {
        if (batch.timestampType() == TimestampType.LOG_APPEND_TIME) {
            return batch.maxTimestamp();
        }
        try {
            long max = RecordBatch.NO_TIMESTAMP;
            for (Record r : RecordDecoder.records(batch)) {
                max = Math.max(max, r.timestamp());
            }
            return max;
        } catch (IllegalArgumentException e) {
            findings.problem(file.path() + ": " + e.getMessage());
            return batch.maxTimestamp();
        }
    }

    /**
     * The batches of the index's {@code .log} for cross-checking, or null (reported) if there is no
     * such file: the entries are still printed.
     */
    private List<ScannedBatch> logBatches(SegmentFile index) throws IOException {
        Path log = index.sibling(SegmentFile.Kind.LOG);
        if (!Files.isRegularFile(log)) {
            findings.problem(index.path() + ": cannot check the entries, the segment's log " + log + " does not exist");
            return null;
        }
        return new BatchScanner(SegmentFile.mapReadOnly(log)).remaining();
    }

    private static ScannedBatch batchAt(List<ScannedBatch> batches, int position) {
        int lo = 0;
        int hi = batches.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int p = batches.get(mid).position();
            if (p == position) {
                return batches.get(mid);
            }
            if (p < position) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return null;
    }

    private static ScannedBatch firstEndingAtOrAfter(List<ScannedBatch> batches, long offset) {
        // Batches of a valid segment have increasing offsets; a linear scan also copes with ones that do not.
        for (ScannedBatch b : batches) {
            if (b.batch().lastOffset() >= offset) {
                return b;
            }
        }
        return null;
    }
}
