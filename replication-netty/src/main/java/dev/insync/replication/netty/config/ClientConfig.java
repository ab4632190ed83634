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

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The settings of an {@code InsyncClient}, with the Kafka producer's and consumer's property names
 * and defaults. Build from a property map with {@link #fromProperties}; every value is checked and a
 * bad one names its property. Names this class does not know are left to {@link NetworkConfig}
 * ({@code reconnect.backoff.ms}, {@code socket.connection.setup.timeout.ms}, ...) or ignored.
 *
 * @param bootstrapServers     {@code bootstrap.servers}: brokers asked for Metadata until the client knows the cluster
 * @param bootstrapControllers {@code bootstrap.controllers}: controller nodes for topic creation (may be empty)
 * @param acks                 {@code acks}: 0, 1 or -1 ({@code all}); default -1, Kafka's since 3.0
 * @param batchSizeBytes       {@code batch.size}: a partition's batch is sent once it holds this many bytes
 * @param lingerMs             {@code linger.ms}: ... or once its first record waited this long
 * @param maxInFlightPerConnection {@code max.in.flight.requests.per.connection}: produce requests unanswered per broker
 * @param retries              {@code retries}: resends of one batch at most (only where nothing was written)
 * @param deliveryTimeoutMs    {@code delivery.timeout.ms}: bound on a record's whole life, from send to outcome
 * @param requestTimeoutMs     {@code request.timeout.ms}: a request unanswered this long fails; also the
 *                             broker-side wait of an acks=all produce
 * @param retryBackoffMs       {@code retry.backoff.ms}: wait before a retry and between metadata refreshes
 * @param retryBackoffMaxMs    {@code retry.backoff.max.ms}: the cap of the metadata refresh backoff, which doubles
 *                             per consecutive answer older than the leader epochs seen (KIP-320); a
 *                             {@code retry.backoff.ms} above it makes that backoff this value, constant (Kafka's rule)
 * @param fetchMaxWaitMs       {@code fetch.max.wait.ms}: how long a broker may hold a consumer fetch
 * @param maxPartitionFetchBytes {@code max.partition.fetch.bytes}: bytes one fetch asks for
 * @param clientId             {@code client.id}: the request header's client id
 * @param bufferMemoryBytes    {@code buffer.memory}: bytes of records sent and still waiting for their outcome, at most
 * @param maxBlockMs           {@code max.block.ms}: how long a send waits for room in {@code buffer.memory} before it fails
 */
public record ClientConfig(List<InetSocketAddress> bootstrapServers, List<InetSocketAddress> bootstrapControllers,
                           short acks, int batchSizeBytes, long lingerMs, int maxInFlightPerConnection, int retries,
                           long deliveryTimeoutMs, long requestTimeoutMs, long retryBackoffMs, long retryBackoffMaxMs,
                           int fetchMaxWaitMs,
                           int maxPartitionFetchBytes, String clientId, long bufferMemoryBytes, long maxBlockMs) {

    public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
    public static final String BOOTSTRAP_CONTROLLERS = "bootstrap.controllers";
    public static final String ACKS = "acks";
    public static final String BATCH_SIZE = "batch.size";
    public static final String LINGER_MS = "linger.ms";
    public static final String MAX_IN_FLIGHT = "max.in.flight.requests.per.connection";
    public static final String RETRIES = "retries";
    public static final String DELIVERY_TIMEOUT_MS = "delivery.timeout.ms";
    public static final String REQUEST_TIMEOUT_MS = "request.timeout.ms";
    public static final String RETRY_BACKOFF_MS = "retry.backoff.ms";
    public static final String RETRY_BACKOFF_MAX_MS = "retry.backoff.max.ms";
    public static final String FETCH_MAX_WAIT_MS = "fetch.max.wait.ms";
    public static final String MAX_PARTITION_FETCH_BYTES = "max.partition.fetch.bytes";
    public static final String CLIENT_ID = "client.id";
    public static final String BUFFER_MEMORY = "buffer.memory";
    public static final String MAX_BLOCK_MS = "max.block.ms";

    public static final short DEFAULT_ACKS = -1;
    public static final int DEFAULT_BATCH_SIZE = 16_384;
    public static final long DEFAULT_LINGER_MS = 5L;
    public static final int DEFAULT_MAX_IN_FLIGHT = 5;
    public static final int DEFAULT_RETRIES = Integer.MAX_VALUE;
    public static final long DEFAULT_DELIVERY_TIMEOUT_MS = 120_000L;
    public static final long DEFAULT_REQUEST_TIMEOUT_MS = 30_000L;
    public static final long DEFAULT_RETRY_BACKOFF_MS = 100L;
    public static final long DEFAULT_RETRY_BACKOFF_MAX_MS = 1_000L;
    public static final int DEFAULT_FETCH_MAX_WAIT_MS = 500;
    public static final int DEFAULT_MAX_PARTITION_FETCH_BYTES = 1_048_576;
    public static final String DEFAULT_CLIENT_ID = "insync-client";
    public static final long DEFAULT_BUFFER_MEMORY = 32L * 1024 * 1024;
    public static final long DEFAULT_MAX_BLOCK_MS = 60_000L;

    public ClientConfig {
        bootstrapServers = List.copyOf(bootstrapServers);
        bootstrapControllers = List.copyOf(bootstrapControllers);
        if (bootstrapServers.isEmpty() && bootstrapControllers.isEmpty()) {
            throw new IllegalArgumentException("Property " + BOOTSTRAP_SERVERS + " (or " + BOOTSTRAP_CONTROLLERS
                    + ") is required: a comma-separated list of host:port");
        }
        if (acks != 0 && acks != 1 && acks != -1) {
            throw new IllegalArgumentException("Property " + ACKS + " must be 0, 1, -1 or all, got " + acks);
        }
        Properties.atLeast(BATCH_SIZE, batchSizeBytes, 0);
        Properties.atLeast(LINGER_MS, lingerMs, 0);
        Properties.atLeast(MAX_IN_FLIGHT, maxInFlightPerConnection, 1);
        Properties.atLeast(RETRIES, retries, 0);
        Properties.atLeast(REQUEST_TIMEOUT_MS, requestTimeoutMs, 1);
        Properties.atLeast(RETRY_BACKOFF_MS, retryBackoffMs, 0);
        Properties.atLeast(RETRY_BACKOFF_MAX_MS, retryBackoffMaxMs, 0);
        Properties.atLeast(FETCH_MAX_WAIT_MS, fetchMaxWaitMs, 0);
        Properties.atLeast(MAX_PARTITION_FETCH_BYTES, maxPartitionFetchBytes, 1);
        Properties.atLeast(BUFFER_MEMORY, bufferMemoryBytes, 1);
        Properties.atLeast(MAX_BLOCK_MS, maxBlockMs, 0);
        // Kafka's producer check: a record must be able to linger and then wait one request.
        if (deliveryTimeoutMs < lingerMs + requestTimeoutMs) {
            throw new IllegalArgumentException("Property " + DELIVERY_TIMEOUT_MS + " (" + deliveryTimeoutMs
                    + ") must be at least " + LINGER_MS + " + " + REQUEST_TIMEOUT_MS + " (" + (lingerMs + requestTimeoutMs)
                    + ")");
        }
        if (requestTimeoutMs > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("Property " + REQUEST_TIMEOUT_MS + " must fit in an int, got "
                    + requestTimeoutMs);
        }
        if (clientId == null || clientId.isEmpty() || clientId.length() > 256) {
            throw new IllegalArgumentException("Property " + CLIENT_ID + " must have 1..256 characters, got '"
                    + clientId + "'");
        }
    }

    /** The settings without {@code buffer.memory} and {@code max.block.ms}: those take Kafka's defaults. */
    public ClientConfig(List<InetSocketAddress> bootstrapServers, List<InetSocketAddress> bootstrapControllers,
                        short acks, int batchSizeBytes, long lingerMs, int maxInFlightPerConnection, int retries,
                        long deliveryTimeoutMs, long requestTimeoutMs, long retryBackoffMs, long retryBackoffMaxMs,
                        int fetchMaxWaitMs, int maxPartitionFetchBytes, String clientId) {
        this(bootstrapServers, bootstrapControllers, acks, batchSizeBytes, lingerMs, maxInFlightPerConnection, retries,
                deliveryTimeoutMs, requestTimeoutMs, retryBackoffMs, retryBackoffMaxMs, fetchMaxWaitMs,
                maxPartitionFetchBytes, clientId, DEFAULT_BUFFER_MEMORY, DEFAULT_MAX_BLOCK_MS);
    }

    /**
     * Reads the properties above; {@code acks} accepts {@code all} for -1, as Kafka does. A
     * {@code delivery.timeout.ms} left unset is raised to {@code linger.ms + request.timeout.ms} when
     * the default would be smaller.
     */
    public static ClientConfig fromProperties(Map<String, ?> props) {
        long lingerMs = Properties.longValue(props, LINGER_MS, DEFAULT_LINGER_MS);
        long requestTimeoutMs = Properties.longValue(props, REQUEST_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS);
        long deliveryTimeoutMs = props.containsKey(DELIVERY_TIMEOUT_MS)
                ? Properties.longValue(props, DELIVERY_TIMEOUT_MS, DEFAULT_DELIVERY_TIMEOUT_MS)
                : Math.max(DEFAULT_DELIVERY_TIMEOUT_MS, lingerMs + requestTimeoutMs);
        return new ClientConfig(
                addresses(BOOTSTRAP_SERVERS, Properties.string(props, BOOTSTRAP_SERVERS, "")),
                addresses(BOOTSTRAP_CONTROLLERS, Properties.string(props, BOOTSTRAP_CONTROLLERS, "")),
                acks(Properties.string(props, ACKS, Short.toString(DEFAULT_ACKS))),
                Properties.intValue(props, BATCH_SIZE, DEFAULT_BATCH_SIZE),
                lingerMs,
                Properties.intValue(props, MAX_IN_FLIGHT, DEFAULT_MAX_IN_FLIGHT),
                Properties.intValue(props, RETRIES, DEFAULT_RETRIES),
                deliveryTimeoutMs,
                requestTimeoutMs,
                Properties.longValue(props, RETRY_BACKOFF_MS, DEFAULT_RETRY_BACKOFF_MS),
                Properties.longValue(props, RETRY_BACKOFF_MAX_MS, DEFAULT_RETRY_BACKOFF_MAX_MS),
                Properties.intValue(props, FETCH_MAX_WAIT_MS, DEFAULT_FETCH_MAX_WAIT_MS),
                Properties.intValue(props, MAX_PARTITION_FETCH_BYTES, DEFAULT_MAX_PARTITION_FETCH_BYTES),
                Properties.string(props, CLIENT_ID, DEFAULT_CLIENT_ID),
                Properties.longValue(props, BUFFER_MEMORY, DEFAULT_BUFFER_MEMORY),
                Properties.longValue(props, MAX_BLOCK_MS, DEFAULT_MAX_BLOCK_MS));
    }

    /** PRO-1: {@code all} and -1 are the same; 0 and 1; anything else names the property. */
    static short acks(String value) {
        String v = value.trim();
        switch (v) {
            case "all", "-1":
                return -1;
            case "0":
                return 0;
            case "1":
                return 1;
            default:
                throw new IllegalArgumentException("Property " + ACKS + " must be 0, 1, -1 or all, got '" + value + "'");
        }
    }

    /**
     * A comma-separated list of {@code host:port} (IPv6 hosts in brackets, {@code [::1]:9092}); the
     * empty string is the empty list. Unresolved addresses: they are resolved at each connection attempt.
     */
    public static List<InetSocketAddress> addresses(String property, String value) {
        List<InetSocketAddress> out = new ArrayList<>();
        for (String part : value.split(",")) {
            String s = part.trim();
            if (s.isEmpty()) {
                continue;
            }
            int colon = s.lastIndexOf(':');
            if (colon <= 0 || colon == s.length() - 1) {
                throw new IllegalArgumentException("Property " + property + ": '" + s + "' is not host:port");
            }
            String host = s.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            int port;
            try {
                port = Integer.parseInt(s.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("Property " + property + ": '" + s + "' has no numeric port", e);
            }
            if (port < 1 || port > 65535 || host.isEmpty()) {
                throw new IllegalArgumentException("Property " + property + ": '" + s + "' needs a host and a port in 1..65535");
            }
            out.add(InetSocketAddress.createUnresolved(host, port));
        }
        return out;
    }
}
