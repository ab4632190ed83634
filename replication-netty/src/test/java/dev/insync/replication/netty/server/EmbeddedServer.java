package dev.insync.replication.netty.server;

import dev.insync.replication.netty.ManualScheduler;
import dev.insync.replication.netty.config.NetworkConfig;
import dev.insync.replication.netty.protocol.ResponseHeader;
import dev.insync.replication.netty.protocol.WireReader;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.embedded.EmbeddedChannel;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * A server's real pipeline (frame decoder and connection handler) on Netty's EmbeddedChannel:
 * handlers run on the calling thread, timers on manual time, nothing listens.
 */
final class EmbeddedServer {

    final ManualScheduler scheduler = new ManualScheduler(1_000_000L);
    final NettyServer server;

    EmbeddedServer(ServedApis apis, NetworkConfig config) {
        this.server = NettyServer.builder().name("embedded").bindAddress(new InetSocketAddress("127.0.0.1", 0))
                .config(config).apis(apis).scheduler(scheduler).requestExecutor(Runnable::run).build();
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

    /** Every frame written so far, parsed (and released). */
    static List<Response> responses(EmbeddedChannel ch) {
        ch.runPendingTasks();
        List<Response> out = new ArrayList<>();
        Object msg;
        while ((msg = ch.readOutbound()) != null) {
            ByteBuf frame = (ByteBuf) msg;
            try {
                int size = frame.readInt();
                if (size != frame.readableBytes()) {
                    throw new AssertionError("Frame size " + size + " but " + frame.readableBytes() + " bytes follow");
                }
                WireReader in = new WireReader(frame);
                ResponseHeader header = ResponseHeader.read(in);
                byte[] body = new byte[frame.readableBytes()];
                frame.readBytes(body);
                out.add(new Response(header, body));
            } finally {
                frame.release();
            }
        }
        return out;
    }

    static List<Integer> correlationIds(List<Response> responses) {
        return responses.stream().map(r -> r.header().correlationId()).toList();
    }
}
