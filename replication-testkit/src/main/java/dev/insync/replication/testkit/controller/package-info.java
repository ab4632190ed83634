/**
 * The reference controller (SPEC LDR-4, LDR-5, ISR-6, ISR-7, ISR-8): broker registration,
 * heartbeats and fencing, controlled shutdown, AlterPartition validation, ELR maintenance and
 * leader election, publishing every change as a
 * {@link dev.insync.replication.core.metadata.MetadataDelta} to the brokers, who apply them in
 * order with {@link dev.insync.replication.testkit.controller.MetadataDeltaSequencer}.
 *
 * <p>Wiring a broker (what an in-process cluster does for broker {@code id}):
 * <pre>{@code
 * ReferenceController controller = new ReferenceController(loop, network, ControllerConfig.DEFAULT);
 * controller.start();
 * MetadataDeltaSequencer metadata = new MetadataDeltaSequencer(replicaManager::applyMetadataDelta);
 * network.bindMetadataListener(id, metadata::accept);          // before registering
 * network.bindFetchHandler(id, replicaManager::fetch);
 * ControllerChannel channel = network.controllerChannelFor(id); // register, heartbeat with
 *                                                               // metadata.appliedOffset()
 * }</pre>
 */
package dev.insync.replication.testkit.controller;
