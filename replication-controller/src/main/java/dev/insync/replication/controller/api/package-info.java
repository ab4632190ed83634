/**
 * What brokers and administrators ask a controller node, as plain records
 * ({@link dev.insync.replication.controller.api.ControllerApi}): an in-JVM call, the simulator's
 * network or a network RPC can carry them.
 */
package dev.insync.replication.controller.api;
