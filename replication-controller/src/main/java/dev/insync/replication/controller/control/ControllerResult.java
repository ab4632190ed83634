package dev.insync.replication.controller.control;

import dev.insync.replication.controller.record.MetadataRecord;

import java.util.List;

/**
 * What an operation decided (CTL-1): the records to append, as one atomic batch, and the answer to
 * give once they are committed. No records means nothing changes.
 *
 * @param records  the records, possibly none
 * @param response the answer
 * @param <T>      the answer's type
 */
public record ControllerResult<T>(List<MetadataRecord> records, T response) {

    /** Immutable copy. */
    public ControllerResult {
        records = List.copyOf(records);
    }
}
