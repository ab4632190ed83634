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

package dev.insync.replication.netty.config;

import java.util.Map;

/**
 * The network settings of a broker or client, with Kafka's property names and defaults (NET-1,
 * NET-2). Build from a broker's property map with {@link #fromProperties} (names this class does
 * not know are left to others) or with {@link #builder()}. Every value is checked; a bad one names
 * its property.
 *
 * @param socketRequestMaxBytes         {@code socket.request.max.bytes}: the largest frame read (either side)
 * @param queuedMaxRequests             {@code queued.max.requests}: requests in flight per connection
 *                                      before the server stops reading from it
 * @param connectionsMaxIdleMs          {@code connections.max.idle.ms}: a server connection with nothing
 *                                      read, written or in flight for this long is closed
 * @param numNetworkThreads             {@code num.network.threads}: the server's worker event loops; by
 *                                      default half the available processors, at least 1
 *                                      ({@link #defaultNumNetworkThreads()})
 * @param numIoThreads                  {@code num.io.threads}: threads that run request handlers
 * @param numAcceptorThreads            {@code insync.num.acceptor.threads}: the server's boss event loops
 * @param requestTimeoutMs              {@code request.timeout.ms}: a client request unanswered this long fails
 * @param reconnectBackoffMs            {@code reconnect.backoff.ms}: first wait before reconnecting
 * @param reconnectBackoffMaxMs         {@code reconnect.backoff.max.ms}: the exponential backoff's cap
 * @param connectionSetupTimeoutMs      {@code socket.connection.setup.timeout.ms}: TCP connect bound
 * @param epollEnabled                  {@code insync.network.epoll.enabled}: use epoll when available
 * @param inlineHandlers                {@code insync.network.inline.handlers}: a request whose handler never
 *                                      blocks (Fetch, Produce, Metadata) runs on the event loop that read it
 *                                      when its connection has no handler call queued, instead of a trip
 *                                      to a request-handler thread and back; a follower takes its fetch
 *                                      answer on the event loop that read it; and an {@code InsyncClient}'s
 *                                      sender runs on its event loop (false: a thread of its own)
 */
public record NetworkConfig(int socketRequestMaxBytes, int queuedMaxRequests, long connectionsMaxIdleMs,
                            int numNetworkThreads, int numIoThreads, int numAcceptorThreads, long requestTimeoutMs,
                            long reconnectBackoffMs, long reconnectBackoffMaxMs, long connectionSetupTimeoutMs,
                            boolean epollEnabled, boolean inlineHandlers) {

    public static final String SOCKET_REQUEST_MAX_BYTES = "socket.request.max.bytes";
    public static final String QUEUED_MAX_REQUESTS = "queued.max.requests";
    public static final String CONNECTIONS_MAX_IDLE_MS = "connections.max.idle.ms";
    public static final String NUM_NETWORK_THREADS = "num.network.threads";
    public static final String NUM_IO_THREADS = "num.io.threads";
    public static final String NUM_ACCEPTOR_THREADS = "insync.num.acceptor.threads";
    public static final String REQUEST_TIMEOUT_MS = "request.timeout.ms";
    public static final String RECONNECT_BACKOFF_MS = "reconnect.backoff.ms";
    public static final String RECONNECT_BACKOFF_MAX_MS = "reconnect.backoff.max.ms";
    public static final String SOCKET_CONNECTION_SETUP_TIMEOUT_MS = "socket.connection.setup.timeout.ms";
    public static final String EPOLL_ENABLED = "insync.network.epoll.enabled";
    public static final String INLINE_HANDLERS = "insync.network.inline.handlers";

    public static final int DEFAULT_SOCKET_REQUEST_MAX_BYTES = 104_857_600;
    public static final int DEFAULT_QUEUED_MAX_REQUESTS = 500;
    public static final long DEFAULT_CONNECTIONS_MAX_IDLE_MS = 600_000L;
    public static final int DEFAULT_NUM_IO_THREADS = 8;
    public static final int DEFAULT_NUM_ACCEPTOR_THREADS = 1;
    public static final long DEFAULT_REQUEST_TIMEOUT_MS = 30_000L;
    public static final long DEFAULT_RECONNECT_BACKOFF_MS = 50L;
    public static final long DEFAULT_RECONNECT_BACKOFF_MAX_MS = 1_000L;
    public static final long DEFAULT_SOCKET_CONNECTION_SETUP_TIMEOUT_MS = 10_000L;

    /**
     * The default of {@code num.network.threads}: half the processors this JVM may use, at least 1
     * (Kafka's default is 3 network threads in front of 8 request-handler threads).
     *
     * <p>Here the non-blocking handlers (Produce, Fetch, Metadata) run on the event loop that read
     * the request, so the loops are where a broker spends its CPU, and more loops than cores only add
     * hand-offs: an acks=all record whose produce and followers' fetches arrive on different loops
     * crosses between them twice more. On 2 cores (three brokers and a client on the machine),
     * 1 loop instead of 3 gave acks=all p50 268 µs instead of 382 µs (medians of 5 interleaved runs)
     * and no lower throughput (docs/performance.md).
     */
    public static int defaultNumNetworkThreads() {
        return Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
    }

    public NetworkConfig {
        Properties.atLeast(SOCKET_REQUEST_MAX_BYTES, socketRequestMaxBytes, 16);
        Properties.atLeast(QUEUED_MAX_REQUESTS, queuedMaxRequests, 1);
        Properties.atLeast(CONNECTIONS_MAX_IDLE_MS, connectionsMaxIdleMs, 1);
        Properties.atLeast(NUM_NETWORK_THREADS, numNetworkThreads, 1);
        Properties.atLeast(NUM_IO_THREADS, numIoThreads, 1);
        Properties.atLeast(NUM_ACCEPTOR_THREADS, numAcceptorThreads, 1);
        Properties.atLeast(REQUEST_TIMEOUT_MS, requestTimeoutMs, 1);
        Properties.atLeast(RECONNECT_BACKOFF_MS, reconnectBackoffMs, 0);
        Properties.atLeast(RECONNECT_BACKOFF_MAX_MS, reconnectBackoffMaxMs, 0);
        Properties.atLeast(SOCKET_CONNECTION_SETUP_TIMEOUT_MS, connectionSetupTimeoutMs, 1);
        if (reconnectBackoffMaxMs < reconnectBackoffMs) {
            throw new IllegalArgumentException("Property " + RECONNECT_BACKOFF_MAX_MS + " (" + reconnectBackoffMaxMs
                    + ") is below " + RECONNECT_BACKOFF_MS + " (" + reconnectBackoffMs + ")");
        }
    }

    /** Kafka's defaults. */
    public static NetworkConfig defaults() {
        return builder().build();
    }

    /** Reads the properties above from {@code props}; others are ignored. */
    public static NetworkConfig fromProperties(Map<String, ?> props) {
        return new NetworkConfig(
                Properties.intValue(props, SOCKET_REQUEST_MAX_BYTES, DEFAULT_SOCKET_REQUEST_MAX_BYTES),
                Properties.intValue(props, QUEUED_MAX_REQUESTS, DEFAULT_QUEUED_MAX_REQUESTS),
                Properties.longValue(props, CONNECTIONS_MAX_IDLE_MS, DEFAULT_CONNECTIONS_MAX_IDLE_MS),
                Properties.intValue(props, NUM_NETWORK_THREADS, defaultNumNetworkThreads()),
                Properties.intValue(props, NUM_IO_THREADS, DEFAULT_NUM_IO_THREADS),
                Properties.intValue(props, NUM_ACCEPTOR_THREADS, DEFAULT_NUM_ACCEPTOR_THREADS),
                Properties.longValue(props, REQUEST_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS),
                Properties.longValue(props, RECONNECT_BACKOFF_MS, DEFAULT_RECONNECT_BACKOFF_MS),
                Properties.longValue(props, RECONNECT_BACKOFF_MAX_MS, DEFAULT_RECONNECT_BACKOFF_MAX_MS),
                Properties.longValue(props, SOCKET_CONNECTION_SETUP_TIMEOUT_MS, DEFAULT_SOCKET_CONNECTION_SETUP_TIMEOUT_MS),
                Properties.booleanValue(props, EPOLL_ENABLED, true),
                Properties.booleanValue(props, INLINE_HANDLERS, true));
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.socketRequestMaxBytes = socketRequestMaxBytes;
        b.queuedMaxRequests = queuedMaxRequests;
        b.connectionsMaxIdleMs = connectionsMaxIdleMs;
        b.numNetworkThreads = numNetworkThreads;
        b.numIoThreads = numIoThreads;
        b.numAcceptorThreads = numAcceptorThreads;
        b.requestTimeoutMs = requestTimeoutMs;
        b.reconnectBackoffMs = reconnectBackoffMs;
        b.reconnectBackoffMaxMs = reconnectBackoffMaxMs;
        b.connectionSetupTimeoutMs = connectionSetupTimeoutMs;
        b.epollEnabled = epollEnabled;
        b.inlineHandlers = inlineHandlers;
        return b;
    }

    /** Builds a {@link NetworkConfig}; unset values are Kafka's defaults. */
    public static final class Builder {
        private int socketRequestMaxBytes = DEFAULT_SOCKET_REQUEST_MAX_BYTES;
        private int queuedMaxRequests = DEFAULT_QUEUED_MAX_REQUESTS;
        private long connectionsMaxIdleMs = DEFAULT_CONNECTIONS_MAX_IDLE_MS;
        private int numNetworkThreads = defaultNumNetworkThreads();
        private int numIoThreads = DEFAULT_NUM_IO_THREADS;
        private int numAcceptorThreads = DEFAULT_NUM_ACCEPTOR_THREADS;
        private long requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS;
        private long reconnectBackoffMs = DEFAULT_RECONNECT_BACKOFF_MS;
        private long reconnectBackoffMaxMs = DEFAULT_RECONNECT_BACKOFF_MAX_MS;
        private long connectionSetupTimeoutMs = DEFAULT_SOCKET_CONNECTION_SETUP_TIMEOUT_MS;
        private boolean epollEnabled = true;
        private boolean inlineHandlers = true;

        public Builder socketRequestMaxBytes(int v) { socketRequestMaxBytes = v; return this; }
        public Builder queuedMaxRequests(int v) { queuedMaxRequests = v; return this; }
        public Builder connectionsMaxIdleMs(long v) { connectionsMaxIdleMs = v; return this; }
        public Builder numNetworkThreads(int v) { numNetworkThreads = v; return this; }
        public Builder numIoThreads(int v) { numIoThreads = v; return this; }
        public Builder numAcceptorThreads(int v) { numAcceptorThreads = v; return this; }
        public Builder requestTimeoutMs(long v) { requestTimeoutMs = v; return this; }
        public Builder reconnectBackoffMs(long v) { reconnectBackoffMs = v; return this; }
        public Builder reconnectBackoffMaxMs(long v) { reconnectBackoffMaxMs = v; return this; }
        public Builder connectionSetupTimeoutMs(long v) { connectionSetupTimeoutMs = v; return this; }
        public Builder epollEnabled(boolean v) { epollEnabled = v; return this; }
        public Builder inlineHandlers(boolean v) { inlineHandlers = v; return this; }

        public NetworkConfig build() {
            return new NetworkConfig(socketRequestMaxBytes, queuedMaxRequests, connectionsMaxIdleMs, numNetworkThreads,
                    numIoThreads, numAcceptorThreads, requestTimeoutMs, reconnectBackoffMs, reconnectBackoffMaxMs,
                    connectionSetupTimeoutMs, epollEnabled, inlineHandlers);
        }
    }
}
