package dev.insync.replication.controller.log;

import dev.insync.replication.controller.record.MetadataRecord;

import java.util.List;

/**
 * The records of one controller operation, committed atomically at consecutive offsets from
 * {@code baseOffset}. Brokers see the batch as one {@code MetadataDelta} whose offset is
 * {@link #lastOffset()}.
 *
 * @param baseOffset offset of the first record
 * @param records    at least one record
 */
public record MetadataBatch(long baseOffset, List<MetadataRecord> records) {

    /** Bound on the records of one batch (one operation). */
    public static final int MAX_RECORDS = 1_000_000;

    /** Validates; immutable copy. */
    public MetadataBatch {
        if (baseOffset < 0) {
            throw new IllegalArgumentException("Negative base offset " + baseOffset);
        }
        if (records == null || records.isEmpty() || records.size() > MAX_RECORDS) {
            throw new IllegalArgumentException("A metadata batch at offset " + baseOffset + " needs 1 to " + MAX_RECORDS
                    + " records, got " + (records == null ? "none" : records.size()));
        }
        records = List.copyOf(records);
    }

    /** Offset of the last record. */
    public long lastOffset() {
        return baseOffset + records.size() - 1;
    }
}
