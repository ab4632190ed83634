package dev.insync.replication.controller.api;

import dev.insync.replication.log.Errors;

/**
 * The answer to a {@link RegisterBrokerRequest}, sent once the registration is committed.
 *
 * @param error       NONE
 * @param brokerEpoch the new incarnation's epoch: the offset of its registration record
 */
public record RegisterBrokerResponse(Errors error, long brokerEpoch) {
}
