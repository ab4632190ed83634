package dev.insync.replication.netty.client;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Optional;

/**
 * Where each broker listens. Asked on every connection attempt, so a broker that comes back on
 * another address is reached there (the broker assembly answers from metadata).
 */
@FunctionalInterface
public interface BrokerAddresses {

    Optional<InetSocketAddress> address(int brokerId);

    /** A fixed table. */
    static BrokerAddresses of(Map<Integer, InetSocketAddress> table) {
        Map<Integer, InetSocketAddress> copy = Map.copyOf(table);
        return id -> Optional.ofNullable(copy.get(id));
    }
}
