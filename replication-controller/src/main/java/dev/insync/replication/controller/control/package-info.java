/**
 * The controller's operations, pure functions from a state view and a request to records and a
 * response ({@link dev.insync.replication.controller.control.ControllerResult}): broker lifecycle
 * ({@link dev.insync.replication.controller.control.ClusterControl}), partitions and topics
 * ({@link dev.insync.replication.controller.control.ReplicationControl}), and the one place a
 * partition's next state is decided
 * ({@link dev.insync.replication.controller.control.PartitionChangeBuilder}).
 */
package dev.insync.replication.controller.control;
