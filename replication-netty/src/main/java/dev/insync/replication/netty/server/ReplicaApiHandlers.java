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

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.produce.Acks;
import dev.insync.replication.core.produce.ProduceResult;
import dev.insync.replication.core.rpc.RecordsForm;
import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import dev.insync.replication.netty.protocol.Apis;
import dev.insync.replication.netty.protocol.DescribeReplicasResponse;
import dev.insync.replication.netty.protocol.MetadataRequest;
import dev.insync.replication.netty.protocol.MetadataResponse;
import dev.insync.replication.netty.protocol.ProduceRequest;
import dev.insync.replication.netty.protocol.ProduceResponse;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The broker's data-plane handlers: Fetch and Produce to a {@link ReplicaService} (a
 * {@code ReplicaManager}), Metadata from a {@link MetadataView}. The completion of the manager's
 * future is what completes the answer (a parked fetch, an acks=all produce); nothing here blocks.
 */
public final class ReplicaApiHandlers {

    private ReplicaApiHandlers() {
    }

    /**
     * Adds Fetch, Produce, Metadata and DescribeReplicas to {@code apis}, as non-blocking handlers: a
     * fetch parks and a produce waits for acks in the manager's purgatories, and a due flush goes to
     * the broker's flusher (LOG-11 group commit), so none of them holds its thread.
     */
    public static ServedApis.Builder register(ServedApis.Builder apis, ReplicaService replicas, MetadataView metadata) {
        return apis
                // NET-3: on plaintext the records stay in the segment files until the socket takes them.
                .addNonBlocking(Apis.FETCH, (ctx, request) -> replicas.fetch(request,
                        ctx.zeroCopy() ? RecordsForm.FILE : RecordsForm.HEAP))
                .addNonBlocking(Apis.PRODUCE, (ctx, request) -> produce(replicas, request))
                .addNonBlocking(Apis.METADATA, (ctx, request) -> CompletableFuture.completedFuture(metadata(metadata, request)))
                .addNonBlocking(Apis.DESCRIBE_REPLICAS, (ctx, request) -> CompletableFuture.completedFuture(
                        new DescribeReplicasResponse(replicas.describeReplicas(request.topics()))));
    }

    /** PRO-1: acks other than 0, 1 and -1 are answered INVALID_REQUIRED_ACKS for every partition, nothing appended. */
    static CompletionStage<ProduceResponse> produce(ReplicaService replicas, ProduceRequest request) {
        Acks acks;
        try {
            acks = Acks.forCode(request.acks());
        } catch (ApiException e) {
            return CompletableFuture.completedFuture(new ProduceResponse(
                    ProduceResult.failedForAll(request.partitions().keySet(), e.error())));
        }
        return replicas.produce(request.partitions(), acks, request.timeoutMs()).thenApply(ProduceResponse::new);
    }

    /** The Metadata answer: every requested topic, unknown ones with UNKNOWN_TOPIC_OR_PARTITION. */
    static MetadataResponse metadata(MetadataView view, MetadataRequest request) {
        Collection<String> names = request.topics().isPresent() ? request.topics().get() : view.topicNames();
        List<MetadataResponse.TopicMetadata> topics = new ArrayList<>(names.size());
        for (String name : names) {
            List<PartitionRegistration> partitions = view.partitions(name);
            topics.add(partitions.isEmpty()
                    ? new MetadataResponse.TopicMetadata(Errors.UNKNOWN_TOPIC_OR_PARTITION, name, List.of())
                    : new MetadataResponse.TopicMetadata(Errors.NONE, name, partitions));
        }
        return new MetadataResponse(view.brokers(), view.controllerId(), topics);
    }
}
