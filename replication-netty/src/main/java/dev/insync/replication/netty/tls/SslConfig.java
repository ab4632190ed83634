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

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * TLS settings with Kafka's property names (SEC-1). The same settings serve a server (its
 * keystore is its certificate, its truststore decides which peers are accepted) and a client (its
 * keystore is the certificate it presents, e.g. a broker's own, its truststore the servers it trusts).
 *
 * @param keystoreLocation     {@code ssl.keystore.location}, empty for a client that presents no certificate
 * @param keystorePassword     {@code ssl.keystore.password}
 * @param keystoreType         {@code ssl.keystore.type} (Kafka's default JKS; PKCS12 works too)
 * @param keyPassword          {@code ssl.key.password}, empty to use the keystore password
 * @param truststoreLocation   {@code ssl.truststore.location}, empty for the JDK's default trust
 * @param truststorePassword   {@code ssl.truststore.password}
 * @param truststoreType       {@code ssl.truststore.type}
 * @param clientAuth           {@code ssl.client.auth} (server side)
 * @param enabledProtocols     {@code ssl.enabled.protocols}
 * @param endpointIdentificationAlgorithm {@code ssl.endpoint.identification.algorithm} (client side;
 *                             Kafka's default {@code https} checks the server's host name or IP
 *                             against its certificate; empty disables the check)
 */
public record SslConfig(Optional<Path> keystoreLocation, String keystorePassword, String keystoreType,
                        Optional<String> keyPassword, Optional<Path> truststoreLocation, String truststorePassword,
                        String truststoreType, ClientAuth clientAuth, List<String> enabledProtocols,
                        String endpointIdentificationAlgorithm) {

    public static final String SECURITY_PROTOCOL = "security.protocol";
    public static final String KEYSTORE_LOCATION = "ssl.keystore.location";
    public static final String KEYSTORE_PASSWORD = "ssl.keystore.password";
    public static final String KEYSTORE_TYPE = "ssl.keystore.type";
    public static final String KEY_PASSWORD = "ssl.key.password";
    public static final String TRUSTSTORE_LOCATION = "ssl.truststore.location";
    public static final String TRUSTSTORE_PASSWORD = "ssl.truststore.password";
    public static final String TRUSTSTORE_TYPE = "ssl.truststore.type";
    public static final String CLIENT_AUTH = "ssl.client.auth";
    public static final String ENABLED_PROTOCOLS = "ssl.enabled.protocols";
    public static final String ENDPOINT_IDENTIFICATION_ALGORITHM = "ssl.endpoint.identification.algorithm";

    public static final String DEFAULT_STORE_TYPE = "JKS";
    public static final List<String> DEFAULT_ENABLED_PROTOCOLS = List.of("TLSv1.2", "TLSv1.3");

    public SslConfig {
        Objects.requireNonNull(keystoreLocation, KEYSTORE_LOCATION);
        Objects.requireNonNull(keystorePassword, KEYSTORE_PASSWORD);
        Objects.requireNonNull(keystoreType, KEYSTORE_TYPE);
        Objects.requireNonNull(keyPassword, KEY_PASSWORD);
        Objects.requireNonNull(truststoreLocation, TRUSTSTORE_LOCATION);
        Objects.requireNonNull(truststorePassword, TRUSTSTORE_PASSWORD);
        Objects.requireNonNull(truststoreType, TRUSTSTORE_TYPE);
        Objects.requireNonNull(clientAuth, CLIENT_AUTH);
        Objects.requireNonNull(endpointIdentificationAlgorithm, ENDPOINT_IDENTIFICATION_ALGORITHM);
        enabledProtocols = List.copyOf(enabledProtocols);
        if (enabledProtocols.isEmpty()) {
            throw new IllegalArgumentException("Property " + ENABLED_PROTOCOLS + " names no protocol");
        }
    }

    /**
     * The TLS settings in {@code props} when {@code security.protocol} is {@code SSL}; empty when it
     * is {@code PLAINTEXT} or absent.
     */
    public static Optional<SslConfig> fromProperties(Map<String, ?> props) {
        String protocol = string(props, SECURITY_PROTOCOL, "PLAINTEXT").trim();
        if (protocol.equalsIgnoreCase("PLAINTEXT")) {
            return Optional.empty();
        }
        if (!protocol.equalsIgnoreCase("SSL")) {
            throw new IllegalArgumentException("Property " + SECURITY_PROTOCOL + " must be PLAINTEXT or SSL, got '"
                    + protocol + "'");
        }
        return Optional.of(new SslConfig(
                path(props, KEYSTORE_LOCATION), string(props, KEYSTORE_PASSWORD, ""),
                string(props, KEYSTORE_TYPE, DEFAULT_STORE_TYPE),
                Optional.ofNullable(props.get(KEY_PASSWORD)).map(Object::toString),
                path(props, TRUSTSTORE_LOCATION), string(props, TRUSTSTORE_PASSWORD, ""),
                string(props, TRUSTSTORE_TYPE, DEFAULT_STORE_TYPE),
                ClientAuth.parse(string(props, CLIENT_AUTH, "none")),
                props.containsKey(ENABLED_PROTOCOLS)
                        ? Arrays.stream(props.get(ENABLED_PROTOCOLS).toString().split(",")).map(String::trim)
                                .filter(s -> !s.isEmpty()).toList()
                        : DEFAULT_ENABLED_PROTOCOLS,
                string(props, ENDPOINT_IDENTIFICATION_ALGORITHM, "https").trim()));
    }

    private static String string(Map<String, ?> props, String name, String defaultValue) {
        Object v = props.get(name);
        return v == null ? defaultValue : v.toString();
    }

    private static Optional<Path> path(Map<String, ?> props, String name) {
        Object v = props.get(name);
        return v == null || v.toString().isBlank() ? Optional.empty() : Optional.of(Path.of(v.toString().trim()));
    }

    @Override
    public String toString() {
        // Passwords stay out of logs.
        return "SslConfig(keystore=" + keystoreLocation.map(Path::toString).orElse("none") + ", truststore="
                + truststoreLocation.map(Path::toString).orElse("JDK default") + ", clientAuth=" + clientAuth
                + ", protocols=" + enabledProtocols + ")";
    }
}
