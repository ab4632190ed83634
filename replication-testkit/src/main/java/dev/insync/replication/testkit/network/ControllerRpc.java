package dev.insync.replication.testkit.network;

import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.ControllerChannel;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.core.metadata.MetadataDelta;

/**
 * The messages between brokers and the controller on the {@link InMemoryNetwork}: the three
 * {@link ControllerChannel} calls from a broker, and the metadata deltas the controller pushes to
 * every broker (acknowledged with {@code true}; the broker's real acknowledgement is the metadata
 * offset in its next heartbeat).
 */
public final class ControllerRpc {

    /** ISR-5/ISR-6. */
    public static final ServiceKey<AlterPartitionRequest, AlterPartitionResponse> ALTER_PARTITION =
            ServiceKey.of("alter-partition", AlterPartitionRequest.class, AlterPartitionResponse.class);
    /** LDR-4/LDR-5: answered with the new broker epoch. */
    public static final ServiceKey<RegisterBrokerRequest, Long> REGISTER_BROKER =
            ServiceKey.of("register-broker", RegisterBrokerRequest.class, Long.class);
    /** LDR-4, §9: the core's {@link HeartbeatRequest}, offline replicas included. */
    public static final ServiceKey<HeartbeatRequest, ControllerChannel.HeartbeatResponse> BROKER_HEARTBEAT =
            ServiceKey.of("broker-heartbeat", HeartbeatRequest.class, ControllerChannel.HeartbeatResponse.class);
    /** Controller to broker: one metadata delta. */
    public static final ServiceKey<MetadataDelta, Boolean> METADATA_UPDATE =
            ServiceKey.of("metadata-update", MetadataDelta.class, Boolean.class);

    private ControllerRpc() {
    }

    /**
     * A broker registration (LDR-4, LDR-5).
     *
     * @param brokerId            the broker
     * @param previousBrokerEpoch epoch from its clean-shutdown marker, -1 after an unclean stop
     */
    public record RegisterBrokerRequest(int brokerId, long previousBrokerEpoch) {
    }
}
