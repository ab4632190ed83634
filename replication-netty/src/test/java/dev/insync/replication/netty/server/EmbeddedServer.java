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

import dev.insync.replication.netty.ManualScheduler;
import dev.insync.replication.netty.config.NetworkConfig;
import dev.insync.replication.netty.protocol.ResponseHeader;
import dev.insync.replication.netty.protocol.WireReader;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.embedded.EmbeddedChannel;

import io.netty.buffer.Unpooled;
import io.netty.channel.FileRegion;
import io.netty.util.ReferenceCountUtil;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * A server's real pipeline (frame decoder and connection handler) on Netty's EmbeddedChannel:
 * handlers run on the calling thread, timers on manual time, nothing listens.
 */
final class EmbeddedServer {

    final ManualScheduler scheduler = new ManualScheduler(1_000_000L);
    final NettyServer server;

    EmbeddedServer(ServedApis apis, NetworkConfig config) {
        this(apis, config, Runnable::run);
    }

    /** @param requestPool where handler calls that do not run on the event loop go */
    EmbeddedServer(ServedApis apis, NetworkConfig config, Executor requestPool) {
        this.server = NettyServer.builder().name("embedded").bindAddress(new InetSocketAddress("127.0.0.1", 0))
                .config(config).apis(apis).scheduler(scheduler).requestExecutor(requestPool).build();
    }

    EmbeddedServer(ReplicaService replicas, NetworkConfig config) {
        this(ReplicaApiHandlers.register(ServedApis.builder(), replicas,
                MetadataView.of(List.of(), -1, List.of())).build(), config);
    }

    ServerMetrics metrics() {
        return server.metrics();
    }

    /** A new connection. */
    EmbeddedChannel connect() {
        return new EmbeddedChannel(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                server.initPipeline(ch);
            }
        });
    }

    /** A response frame as written: its header and its body bytes. */
    record Response(ResponseHeader header, byte[] body) {
        WireReader bodyReader() {
            return new WireReader(io.netty.buffer.Unpooled.wrappedBuffer(body));
        }
    }

    /** Every frame written so far, parsed (and released); frames may span several messages (NET-3's file regions). */
    static List<Response> responses(EmbeddedChannel ch) {
        ByteBuf stream = Unpooled.wrappedBuffer(outboundBytes(ch));
        List<Response> out = new ArrayList<>();
        while (stream.isReadable()) {
            int size = stream.readInt();
            if (size > stream.readableBytes()) {
                throw new AssertionError("Frame size " + size + " but only " + stream.readableBytes() + " bytes follow");
            }
            ByteBuf frame = stream.readSlice(size);
            WireReader in = new WireReader(frame);
            ResponseHeader header = ResponseHeader.read(in);
            byte[] body = new byte[frame.readableBytes()];
            frame.readBytes(body);
            out.add(new Response(header, body));
        }
        return out;
    }

    /** The bytes of every message written so far, in order: buffers and file regions alike (released). */
    static byte[] outboundBytes(EmbeddedChannel ch) {
        ch.runPendingTasks();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Object msg;
        while ((msg = ch.readOutbound()) != null) {
            try {
                if (msg instanceof ByteBuf b) {
                    byte[] a = new byte[b.readableBytes()];
                    b.getBytes(b.readerIndex(), a);
                    bytes.write(a, 0, a.length);
                } else if (msg instanceof FileRegion region) {
                    transferAll(region, bytes);
                } else {
                    throw new AssertionError("Unexpected outbound message " + msg);
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }
        return bytes.toByteArray();
    }

    /** What a socket would receive from {@code region}. */
    static void transferAll(FileRegion region, ByteArrayOutputStream to) {
        WritableByteChannel target = Channels.newChannel(to);
        try {
            while (region.transferred() < region.count()) {
                region.transferTo(target, region.transferred());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<Integer> correlationIds(List<Response> responses) {
        return responses.stream().map(r -> r.header().correlationId()).toList();
    }
}
