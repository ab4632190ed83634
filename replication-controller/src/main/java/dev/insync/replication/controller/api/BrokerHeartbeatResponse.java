package dev.insync.replication.controller.api;

import dev.insync.replication.log.Errors;

/**
 * The answer to a {@link BrokerHeartbeatRequest}.
 *
 * @param error          NONE, or STALE_BROKER_EPOCH for an unknown or old incarnation
 * @param fenced         the broker is fenced
 * @param shouldShutDown a requested controlled shutdown is complete: the broker leads nothing
 */
public record BrokerHeartbeatResponse(Errors error, boolean fenced, boolean shouldShutDown) {

    /** The answer to an old incarnation. */
    public static final BrokerHeartbeatResponse STALE = new BrokerHeartbeatResponse(Errors.STALE_BROKER_EPOCH, true, false);
}
