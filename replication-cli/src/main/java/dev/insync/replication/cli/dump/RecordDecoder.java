package dev.insync.replication.cli.dump;

import dev.insync.replication.log.record.Record;
import dev.insync.replication.log.record.RecordBatch;
import dev.insync.replication.log.segment.BatchFraming;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * Decodes a batch's records for deep iteration. Uncompressed batches are decoded by the library;
 * gzip batches (which Kafka producers may have written) are inflated with the JDK and decoded from
 * an uncompressed copy of the batch. snappy, lz4 and zstd need libraries this tool does not ship.
 */
final class RecordDecoder {

    /** Bound on one batch's inflated records, so a hostile gzip stream cannot exhaust the heap. */
    static final int MAX_DECOMPRESSED_BYTES = 64 * 1024 * 1024;
    /** Kafka's codec id of gzip. */
    private static final int GZIP = 1;

    private RecordDecoder() {
    }

    /**
     * The batch's records.
     *
     * @throws IllegalArgumentException naming the batch's offset when the records cannot be decoded
     *         (malformed bytes, an unsupported codec, a corrupt gzip stream)
     */
    static List<Record> records(RecordBatch batch) {
        try {
            if (batch.compressionCodec() == GZIP) {
                return inflated(batch).records();
            }
            return batch.records();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("Cannot decode the records of the batch at offset " + batch.baseOffset()
                    + ": " + e.getMessage(), e);
        }
    }

    /** The same batch with its records gzip-inflated and its codec bits cleared (CRC left stale). */
    private static RecordBatch inflated(RecordBatch batch) {
        ByteBuffer bytes = batch.buffer();
        byte[] compressed = new byte[bytes.remaining() - RecordBatch.HEADER_SIZE];
        bytes.get(RecordBatch.HEADER_SIZE, compressed);
        byte[] records;
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(compressed))) {
            records = readBounded(in, batch.baseOffset());
        } catch (IOException e) {
            throw new IllegalArgumentException("corrupt gzip data: " + e.getMessage(), e);
        }
        ByteBuffer copy = ByteBuffer.allocate(RecordBatch.HEADER_SIZE + records.length);
        copy.put(bytes.duplicate().position(0).limit(RecordBatch.HEADER_SIZE));
        copy.put(records);
        copy.putInt(BatchFraming.LENGTH_OFFSET, copy.capacity() - RecordBatch.LOG_OVERHEAD);
        copy.putShort(BatchFraming.ATTRIBUTES_OFFSET, (short) (batch.attributes() & ~BatchFraming.COMPRESSION_MASK));
        return RecordBatch.wrap(copy.flip());
    }

    private static byte[] readBounded(InputStream in, long baseOffset) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] chunk = new byte[8192];
        int n;
        while ((n = in.read(chunk)) > 0) {
            if (out.size() + n > MAX_DECOMPRESSED_BYTES) {
                throw new IllegalArgumentException("gzip records of the batch at offset " + baseOffset
                        + " inflate beyond " + MAX_DECOMPRESSED_BYTES + " bytes");
            }
            out.write(chunk, 0, n);
        }
        return out.toByteArray();
    }
}
