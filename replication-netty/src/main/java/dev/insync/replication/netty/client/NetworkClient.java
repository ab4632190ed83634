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

package dev.insync.replication.netty.client;

import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.netty.EventLoops;
import dev.insync.replication.netty.config.NetworkConfig;
import dev.insync.replication.netty.tls.SslConfig;
import dev.insync.replication.netty.tls.SslContexts;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The client side's shared parts: event loops (epoll where available), the TLS context, the
 * settings and the clock; hands out {@link ClientConnection}s. {@link #close()} closes every
 * connection it made and stops its loops (bounded wait).
 */
public final class NetworkClient implements AutoCloseable {

    /** Bound on the wait for the loops to stop. */
    public static final long SHUTDOWN_TIMEOUT_MS = 10_000L;

    private final NetworkConfig config;
    private final Scheduler scheduler;
    private final EventLoops eventLoops;
    private final EventLoopGroup group;
    private final int threads;
    private final boolean startsOnLoopAtOnce;
    private final Optional<SslContext> sslContext;
    private final Random random;
    private final List<ClientConnection> connections = new CopyOnWriteArrayList<>();

    /**
     * @param name      prefix of the loops' thread names
     * @param config    request.timeout.ms, reconnect.backoff.*, socket.connection.setup.timeout.ms,
     *                  socket.request.max.bytes (the largest response frame read)
     * @param ssl       TLS towards servers, or empty for plaintext
     * @param scheduler the clock and timers of request timeouts and reconnect backoff (manual in tests)
     * @param threads   event loop threads
     * @param random    the jitter of the reconnect backoff (seeded in tests)
     */
    public NetworkClient(String name, NetworkConfig config, Optional<SslConfig> ssl, Scheduler scheduler, int threads,
                         Random random) {
        this(name, config, ssl, scheduler, threads, random, false);
    }

    /**
     * As the public constructor; with {@code startsOnLoopAtOnce} a request sent on its connection's
     * event loop starts at once, without a task of its own, so its future may be complete when
     * {@link ClientConnection#send} returns. Only for a user that never sends again from inside a
     * failed future's callback without a hop (an {@code InsyncClient} queues every failure), since
     * a connection that refuses at once would otherwise recurse.
     */
    NetworkClient(String name, NetworkConfig config, Optional<SslConfig> ssl, Scheduler scheduler, int threads,
                  Random random, boolean startsOnLoopAtOnce) {
        this.startsOnLoopAtOnce = startsOnLoopAtOnce;
        this.config = Objects.requireNonNull(config, "config");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.random = Objects.requireNonNull(random, "random");
        this.sslContext = ssl.map(SslContexts::forClient);
        this.eventLoops = EventLoops.choose(config.epollEnabled());
        this.group = eventLoops.newGroup(name, threads);
        this.threads = threads;
    }

    /**
     * The one event loop of a network of one thread: every connection it hands out runs on it, so
     * work done there (a client's sender) writes and reads with no thread hand-off.
     *
     * @throws IllegalStateException if this network has more than one event loop thread
     */
    public EventLoop loop() {
        if (threads != 1) {
            throw new IllegalStateException("A network of " + threads + " event loop threads has no single loop");
        }
        return group.next();
    }

    /** A connection named {@code name} to whatever {@code address} says at each attempt. */
    public ClientConnection connection(String name, Supplier<Optional<InetSocketAddress>> address, String clientId) {
        ClientConnection c = new ClientConnection(name, address, this, clientId);
        connections.add(c);
        return c;
    }

    boolean startsOnLoopAtOnce() {
        return startsOnLoopAtOnce;
    }

    NetworkConfig config() {
        return config;
    }

    Scheduler scheduler() {
        return scheduler;
    }

    EventLoops eventLoops() {
        return eventLoops;
    }

    EventLoopGroup group() {
        return group;
    }

    Optional<SslContext> sslContext() {
        return sslContext;
    }

    double nextRandom() {
        return random.nextDouble();
    }

    /** Closes every connection and stops the loops. Idempotent. */
    @Override
    public void close() {
        connections.forEach(ClientConnection::close);
        connections.clear();
        group.shutdownGracefully(0, SHUTDOWN_TIMEOUT_MS, TimeUnit.MILLISECONDS).awaitUninterruptibly(SHUTDOWN_TIMEOUT_MS);
    }
}
