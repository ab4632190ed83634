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
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fault-injecting TCP proxy for one directed link: the client node dials {@link #address()} on
 * 127.0.0.1 instead of the server node's real address, and the proxy forwards both ways. Faults are
 * switched at any time from any thread, and apply to every connection of the link, current and new:
 * <ul>
 *   <li>{@link #blackhole(Direction)}: bytes flowing that way vanish, as in a real partition. Nothing
 *       is closed and nothing is delivered; bytes read during the blackhole (or waiting out a
 *       delay when it starts) are dropped, never delivered later, and a close (FIN) seen meanwhile
 *       is not passed on either. A connection that lost bytes is <em>damaged</em>: after
 *       {@link #heal()} its stream has a hole in it, which {@link #resetDamaged()} turns into the
 *       reset a real TCP stack would end such a connection with (retransmission timeout).</li>
 *   <li>{@link #reset()}: every current connection is reset (RST, {@code SO_LINGER 0}, to both
 *       ends), and while the reset is set a new connection is accepted and reset at once (the
 *       client sees {@code Connection reset}, as from a host that refuses it).</li>
 *   <li>{@link #delay(Direction, long)}: added latency that way; bytes keep their order (a chunk
 *       waits for those before it even if the delay was lowered meanwhile).</li>
 *   <li>{@link #heal()}: no blackhole, no delay, no reset from now on.</li>
 * </ul>
 * Each connection costs four platform threads (a reader and a writer per direction); at most
 * {@link #MAX_BUFFERED_BYTES} per direction wait out a delay, beyond which the reader stops reading
 * (the sender's TCP window fills, as on a slow link). {@link #close()} stops every thread and closes
 * every socket. Thread-safe.
 */
public final class LinkProxy implements AutoCloseable {

    /** Which way bytes flow through a proxied connection. */
    public enum Direction {
        /** From the dialling (client) node to the listening (server) node: requests. */
        TO_SERVER,
        /** From the server node back to the client node: responses. */
        TO_CLIENT
    }

    /** Bytes per direction and connection held back by a delay before the reader stops reading. */
    public static final int MAX_BUFFERED_BYTES = 4 << 20;
    /** Bound of the connection from the proxy to the server node. */
    public static final int CONNECT_TIMEOUT_MS = 2_000;
    /** How long {@link #close()} waits for each of its threads to end. */
    static final long JOIN_TIMEOUT_MS = 5_000;

    private final String name;
    private final InetSocketAddress target;
    private final ServerSocket server;
    private final Thread acceptor;
    private final List<ProxiedConnection> connections = new ArrayList<>();
    private final Map<Direction, DirectionState> directions = new EnumMap<>(Direction.class);
    private final AtomicLong accepted = new AtomicLong();
    private volatile boolean resetting;
    private volatile boolean closed;

    private LinkProxy(String name, InetSocketAddress target, ServerSocket server) {
        this.name = name;
        this.target = target;
        this.server = server;
        for (Direction d : Direction.values()) {
            directions.put(d, new DirectionState());
        }
        this.acceptor = new Thread(this::acceptLoop, "link-proxy-" + name + "-accept");
        this.acceptor.setDaemon(true);
    }

    /**
     * A proxy named {@code name} (for thread names and messages, e.g. {@code 1->2}) listening on a
     * free port of 127.0.0.1 and forwarding to {@code target}, which need not listen yet: a
     * connection that cannot reach it is reset.
     */
    public static LinkProxy start(String name, InetSocketAddress target) throws IOException {
        ServerSocket server = new ServerSocket();
        try {
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        } catch (IOException e) {
            server.close();
            throw e;
        }
        LinkProxy proxy = new LinkProxy(name, target, server);
        proxy.acceptor.start();
        return proxy;
    }

    /** Its name. */
    public String name() {
        return name;
    }

    /** Where the client node must dial: 127.0.0.1 and the proxy's port. */
    public InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
    }

    /** The server node's real address. */
    public InetSocketAddress target() {
        return target;
    }

    /** Drops every byte flowing {@code direction} from now on, on every connection (see the class doc). */
    public void blackhole(Direction direction) {
        directions.get(direction).blackholed = true;
    }

    /** Blackholes both directions: a full partition of this link. */
    public void blackholeBoth() {
        blackhole(Direction.TO_SERVER);
        blackhole(Direction.TO_CLIENT);
    }

    /** Whether bytes flowing {@code direction} are dropped now. */
    public boolean isBlackholed(Direction direction) {
        return directions.get(direction).blackholed;
    }

    /** Adds {@code delayMs} (≥ 0) of latency to bytes flowing {@code direction}, from their arrival at the proxy. */
    public void delay(Direction direction, long delayMs) {
        if (delayMs < 0) {
            throw new IllegalArgumentException("Link " + name + ": delay " + delayMs + " ms is negative");
        }
        directions.get(direction).delayNanos = TimeUnit.MILLISECONDS.toNanos(delayMs);
    }

    /** Resets every current connection and, until {@link #heal()}, every new one. */
    public void reset() {
        resetting = true;
        for (ProxiedConnection c : liveConnections()) {
            c.reset();
        }
    }

    /** Whether new connections are being reset. */
    public boolean isResetting() {
        return resetting;
    }

    /** Lifts every fault: bytes flow both ways without added delay and new connections are served. */
    public void heal() {
        resetting = false;
        for (DirectionState d : directions.values()) {
            d.blackholed = false;
            d.delayNanos = 0;
        }
    }

    /**
     * Resets every connection that lost bytes or a close to a blackhole (its stream has a hole
     * that nothing can fill); returns how many. The undamaged ones go on.
     */
    public int resetDamaged() {
        int n = 0;
        for (ProxiedConnection c : liveConnections()) {
            if (c.damaged()) {
                c.reset();
                n++;
            }
        }
        return n;
    }

    /** Connections open now (both ends). */
    public int openConnections() {
        return liveConnections().size();
    }

    /** Connections accepted since the start, the reset ones included. */
    public long acceptedConnections() {
        return accepted.get();
    }

    /** Bytes delivered {@code direction} since the start, over all connections. */
    public long deliveredBytes(Direction direction) {
        return directions.get(direction).delivered.get();
    }

    /** Bytes dropped by a blackhole {@code direction} since the start, over all connections. */
    public long droppedBytes(Direction direction) {
        return directions.get(direction).dropped.get();
    }

    /** Stops accepting, closes every connection and waits (bounded) for every thread of this proxy to end. Idempotent. */
    @Override
    public void close() {
        List<ProxiedConnection> all;
        synchronized (connections) {
            if (closed) {
                return;
            }
            closed = true;
            all = List.copyOf(connections);
            connections.clear();
        }
        closeQuietly(server);
        for (ProxiedConnection c : all) {
            c.close();
        }
        join(acceptor);
        for (ProxiedConnection c : all) {
            c.join();
        }
    }

    @Override
    public String toString() {
        return "link " + name + " (" + address().getPort() + " -> " + target + ")";
    }

    // ------------------------------------------------------------------ internals

    /** State one direction shares across every connection of the link. */
    static final class DirectionState {
        volatile boolean blackholed;
        volatile long delayNanos;
        final AtomicLong delivered = new AtomicLong();
        final AtomicLong dropped = new AtomicLong();
    }

    DirectionState state(Direction direction) {
        return directions.get(direction);
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                if (closed) {
                    return;
                }
                continue; // a failed accept of one connection: keep serving the link
            }
            accepted.incrementAndGet();
            if (resetting) {
                resetQuietly(client);
                continue;
            }
            Socket upstream = new Socket();
            try {
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                upstream.connect(target, CONNECT_TIMEOUT_MS);
            } catch (IOException e) {
                // The server node is down or not listening: the client sees its connection reset.
                resetQuietly(client);
                closeQuietly(upstream);
                continue;
            }
            ProxiedConnection connection = new ProxiedConnection(this, accepted.get(), client, upstream);
            synchronized (connections) {
                if (closed) {
                    connection.close();
                    return;
                }
                connections.removeIf(ProxiedConnection::finished);
                connections.add(connection);
            }
            if (resetting) {
                connection.reset(); // a reset switched on while this one was being connected
            }
            connection.start();
        }
    }

    private List<ProxiedConnection> liveConnections() {
        synchronized (connections) {
            connections.removeIf(ProxiedConnection::finished);
            return List.copyOf(connections);
        }
    }

    static void join(Thread t) {
        try {
            t.join(JOIN_TIMEOUT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (t.isAlive()) {
            throw new IllegalStateException("Thread " + t.getName() + " did not stop within " + JOIN_TIMEOUT_MS + " ms");
        }
    }

    /** Closes {@code socket} with {@code SO_LINGER 0}, so the peer gets a RST instead of a FIN. */
    static void resetQuietly(Socket socket) {
        try {
            socket.setSoLinger(true, 0);
        } catch (SocketException e) {
            // already closed: nothing left to reset
        }
        closeQuietly(socket);
    }

    static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // closing is best effort: the socket is unusable either way
        }
    }
}
