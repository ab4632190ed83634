/**
 * The controller (contract ISR-6..8, LDR-4/5, CTL-1..6) as a state machine over a metadata log, after
 * Kafka's KRaft {@code QuorumController}: {@link dev.insync.replication.controller.QuorumController}
 * drives one controller node over a {@link dev.insync.replication.controller.log.MetadataLog};
 * {@link dev.insync.replication.controller.BrokerHeartbeatManager} keeps liveness in memory (CTL-3).
 * See docs/controller.md.
 *
 * <p>Sub-packages: {@code record} (the records and their encoding), {@code state} (the state and
 * its replay), {@code control} (the operations, pure), {@code log} (the log seam and its in-memory
 * implementation), {@code api} (the transport-agnostic requests and responses).
 */
package dev.insync.replication.controller;
