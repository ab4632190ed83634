package dev.insync.replication.controller.record;

/**
 * Bytes that are not a valid metadata record, batch or snapshot: a bad CRC, a truncated or
 * oversized frame, an unknown record type or version (CTL-2), or a field that breaks a record's
 * rules. The message names the offset (or the snapshot entry) concerned. Nothing is ever skipped.
 */
public final class MetadataFormatException extends RuntimeException {

    /** @param message names the offset and what is wrong */
    public MetadataFormatException(String message) {
        super(message);
    }

    /** @param message names the offset and what is wrong */
    public MetadataFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
