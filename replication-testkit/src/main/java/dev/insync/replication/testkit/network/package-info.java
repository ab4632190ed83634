/**
 * The in-memory network of an in-process cluster: node-to-node request/response over a
 * {@link dev.insync.replication.testkit.sim.NodeRuntime}, with per-link delays, loss, FIFO order and
 * partitions, plus the adapters brokers use: {@code transportFor(brokerId)} (a
 * {@link dev.insync.replication.core.rpc.ReplicaTransport}), {@code controllerEndpointFor(brokerId)}
 * (a {@code ControllerApi} whose calls travel to the controller node, {@link
 * dev.insync.replication.testkit.network.ControllerRpc}) and {@code bindFetchHandler}. Clients'
 * produce and fetch requests use the generic {@code send(from, to, ServiceKey, request)} with keys
 * of their own.
 */
package dev.insync.replication.testkit.network;
