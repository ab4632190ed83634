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

package dev.insync.replication.core.metadata;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * LDR-4: one advertised listener of a broker, as its registration carries it (Kafka's
 * {@code RegisterBrokerRecord} endpoint: what {@code advertised.listeners} names, defaulting to
 * {@code listeners}). Other brokers dial it to fetch, and Metadata answers list it, so nobody needs
 * a static address table.
 *
 * @param listenerName     the listener's name, e.g. {@code PLAINTEXT}
 * @param securityProtocol how to speak to it, e.g. {@code PLAINTEXT} or {@code SSL}
 * @param host             the advertised host name or address (never a wildcard such as {@code 0.0.0.0})
 * @param port             1..65535
 */
public record Endpoint(String listenerName, String securityProtocol, String host, int port) {

    /** Bound on each string's UTF-8 length (the wire's host-name bound). */
    public static final int MAX_STRING_BYTES = 255;
    /** Bound on the endpoints of one registration. */
    public static final int MAX_ENDPOINTS = 16;

    /** Validates the fields. */
    public Endpoint {
        check("listener name", listenerName);
        check("security protocol", securityProtocol);
        check("host", host);
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("Endpoint " + listenerName + " port " + port + " is outside 1..65535");
        }
    }

    private static void check(String what, String value) {
        Objects.requireNonNull(value, what);
        if (value.isBlank() || !value.strip().equals(value)) {
            throw new IllegalArgumentException("Endpoint " + what + " '" + value + "' is empty or has surrounding spaces");
        }
        if (value.getBytes(StandardCharsets.UTF_8).length > MAX_STRING_BYTES) {
            throw new IllegalArgumentException("Endpoint " + what + " is longer than " + MAX_STRING_BYTES + " bytes");
        }
    }

    /**
     * An immutable copy of one registration's endpoints, checked: at most {@link #MAX_ENDPOINTS},
     * listener names distinct.
     *
     * @throws IllegalArgumentException naming the broker
     */
    public static List<Endpoint> checkedList(int brokerId, List<Endpoint> endpoints) {
        List<Endpoint> copy = List.copyOf(endpoints);
        if (copy.size() > MAX_ENDPOINTS) {
            throw new IllegalArgumentException("Broker " + brokerId + " registers " + copy.size() + " endpoints, at most "
                    + MAX_ENDPOINTS + " allowed");
        }
        Set<String> names = new HashSet<>();
        for (Endpoint e : copy) {
            if (!names.add(e.listenerName())) {
                throw new IllegalArgumentException("Broker " + brokerId + " registers listener " + e.listenerName()
                        + " twice");
            }
        }
        return copy;
    }

    /**
     * The endpoint a peer speaking {@code listenerName} dials: the one of that name, else the first
     * (a cluster whose brokers name their listener differently still reaches them), else empty.
     */
    public static Optional<Endpoint> forListener(List<Endpoint> endpoints, String listenerName) {
        for (Endpoint e : endpoints) {
            if (e.listenerName().equals(listenerName)) {
                return Optional.of(e);
            }
        }
        return endpoints.stream().findFirst();
    }

    /** {@code PLAINTEXT://host:port}, as Kafka writes a listener. */
    @Override
    public String toString() {
        return listenerName + "://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
