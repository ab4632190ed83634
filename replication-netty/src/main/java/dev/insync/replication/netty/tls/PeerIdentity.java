package dev.insync.replication.netty.tls;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * Who is at the other end of a connection: the principal from its certificate (after
 * {@code ssl.principal.mapping.rules}) and the broker id that principal is mapped to, if any.
 */
public record PeerIdentity(Optional<String> principal, OptionalInt brokerId) {

    /** No certificate (plaintext, {@code ssl.client.auth=none}, or none presented). */
    public static final PeerIdentity ANONYMOUS = new PeerIdentity(Optional.empty(), OptionalInt.empty());

    /** Whether this peer may act as broker {@code id} (SEC-2). */
    public boolean isBroker(int id) {
        return brokerId.isPresent() && brokerId.getAsInt() == id;
    }

    @Override
    public String toString() {
        return principal.map(p -> "principal '" + p + "'" + (brokerId.isPresent() ? " (broker " + brokerId.getAsInt() + ")"
                : " (no broker id)")).orElse("anonymous peer");
    }
}
