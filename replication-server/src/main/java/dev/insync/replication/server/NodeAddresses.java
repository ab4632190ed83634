package dev.insync.replication.server;

import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A table "node id → host:port", written {@code id@host:port,id@host:port} as Kafka writes
 * {@code controller.quorum.voters}. Used for {@code insync.broker.addresses},
 * {@code insync.controller.endpoints} and {@code insync.connect.overrides}. Immutable.
 */
public final class NodeAddresses {

    /** The empty table. */
    public static final NodeAddresses EMPTY = new NodeAddresses(Map.of());

    private final Map<Integer, InetSocketAddress> byId;

    private NodeAddresses(Map<Integer, InetSocketAddress> byId) {
        this.byId = Collections.unmodifiableMap(new TreeMap<>(byId));
    }

    /** A table of these entries. */
    public static NodeAddresses of(Map<Integer, InetSocketAddress> byId) {
        byId.forEach((id, a) -> {
            if (id < 0) {
                throw new IllegalArgumentException("Negative node id " + id);
            }
        });
        return new NodeAddresses(byId);
    }

    /**
     * Parses {@code id@host:port,...}; blank is the empty table.
     *
     * @param property the property's name, for the error
     * @throws IllegalArgumentException naming the property and the entry that is wrong
     */
    public static NodeAddresses parse(String property, String value) {
        if (value == null || value.isBlank()) {
            return EMPTY;
        }
        Map<Integer, InetSocketAddress> m = new TreeMap<>();
        for (String raw : value.split(",", -1)) {
            String e = raw.trim();
            int at = e.indexOf('@');
            if (at <= 0) {
                throw new IllegalArgumentException("Invalid entry '" + e + "' in configuration " + property
                        + ": expected id@host:port");
            }
            int id;
            try {
                id = Integer.parseInt(e.substring(0, at).trim());
            } catch (NumberFormatException ex) {
                throw new IllegalArgumentException("Invalid entry '" + e + "' in configuration " + property
                        + ": the node id is not a number", ex);
            }
            if (id < 0) {
                throw new IllegalArgumentException("Invalid entry '" + e + "' in configuration " + property
                        + ": negative node id");
            }
            if (m.put(id, hostPort(property, e, e.substring(at + 1))) != null) {
                throw new IllegalArgumentException("Configuration " + property + " names node " + id + " twice");
            }
        }
        return new NodeAddresses(m);
    }

    /** {@code host:port} (IPv6 hosts in brackets) as an unresolved address; port 1..65535 unless {@code allowZero}. */
    static InetSocketAddress hostPort(String property, String entry, String hostPort) {
        return hostPort(property, entry, hostPort, false);
    }

    static InetSocketAddress hostPort(String property, String entry, String hostPort, boolean allowZero) {
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0 || colon == hostPort.length() - 1) {
            throw new IllegalArgumentException("Invalid entry '" + entry + "' in configuration " + property
                    + ": expected host:port");
        }
        String host = hostPort.substring(0, colon).trim();
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(hostPort.substring(colon + 1).trim());
        } catch (NumberFormatException ex) {
            throw new IllegalArgumentException("Invalid entry '" + entry + "' in configuration " + property
                    + ": the port is not a number", ex);
        }
        if (port < (allowZero ? 0 : 1) || port > 65535) {
            throw new IllegalArgumentException("Invalid entry '" + entry + "' in configuration " + property
                    + ": port " + port + " outside " + (allowZero ? 0 : 1) + "..65535");
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("Invalid entry '" + entry + "' in configuration " + property
                    + ": no host");
        }
        return InetSocketAddress.createUnresolved(host, port);
    }

    /** The address of node {@code id}, if listed. */
    public Optional<InetSocketAddress> address(int id) {
        return Optional.ofNullable(byId.get(id));
    }

    /** Every entry, by id. */
    public Map<Integer, InetSocketAddress> asMap() {
        return byId;
    }

    public boolean isEmpty() {
        return byId.isEmpty();
    }

    /** This table with {@code overrides} winning where both name a node. */
    public NodeAddresses overriddenBy(NodeAddresses overrides) {
        Map<Integer, InetSocketAddress> m = new TreeMap<>(byId);
        m.putAll(overrides.byId);
        return new NodeAddresses(m);
    }

    /** The property form, {@code id@host:port,...}. */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        byId.forEach((id, a) -> {
            if (b.length() > 0) {
                b.append(',');
            }
            b.append(id).append('@').append(a.getHostString()).append(':').append(a.getPort());
        });
        return b.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NodeAddresses other && other.byId.equals(byId);
    }

    @Override
    public int hashCode() {
        return byId.hashCode();
    }
}
