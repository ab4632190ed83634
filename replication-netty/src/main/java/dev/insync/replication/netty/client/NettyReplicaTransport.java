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

import dev.insync.replication.core.fetcher.FetcherManager;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.core.rpc.ReplicaTransport;
import dev.insync.replication.netty.protocol.Apis;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;

/**
 * {@link ReplicaTransport} over TCP: a follower broker's fetchers reach their leaders through it.
 * Each fetcher has its own connection, one per (leader, fetcherId), so that one fetcher's parked
 * fetch never holds another's answer back (answers on a connection are ordered, NET-2). The fetcher
 * id is the FOL-1 hash of the request's first partition: every partition of one fetch belongs to
 * the same fetcher.
 *
 * <p>A lost link behaves as it does on the in-memory network: the stage fails (connection closed,
 * connect refused, backing off before a reconnect, {@code request.timeout.ms} passed, or the server
 * refused the request as a whole, e.g. SEC-2's CLUSTER_AUTHORIZATION_FAILED), and the fetcher backs
 * its partitions off by {@code replica.fetch.backoff.ms} and tries again.
 */
public final class NettyReplicaTransport implements ReplicaTransport, AutoCloseable {

    private record ConnectionKey(int leaderId, int fetcherId) {
    }

    private final int localBrokerId;
    private final int numReplicaFetchers;
    private final BrokerAddresses addresses;
    private final NetworkClient client;
    private final Map<ConnectionKey, ClientConnection> connections = new ConcurrentHashMap<>();

    /**
     * @param localBrokerId      this (follower) broker's id, in connection names and client ids
     * @param numReplicaFetchers {@code num.replica.fetchers}, as the fetcher manager uses it
     * @param addresses          where each leader listens
     * @param client             the loops, TLS and timeouts to use (not closed by {@link #close()})
     */
    public NettyReplicaTransport(int localBrokerId, int numReplicaFetchers, BrokerAddresses addresses,
                                 NetworkClient client) {
        if (numReplicaFetchers < 1) {
            throw new IllegalArgumentException("num.replica.fetchers must be > 0, got " + numReplicaFetchers);
        }
        this.localBrokerId = localBrokerId;
        this.numReplicaFetchers = numReplicaFetchers;
        this.addresses = Objects.requireNonNull(addresses, "addresses");
        this.client = Objects.requireNonNull(client, "client");
    }

    /**
     * Sends {@code request} over the connection of the fetcher its first partition belongs to
     * ({@link FetcherManager#fetcherId}); a request naming no partition has no fetcher to go by and is
     * refused: fetchers send through {@link #fetch(int, int, FetchRequest, Executor, BiConsumer)}.
     */
    @Override
    public CompletionStage<FetchResponse> fetch(int leaderId, FetchRequest request) {
        if (request.partitionCount() == 0) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("Fetch to broker " + leaderId
                    + " without partitions and without a fetcher id"));
        }
        return send(leaderId, FetcherManager.fetcherId(request.topicPartition(0), numReplicaFetchers), request);
    }

    private CompletionStage<FetchResponse> send(int leaderId, int fetcherId, FetchRequest request) {
        ClientConnection connection = connections.computeIfAbsent(new ConnectionKey(leaderId, fetcherId), k -> {
            String name = FetcherManager.fetcherName(fetcherId, leaderId) + "@broker-" + localBrokerId;
            return client.connection(name, () -> addresses.address(leaderId), "broker-" + localBrokerId
                    + "-fetcher-" + fetcherId);
        });
        return connection.send(Apis.FETCH, Apis.FETCH.maxVersion(), request);
    }

    /**
     * Over fetcher {@code fetcherId}'s connection to {@code leaderId}, also for a request naming no
     * partition (an idle incremental fetch of a fetch session, FET-7: refusing it made every idle
     * round fail, back off and reopen the session with a full fetch).
     *
     * <p>With {@code insync.network.inline.handlers} (the default) the fetcher takes its answer on the
     * event loop that read it: it appends and sends its next fetch (FET-4's ack of what it appended)
     * from there, instead of waking its own thread, which would then wake the event loop again to
     * write. Without it, the answer is a task of the fetcher's executor.
     */
    @Override
    public void fetch(int leaderId, int fetcherId, FetchRequest request, Executor executor,
                      BiConsumer<FetchResponse, Throwable> onAnswer) {
        CompletableFuture<FetchResponse> answer;
        try {
            answer = send(leaderId, fetcherId, request).toCompletableFuture();
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        if (!client.config().inlineHandlers() || answer.isDone()) {
            // Refused at once (backing off, no address): never call back into the fetcher while it sends.
            answer.whenComplete((response, error) -> {
                try {
                    executor.execute(() -> onAnswer.accept(response, error));
                } catch (RejectedExecutionException shuttingDown) {
                    // The fetcher is stopping: nobody waits for this answer any more.
                }
            });
            return;
        }
        answer.whenComplete(onAnswer);
    }

    /** The number of connections opened so far (one per (leader, fetcher) ever used). */
    public int connectionCount() {
        return connections.size();
    }

    /** Closes every connection this transport opened. */
    @Override
    public void close() {
        connections.values().forEach(ClientConnection::close);
        connections.clear();
    }
}
