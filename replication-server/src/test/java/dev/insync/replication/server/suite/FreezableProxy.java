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

package dev.insync.replication.server.suite;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy on 127.0.0.1 for one directed link (e.g. broker 3's connections to broker 1), whose
 * traffic can be frozen: while frozen, bytes (and closes) are held in both directions and new
 * connections are accepted but carry nothing, as towards a SIGSTOPped process whose kernel still
 * accepts; thawing delivers what was held, in order. Processes dial it through
 * {@code insync.connect.overrides}.
 *
 * <p>A freeze is effective when {@link #freeze()} returns: every write happens under the proxy's
 * monitor while it is not frozen. Threads: one acceptor, two pumps per connection, all daemon
 * threads named after the link, all ended by {@link #close()}.
 */
final class FreezableProxy implements AutoCloseable {

    private static final int CHUNK_BYTES = 64 * 1024;

    private final String name;
    private final InetSocketAddress target;
    private final ServerSocket server;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Thread acceptor;
    // Guarded by this.
    private boolean frozen;
    private boolean closed;

    FreezableProxy(String name, InetSocketAddress target) throws IOException {
        this.name = name;
        this.target = target;
        this.server = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
        this.acceptor = new Thread(this::acceptLoop, "proxy-" + name + "-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** The port processes dial instead of the target's. */
    int port() {
        return server.getLocalPort();
    }

    /** Holds every byte from now on, in both directions, until {@link #thaw()}. */
    synchronized void freeze() {
        frozen = true;
    }

    /** Delivers what was held and carries traffic again. */
    synchronized void thaw() {
        frozen = false;
        notifyAll();
    }

    synchronized boolean isFrozen() {
        return frozen;
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            sockets.add(client);
            Socket upstream = new Socket();
            sockets.add(upstream);
            try {
                upstream.connect(target, 5_000);
            } catch (IOException e) {
                // Nobody listens there (a halted broker): the dialler sees its connection close.
                closeQuietly(client);
                closeQuietly(upstream);
                continue;
            }
            start(client, upstream, "up");
            start(upstream, client, "down");
        }
    }

    private void start(Socket from, Socket to, String direction) {
        Thread t = new Thread(() -> pump(from, to), "proxy-" + name + "-" + direction);
        t.setDaemon(true);
        t.start();
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[CHUNK_BYTES];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                if (!deliver(out, buffer, n)) {
                    return;
                }
            }
        } catch (IOException e) {
            // Either side went away: close both below, once traffic flows (a close is held like a byte).
        }
        if (awaitThawed()) {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private synchronized boolean deliver(OutputStream out, byte[] buffer, int n) throws IOException {
        if (!awaitThawed()) {
            return false;
        }
        out.write(buffer, 0, n);
        out.flush();
        return true;
    }

    /** Waits while frozen; false once the proxy is closed. Ends at thaw or close. */
    private synchronized boolean awaitThawed() {
        while (frozen && !closed) {
            try {
                wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return !closed;
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            notifyAll();
        }
        closeQuietly(server);
        sockets.forEach(FreezableProxy::closeQuietly);
        try {
            acceptor.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (SocketException e) {
            // already closed
        } catch (Exception e) {
            // closing anyway
        }
    }

    @Override
    public String toString() {
        return "proxy " + name + " :" + port() + " -> " + target;
    }
}
