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

package dev.insync.replication.server;

import dev.insync.replication.core.metadata.Endpoint;

import java.net.InetSocketAddress;
import java.util.Locale;

/**
 * The one listener of a server, as Kafka's {@code listeners} writes it:
 * {@code PLAINTEXT://host:port} or {@code SSL://host:port}. Port 0 binds a free port (the readiness
 * line then shows the real one). The listener serves whatever the process's roles serve: the
 * broker's apis, the controller's, or both (their api keys differ).
 *
 * @param securityProtocol {@code PLAINTEXT} or {@code SSL}
 * @param host             where to bind ({@code 0.0.0.0} for every interface)
 * @param port             0..65535
 */
public record Listener(String securityProtocol, String host, int port) {

    public static final String PLAINTEXT = "PLAINTEXT";
    public static final String SSL = "SSL";

    public Listener {
        if (!securityProtocol.equals(PLAINTEXT) && !securityProtocol.equals(SSL)) {
            throw new IllegalArgumentException("Invalid listener security protocol " + securityProtocol
                    + " in configuration " + ServerConfig.LISTENERS + ": PLAINTEXT or SSL");
        }
    }

    /**
     * Parses {@code listeners}: exactly one {@code PLAINTEXT://host:port} or {@code SSL://host:port}.
     *
     * @throws IllegalArgumentException naming the property
     */
    public static Listener parse(String value) {
        return parse(ServerConfig.LISTENERS, value);
    }

    /**
     * Parses {@code property} ({@code listeners} or {@code advertised.listeners}) as one listener.
     *
     * @throws IllegalArgumentException naming the property
     */
    public static Listener parse(String property, String value) {
        String v = value.trim();
        if (v.contains(",")) {
            throw new IllegalArgumentException("Invalid value '" + value + "' for configuration " + property
                    + ": one listener only (it serves every role of the process)");
        }
        int sep = v.indexOf("://");
        if (sep <= 0) {
            throw new IllegalArgumentException("Invalid value '" + value + "' for configuration " + property
                    + ": expected PLAINTEXT://host:port or SSL://host:port");
        }
        String protocol = v.substring(0, sep).toUpperCase(Locale.ROOT);
        if (!protocol.equals(PLAINTEXT) && !protocol.equals(SSL)) {
            throw new IllegalArgumentException("Invalid value '" + value + "' for configuration " + property
                    + ": the listener name must be PLAINTEXT or SSL (listener.security.protocol.map is not supported)");
        }
        InetSocketAddress a = NodeAddresses.hostPort(property, v, v.substring(sep + 3), true);
        return new Listener(protocol, a.getHostString(), a.getPort());
    }

    /** Whether it speaks TLS. */
    public boolean isTls() {
        return securityProtocol.equals(SSL);
    }

    /** This listener on another port (the bound one when 0 was asked). */
    public Listener withPort(int boundPort) {
        return new Listener(securityProtocol, host, boundPort);
    }

    /**
     * LDR-4: this listener as a broker registration carries it. There is one listener per process,
     * named by its security protocol, so the name and the protocol are the same word.
     */
    public Endpoint endpoint() {
        return new Endpoint(securityProtocol, securityProtocol, host, port);
    }

    /** {@code PLAINTEXT://host:port}. */
    @Override
    public String toString() {
        return securityProtocol + "://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
