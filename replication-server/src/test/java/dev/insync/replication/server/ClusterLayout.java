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

import dev.insync.replication.testkit.process.LoopbackPorts;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Test fixture: the properties of {@code c} controller processes (ids 101..) and {@code b} broker
 * processes (ids 1..) on 127.0.0.1 and free ports, data under {@code root}. The same properties
 * start {@link InsyncServer}s in one JVM or {@code insync broker --config} processes. Settings are
 * short so that fencing and elections happen within a test's seconds.
 */
public final class ClusterLayout {

    public static final int FIRST_CONTROLLER_ID = 101;
    public static final long SESSION_TIMEOUT_MS = 3_000;

    private final Path root;
    private final Map<Integer, InetSocketAddress> controllerListeners = new TreeMap<>();
    private final Map<Integer, Integer> raftPorts = new TreeMap<>();
    private final Map<Integer, InetSocketAddress> brokerListeners = new TreeMap<>();

    public ClusterLayout(Path root, int controllers, int brokers) {
        this.root = root;
        Iterator<Integer> ports = freePorts(2 * controllers + brokers).iterator();
        for (int i = 0; i < controllers; i++) {
            controllerListeners.put(FIRST_CONTROLLER_ID + i, new InetSocketAddress("127.0.0.1", ports.next()));
            raftPorts.put(FIRST_CONTROLLER_ID + i, ports.next());
        }
        for (int id = 1; id <= brokers; id++) {
            brokerListeners.put(id, new InetSocketAddress("127.0.0.1", ports.next()));
        }
    }

    /**
     * Distinct ports free a moment ago, below the kernel's ephemeral range: a socket bound to port 0
     * in between (a test's proxy, a client's connection) can never take one of them before its server
     * binds it, as it could take a port picked by binding port 0.
     */
    static List<Integer> freePorts(int count) {
        try {
            return LoopbackPorts.freeBelowEphemeralRange(count);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static int freePort() {
        return freePorts(1).get(0);
    }

    public List<Integer> controllerIds() {
        return new ArrayList<>(controllerListeners.keySet());
    }

    public List<Integer> brokerIds() {
        return new ArrayList<>(brokerListeners.keySet());
    }

    public Map<Integer, InetSocketAddress> controllerListeners() {
        return controllerListeners;
    }

    public InetSocketAddress brokerListener(int id) {
        return brokerListeners.get(id);
    }

    /** Moves broker {@code id} to another free port (its next {@link #broker} listens there); returns it. */
    public InetSocketAddress rebindBroker(int id) {
        InetSocketAddress moved = new InetSocketAddress("127.0.0.1", freePort());
        brokerListeners.put(id, moved);
        return moved;
    }

    public Path brokerLogDir(int id) {
        return root.resolve("broker-" + id);
    }

    private static String table(Map<Integer, InetSocketAddress> m) {
        return m.entrySet().stream().map(e -> e.getKey() + "@" + e.getValue().getHostString() + ":" + e.getValue().getPort())
                .collect(Collectors.joining(","));
    }

    private Map<String, String> common(int id) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("node.id", Integer.toString(id));
        p.put("insync.controller.endpoints", table(controllerListeners));
        // No insync.broker.addresses: brokers register their listeners and learn each other's from metadata (LDR-4).
        p.put("broker.session.timeout.ms", Long.toString(SESSION_TIMEOUT_MS));
        p.put("broker.heartbeat.interval.ms", "300");
        p.put("num.network.threads", "1");
        p.put("num.io.threads", "2");
        return p;
    }

    /** A controller's properties. */
    public Map<String, String> controller(int id) {
        Map<String, String> p = common(id);
        p.put("process.roles", "controller");
        InetSocketAddress l = controllerListeners.get(id);
        p.put("listeners", "PLAINTEXT://" + l.getHostString() + ":" + l.getPort());
        p.put("controller.quorum.voters", raftPorts.entrySet().stream()
                .map(e -> e.getKey() + "@127.0.0.1:" + e.getValue()).collect(Collectors.joining(",")));
        p.put("metadata.log.dir", root.resolve("controller-" + id).toString());
        p.put("controller.quorum.election.timeout.ms", "500");
        return p;
    }

    /** A broker's properties. */
    public Map<String, String> broker(int id) {
        Map<String, String> p = common(id);
        p.put("process.roles", "broker");
        InetSocketAddress l = brokerListeners.get(id);
        p.put("listeners", "PLAINTEXT://" + l.getHostString() + ":" + l.getPort());
        p.put("log.dirs", brokerLogDir(id).toString());
        p.put("replica.lag.time.max.ms", "3000");
        p.put("replica.fetch.wait.max.ms", "200");
        p.put("insync.controlled.shutdown.timeout.ms", "15000");
        return p;
    }

    /** Writes {@code props} as a properties file. */
    public static Path write(Path file, Map<String, String> props) throws IOException {
        try (Writer w = Files.newBufferedWriter(file)) {
            for (Map.Entry<String, String> e : props.entrySet()) {
                w.write(e.getKey() + "=" + e.getValue() + "\n");
            }
        }
        return file;
    }
}
