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

package dev.insync.replication.testkit.process;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Free TCP ports on 127.0.0.1 for processes that must be told their port before they start. */
public final class LoopbackPorts {

    private LoopbackPorts() {
    }

    /**
     * {@code count} distinct ports that were free a moment ago: all bound at once (so none repeats),
     * then released for the processes to bind. Another program could take one in between; a process
     * that then fails to bind shows it in its log.
     */
    public static List<Integer> free(int count) throws IOException {
        if (count < 1) {
            throw new IllegalArgumentException("count must be positive, not " + count);
        }
        List<ServerSocket> held = new ArrayList<>();
        try {
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                held.add(s);
                ports.add(s.getLocalPort());
            }
            return List.copyOf(ports);
        } finally {
            for (ServerSocket s : held) {
                s.close();
            }
        }
    }

    /** Lowest port {@link #freeBelowEphemeralRange} hands out. */
    static final int LOWEST_STABLE_PORT = 10_000;

    /**
     * {@code count} distinct free ports below the kernel's ephemeral range
     * ({@code /proc/sys/net/ipv4/ip_local_port_range}, else 32768), starting at a random point:
     * the kernel never gives such a port to an outgoing connection or a bind to port 0, so a node
     * killed and restarted on its port finds it free again however many connections opened
     * meanwhile. All are bound at once, then released.
     */
    public static List<Integer> freeBelowEphemeralRange(int count) throws IOException {
        if (count < 1) {
            throw new IllegalArgumentException("count must be positive, not " + count);
        }
        int limit = ephemeralLow();
        if (limit - LOWEST_STABLE_PORT < count * 4) {
            return free(count);
        }
        int span = limit - LOWEST_STABLE_PORT;
        int start = LOWEST_STABLE_PORT + java.util.concurrent.ThreadLocalRandom.current().nextInt(span);
        List<ServerSocket> held = new ArrayList<>();
        try {
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < span && ports.size() < count; i++) {
                int port = LOWEST_STABLE_PORT + (start - LOWEST_STABLE_PORT + i) % span;
                ServerSocket s = new ServerSocket();
                try {
                    s.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
                } catch (IOException e) {
                    s.close();
                    continue; // taken: try the next
                }
                held.add(s);
                ports.add(port);
            }
            if (ports.size() < count) {
                throw new IOException("Only " + ports.size() + " free ports in " + LOWEST_STABLE_PORT + ".." + (limit - 1));
            }
            return List.copyOf(ports);
        } finally {
            for (ServerSocket s : held) {
                s.close();
            }
        }
    }

    static int ephemeralLow() {
        try {
            // One read into a buffer: this sysctl file answers a read at a non-zero offset with EOF, so
            // Files.readString (which reads one byte first when the size says 0) would see just "3".
            byte[] buffer = new byte[64];
            int n;
            try (java.io.InputStream in = java.nio.file.Files.newInputStream(
                    java.nio.file.Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
                n = in.read(buffer);
            }
            String range = new String(buffer, 0, Math.max(0, n), java.nio.charset.StandardCharsets.US_ASCII).trim();
            return Integer.parseInt(range.split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }
}
