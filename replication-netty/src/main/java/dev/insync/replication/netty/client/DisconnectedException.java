package dev.insync.replication.netty.client;

import java.io.IOException;

/**
 * The link is down: the connection could not be made, is backing off before the next attempt
 * ({@code reconnect.backoff.ms}), or closed while the request was in flight. {@link #maybeSent()}
 * says whether any byte of the request may have left: when it is false the server cannot have acted
 * on it (a client may resend without risk of a duplicate); when true, whether it did is unknown.
 */
public final class DisconnectedException extends IOException {

    private final boolean maybeSent;

    /** A failure after which the server may have received the request. */
    public DisconnectedException(String message) {
        this(message, null, true);
    }

    /** A failure after which the server may have received the request. */
    public DisconnectedException(String message, Throwable cause) {
        this(message, cause, true);
    }

    private DisconnectedException(String message, Throwable cause, boolean maybeSent) {
        super(message, cause);
        this.maybeSent = maybeSent;
    }

    /** A failure before any byte of the request was written (no connection, backing off, closed first). */
    public static DisconnectedException notSent(String message) {
        return new DisconnectedException(message, null, false);
    }

    /** As {@link #notSent(String)}, with a cause. */
    public static DisconnectedException notSent(String message, Throwable cause) {
        return new DisconnectedException(message, cause, false);
    }

    /** False only when the request certainly never reached the socket. */
    public boolean maybeSent() {
        return maybeSent;
    }
}
