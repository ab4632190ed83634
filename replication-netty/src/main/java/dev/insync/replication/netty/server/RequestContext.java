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

import dev.insync.replication.netty.tls.PeerIdentity;

import java.net.SocketAddress;

/**
 * What a handler knows about the request besides its body.
 *
 * @param clientId      the header's client id, may be null
 * @param apiVersion    the version the request was decoded as (answer in the same)
 * @param correlationId the header's correlation id
 * @param remoteAddress the peer's address
 * @param peer          the peer's certificate identity (anonymous on plaintext)
 * @param zeroCopy      NET-3: whether record bytes may be answered straight from segment files
 *                      (plaintext); false on TLS, where they must be read into memory
 */
public record RequestContext(String clientId, short apiVersion, int correlationId, SocketAddress remoteAddress,
                             PeerIdentity peer, boolean zeroCopy) {
}
