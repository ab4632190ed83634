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

package dev.insync.replication.testkit.cluster;

import dev.insync.replication.broker.InsyncBroker;
import dev.insync.replication.controller.api.AlterTopicConfigRequest;
import dev.insync.replication.controller.api.ControllerApi;
import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.controller.api.RegisterBrokerRequest;
import dev.insync.replication.controller.api.RegisterBrokerResponse;
import dev.insync.replication.controller.api.TopicDescription;
import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.ControllerChannel.HeartbeatResponse;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.metadata.follower.MetadataFetchRequest;
import dev.insync.replication.core.metadata.follower.MetadataFetchResponse;
import dev.insync.replication.core.metadata.follower.MetadataImage;
import dev.insync.replication.core.partition.IsrState;
import dev.insync.replication.core.partition.Partition;
import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;
import dev.insync.replication.core.server.ReplicaManager;
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.Log;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.epoch.EpochEndOffset;
import dev.insync.replication.log.record.Records;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Where each {@link Mutation} is injected: wrappers around what {@link ClusterBroker} hands its
 * {@link InsyncBroker} and binds on the network for it (the fetch and produce handlers, and the
 * controller endpoint the broker's controller channel and metadata follower talk through). With no
 * mutation every method returns what it was given, so the real path is untouched. TEST-ONLY by
 * construction: nothing here is reachable without {@link InMemoryCluster.Builder#mutation}.
 */
final class MutationSeams {

    private final Set<Mutation> mutations;

    MutationSeams(Set<Mutation> mutations) {
        this.mutations = mutations;
    }

    private boolean has(Mutation m) {
        return mutations.contains(m);
    }

    // ---------------------------------------------------------------- fetch handler

    /** The leader's fetch handler ({@code fetch}, the broker's) with the fetch mutations applied. */
    Function<FetchRequest, CompletionStage<FetchResponse>> fetchHandler(
            Function<FetchRequest, CompletionStage<FetchResponse>> fetch, ReplicaManager rm,
            Function<TopicPartition, Optional<Log>> logs) {
        boolean rewritesRequest = has(Mutation.FOLLOWER_FETCH_OFFSET_AHEAD);
        boolean rewritesResponse = has(Mutation.STRIP_DIVERGING_EPOCH) || has(Mutation.DIVERGING_END_OFFSET_OFF_BY_ONE)
                || has(Mutation.FOLLOWER_HW_AT_LEADER_LEO) || has(Mutation.CONSUMER_READS_PAST_HW);
        if (!rewritesRequest && !rewritesResponse) {
            return fetch;
        }
        return request -> {
            FetchRequest sent = rewritesRequest && request.isFromFollower() ? offsetsAhead(rm, request) : request;
            return fetch.apply(sent).thenApply(response -> rewrite(request, response, logs));
        };
    }

    /** {@link Mutation#FOLLOWER_FETCH_OFFSET_AHEAD}. */
    private static FetchRequest offsetsAhead(ReplicaManager rm, FetchRequest request) {
        Map<TopicPartition, FetchRequest.PartitionData> ahead = new LinkedHashMap<>();
        request.partitions().forEach((tp, d) -> {
            long leo = rm.partition(tp).map(Partition::logEndOffset).orElse(-1L);
            long offset = d.fetchOffset() < leo ? d.fetchOffset() + 1 : d.fetchOffset();
            ahead.put(tp, new FetchRequest.PartitionData(offset, d.logStartOffset(), d.partitionMaxBytes(),
                    d.currentLeaderEpoch(), d.lastFetchedEpoch()));
        });
        return new FetchRequest(request.replicaId(), request.brokerEpoch(), request.maxWaitMs(), request.minBytes(),
                request.maxBytes(), ahead, request.sessionId(), request.sessionEpoch(), request.forgotten());
    }

    private FetchResponse rewrite(FetchRequest request, FetchResponse response,
                                  Function<TopicPartition, Optional<Log>> logs) {
        Map<TopicPartition, FetchResponse.PartitionData> out = new LinkedHashMap<>();
        response.partitions().forEach((tp, d) -> {
            Optional<EpochEndOffset> diverging = d.divergingEpoch();
            if (has(Mutation.STRIP_DIVERGING_EPOCH)) {
                diverging = Optional.empty();
            } else if (has(Mutation.DIVERGING_END_OFFSET_OFF_BY_ONE)) {
                diverging = diverging.map(e -> e.endOffset() < 0 ? e : new EpochEndOffset(e.leaderEpoch(), e.endOffset() + 1));
            }
            long hw = d.highWatermark();
            Records records = d.records();
            if (request.isFromFollower() && has(Mutation.FOLLOWER_HW_AT_LEADER_LEO) && d.error() == Errors.NONE
                    && d.logEndOffset() >= 0) {
                hw = d.logEndOffset();
            }
            if (!request.isFromFollower() && has(Mutation.CONSUMER_READS_PAST_HW) && d.error() == Errors.NONE) {
                Optional<Log> log = logs.apply(tp);
                FetchRequest.PartitionData asked = request.partitions().get(tp);
                if (log.isPresent() && asked != null && asked.fetchOffset() < log.get().logEndOffset()) {
                    long leo = log.get().logEndOffset();
                    records = log.get().read(asked.fetchOffset(), asked.partitionMaxBytes(), leo).records();
                    hw = leo;
                }
            }
            out.put(tp, new FetchResponse.PartitionData(d.error(), hw, d.lastStableOffset(), d.logStartOffset(),
                    d.logEndOffset(), records, diverging));
        });
        return new FetchResponse(response.error(), out, response.sessionId());
    }

    // ---------------------------------------------------------------- produce handler

    /** {@link Mutation#ACK_ALL_AFTER_LOCAL_APPEND}: the request as the broker handles it. */
    ClientRpc.ProduceRequest produceRequest(ClientRpc.ProduceRequest request) {
        if (has(Mutation.ACK_ALL_AFTER_LOCAL_APPEND) && request.acks() == -1) {
            return new ClientRpc.ProduceRequest(request.topicPartition(), request.records(), 1, request.timeoutMs());
        }
        return request;
    }

    // ---------------------------------------------------------------- controller endpoint

    /**
     * The broker's controller endpoint with the controller-path mutations applied: AlterPartition
     * ({@link Mutation#ISR_EXPANSION_NEVER_DELIVERED}, {@link Mutation#SHRINK_NEVER_DELIVERED},
     * {@link Mutation#EXPANSION_PROPOSES_ALL_REPLICAS}), registration
     * ({@link Mutation#UNCLEAN_RESTART_REPORTED_CLEAN}, given the last incarnation's epoch) and the
     * metadata fetches ({@link Mutation#LEADER_EPOCH_NOT_BUMPED}, {@link Mutation#INITIAL_LOAD_NOT_MERGED}).
     *
     * @param broker the incarnation the endpoint serves, once built
     */
    ControllerApi controllerApi(ControllerApi endpoint, long lastIncarnationEpoch, Supplier<Optional<InsyncBroker>> broker) {
        boolean dropExpansions = has(Mutation.ISR_EXPANSION_NEVER_DELIVERED);
        boolean dropShrinks = has(Mutation.SHRINK_NEVER_DELIVERED);
        boolean widen = has(Mutation.EXPANSION_PROPOSES_ALL_REPLICAS);
        boolean reportClean = has(Mutation.UNCLEAN_RESTART_REPORTED_CLEAN);
        boolean epochsNotBumped = has(Mutation.LEADER_EPOCH_NOT_BUMPED);
        boolean notMerged = has(Mutation.INITIAL_LOAD_NOT_MERGED);
        if (!dropExpansions && !dropShrinks && !widen && !reportClean && !epochsNotBumped && !notMerged) {
            return endpoint;
        }
        Function<TopicPartition, Optional<Partition>> partitions =
                tp -> broker.get().flatMap(b -> b.replicaManager().partition(tp));
        return new ControllerApi() {
            @Override
            public CompletionStage<AlterPartitionResponse> alterPartition(AlterPartitionRequest request) {
                List<AlterPartitionRequest.Item> items = new ArrayList<>();
                for (AlterPartitionRequest.Item item : request.items()) {
                    Optional<Partition> p = partitions.apply(item.topicPartition());
                    boolean expansion = p.isPresent() && p.get().isrState() instanceof IsrState.PendingExpandIsr;
                    boolean shrink = p.isPresent() && p.get().isrState() instanceof IsrState.PendingShrinkIsr;
                    if ((expansion && dropExpansions) || (shrink && dropShrinks)) {
                        return new CompletableFuture<>(); // lost: the senders' timeouts resend, in vain
                    }
                    items.add(expansion && widen ? allReplicas(item, p.get()) : item);
                }
                return endpoint.alterPartition(new AlterPartitionRequest(request.brokerId(), request.brokerEpoch(), items));
            }

            @Override
            public CompletionStage<RegisterBrokerResponse> registerBroker(RegisterBrokerRequest request) {
                // UNCLEAN_RESTART_REPORTED_CLEAN: no clean-shutdown marker, yet the last epoch is sent.
                if (reportClean && request.previousBrokerEpoch() < 0 && lastIncarnationEpoch >= 0) {
                    return endpoint.registerBroker(new RegisterBrokerRequest(request.brokerId(), lastIncarnationEpoch,
                            request.endpoints()));
                }
                return endpoint.registerBroker(request);
            }

            @Override
            public CompletionStage<HeartbeatResponse> brokerHeartbeat(HeartbeatRequest request) {
                return endpoint.brokerHeartbeat(request);
            }

            @Override
            public CompletionStage<MetadataFetchResponse> fetchMetadata(MetadataFetchRequest request) {
                return endpoint.fetchMetadata(request).thenApply(response -> {
                    MetadataFetchResponse seen = epochsNotBumped ? leaderEpochsZero(response) : response;
                    if (notMerged) {
                        applyBeforeTheFollower(seen, broker.get());
                    }
                    return seen;
                });
            }

            @Override
            public CompletionStage<List<PartitionRegistration>> createTopic(CreateTopicRequest request) {
                return endpoint.createTopic(request);
            }

            @Override
            public CompletionStage<Void> deleteTopic(String topic) {
                return endpoint.deleteTopic(topic);
            }

            @Override
            public CompletionStage<Void> alterTopicConfig(AlterTopicConfigRequest request) {
                return endpoint.alterTopicConfig(request);
            }

            @Override
            public CompletionStage<Boolean> fenceBroker(int brokerId) {
                return endpoint.fenceBroker(brokerId);
            }

            @Override
            public CompletionStage<TopicDescription> describeTopic(String topic) {
                return endpoint.describeTopic(topic);
            }
        };
    }

    /** {@link Mutation#LEADER_EPOCH_NOT_BUMPED}: every partition the broker learns of stays in leader epoch 0. */
    private static MetadataFetchResponse leaderEpochsZero(MetadataFetchResponse response) {
        Optional<MetadataImage> image = response.image().map(i -> new MetadataImage(i.offset(), i.brokers(),
                epochZero(i.partitions()), i.minInsyncReplicasByTopic(), i.topicIds()));
        List<MetadataDelta> deltas = new ArrayList<>();
        for (MetadataDelta d : response.deltas()) {
            deltas.add(new MetadataDelta(d.offset(), d.brokers(), epochZero(d.partitions()), d.deletedPartitions(),
                    d.minInsyncReplicasByTopic(), d.topicIds()));
        }
        return new MetadataFetchResponse(response.afterOffset(), image, deltas);
    }

    private static List<PartitionRegistration> epochZero(List<PartitionRegistration> partitions) {
        return partitions.stream().map(p -> p.toBuilder().leaderEpoch(0).build()).toList();
    }

    /**
     * {@link Mutation#INITIAL_LOAD_NOT_MERGED}: while the broker's metadata follower is still in its
     * initial load, the replayed history is applied to the replica manager delta by delta as it
     * arrives (so an old leadership reaches it), before the follower merges it; the follower's merged
     * image then lands at an offset already applied and is ignored.
     */
    private static void applyBeforeTheFollower(MetadataFetchResponse response, Optional<InsyncBroker> broker) {
        if (broker.isEmpty() || broker.get().metadataFollower().isLoaded()) {
            return;
        }
        ReplicaManager rm = broker.get().replicaManager();
        response.image().ifPresent(image -> rm.applyMetadataDelta(image.asDeltaReplacing(rm.hostedPartitions())));
        response.deltas().forEach(rm::applyMetadataDelta);
    }

    /** {@link Mutation#EXPANSION_PROPOSES_ALL_REPLICAS}: every assigned replica, unknown epochs as -1. */
    private static AlterPartitionRequest.Item allReplicas(AlterPartitionRequest.Item item, Partition partition) {
        List<AlterPartitionRequest.BrokerState> members = new ArrayList<>(item.newIsr());
        for (int replica : partition.assignment()) {
            if (!item.newIsrIds().contains(replica)) {
                members.add(new AlterPartitionRequest.BrokerState(replica, -1L));
            }
        }
        return new AlterPartitionRequest.Item(item.topicPartition(), item.leaderEpoch(), item.partitionEpoch(), members,
                item.recovered());
    }
}
