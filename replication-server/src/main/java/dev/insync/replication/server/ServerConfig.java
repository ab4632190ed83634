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

import dev.insync.replication.broker.BrokerConfig;
import dev.insync.replication.controller.ratis.RatisControllerConfig;
import dev.insync.replication.netty.config.NetworkConfig;
import dev.insync.replication.netty.tls.BrokerPrincipals;
import dev.insync.replication.netty.tls.SslConfig;

import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Everything one {@link InsyncServer} process is told, parsed and checked at once from Kafka-named
 * properties, so that a bad file is refused before anything opens (the CLI's exit code 2). What
 * each role reads:
 * <ul>
 *   <li>the process: {@code node.id}, {@code process.roles}, {@code listeners},
 *       {@code advertised.listeners}, the network and TLS settings ({@link NetworkConfig},
 *       {@link SslConfig}, {@link BrokerPrincipals}), {@code insync.controller.endpoints},
 *       {@code insync.broker.addresses} (deprecated),
 *       {@code insync.connect.overrides}, {@code insync.controlled.shutdown.timeout.ms};</li>
 *   <li>the broker role: {@link BrokerConfig} ({@code log.dirs} and every replication setting);</li>
 *   <li>the controller role: {@link RatisControllerConfig} ({@code controller.quorum.voters},
 *       {@code metadata.log.dir}, ...).</li>
 * </ul>
 * docs/operations.md lists every property.
 *
 * @param nodeId                        {@code node.id}: the broker id and/or the controller node id
 * @param roles                         {@code process.roles}
 * @param listener                      {@code listeners}: the one listener, serving every role
 * @param advertisedListener            {@code advertised.listeners}: where others reach it, if not at
 *                                      {@code listeners} (a broker registers it, LDR-4)
 * @param controllerEndpoints           {@code insync.controller.endpoints}: where each controller node's
 *                                      listener is, {@code id@host:port,...} (required for a broker)
 * @param brokerAddresses               {@code insync.broker.addresses} (deprecated): a static table of brokers'
 *                                      advertised addresses that, where it has an entry, wins over the
 *                                      endpoints brokers registered (what fetchers dial and Metadata lists)
 * @param connectOverrides              {@code insync.connect.overrides}: the address this process dials for a
 *                                      node instead (a proxy), by node id, for broker and controller links
 * @param controlledShutdownTimeoutMs   {@code insync.controlled.shutdown.timeout.ms}: the longest a controlled
 *                                      shutdown waits for the controller before the broker stops without it
 * @param network                       the server's and clients' network settings
 * @param ssl                           TLS of the listener and of this process's connections, if SSL
 * @param principals                    SEC-2's principal → broker id map
 * @param broker                        the broker role's settings, if it has the role
 * @param controller                    the controller role's settings, if it has the role
 */
public record ServerConfig(int nodeId, Set<ProcessRole> roles, Listener listener, Optional<Listener> advertisedListener,
                           NodeAddresses controllerEndpoints,
                           NodeAddresses brokerAddresses, NodeAddresses connectOverrides,
                           long controlledShutdownTimeoutMs, NetworkConfig network, Optional<SslConfig> ssl,
                           BrokerPrincipals principals, Optional<BrokerConfig> broker,
                           Optional<RatisControllerConfig> controller) {

    public static final String NODE_ID = "node.id";
    public static final String PROCESS_ROLES = "process.roles";
    public static final String LISTENERS = "listeners";
    public static final String ADVERTISED_LISTENERS = "advertised.listeners";
    public static final String CONTROLLER_ENDPOINTS = "insync.controller.endpoints";
    public static final String BROKER_ADDRESSES = "insync.broker.addresses";
    public static final String CONNECT_OVERRIDES = "insync.connect.overrides";
    public static final String CONTROLLED_SHUTDOWN_TIMEOUT_MS = "insync.controlled.shutdown.timeout.ms";

    public static final long DEFAULT_CONTROLLED_SHUTDOWN_TIMEOUT_MS = 30_000L;

    /**
     * Names the broker role leaves to the process or the controller role (so that a process file
     * does not make {@link BrokerConfig} warn about them as unknown). {@code request.timeout.ms} is
     * both a network and a replication setting and stays.
     */
    private static final Set<String> NOT_FOR_THE_BROKER = Set.of(PROCESS_ROLES, LISTENERS, ADVERTISED_LISTENERS,
            NetworkConfig.SOCKET_REQUEST_MAX_BYTES, NetworkConfig.QUEUED_MAX_REQUESTS,
            NetworkConfig.CONNECTIONS_MAX_IDLE_MS, NetworkConfig.NUM_NETWORK_THREADS, NetworkConfig.NUM_IO_THREADS,
            NetworkConfig.RECONNECT_BACKOFF_MS, NetworkConfig.RECONNECT_BACKOFF_MAX_MS,
            NetworkConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MS, SslConfig.SECURITY_PROTOCOL, "default.replication.factor");
    private static final Set<String> PREFIXES_NOT_FOR_THE_BROKER = Set.of("insync.", "ssl.", "controller.", "metadata.");

    /** Validates; immutable copies. */
    public ServerConfig {
        roles = Collections.unmodifiableSet(EnumSet.copyOf(roles));
        Objects.requireNonNull(listener, LISTENERS);
        Objects.requireNonNull(advertisedListener, ADVERTISED_LISTENERS);
        advertisedListener.ifPresent(a -> {
            if (!a.securityProtocol().equals(listener.securityProtocol())) {
                throw new IllegalArgumentException("Configuration " + ADVERTISED_LISTENERS + " (" + a + ") and "
                        + LISTENERS + " (" + listener + ") name different listeners: advertise the one listener");
            }
            if (a.port() == 0) {
                throw new IllegalArgumentException("Invalid value " + a + " for configuration " + ADVERTISED_LISTENERS
                        + ": the port others dial cannot be 0");
            }
        });
        Objects.requireNonNull(controllerEndpoints, CONTROLLER_ENDPOINTS);
        Objects.requireNonNull(brokerAddresses, BROKER_ADDRESSES);
        Objects.requireNonNull(connectOverrides, CONNECT_OVERRIDES);
        Objects.requireNonNull(network, "network");
        Objects.requireNonNull(ssl, "ssl");
        Objects.requireNonNull(principals, "principals");
        if (roles.contains(ProcessRole.BROKER) != broker.isPresent()) {
            throw new IllegalArgumentException("Broker settings are given iff " + PROCESS_ROLES + " has broker");
        }
        if (roles.contains(ProcessRole.CONTROLLER) != controller.isPresent()) {
            throw new IllegalArgumentException("Controller settings are given iff " + PROCESS_ROLES + " has controller");
        }
        if (roles.contains(ProcessRole.BROKER) && controllerEndpoints.isEmpty()) {
            throw new IllegalArgumentException("Missing required configuration " + CONTROLLER_ENDPOINTS
                    + " (id@host:port of every controller node's listener) for " + PROCESS_ROLES + "=broker");
        }
        String advertisedHost = advertised(nodeId, advertisedListener, brokerAddresses, listener).host();
        if (roles.contains(ProcessRole.BROKER) && isWildcard(advertisedHost)) {
            // As Kafka: nobody can dial the meta-address, and it would be what this broker registers (LDR-4).
            throw new IllegalArgumentException("Broker " + nodeId + " would advertise the non-routable address "
                    + advertisedHost + ": set " + ADVERTISED_LISTENERS
                    + " to the address other brokers and clients reach (" + LISTENERS + " may bind every interface)");
        }
        if (listener.isTls() != ssl.isPresent()) {
            throw new IllegalArgumentException("Configuration " + LISTENERS + " (" + listener + ") and "
                    + SslConfig.SECURITY_PROTOCOL + " disagree");
        }
        // Kafka's node ids are one space for brokers and controllers; one id is one process.
        for (Map.Entry<Integer, InetSocketAddress> e : brokerAddresses.asMap().entrySet()) {
            controllerEndpoints.address(e.getKey()).ifPresent(c -> {
                if (!sameAddress(c, e.getValue())) {
                    throw new IllegalArgumentException("Node " + e.getKey() + " is at " + c + " in " + CONTROLLER_ENDPOINTS
                            + " but at " + e.getValue() + " in " + BROKER_ADDRESSES
                            + ": a node id is one process (broker and controller ids share one space)");
                }
            });
        }
        if (controlledShutdownTimeoutMs < 1) {
            throw new IllegalArgumentException("Invalid value " + controlledShutdownTimeoutMs + " for configuration "
                    + CONTROLLED_SHUTDOWN_TIMEOUT_MS + ": must be at least 1");
        }
    }

    private static boolean isWildcard(String host) {
        return host.equals("0.0.0.0") || host.equals("::") || host.equals("0:0:0:0:0:0:0:0");
    }

    private static boolean sameAddress(InetSocketAddress a, InetSocketAddress b) {
        return a.getHostString().equals(b.getHostString()) && a.getPort() == b.getPort();
    }

    /**
     * Parses and checks every setting of the process and of its roles.
     *
     * @throws IllegalArgumentException naming the property that is missing or bad
     */
    public static ServerConfig fromProperties(Map<String, ?> props) {
        Objects.requireNonNull(props, "props");
        Object id = props.get(NODE_ID);
        if (id == null || id.toString().isBlank()) {
            throw new IllegalArgumentException("Missing required configuration " + NODE_ID);
        }
        int nodeId;
        try {
            nodeId = Integer.parseInt(id.toString().trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Invalid value '" + id + "' for configuration " + NODE_ID
                    + ": expected a whole number", e);
        }
        if (nodeId < 0) {
            throw new IllegalArgumentException("Invalid value " + nodeId + " for configuration " + NODE_ID
                    + ": must be at least 0");
        }
        Set<ProcessRole> roles = ProcessRole.parse(required(props, PROCESS_ROLES));
        Listener listener = Listener.parse(required(props, LISTENERS));
        String advertised = string(props, ADVERTISED_LISTENERS);
        Optional<Listener> advertisedListener = advertised == null || advertised.isBlank() ? Optional.empty()
                : Optional.of(Listener.parse(ADVERTISED_LISTENERS, advertised));
        Map<String, Object> netProps = new LinkedHashMap<>(props);
        Object protocol = props.get(SslConfig.SECURITY_PROTOCOL);
        if (protocol != null && !protocol.toString().trim().equalsIgnoreCase(listener.securityProtocol())) {
            throw new IllegalArgumentException("Configuration " + SslConfig.SECURITY_PROTOCOL + "=" + protocol
                    + " disagrees with " + LISTENERS + "=" + listener);
        }
        netProps.put(SslConfig.SECURITY_PROTOCOL, listener.securityProtocol());
        NetworkConfig network = NetworkConfig.fromProperties(props);
        Optional<SslConfig> ssl = SslConfig.fromProperties(netProps);
        BrokerPrincipals principals = BrokerPrincipals.fromProperties(props);

        Optional<BrokerConfig> broker = Optional.empty();
        if (roles.contains(ProcessRole.BROKER)) {
            Map<String, Object> brokerProps = props.entrySet().stream()
                    .filter(e -> forTheBroker(e.getKey()))
                    .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, LinkedHashMap::new));
            broker = Optional.of(BrokerConfig.fromProperties(brokerProps));
        }
        Optional<RatisControllerConfig> controller = Optional.empty();
        if (roles.contains(ProcessRole.CONTROLLER)) {
            // The Ratis node is the controller half of the process, whatever else the process runs.
            Map<String, Object> controllerProps = new LinkedHashMap<>(props);
            controllerProps.put(RatisControllerConfig.PROCESS_ROLES, "controller");
            controller = Optional.of(RatisControllerConfig.fromProperties(controllerProps));
        }
        return new ServerConfig(nodeId, roles, listener, advertisedListener,
                NodeAddresses.parse(CONTROLLER_ENDPOINTS, string(props, CONTROLLER_ENDPOINTS)),
                NodeAddresses.parse(BROKER_ADDRESSES, string(props, BROKER_ADDRESSES)),
                NodeAddresses.parse(CONNECT_OVERRIDES, string(props, CONNECT_OVERRIDES)),
                longValue(props, CONTROLLED_SHUTDOWN_TIMEOUT_MS, DEFAULT_CONTROLLED_SHUTDOWN_TIMEOUT_MS),
                network, ssl, principals, broker, controller);
    }

    private static boolean forTheBroker(String name) {
        if (NOT_FOR_THE_BROKER.contains(name)) {
            return false;
        }
        return PREFIXES_NOT_FOR_THE_BROKER.stream().noneMatch(name::startsWith);
    }

    private static String required(Map<String, ?> props, String name) {
        Object v = props.get(name);
        if (v == null || v.toString().isBlank()) {
            throw new IllegalArgumentException("Missing required configuration " + name);
        }
        return v.toString();
    }

    private static String string(Map<String, ?> props, String name) {
        Object v = props.get(name);
        return v == null ? null : v.toString();
    }

    private static long longValue(Map<String, ?> props, String name, long defaultValue) {
        Object v = props.get(name);
        if (v == null) {
            return defaultValue;
        }
        try {
            return Long.parseLong(v.toString().trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Invalid value '" + v + "' for configuration " + name
                    + ": expected a whole number", e);
        }
    }

    /** Whether this process runs {@code role}. */
    public boolean has(ProcessRole role) {
        return roles.contains(role);
    }

    /**
     * The address this process is told to dial for broker {@code id}: its override, else its entry
     * in {@code insync.broker.addresses} (deprecated); empty when the broker's registration is to
     * say (LDR-4, {@link InsyncServer}).
     */
    public Optional<InetSocketAddress> dialAddressOfBroker(int id) {
        Optional<InetSocketAddress> o = connectOverrides.address(id);
        return o.isPresent() ? o : brokerAddresses.address(id);
    }

    /** The address this process dials for controller node {@code id}: its override, else {@code insync.controller.endpoints}. */
    public Optional<InetSocketAddress> dialAddressOfController(int id) {
        Optional<InetSocketAddress> o = connectOverrides.address(id);
        return o.isPresent() ? o : controllerEndpoints.address(id);
    }

    /**
     * What this broker registers (LDR-4): {@code advertised.listeners}; else, for a file written
     * for the old table, this node's own {@code insync.broker.addresses} entry (which was its
     * advertised address); else {@code listeners} as bound ({@code bound} has the real port when 0
     * was asked).
     */
    public Listener advertised(Listener bound) {
        return advertised(nodeId, advertisedListener, brokerAddresses, bound);
    }

    private static Listener advertised(int nodeId, Optional<Listener> advertisedListener, NodeAddresses brokerAddresses,
                                       Listener bound) {
        if (advertisedListener.isPresent()) {
            return advertisedListener.get();
        }
        return brokerAddresses.address(nodeId)
                .map(a -> new Listener(bound.securityProtocol(), a.getHostString(), a.getPort()))
                .orElse(bound);
    }

    /** {@code broker,controller} as {@code process.roles} writes it. */
    public String rolesString() {
        return roles.stream().map(ProcessRole::propertyValue).collect(Collectors.joining(","));
    }
}
