package dev.insync.replication.netty.protocol;

import java.util.Objects;

/** Where a broker listens, as Metadata lists it. */
public record BrokerEndpoint(int brokerId, String host, int port) {

    public BrokerEndpoint {
        Objects.requireNonNull(host, "host");
        if (brokerId < 0) {
            throw new IllegalArgumentException("Negative broker id " + brokerId);
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("Port " + port + " of broker " + brokerId + " outside 0..65535");
        }
    }
}
