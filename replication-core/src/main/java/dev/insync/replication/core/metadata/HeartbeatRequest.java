package dev.insync.replication.core.metadata;

import dev.insync.replication.log.TopicPartition;

import java.util.List;
import java.util.Objects;

/**
 * A broker heartbeat (LDR-4, CTL-3), sent every {@code broker.heartbeat.interval.ms} through
 * {@link ControllerChannel#heartbeat}.
 *
 * @param brokerId         the broker
 * @param brokerEpoch      its current epoch
 * @param metadataOffset   the offset of the last metadata delta it applied, -1 if none
 * @param wantShutDown     asks for (or continues) a controlled shutdown
 * @param offlineReplicas  every replica of this broker whose log directory is offline (§9; Kafka's KIP-858
 *                         reports offline directories here), all of them in every heartbeat; the controller
 *                         removes the broker from their ISR and ELR and elects another leader (ISR-8)
 */
public record HeartbeatRequest(int brokerId, long brokerEpoch, long metadataOffset, boolean wantShutDown,
                               List<TopicPartition> offlineReplicas) {

    /** Immutable copy. */
    public HeartbeatRequest {
        offlineReplicas = List.copyOf(Objects.requireNonNull(offlineReplicas, "offlineReplicas"));
    }

    /** A heartbeat of a broker with no offline replica. */
    public HeartbeatRequest(int brokerId, long brokerEpoch, long metadataOffset, boolean wantShutDown) {
        this(brokerId, brokerEpoch, metadataOffset, wantShutDown, List.of());
    }
}
