package dev.insync.replication.controller.api;

/**
 * LDR-4 / LDR-5: a new broker incarnation registers.
 *
 * @param brokerId            the broker
 * @param previousBrokerEpoch the epoch from its clean-shutdown marker, -1 after an unclean stop
 */
public record RegisterBrokerRequest(int brokerId, long previousBrokerEpoch) {
}
