package dev.insync.replication.core.metadata;

/**
 * The controller's view of one broker (LDR-4, ISR-3).
 *
 * @param brokerId              broker id
 * @param brokerEpoch           epoch of the current incarnation (new on every restart)
 * @param fenced                no heartbeat within the session timeout, or not yet caught up
 * @param inControlledShutdown  shutting down through the controller
 */
public record BrokerRegistration(int brokerId, long brokerEpoch, boolean fenced, boolean inControlledShutdown) {

    /** Whether the broker may be in an ISR or lead (ISR-3, ISR-8). */
    public boolean isActive() {
        return !fenced && !inControlledShutdown;
    }
}
