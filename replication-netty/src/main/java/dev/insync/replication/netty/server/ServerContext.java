package dev.insync.replication.netty.server;

import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.netty.config.NetworkConfig;
import dev.insync.replication.netty.tls.BrokerPrincipals;

import java.util.concurrent.Executor;

/**
 * What every connection of one server shares.
 *
 * @param identityRequired SEC-2: broker-identity claims must come from the principal mapped to the
 *                         claimed id (a TLS listener that asks for client certificates)
 */
record ServerContext(ServedApis apis, NetworkConfig config, ServerMetrics metrics, Scheduler scheduler,
                     Executor requestPool, BrokerPrincipals principals, boolean identityRequired) {
}
