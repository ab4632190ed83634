package dev.insync.replication.controller.log;

import java.util.OptionalInt;

/**
 * An append by a node that is not (or no longer) the leader of the metadata log in the given
 * epoch, or a batch dropped uncommitted when leadership moved. The records are not in the log.
 */
public final class NotLeaderException extends RuntimeException {

    private final transient OptionalInt leaderId;

    /** @param leaderId the current leader, if known */
    public NotLeaderException(String message, OptionalInt leaderId) {
        super(message);
        this.leaderId = leaderId;
    }

    /** The current leader, if known. */
    public OptionalInt leaderId() {
        return leaderId;
    }
}
