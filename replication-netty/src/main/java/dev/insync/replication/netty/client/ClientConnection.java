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
import dev.insync.replication.netty.protocol.Api;
import dev.insync.replication.netty.protocol.FrameDecoder;
import dev.insync.replication.netty.protocol.Frames;
import dev.insync.replication.netty.protocol.MalformedFrameException;
import dev.insync.replication.netty.protocol.RequestHeader;
import dev.insync.replication.netty.protocol.ResponseHeader;
import dev.insync.replication.netty.protocol.WireReader;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * One logical connection to one server, reconnecting on demand (NET-2). Requests are pipelined and
 * answered in order (the server's guarantee), matched by correlation id.
 *
 * <ul>
 *   <li>A request unanswered after {@code request.timeout.ms} fails with a {@link TimeoutException}
 *       and, as in Kafka, the connection is closed (its answer could still arrive and everything
 *       behind it waits on it); the others in flight fail with {@link DisconnectedException}.</li>
 *   <li>After a failed attempt or a lost connection the next attempt waits
 *       {@link ReconnectBackoff} ({@code reconnect.backoff.ms} doubling to {@code reconnect.backoff.max.ms},
 *       with jitter); a request sent meanwhile fails at once with {@link DisconnectedException}
 *       rather than waiting, so the caller's own backoff applies (a fetcher delays its partitions).
 *       The count of failures resets on the first answer received.</li>
 *   <li>A response that does not follow the protocol closes the connection.</li>
 * </ul>
 * Every field is confined to one event loop; {@link #send} may be called from any thread (for an
 * {@code InsyncClient}'s connections, called on that loop it starts the request at once).
 */
public final class ClientConnection implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClientConnection.class);

    private final String name;
    private final Supplier<Optional<InetSocketAddress>> address;
    private final NetworkClient client;
    private final String clientId;
    private final EventLoop loop;
    private final ReconnectBackoff backoff;

    // Confined to loop.
    private Channel channel;
    private boolean connecting;
    private final ArrayDeque<Pending<?, ?>> waitingForConnection = new ArrayDeque<>();
    private final ArrayDeque<Pending<?, ?>> inFlight = new ArrayDeque<>();
    /**
     * Every request started and not yet seen done, in start order, so in deadline order: one timer
     * per connection watches the oldest (see {@link #armRequestTimer}). Done requests leave from the
     * head, at once when answered in order, or when the timer or the next start passes them.
     */
    private final ArrayDeque<Pending<?, ?>> started = new ArrayDeque<>();
    private Scheduler.Cancellable requestTimer;
    private int correlationId;
    private int failures;
    private long nextAttemptAtMs = Long.MIN_VALUE;
    private long connectAttempts;
    private boolean closed;

    private static final class Pending<Q, R> {
        final int correlationId;
        final Api<Q, R> api;
        final short version;
        /** Dropped once encoded: a done request may wait in {@link #started} a while. */
        Q request;
        final boolean answered;
        /** On the scheduler's monotonic clock. */
        final long deadlineNs;
        final CompletableFuture<R> future;

        Pending(int correlationId, Api<Q, R> api, short version, Q request, long deadlineNs, CompletableFuture<R> future) {
            this.correlationId = correlationId;
            this.api = api;
            this.version = version;
            this.request = request;
            this.answered = api.expectsResponse(request);
            this.deadlineNs = deadlineNs;
            this.future = future;
        }

        void fail(Throwable t) {
            future.completeExceptionally(t);
        }
    }

    ClientConnection(String name, Supplier<Optional<InetSocketAddress>> address, NetworkClient client, String clientId) {
        this.name = name;
        this.address = address;
        this.client = client;
        this.clientId = clientId;
        this.loop = client.group().next();
        this.backoff = new ReconnectBackoff(client.config().reconnectBackoffMs(), client.config().reconnectBackoffMaxMs());
    }

    private long nowMs() {
        return client.scheduler().time().milliseconds();
    }

    private long nowNs() {
        return client.scheduler().time().nanoseconds();
    }

    /**
     * Sends {@code request} as {@code version}. The future completes with the response, with
     * {@code null} once written for a request that gets no response (acks=0), or exceptionally:
     * {@link RequestFailedException}, {@link TimeoutException}, {@link DisconnectedException}, or
     * {@link MalformedFrameException} for a response that could not be read.
     */
    public <Q, R> CompletableFuture<R> send(Api<Q, R> api, short version, Q request) {
        if (!api.supports(version)) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(api + " has no version " + version));
        }
        CompletableFuture<R> result = new CompletableFuture<>();
        if (client.startsOnLoopAtOnce() && loop.inEventLoop()) {
            // Already on the connection's loop (a client's sender runs there): written now, no hand-off.
            // The future may then be complete when this returns (refused while backing off, write failed).
            start(result, api, version, request);
            return result;
        }
        try {
            loop.execute(() -> start(result, api, version, request));
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(DisconnectedException.notSent(name + " is closed", e));
        }
        return result;
    }

    private <Q, R> void start(CompletableFuture<R> result, Api<Q, R> api, short version, Q request) {
        long timeoutNs = TimeUnit.MILLISECONDS.toNanos(client.config().requestTimeoutMs());
        start(new Pending<>(correlationId++, api, version, request, nowNs() + timeoutNs, result));
    }

    private void start(Pending<?, ?> p) {
        if (closed) {
            p.fail(DisconnectedException.notSent(name + " is closed"));
            return;
        }
        dropDoneHeads();
        started.add(p);
        armRequestTimer();
        if (channel != null && channel.isActive()) {
            write(p);
        } else if (connecting) {
            waitingForConnection.add(p);
        } else if (nowMs() < nextAttemptAtMs) {
            p.fail(DisconnectedException.notSent(name + ": backing off " + (nextAttemptAtMs - nowMs())
                    + " ms before reconnecting (reconnect.backoff.ms)"));
        } else {
            waitingForConnection.add(p);
            connect();
        }
    }

    private <Q, R> void write(Pending<Q, R> p) {
        ByteBuf frame;
        try {
            frame = Frames.request(channel.alloc(), new RequestHeader(p.api.key(), p.version, p.correlationId, clientId),
                    p.api, p.request);
            p.request = null;
        } catch (RuntimeException e) {
            p.fail(e);
            return;
        }
        if (p.answered) {
            inFlight.add(p);
        }
        Channel ch = channel;
        ch.writeAndFlush(frame).addListener(f -> {
            if (!f.isSuccess()) {
                p.fail(new DisconnectedException(name + ": write failed: " + f.cause(), f.cause()));
                ch.close();
            } else if (!p.answered) {
                p.future.complete(null);
            }
        });
    }

    private void connect() {
        Optional<InetSocketAddress> target = address.get();
        if (target.isEmpty()) {
            connectFailed(DisconnectedException.notSent(name + ": no known address"));
            return;
        }
        InetSocketAddress to = target.get();
        connecting = true;
        connectAttempts++;
        Bootstrap b = new Bootstrap().group(loop).channel(client.eventLoops().channelClass())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS,
                        (int) Math.min(Integer.MAX_VALUE, client.config().connectionSetupTimeoutMs()))
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        client.sslContext().ifPresent(ssl -> ch.pipeline().addLast("tls",
                                ssl.newHandler(ch.alloc(), to.getHostString(), to.getPort())));
                        ch.pipeline().addLast("frames", new FrameDecoder(client.config().socketRequestMaxBytes()));
                        ch.pipeline().addLast("responses", new ResponseHandler());
                    }
                });
        ChannelFuture f = b.connect(to);
        f.addListener(done -> onConnect(f, to));
    }

    private void onConnect(ChannelFuture f, InetSocketAddress to) {
        connecting = false;
        if (!f.isSuccess()) {
            connectFailed(DisconnectedException.notSent(name + ": cannot connect to " + to + ": " + f.cause(), f.cause()));
            return;
        }
        if (closed) {
            f.channel().close();
            return;
        }
        channel = f.channel();
        LOG.debug("{} connected to {}", name, to);
        List<Pending<?, ?>> ready = new ArrayList<>(waitingForConnection);
        waitingForConnection.clear();
        for (Pending<?, ?> p : ready) {
            if (!p.future.isDone()) {
                write(p);
            }
        }
    }

    private void connectFailed(DisconnectedException e) {
        connecting = false;
        scheduleReconnect();
        LOG.debug("{}", e.getMessage());
        failAll(waitingForConnection, e);
    }

    private void scheduleReconnect() {
        nextAttemptAtMs = nowMs() + backoff.backoffMs(failures, client.nextRandom());
        failures++;
    }

    /**
     * Keeps one timer armed for the oldest request not done, instead of one per request: arming a
     * timer whose deadline is the earliest wakes the timer's thread, which on one request in flight
     * was a wake-up per request. Deadlines grow in start order, so the oldest is the head.
     */
    private void armRequestTimer() {
        if (requestTimer != null || closed) {
            return;
        }
        dropDoneHeads();
        Pending<?, ?> oldest = started.peek();
        if (oldest != null) {
            // Rounded up, so that the timer never fires before the deadline.
            long delayMs = Math.max(0, (oldest.deadlineNs - nowNs() + 999_999) / 1_000_000);
            requestTimer = client.scheduler().schedule(loop, this::onRequestTimer, delayMs);
        }
    }

    /** Times out every request past its deadline, then watches the next. */
    private void onRequestTimer() {
        requestTimer = null;
        long now = nowNs();
        Pending<?, ?> p;
        while ((p = started.peek()) != null && (p.future.isDone() || p.deadlineNs - now <= 0)) {
            started.poll();
            onTimeout(p);
        }
        armRequestTimer();
    }

    private void dropDoneHeads() {
        while (!started.isEmpty() && started.peek().future.isDone()) {
            started.poll();
        }
    }

    private void onTimeout(Pending<?, ?> p) {
        if (p.future.isDone()) {
            return;
        }
        waitingForConnection.remove(p);
        boolean wasInFlight = inFlight.remove(p);
        p.future.completeExceptionally(new TimeoutException(p.api.name() + " to " + name + " got no answer within "
                + client.config().requestTimeoutMs() + " ms (request.timeout.ms)"));
        if (wasInFlight && channel != null) {
            LOG.info("{}: disconnecting after a request timeout (correlation id {})", name, p.correlationId);
            channel.close();
        }
    }

    private void onResponse(Channel ch, ByteBuf frame) {
        try {
            if (ch != channel) {
                return;
            }
            WireReader in = new WireReader(frame);
            ResponseHeader header = ResponseHeader.read(in);
            Pending<?, ?> p = inFlight.poll();
            if (p == null || p.correlationId != header.correlationId()) {
                throw new MalformedFrameException("Response with correlation id " + header.correlationId()
                        + " but " + (p == null ? "none was expected" : p.correlationId + " was next"));
            }
            failures = 0;
            complete(p, header, in);
            dropDoneHeads();
        } catch (MalformedFrameException e) {
            LOG.warn("{}: closing after a malformed response: {}", name, e.getMessage());
            ch.close();
        } finally {
            frame.release();
        }
    }

    private <Q, R> void complete(Pending<Q, R> p, ResponseHeader header, WireReader in) {
        try {
            if (header.errorCode() != 0) {
                in.expectEnd(p.api.name() + " error response");
                p.future.completeExceptionally(new RequestFailedException(p.api.name(), name, header.errorCode()));
                return;
            }
            R response = p.api.responseCodec().read(p.version, in);
            in.expectEnd(p.api.name() + " v" + p.version + " response body");
            p.future.complete(response);
        } catch (MalformedFrameException e) {
            p.future.completeExceptionally(e);
            throw e;
        } catch (RuntimeException e) {
            MalformedFrameException m = new MalformedFrameException("Malformed " + p.api.name() + " response: " + e, e);
            p.future.completeExceptionally(m);
            throw m;
        }
    }

    private void onClosed(Channel ch) {
        if (ch != channel) {
            return;
        }
        channel = null;
        scheduleReconnect();
        failAll(inFlight, new DisconnectedException(name + ": connection closed"));
        failAll(waitingForConnection, DisconnectedException.notSent(name + ": connection closed before the request was written"));
    }

    private static void failAll(ArrayDeque<Pending<?, ?>> queue, Throwable t) {
        Pending<?, ?> p;
        while ((p = queue.poll()) != null) {
            p.fail(t);
        }
    }

    /** How many times a connection was attempted (for tests and metrics). */
    public CompletableFuture<Long> connectAttempts() {
        CompletableFuture<Long> f = new CompletableFuture<>();
        loop.execute(() -> f.complete(connectAttempts));
        return f;
    }

    /** Closes the connection; requests in flight fail with {@link DisconnectedException}. Idempotent. */
    @Override
    public void close() {
        try {
            loop.execute(() -> {
                if (closed) {
                    return;
                }
                closed = true;
                failAll(inFlight, new DisconnectedException(name + " is closed"));
                failAll(waitingForConnection, DisconnectedException.notSent(name + " is closed"));
                if (requestTimer != null) {
                    requestTimer.cancel();
                    requestTimer = null;
                }
                started.clear();
                if (channel != null) {
                    channel.close();
                    channel = null;
                }
            });
        } catch (RejectedExecutionException e) {
            LOG.debug("{}: event loop already stopped", name);
        }
    }

    @Override
    public String toString() {
        return name;
    }

    /** Feeds one channel's frames and lifecycle back to the connection (on its event loop). */
    private final class ResponseHandler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ByteBuf frame) {
                onResponse(ctx.channel(), frame);
            } else {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            onClosed(ctx.channel());
            super.channelInactive(ctx);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.warn("{}: closing the connection: {}", name, cause.toString());
            ctx.close();
        }
    }
}
