/**
 * The testkit's controller: the controller module's {@code QuorumController} as a single controller
 * node ({@link dev.insync.replication.testkit.sim.NodeId#CONTROLLER}) on an
 * {@code InMemoryMetadataLog} that outlives it, so the node can die and a new incarnation rebuild
 * from the durable log ({@link dev.insync.replication.testkit.controller.ClusterController}).
 * Brokers reach it over the in-memory network ({@code ControllerRpc}); tests and the simulator read
 * what it committed from the log itself
 * ({@link dev.insync.replication.testkit.controller.CommittedMetadata}), whatever the node's state.
 *
 * <p>Wiring a broker by hand (what an in-process cluster does for broker {@code id} through
 * {@code InsyncBroker}):
 * <pre>{@code
 * ClusterController controller = new ClusterController(loop, network, ControllerConfig.DEFAULT);
 * controller.start();
 * ControllerApi endpoint = network.controllerEndpointFor(id);   // calls travel over the network
 * QuorumControllerChannel channel = new QuorumControllerChannel(Map.of(ClusterController.NODE_ID, endpoint),
 *         scheduler, QuorumControllerChannel.Settings.DEFAULT);
 * // the channel is the broker's ControllerChannel (lifecycle, AlterPartition) and MetadataChannel (MetadataFollower)
 * }</pre>
 */
package dev.insync.replication.testkit.controller;
