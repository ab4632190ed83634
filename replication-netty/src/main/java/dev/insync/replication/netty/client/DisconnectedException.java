package dev.insync.replication.netty.client;

import java.io.IOException;

/**
 * The link is down: the connection could not be made, is backing off before the next attempt
 * ({@code reconnect.backoff.ms}), or closed while the request was in flight. Whether the server
 * acted on an in-flight request is unknown.
 */
public final class DisconnectedException extends IOException {

    public DisconnectedException(String message) {
        super(message);
    }

    public DisconnectedException(String message, Throwable cause) {
        super(message, cause);
    }
}
