package dev.insync.replication.testkit.network;

/**
 * A message was lost (partitioned link, random drop, receiver down) and the network is set to
 * {@link InMemoryNetwork.LossMode#FAIL}: the sender's future fails with this, like a reset TCP
 * connection. The message names the service, both ends and the reason.
 */
public final class NetworkException extends RuntimeException {

    /** Creates the exception. */
    public NetworkException(String message) {
        super(message);
    }
}
