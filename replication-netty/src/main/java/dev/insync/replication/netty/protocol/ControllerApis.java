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

import dev.insync.replication.controller.api.AlterTopicConfigRequest;
import dev.insync.replication.controller.api.CreateTopicRequest;
import dev.insync.replication.controller.api.RegisterBrokerRequest;
import dev.insync.replication.controller.api.RegisterBrokerResponse;
import dev.insync.replication.controller.api.TopicDescription;
import dev.insync.replication.core.metadata.AlterPartitionRequest;
import dev.insync.replication.core.metadata.AlterPartitionResponse;
import dev.insync.replication.core.metadata.ControllerChannel.HeartbeatResponse;
import dev.insync.replication.core.metadata.HeartbeatRequest;
import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.core.metadata.follower.MetadataFetchRequest;
import dev.insync.replication.core.metadata.follower.MetadataFetchResponse;

import java.util.List;

/**
 * The controller's apis: one per {@code ControllerApi} operation, each answered with a
 * {@link ControllerReply}. Keys are Kafka's numbers for the nearest Kafka request (for familiarity
 * only, the layouts are Insync's, see {@link ControllerCodecs}), and Insync's own above 999.
 * Registration, heartbeat and AlterPartition claim the broker id they carry (SEC-2). Kafka's key 7
 * (ControlledShutdown) stays unused: a controlled shutdown is asked for in the heartbeat.
 */
public final class ControllerApis {

    public static final short CREATE_TOPICS_KEY = 19;
    public static final short DELETE_TOPICS_KEY = 20;
    public static final short INCREMENTAL_ALTER_CONFIGS_KEY = 44;
    public static final short ALTER_PARTITION_KEY = 56;
    public static final short BROKER_REGISTRATION_KEY = 62;
    public static final short BROKER_HEARTBEAT_KEY = 63;
    public static final short DESCRIBE_TOPIC_PARTITIONS_KEY = 75;
    public static final short METADATA_FETCH_KEY = 1000;
    public static final short FENCE_BROKER_KEY = 1001;

    /** LDR-4/LDR-5: a broker incarnation registers (v1: with its endpoints); claims its broker id. */
    public static final Api<RegisterBrokerRequest, ControllerReply<RegisterBrokerResponse>> BROKER_REGISTRATION = Api
            .builder(BROKER_REGISTRATION_KEY, "BrokerRegistration", ControllerCodecs.REGISTER_BROKER_REQUEST,
                    ControllerCodecs.reply(ControllerCodecs.REGISTER_BROKER_RESPONSE))
            .versions(0, ControllerCodecs.ENDPOINTS_VERSION).claimedBrokerId(RegisterBrokerRequest::brokerId).build();

    /** LDR-4: a heartbeat (with a controlled shutdown's request); claims its broker id. */
    public static final Api<HeartbeatRequest, ControllerReply<HeartbeatResponse>> BROKER_HEARTBEAT = Api
            .builder(BROKER_HEARTBEAT_KEY, "BrokerHeartbeat", ControllerCodecs.HEARTBEAT_REQUEST,
                    ControllerCodecs.reply(ControllerCodecs.HEARTBEAT_RESPONSE))
            .versions(0, 0).claimedBrokerId(HeartbeatRequest::brokerId).build();

    /** ISR-5/ISR-6: a leader's ISR proposals; claims the leader's broker id. */
    public static final Api<AlterPartitionRequest, ControllerReply<AlterPartitionResponse>> ALTER_PARTITION = Api
            .builder(ALTER_PARTITION_KEY, "AlterPartition", ControllerCodecs.ALTER_PARTITION_REQUEST,
                    ControllerCodecs.reply(ControllerCodecs.ALTER_PARTITION_RESPONSE))
            .versions(0, 0).claimedBrokerId(AlterPartitionRequest::brokerId).build();

    /**
     * CTL-5: a broker's long poll of the committed metadata log (any controller node answers; v1:
     * brokers' endpoints; v2: topic ids).
     */
    public static final Api<MetadataFetchRequest, ControllerReply<MetadataFetchResponse>> METADATA_FETCH = Api
            .builder(METADATA_FETCH_KEY, "MetadataFetch", ControllerCodecs.METADATA_FETCH_REQUEST,
                    ControllerCodecs.reply(ControllerCodecs.METADATA_FETCH_RESPONSE))
            .versions(0, ControllerCodecs.TOPIC_IDS_VERSION).build();

    /** Admin: creates a topic. */
    public static final Api<CreateTopicRequest, ControllerReply<List<PartitionRegistration>>> CREATE_TOPICS = Api
            .builder(CREATE_TOPICS_KEY, "CreateTopics", ControllerCodecs.CREATE_TOPIC_REQUEST,
                    ControllerCodecs.reply(ControllerCodecs.PARTITIONS))
            .versions(0, 0).build();

    /** Admin: deletes a topic. */
    public static final Api<String, ControllerReply<Void>> DELETE_TOPICS = Api
            .builder(DELETE_TOPICS_KEY, "DeleteTopics", ControllerCodecs.DELETE_TOPIC_REQUEST,
                    ControllerCodecs.reply(ControllerCodecs.NOTHING))
            .versions(0, 0).build();

    /** Admin: changes a topic config. */
    public static final Api<AlterTopicConfigRequest, ControllerReply<Void>> INCREMENTAL_ALTER_CONFIGS = Api
            .builder(INCREMENTAL_ALTER_CONFIGS_KEY, "IncrementalAlterConfigs", ControllerCodecs.ALTER_TOPIC_CONFIG_REQUEST,
                    ControllerCodecs.reply(ControllerCodecs.NOTHING))
            .versions(0, 0).build();

    /** Admin: a topic's partitions and configs (any controller node answers). */
    public static final Api<String, ControllerReply<TopicDescription>> DESCRIBE_TOPIC_PARTITIONS = Api
            .builder(DESCRIBE_TOPIC_PARTITIONS_KEY, "DescribeTopicPartitions", ControllerCodecs.DESCRIBE_TOPIC_REQUEST,
                    ControllerCodecs.reply(ControllerCodecs.TOPIC_DESCRIPTION))
            .versions(0, 0).build();

    /** Admin: fences a broker now (Insync's own). */
    public static final Api<Integer, ControllerReply<Boolean>> FENCE_BROKER = Api
            .builder(FENCE_BROKER_KEY, "FenceBroker", ControllerCodecs.FENCE_BROKER_REQUEST,
                    ControllerCodecs.reply(ControllerCodecs.FENCED))
            .versions(0, 0).build();

    /** Every controller api. */
    public static final ApiRegistry ALL = ApiRegistry.of(BROKER_REGISTRATION, BROKER_HEARTBEAT, ALTER_PARTITION,
            METADATA_FETCH, CREATE_TOPICS, DELETE_TOPICS, INCREMENTAL_ALTER_CONFIGS, DESCRIBE_TOPIC_PARTITIONS,
            FENCE_BROKER);

    private ControllerApis() {
    }
}
