/**
 * The metadata records (CTL-2) and their versioned, checksummed binary encoding
 * ({@link dev.insync.replication.controller.record.MetadataRecordSerde}); docs/metadata-format.md
 * describes every byte.
 */
package dev.insync.replication.controller.record;
