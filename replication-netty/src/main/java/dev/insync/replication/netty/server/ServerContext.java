/*
 * Copyright 2026 The Insync developers
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

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
