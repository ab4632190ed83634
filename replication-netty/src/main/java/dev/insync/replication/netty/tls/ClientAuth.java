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

import java.util.Locale;

/** {@code ssl.client.auth}: whether a server asks its peers for a certificate. */
public enum ClientAuth {
    /** No certificate is asked for; peers are anonymous. */
    NONE,
    /** A certificate is asked for; a peer without one is anonymous, one the truststore rejects fails the handshake. */
    REQUESTED,
    /** SEC-1: a peer without a certificate the truststore accepts fails the handshake and is served nothing. */
    REQUIRED;

    /** Parses Kafka's values {@code none}, {@code requested}, {@code required}. */
    public static ClientAuth parse(String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Property ssl.client.auth must be none, requested or required, got '"
                    + value + "'", e);
        }
    }
}
