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

package dev.insync.replication.server;

import dev.insync.replication.broker.BrokerMetadataView;
import dev.insync.replication.broker.BrokerRequestHandlers;
import dev.insync.replication.broker.RequestServer;
import dev.insync.replication.core.metadata.BrokerRegistration;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.partition.ReplicaDescription;
import dev.insync.replication.core.produce.Acks;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.core.rpc.RecordsForm;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.netty.protocol.BrokerEndpoint;
import dev.insync.replication.netty.server.MetadataView;
import dev.insync.replication.netty.server.ReplicaApiHandlers;
import dev.insync.replication.netty.server.ReplicaService;
import dev.insync.replication.netty.server.ServedApis;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * The Netty binding of an {@code InsyncBroker}'s request server (seam (c) of docs/broker.md). The
 * process's listener is bound at start, before the broker can serve (a combined process's
 * controller must answer at once, and a bind error should stop the process before anything else
 * opens), so the broker's apis (Fetch, Produce, Metadata, registered with
 * {@link ReplicaApiHandlers}) sit behind a gate: until the broker calls {@link #serve} — its
 * initial metadata load is applied — and after it closes the handle, every partition of a Fetch or
 * Produce is answered {@code NOT_LEADER_OR_FOLLOWER} (it leads nothing: a fetcher backs off
 * (FOL-6), a client refreshes its metadata and retries; nothing is appended), Metadata shows an
 * empty cluster and DescribeReplicas no replica, as a KRaft broker that has not enabled request
 * processing serves nothing.
 *
 * <p>Metadata answers list the registered brokers at their advertised addresses (LDR-4: the
 * endpoint each registration carries, unless the deprecated {@code insync.broker.addresses}
 * names the broker; a broker without either is left out) and the active controller as the
 * broker's controller client last learned it.
 */
final class BrokerApiGate implements RequestServer {

    private final int brokerId;
    private final Function<BrokerRegistration, Optional<InetSocketAddress>> advertisedAddresses;
    private final AtomicReference<BrokerRequestHandlers> open = new AtomicReference<>();

    /**
     * @param brokerId            the broker's id (in errors)
     * @param advertisedAddresses where clients reach each registered broker, for Metadata answers
     */
    BrokerApiGate(int brokerId, Function<BrokerRegistration, Optional<InetSocketAddress>> advertisedAddresses) {
        this.brokerId = brokerId;
        this.advertisedAddresses = Objects.requireNonNull(advertisedAddresses, "advertisedAddresses");
    }

    /** Adds the broker's apis, behind this gate, to a listener's apis. */
    ServedApis.Builder register(ServedApis.Builder apis) {
        return ReplicaApiHandlers.register(apis, new GatedReplicas(), new GatedMetadata());
    }

    @Override
    public AutoCloseable serve(BrokerRequestHandlers handlers) {
        if (!open.compareAndSet(null, Objects.requireNonNull(handlers, "handlers"))) {
            throw new IllegalStateException("Broker " + brokerId + " is served already");
        }
        return () -> open.compareAndSet(handlers, null);
    }

    /** Whether the broker's apis are open. */
    boolean isServing() {
        return open.get() != null;
    }

    /** FOL-6 / PRO-2: a broker that does not serve leads nothing; the sender backs off and retries. */
    private static FetchResponse notServing(FetchRequest request) {
        int n = request.partitionCount();
        TopicPartition[] tps = new TopicPartition[n];
        FetchResponse.PartitionData[] data = new FetchResponse.PartitionData[n];
        for (int i = 0; i < n; i++) {
            tps[i] = request.topicPartition(i);
            data[i] = FetchResponse.PartitionData.error(Errors.NOT_LEADER_OR_FOLLOWER);
        }
        return FetchResponse.of(Errors.NONE, tps, data, n);
    }

    private final class GatedReplicas implements ReplicaService {
        @Override
        public CompletionStage<FetchResponse> fetch(FetchRequest request, RecordsForm form) {
            BrokerRequestHandlers h = open.get();
            // NET-3: the replica manager's form-taking fetch, so plaintext answers stay zero-copy.
            return h == null ? CompletableFuture.completedFuture(notServing(request))
                    : h.replicaManager().fetch(request, form);
        }

        @Override
        public CompletionStage<Map<TopicPartition, ProduceResult>> produce(Map<TopicPartition, MemoryRecords> entries,
                                                                           Acks acks, long timeoutMs) {
            BrokerRequestHandlers h = open.get();
            return h == null
                    ? CompletableFuture.completedFuture(ProduceResult.failedForAll(entries.keySet(), Errors.NOT_LEADER_OR_FOLLOWER))
                    : h.produce(entries, acks, timeoutMs);
        }

        @Override
        public List<ReplicaDescription> describeReplicas(Optional<List<String>> topics) {
            BrokerRequestHandlers h = open.get();
            return h == null ? List.of() : h.replicaManager().describeReplicas(topics);
        }
    }

    private final class GatedMetadata implements MetadataView {
        private Optional<BrokerMetadataView> view() {
            return Optional.ofNullable(open.get()).map(BrokerRequestHandlers::metadata);
        }

        @Override
        public List<BrokerEndpoint> brokers() {
            List<BrokerEndpoint> out = new ArrayList<>();
            for (BrokerRegistration b : view().map(BrokerMetadataView::brokers).orElse(List.of())) {
                advertisedAddresses.apply(b).ifPresent(a ->
                        out.add(new BrokerEndpoint(b.brokerId(), a.getHostString(), a.getPort())));
            }
            return out;
        }

        @Override
        public int controllerId() {
            return view().map(v -> v.activeController().orElse(-1)).orElse(-1);
        }

        @Override
        public Collection<String> topicNames() {
            return view().<Collection<String>>map(BrokerMetadataView::topicNames).orElse(List.of());
        }

        @Override
        public List<PartitionRegistration> partitions(String topic) {
            return view().map(v -> v.partitions(topic)).orElse(List.of());
        }
    }
}
