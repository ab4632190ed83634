package dev.insync.replication.testkit.cluster;

import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.ControllerChannel;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.core.metadata.MetadataDelta;
import dev.insync.replication.core.metadata.PartitionRegistration;
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
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Where each {@link Mutation} is injected: wrappers around the handlers, the controller channel and
 * the metadata applier that {@link ClusterBroker} wires. With no mutation every method returns what
 * it was given, so the real path is untouched. TEST-ONLY by construction: nothing here is reachable
 * without {@link InMemoryCluster.Builder#mutation}.
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

    /** The leader's fetch handler with the fetch mutations applied. */
    Function<FetchRequest, CompletionStage<FetchResponse>> fetchHandler(ReplicaManager rm,
                                                                       Function<TopicPartition, Optional<Log>> logs) {
        boolean rewritesRequest = has(Mutation.FOLLOWER_FETCH_OFFSET_AHEAD);
        boolean rewritesResponse = has(Mutation.STRIP_DIVERGING_EPOCH) || has(Mutation.DIVERGING_END_OFFSET_OFF_BY_ONE)
                || has(Mutation.FOLLOWER_HW_AT_LEADER_LEO) || has(Mutation.CONSUMER_READS_PAST_HW);
        if (!rewritesRequest && !rewritesResponse) {
            return rm::fetch;
        }
        return request -> {
            FetchRequest sent = rewritesRequest && request.isFromFollower() ? offsetsAhead(rm, request) : request;
            return rm.fetch(sent).thenApply(response -> rewrite(request, response, logs));
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
                request.maxBytes(), ahead);
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
        return new FetchResponse(response.error(), out);
    }

    // ---------------------------------------------------------------- produce handler

    /** {@link Mutation#ACK_ALL_AFTER_LOCAL_APPEND}: the request as the broker handles it. */
    ClientRpc.ProduceRequest produceRequest(ClientRpc.ProduceRequest request) {
        if (has(Mutation.ACK_ALL_AFTER_LOCAL_APPEND) && request.acks() == -1) {
            return new ClientRpc.ProduceRequest(request.topicPartition(), request.records(), 1, request.timeoutMs());
        }
        return request;
    }

    // ---------------------------------------------------------------- controller channel

    /** The broker's controller channel with the AlterPartition mutations applied. */
    ControllerChannel controllerChannel(ControllerChannel channel, Function<TopicPartition, Optional<Partition>> partitions) {
        boolean dropExpansions = has(Mutation.ISR_EXPANSION_NEVER_DELIVERED);
        boolean dropShrinks = has(Mutation.SHRINK_NEVER_DELIVERED);
        boolean widen = has(Mutation.EXPANSION_PROPOSES_ALL_REPLICAS);
        if (!dropExpansions && !dropShrinks && !widen) {
            return channel;
        }
        return new ControllerChannel() {
            @Override
            public CompletionStage<AlterPartitionResponse> alterPartition(AlterPartitionRequest request) {
                List<AlterPartitionRequest.Item> items = new ArrayList<>();
                for (AlterPartitionRequest.Item item : request.items()) {
                    Optional<Partition> p = partitions.apply(item.topicPartition());
                    boolean expansion = p.isPresent() && p.get().isrState() instanceof IsrState.PendingExpandIsr;
                    boolean shrink = p.isPresent() && p.get().isrState() instanceof IsrState.PendingShrinkIsr;
                    if ((expansion && dropExpansions) || (shrink && dropShrinks)) {
                        return new CompletableFuture<>(); // lost: the manager's request timeout resends, in vain
                    }
                    items.add(expansion && widen ? allReplicas(item, p.get()) : item);
                }
                return channel.alterPartition(new AlterPartitionRequest(request.brokerId(), request.brokerEpoch(), items));
            }

            @Override
            public CompletionStage<Long> registerBroker(int id, long previousBrokerEpoch) {
                return channel.registerBroker(id, previousBrokerEpoch);
            }

            @Override
            public CompletionStage<HeartbeatResponse> heartbeat(HeartbeatRequest request) {
                return channel.heartbeat(request);
            }
        };
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

    // ---------------------------------------------------------------- registration and metadata

    /** {@link Mutation#UNCLEAN_RESTART_REPORTED_CLEAN}: the previous broker epoch the broker registers with. */
    long previousBrokerEpoch(long fromMarker, long lastIncarnationEpoch) {
        if (has(Mutation.UNCLEAN_RESTART_REPORTED_CLEAN) && fromMarker < 0 && lastIncarnationEpoch >= 0) {
            return lastIncarnationEpoch;
        }
        return fromMarker;
    }

    /** Whether a new incarnation applies the replayed metadata delta by delta ({@link Mutation#INITIAL_LOAD_NOT_MERGED}). */
    boolean skipsInitialLoadMerge() {
        return has(Mutation.INITIAL_LOAD_NOT_MERGED);
    }

    /** The metadata applier with {@link Mutation#LEADER_EPOCH_NOT_BUMPED} applied. */
    Consumer<MetadataDelta> metadataApplier(Consumer<MetadataDelta> applier) {
        if (!has(Mutation.LEADER_EPOCH_NOT_BUMPED)) {
            return applier;
        }
        return delta -> {
            List<PartitionRegistration> rewritten = new ArrayList<>();
            for (PartitionRegistration p : delta.partitions()) {
                rewritten.add(p.toBuilder().leaderEpoch(0).build());
            }
            applier.accept(new MetadataDelta(delta.offset(), delta.brokers(), rewritten, delta.deletedPartitions(),
                    delta.minInsyncReplicasByTopic()));
        };
    }
}
