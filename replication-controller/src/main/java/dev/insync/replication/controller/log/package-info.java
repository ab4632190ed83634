/**
 * The metadata-log seam ({@link dev.insync.replication.controller.log.MetadataLog}) between the
 * controller state machine and what replicates its log, the in-memory implementation
 * ({@link dev.insync.replication.controller.log.InMemoryMetadataLog}), and the byte formats of
 * batches and snapshots.
 */
package dev.insync.replication.controller.log;
