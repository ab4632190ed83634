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

package dev.insync.replication.netty.server;

import dev.insync.replication.core.time.Scheduler;
import dev.insync.replication.netty.EventLoops;
import dev.insync.replication.netty.config.NetworkConfig;
import dev.insync.replication.netty.protocol.FrameDecoder;
import dev.insync.replication.netty.tls.BrokerPrincipals;
import dev.insync.replication.netty.tls.ClientAuth;
import dev.insync.replication.netty.tls.PrincipalMappingRules;
import dev.insync.replication.netty.tls.SslConfig;
import dev.insync.replication.netty.tls.SslContexts;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A broker's listener on Netty 4.2: epoll where available, else NIO; {@code insync.num.acceptor.threads}
 * boss loops, {@code num.network.threads} worker loops, {@code num.io.threads} request-handler
 * threads. Frames, order, bounds and identity are {@link ConnectionHandler}'s. Start once with
 * {@link #start()}, stop with {@link #close()} (bounded waits).
 */
public final class NettyServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(NettyServer.class);
    /** Bound on each wait in {@link #start()} and {@link #close()}. */
    public static final long SHUTDOWN_TIMEOUT_MS = 10_000L;

    private final String name;
    private final InetSocketAddress bindAddress;
    private final NetworkConfig config;
    private final Optional<SslContext> sslContext;
    private final ServerContext context;
    private final EventLoops eventLoops;
    private final ExecutorService ownedRequestPool;
    private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private EventLoopGroup bossGroup;
    private EventLoopGroup workerGroup;
    private Channel serverChannel;
    private boolean closed;

    private NettyServer(Builder b) {
        this.name = b.name;
        this.bindAddress = Objects.requireNonNull(b.bindAddress, "bindAddress");
        this.config = b.config;
        this.sslContext = b.ssl.map(SslContexts::forServer);
        boolean identityRequired = b.ssl.map(s -> s.clientAuth() != ClientAuth.NONE).orElse(false);
        ExecutorService pool = null;
        java.util.concurrent.Executor requestPool = b.requestExecutor;
        if (requestPool == null) {
            AtomicInteger n = new AtomicInteger();
            pool = new ThreadPoolExecutor(config.numIoThreads(), config.numIoThreads(), 0L, TimeUnit.MILLISECONDS,
                    new LinkedBlockingQueue<>(), r -> {
                        Thread t = new Thread(r, name + "-request-handler-" + n.getAndIncrement());
                        t.setDaemon(true);
                        return t;
                    });
            requestPool = pool;
        }
        this.ownedRequestPool = pool;
        this.context = new ServerContext(Objects.requireNonNull(b.apis, "apis"), config, b.metrics,
                Objects.requireNonNull(b.scheduler, "scheduler"), requestPool, b.principals, identityRequired);
        this.eventLoops = EventLoops.choose(config.epollEnabled());
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Binds and starts accepting. @return the bound address (its port is the real one when 0 was asked) */
    public synchronized InetSocketAddress start() {
        if (serverChannel != null || closed) {
            throw new IllegalStateException("Server " + name + " already started or closed");
        }
        bossGroup = eventLoops.newGroup(name + "-acceptor", config.numAcceptorThreads());
        workerGroup = eventLoops.newGroup(name + "-network", config.numNetworkThreads());
        ServerBootstrap b = new ServerBootstrap()
                .group(bossGroup, workerGroup)
                .channel(eventLoops.serverChannelClass())
                .option(ChannelOption.SO_BACKLOG, 128)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        channels.add(ch);
                        initPipeline(ch);
                    }
                });
        ChannelFuture bind = b.bind(bindAddress);
        if (!bind.awaitUninterruptibly(SHUTDOWN_TIMEOUT_MS) || !bind.isSuccess()) {
            Throwable cause = bind.cause();
            close();
            throw new IllegalStateException("Server " + name + " cannot listen on " + bindAddress + ": "
                    + (cause == null ? "bind timed out after " + SHUTDOWN_TIMEOUT_MS + " ms" : cause.toString()), cause);
        }
        serverChannel = bind.channel();
        LOG.info("Server {} listening on {} ({}{})", name, serverChannel.localAddress(), eventLoops,
                sslContext.isPresent() ? ", TLS" : "");
        return localAddress();
    }

    /** Sets up a connection's pipeline: [TLS], frames, requests. Package-private for EmbeddedChannel tests. */
    void initPipeline(Channel ch) {
        sslContext.ifPresent(ssl -> ch.pipeline().addLast("tls", ssl.newHandler(ch.alloc())));
        ch.pipeline().addLast("frames", new FrameDecoder(config.socketRequestMaxBytes()));
        ch.pipeline().addLast("requests", new ConnectionHandler(context));
    }

    /** The bound address. */
    public synchronized InetSocketAddress localAddress() {
        if (serverChannel == null) {
            throw new IllegalStateException("Server " + name + " is not started");
        }
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /** The bound port. */
    public int port() {
        return localAddress().getPort();
    }

    public ServerMetrics metrics() {
        return context.metrics();
    }

    /** Whether this server runs on epoll (else NIO). */
    public boolean isEpoll() {
        return eventLoops.isEpoll();
    }

    /** Stops accepting, closes every connection, stops the loops and the request pool. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (serverChannel != null) {
            serverChannel.close().awaitUninterruptibly(SHUTDOWN_TIMEOUT_MS);
        }
        channels.close().awaitUninterruptibly(SHUTDOWN_TIMEOUT_MS);
        if (bossGroup != null) {
            bossGroup.shutdownGracefully(0, SHUTDOWN_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                    .awaitUninterruptibly(SHUTDOWN_TIMEOUT_MS);
        }
        if (workerGroup != null) {
            workerGroup.shutdownGracefully(0, SHUTDOWN_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                    .awaitUninterruptibly(SHUTDOWN_TIMEOUT_MS);
        }
        if (ownedRequestPool != null) {
            ownedRequestPool.shutdownNow();
            try {
                if (!ownedRequestPool.awaitTermination(SHUTDOWN_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                    LOG.warn("Request handlers of {} did not stop within {} ms", name, SHUTDOWN_TIMEOUT_MS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        LOG.info("Server {} stopped ({})", name, context.metrics());
    }

    @Override
    public String toString() {
        return "NettyServer(" + name + ", " + bindAddress + ", " + eventLoops + (sslContext.isPresent() ? ", TLS" : "")
                + ")";
    }

    /** Builds a {@link NettyServer}. */
    public static final class Builder {
        private String name = "insync-server";
        private InetSocketAddress bindAddress;
        private NetworkConfig config = NetworkConfig.defaults();
        private ServedApis apis;
        private Scheduler scheduler;
        private Optional<SslConfig> ssl = Optional.empty();
        private BrokerPrincipals principals = new BrokerPrincipals(PrincipalMappingRules.DEFAULT, Map.of());
        private ServerMetrics metrics = new ServerMetrics();
        private java.util.concurrent.Executor requestExecutor;

        /** Prefix of thread names. */
        public Builder name(String v) { name = Objects.requireNonNull(v); return this; }
        /** Where to listen; port 0 picks a free one. */
        public Builder bindAddress(InetSocketAddress v) { bindAddress = v; return this; }
        public Builder config(NetworkConfig v) { config = Objects.requireNonNull(v); return this; }
        public Builder apis(ServedApis v) { apis = v; return this; }
        /** The clock and timers for idle checks (manual time in tests). */
        public Builder scheduler(Scheduler v) { scheduler = v; return this; }
        /** TLS for this listener (SEC-1); with {@code ssl.client.auth} other than none, SEC-2 claims are checked. */
        public Builder ssl(SslConfig v) { ssl = Optional.of(v); return this; }
        /** Which principal is which broker (SEC-2). */
        public Builder principals(BrokerPrincipals v) { principals = Objects.requireNonNull(v); return this; }
        public Builder metrics(ServerMetrics v) { metrics = Objects.requireNonNull(v); return this; }
        /** Runs handlers on this executor instead of an owned pool of {@code num.io.threads}. */
        public Builder requestExecutor(java.util.concurrent.Executor v) { requestExecutor = v; return this; }

        public NettyServer build() {
            return new NettyServer(this);
        }
    }
}
