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

package dev.insync.replication.netty.protocol;

import dev.insync.replication.core.rpc.FetchRequest;
import dev.insync.replication.core.rpc.FetchResponse;

/**
 * The apis of this module. Keys are Kafka's numbers for the same requests, for familiarity only:
 * the byte layouts are Insync's own (docs/protocol.md), not Kafka's wire format. Keys reserved for
 * the controller's requests: ControlledShutdown 7, AlterPartition 56, BrokerRegistration 62,
 * BrokerHeartbeat 63, metadata-log Fetch 1000, FenceBroker 1001; DescribeReplicas is 1002.
 */
public final class Apis {

    public static final short PRODUCE_KEY = 0;
    public static final short FETCH_KEY = 1;
    public static final short METADATA_KEY = 3;
    public static final short API_VERSIONS_KEY = 18;
    /** Insync's own (Kafka has no such request): above Kafka's range, next to the controller's own keys. */
    public static final short DESCRIBE_REPLICAS_KEY = 1002;

    /** Produce; acks=0 is answered with nothing. */
    public static final Api<ProduceRequest, ProduceResponse> PRODUCE = Api
            .builder(PRODUCE_KEY, "Produce", ProduceRequestCodec.INSTANCE, ProduceResponseCodec.INSTANCE)
            .versions(0, 0).expectsResponse(ProduceRequest::expectsResponse).build();

    /**
     * Replica fetch (replicaId >= 0, which is a broker-identity claim, SEC-2) and consumer fetch (-1);
     * version 1 adds the fetch session fields (FET-7), version 2 a topic id per partition (FET-2),
     * version 0 is a fetch without a session.
     */
    public static final Api<FetchRequest, FetchResponse> FETCH = Api
            .builder(FETCH_KEY, "Fetch", FetchRequestCodec.INSTANCE, FetchResponseCodec.INSTANCE)
            .versions(0, FetchRequestCodec.TOPIC_IDS_VERSION)
            .claimedBrokerId(r -> r.isFromFollower() ? r.replicaId() : Api.NO_BROKER_CLAIM).build();

    /** Topics, partitions, leaders, epochs, ISR, ELR and the brokers' endpoints. */
    public static final Api<MetadataRequest, MetadataResponse> METADATA = Api
            .builder(METADATA_KEY, "Metadata", MetadataRequestCodec.INSTANCE, MetadataResponseCodec.INSTANCE)
            .versions(0, 0).build();

    /** The apis and versions a server serves. */
    public static final Api<ApiVersionsRequest, ApiVersionsResponse> API_VERSIONS = Api
            .builder(API_VERSIONS_KEY, "ApiVersions", ApiVersionsRequestCodec.INSTANCE,
                    ApiVersionsResponseCodec.INSTANCE)
            .versions(0, 0).build();

    /**
     * The broker's replicas as it holds them (leadership, epoch, ISR, HW, LEO, log start, epoch
     * cache) for an observer that judges invariants on running brokers ({@code insync chaos}). The
     * request has Metadata's layout: the topics, or every topic.
     */
    public static final Api<MetadataRequest, DescribeReplicasResponse> DESCRIBE_REPLICAS = Api
            .builder(DESCRIBE_REPLICAS_KEY, "DescribeReplicas", MetadataRequestCodec.INSTANCE,
                    DescribeReplicasResponseCodec.INSTANCE)
            .versions(0, 0).build();

    /** Every api of this module. */
    public static final ApiRegistry DEFAULT = ApiRegistry.of(PRODUCE, FETCH, METADATA, API_VERSIONS, DESCRIBE_REPLICAS);

    private Apis() {
    }
}
