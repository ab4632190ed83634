package dev.insync.replication.controller.api;

import dev.insync.replication.log.TopicPartition;

import java.util.List;

/**
 * LDR-4: a broker's heartbeat (the shape of core's heartbeat request).
 *
 * @param brokerId        the broker
 * @param brokerEpoch     its current epoch
 * @param metadataOffset  the offset of the last metadata it applied, -1 if none
 * @param wantShutDown    asks for (or continues) a controlled shutdown
 * @param offlineReplicas partitions whose log directory failed on this broker
 */
public record BrokerHeartbeatRequest(int brokerId, long brokerEpoch, long metadataOffset, boolean wantShutDown,
                                     List<TopicPartition> offlineReplicas) {

    /** Immutable copy. */
    public BrokerHeartbeatRequest {
        offlineReplicas = List.copyOf(offlineReplicas);
    }

    /** A heartbeat without offline replicas. */
    public BrokerHeartbeatRequest(int brokerId, long brokerEpoch, long metadataOffset, boolean wantShutDown) {
        this(brokerId, brokerEpoch, metadataOffset, wantShutDown, List.of());
    }
}
