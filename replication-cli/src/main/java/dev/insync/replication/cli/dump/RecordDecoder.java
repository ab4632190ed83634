package dev.insync.replication.cli.dump;

import dev.insync.replication.log.record.Record;
import dev.insync.replication.log.record.RecordBatch;

import java.util.List;

/**
 * Decodes a batch's records for deep iteration, through the library's own reader: uncompressed
 * batches as they are, gzip, snappy, lz4 and zstd ones decompressed (the CLI ships the three codec
 * libraries), each bounded by {@link RecordBatch#DEFAULT_MAX_DECOMPRESSED_BYTES} so a hostile
 * segment cannot exhaust the heap.
 */
final class RecordDecoder {

    private RecordDecoder() {
    }

    /**
     * The batch's records.
     *
     * @throws IllegalArgumentException naming the batch's offset when the records cannot be decoded
     *         (malformed bytes, an unknown codec, corrupt compressed data, beyond the bound)
     */
    static List<Record> records(RecordBatch batch) {
        try {
            return batch.records();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("Cannot decode the records of the batch at offset " + batch.baseOffset()
                    + ": " + e.getMessage(), e);
        }
    }
}
