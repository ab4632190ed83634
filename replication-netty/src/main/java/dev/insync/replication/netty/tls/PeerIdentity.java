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

package dev.insync.replication.netty.tls;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * Who is at the other end of a connection: the principal from its certificate (after
 * {@code ssl.principal.mapping.rules}) and the broker id that principal is mapped to, if any.
 */
public record PeerIdentity(Optional<String> principal, OptionalInt brokerId) {

    /** No certificate (plaintext, {@code ssl.client.auth=none}, or none presented). */
    public static final PeerIdentity ANONYMOUS = new PeerIdentity(Optional.empty(), OptionalInt.empty());

    /** Whether this peer may act as broker {@code id} (SEC-2). */
    public boolean isBroker(int id) {
        return brokerId.isPresent() && brokerId.getAsInt() == id;
    }

    @Override
    public String toString() {
        return principal.map(p -> "principal '" + p + "'" + (brokerId.isPresent() ? " (broker " + brokerId.getAsInt() + ")"
                : " (no broker id)")).orElse("anonymous peer");
    }
}
