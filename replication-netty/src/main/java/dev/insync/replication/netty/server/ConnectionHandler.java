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
import dev.insync.replication.log.Errors;
import dev.insync.replication.netty.protocol.Api;
import dev.insync.replication.netty.protocol.ErrorCodes;
import dev.insync.replication.netty.protocol.FrameTooLargeException;
import dev.insync.replication.netty.protocol.Frames;
import dev.insync.replication.netty.protocol.MalformedFrameException;
import dev.insync.replication.netty.protocol.OutboundFrame;
import dev.insync.replication.netty.protocol.RecordsUnavailableException;
import dev.insync.replication.netty.protocol.SegmentChangedException;
import dev.insync.replication.netty.protocol.RequestHeader;
import dev.insync.replication.netty.protocol.WireReader;
import dev.insync.replication.netty.tls.PeerIdentity;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelException;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.FileRegion;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.SSLException;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;

/**
 * One server connection: decodes each frame's header and body, checks the api, the version and the
 * broker-identity claim, hands the request to its handler and writes the answers back in request
 * order. Every field is confined to the channel's event loop; handlers run on the request pool,
 * or, when non-blocking and nothing of the connection is queued, right here on the event loop.
 *
 * <ul>
 *   <li>NET-1: a malformed frame (bad header or body, trailing bytes, a frame over
 *       {@code socket.request.max.bytes}) is counted and closes this connection before any handler
 *       sees it; an unknown api or version is answered UNSUPPORTED_VERSION and the connection goes on.</li>
 *   <li>NET-2: answers leave in request order whatever order handlers finish in (a slot per request,
 *       written when it reaches the head); at most {@code queued.max.requests} are in flight, and at
 *       the bound the socket is not read (autoRead off) until an answer leaves; frames already read
 *       wait, undispatched, in arrival order. A connection with nothing read, written or in flight
 *       for {@code connections.max.idle.ms} is closed.</li>
 *   <li>SEC-2: a request that claims a broker id is served only if the peer's principal is mapped
 *       to that id, else answered CLUSTER_AUTHORIZATION_FAILED without reaching its handler.</li>
 * </ul>
 */
final class ConnectionHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionHandler.class);

    /** One request's place in the answer order. */
    private static final class Slot {
        final int correlationId;
        final boolean answered;
        OutboundFrame frame;
        boolean done;

        Slot(int correlationId, boolean answered) {
            this.correlationId = correlationId;
            this.answered = answered;
        }
    }

    private final ServerContext server;
    private final SerialExecutor handlerCalls;
    private final ArrayDeque<Slot> inFlight = new ArrayDeque<>();
    private final ArrayDeque<ByteBuf> waiting = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private long lastActiveMs;
    private PeerIdentity peer;
    private Boolean zeroCopy;
    private Scheduler.Cancellable idleCheck;
    private boolean closed;
    private boolean flushing;

    ConnectionHandler(ServerContext server) {
        this.server = server;
        this.handlerCalls = new SerialExecutor(server.requestPool());
    }

    private long nowMs() {
        return server.scheduler().time().milliseconds();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        this.ctx = ctx;
        lastActiveMs = nowMs();
        server.metrics().connectionAccepted();
        scheduleIdleCheck(server.config().connectionsMaxIdleMs());
        super.channelActive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (this.ctx == null) {
            this.ctx = ctx;
        }
        if (!(msg instanceof ByteBuf frame)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        lastActiveMs = nowMs();
        if (closed) {
            frame.release();
            return;
        }
        if (inFlight.size() >= server.config().queuedMaxRequests() || !waiting.isEmpty()) {
            waiting.add(frame); // NET-2: read before autoRead took effect; dispatched in order later
        } else {
            handleFrame(frame);
        }
        flushCompleted();
    }

    private void handleFrame(ByteBuf frame) {
        try {
            process(frame);
        } finally {
            frame.release();
        }
    }

    private void process(ByteBuf frame) {
        WireReader in = new WireReader(frame);
        RequestHeader header;
        try {
            header = RequestHeader.read(in);
        } catch (MalformedFrameException e) {
            malformed(e);
            return;
        }
        server.metrics().request();
        var served = server.apis().served(header.apiKey());
        if (served.isEmpty() || !served.get().api().supports(header.apiVersion())) {
            // NET-1: unknown api or version: answer, keep the connection (the frame's length told us where it ends).
            server.metrics().unsupportedRequest();
            LOG.debug("Unsupported api key {} version {} from {}", header.apiKey(), header.apiVersion(),
                    ctx.channel().remoteAddress());
            enqueueError(header.correlationId(), ErrorCodes.UNSUPPORTED_VERSION);
            return;
        }
        dispatch(served.get(), header, in);
    }

    private <Q, R> void dispatch(ServedApis.Served<Q, R> served, RequestHeader header, WireReader in) {
        Api<Q, R> api = served.api();
        short version = header.apiVersion();
        Q request;
        try {
            request = api.requestCodec().read(version, in);
            in.expectEnd(api.name() + " v" + version + " body");
        } catch (MalformedFrameException e) {
            malformed(e);
            return;
        } catch (RuntimeException e) {
            // A record's own check (e.g. a duplicate partition) caught what the codec did not.
            malformed(new MalformedFrameException("Malformed frame: " + api.name() + " v" + version + " body: " + e, e));
            return;
        }
        PeerIdentity peer = peer();
        int claimed = api.claimedBrokerId(request);
        if (claimed != Api.NO_BROKER_CLAIM && server.identityRequired() && !peer.isBroker(claimed)) {
            // SEC-2: a broker certificate serves only its own broker id; nothing reaches the handler.
            server.metrics().authorizationFailure();
            LOG.warn("Refused {} claiming broker {} from {} at {}", api.name(), claimed, peer,
                    ctx.channel().remoteAddress());
            enqueueError(header.correlationId(), ErrorCodes.CLUSTER_AUTHORIZATION_FAILED);
            return;
        }
        Slot slot = new Slot(header.correlationId(), api.expectsResponse(request));
        enqueue(slot);
        RequestContext context = new RequestContext(header.clientId(), version, header.correlationId(),
                ctx.channel().remoteAddress(), peer, zeroCopy());
        Runnable call = () -> {
            CompletionStage<R> stage;
            try {
                stage = served.handler().handle(context, request);
                if (stage == null) {
                    throw new IllegalStateException("Handler of " + api.name() + " returned no stage");
                }
            } catch (RuntimeException e) {
                stage = CompletableFuture.failedFuture(e);
            }
            stage.whenComplete((response, error) -> onEventLoop(() -> complete(slot, api, version, response, error)));
        };
        if (served.nonBlocking() && server.config().inlineHandlers() && handlerCalls.idle()) {
            // Nothing of this connection is queued, so running it here keeps the arrival order, and
            // saves the two thread wake-ups of a trip to the request pool and back.
            call.run();
        } else {
            handlerCalls.execute(call);
        }
    }

    private <R> void complete(Slot slot, Api<?, R> api, short version, R response, Throwable error) {
        if (closed) {
            return;
        }
        if (error != null) {
            server.metrics().handlerFailure();
            LOG.error("{} handler failed for correlation id {} from {}", api.name(), slot.correlationId,
                    ctx.channel().remoteAddress(), error);
            slot.frame = slot.answered ? errorFrame(slot.correlationId, Errors.UNKNOWN_SERVER_ERROR.code()) : null;
        } else if (slot.answered) {
            try {
                slot.frame = Frames.responseFrame(ctx.alloc(), slot.correlationId, api, version, response, zeroCopy());
            } catch (RecordsUnavailableException e) {
                // NET-3: a segment read for this answer was deleted or truncated before it could be sent.
                server.metrics().recordsUnavailableAnswer();
                LOG.info("Answering {} correlation id {} from {} as failed: {}", api.name(), slot.correlationId,
                        ctx.channel().remoteAddress(), e.getMessage());
                slot.frame = errorFrame(slot.correlationId, Errors.UNKNOWN_SERVER_ERROR.code());
            } catch (RuntimeException e) {
                server.metrics().handlerFailure();
                LOG.error("Cannot encode the {} response for correlation id {}", api.name(), slot.correlationId, e);
                slot.frame = errorFrame(slot.correlationId, Errors.UNKNOWN_SERVER_ERROR.code());
            }
        }
        slot.done = true;
        flushCompleted();
    }

    private OutboundFrame errorFrame(int correlationId, short code) {
        return OutboundFrame.of(Frames.errorResponse(ctx.alloc(), correlationId, code));
    }

    /**
     * NET-3: whether record bytes may go from segment files to this socket as file regions; not
     * through TLS, whose engine needs them in memory (the fetch then reads them into the heap).
     */
    private boolean zeroCopy() {
        if (zeroCopy == null) {
            zeroCopy = ctx.pipeline().get(SslHandler.class) == null;
        }
        return zeroCopy;
    }

    private void write(OutboundFrame frame) {
        for (Object part : frame.parts()) {
            if (part instanceof FileRegion) {
                server.metrics().fileRegionWritten();
                // A region fails when its segment changed under it (SegmentRegions): the frame is incomplete,
                // so the connection must close before anything else follows it.
                ctx.write(part).addListener(f -> {
                    if (!f.isSuccess()) {
                        if (f.cause() instanceof SegmentChangedException) {
                            server.metrics().recordsUnavailableAnswer();
                        }
                        LOG.info("Closing connection to {}: sending records from a segment file failed: {}",
                                ctx.channel().remoteAddress(), f.cause().toString());
                        ctx.close();
                    }
                });
            } else {
                ctx.write(part);
            }
        }
    }

    private void enqueueError(int correlationId, short code) {
        Slot slot = new Slot(correlationId, true);
        slot.frame = errorFrame(correlationId, code);
        slot.done = true;
        enqueue(slot);
    }

    private void enqueue(Slot slot) {
        inFlight.add(slot);
        if (inFlight.size() >= server.config().queuedMaxRequests()) {
            setAutoRead(false); // NET-2: at the bound, stop reading this socket
        }
    }

    /** Writes every finished answer at the head, then dispatches waiting frames while below the bound. */
    private void flushCompleted() {
        if (flushing || closed) {
            return;
        }
        flushing = true;
        boolean wrote = false;
        boolean corked = false;
        try {
            boolean progress = true;
            while (progress && !closed) {
                progress = false;
                while (!inFlight.isEmpty() && inFlight.peek().done) {
                    Slot head = inFlight.poll();
                    if (head.frame != null) {
                        if (!corked && head.frame.parts().size() > 1) {
                            corked = cork(true);
                        }
                        write(head.frame);
                        head.frame = null;
                        wrote = true;
                    }
                    progress = true;
                }
                while (!closed && !waiting.isEmpty() && inFlight.size() < server.config().queuedMaxRequests()) {
                    handleFrame(waiting.poll());
                    progress = true;
                }
            }
        } finally {
            flushing = false;
            if (corked) {
                // Here even if a handler threw: a socket left corked would hold later answers for up to 200 ms.
                ctx.flush();
                if (cork(false)) {
                    server.metrics().corkedFlush();
                }
            }
        }
        if (wrote) {
            ctx.flush();
            lastActiveMs = nowMs();
        }
        if (!closed && waiting.isEmpty() && inFlight.size() < server.config().queuedMaxRequests()) {
            setAutoRead(true);
        }
    }

    /**
     * Corks or uncorks the socket (epoll only; false elsewhere). A frame with file regions leaves
     * in several writes (buffers, sendfile, the guard byte); uncorked, each would go out as its own
     * segment and wake the peer's event loop for a partial frame (on one acks=all record a
     * follower woke three times per fetch answer). Corked from the first such frame until the flush
     * returned, the writes leave together; the uncork sends what is left at once, so nothing waits
     * for the kernel's cork timer.
     */
    private boolean cork(boolean on) {
        if (!(ctx.channel() instanceof EpollSocketChannel ch) || !ch.isActive()) {
            return false;
        }
        try {
            ch.config().setTcpCork(on);
            return true;
        } catch (ChannelException e) {
            LOG.debug("Cannot {} the socket to {}: {}", on ? "cork" : "uncork", ch.remoteAddress(), e.toString());
            return false;
        }
    }

    private void setAutoRead(boolean on) {
        if (ctx.channel().config().isAutoRead() != on) {
            ctx.channel().config().setAutoRead(on);
        }
    }

    private void onEventLoop(Runnable task) {
        if (ctx.executor().inEventLoop()) {
            task.run();
            return;
        }
        try {
            ctx.executor().execute(task);
        } catch (RejectedExecutionException e) {
            LOG.debug("Event loop of {} is shut down; dropping an answer", ctx.channel());
        }
    }

    private PeerIdentity peer() {
        if (peer == null) {
            SslHandler ssl = ctx.pipeline().get(SslHandler.class);
            // Application data is only decoded after the handshake, so the session is complete here.
            peer = ssl == null ? PeerIdentity.ANONYMOUS : server.principals().identify(ssl.engine().getSession());
        }
        return peer;
    }

    private void malformed(MalformedFrameException e) {
        server.metrics().malformedFrame();
        LOG.warn("Closing connection from {}: {}", ctx.channel().remoteAddress(), e.getMessage());
        close();
    }

    private void close() {
        if (!closed) {
            closed = true;
            releaseWaiting();
            ctx.close();
        }
    }

    private void releaseWaiting() {
        ByteBuf b;
        while ((b = waiting.poll()) != null) {
            b.release();
        }
    }

    // --------------------------------------------------------------------------------------- idle (NET-2)

    private void scheduleIdleCheck(long delayMs) {
        try {
            idleCheck = server.scheduler().schedule(ctx.channel().eventLoop(), this::checkIdle, Math.max(1L, delayMs));
        } catch (RejectedExecutionException e) {
            LOG.debug("Cannot schedule the idle check of {}: shutting down", ctx.channel());
        }
    }

    private void checkIdle() {
        if (closed || !ctx.channel().isActive()) {
            return;
        }
        long maxIdleMs = server.config().connectionsMaxIdleMs();
        long quietMs = nowMs() - lastActiveMs;
        boolean busy = !inFlight.isEmpty() || !waiting.isEmpty();
        if (!busy && quietMs >= maxIdleMs) {
            server.metrics().idleConnectionClosed();
            LOG.info("Closing connection from {}: idle for {} ms (connections.max.idle.ms={})",
                    ctx.channel().remoteAddress(), quietMs, maxIdleMs);
            close();
            return;
        }
        scheduleIdleCheck(busy ? maxIdleMs : maxIdleMs - quietMs);
    }

    // ---------------------------------------------------------------------------------------- failures

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent e && !e.isSuccess()) {
            // SEC-1: no certificate, or one the truststore rejects: the handshake fails, nothing is served.
            server.metrics().tlsHandshakeFailure();
            LOG.warn("TLS handshake with {} failed: {}", ctx.channel().remoteAddress(), e.cause().toString());
            close();
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (this.ctx == null) {
            this.ctx = ctx;
        }
        Throwable c = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        if (closed) {
            // Bytes after the frame that closed the connection: already counted once.
            LOG.debug("After close, from {}: {}", ctx.channel().remoteAddress(), c.toString());
        } else if (c instanceof FrameTooLargeException tooLarge) {
            server.metrics().oversizedFrame();
            LOG.warn("Closing connection from {}: {}", ctx.channel().remoteAddress(), tooLarge.getMessage());
            close();
        } else if (c instanceof MalformedFrameException m) {
            malformed(m);
        } else if (c instanceof SSLException || c instanceof IOException) {
            LOG.debug("Closing connection from {}: {}", ctx.channel().remoteAddress(), c.toString());
            close();
        } else {
            LOG.warn("Closing connection from {} after an unexpected error", ctx.channel().remoteAddress(), c);
            close();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        closed = true;
        if (idleCheck != null) {
            idleCheck.cancel();
        }
        releaseWaiting();
        for (Slot s : inFlight) {
            if (s.frame != null) {
                s.frame.release();
                s.frame = null;
            }
        }
        inFlight.clear();
        super.channelInactive(ctx);
    }
}
