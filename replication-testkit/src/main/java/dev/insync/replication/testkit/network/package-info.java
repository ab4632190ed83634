/**
 * The in-memory network of an in-process cluster: node-to-node request/response over a
 * {@link dev.insync.replication.testkit.sim.NodeRuntime}, with per-link delays, loss, FIFO order and
 * partitions, plus the adapters brokers use: {@code transportFor(brokerId)} (a
 * {@link dev.insync.replication.core.rpc.ReplicaTransport}), {@code controllerChannelFor(brokerId)}
 * (a {@link dev.insync.replication.core.metadata.ControllerChannel}), {@code bindFetchHandler} and
 * {@code bindMetadataListener}. Clients' produce and fetch requests use the generic
 * {@code send(from, to, ServiceKey, request)} with keys of their own.
 */
package dev.insync.replication.testkit.network;
