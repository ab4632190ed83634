/**
 * The controller's state and the only code that changes it: replay of records
 * ({@link dev.insync.replication.controller.state.ControllerState}), shared with the view an
 * operation has of its own records ({@link dev.insync.replication.controller.state.ChangeSet}).
 * Snapshots and broker images are made here (CTL-1, CTL-5).
 */
package dev.insync.replication.controller.state;
