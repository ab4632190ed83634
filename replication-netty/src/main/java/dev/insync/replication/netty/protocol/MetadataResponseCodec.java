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

import dev.insync.replication.core.metadata.PartitionRegistration;
import dev.insync.replication.log.TopicPartition;

import java.util.ArrayList;
import java.util.List;

/**
 * Metadata response v0: brokers (array of brokerId int32, host string, port int32), controllerId
 * int32, topics (array of error int16, name string, partitions: array of partition int32, leader
 * int32, leaderEpoch int32, partitionEpoch int32, replicas, isr, elr, lastKnownElr as int32 arrays,
 * recovering int8).
 */
public final class MetadataResponseCodec implements MessageCodec<MetadataResponse> {

    public static final MetadataResponseCodec INSTANCE = new MetadataResponseCodec();

    private static final int MIN_PARTITION_BYTES = 4 * 4 + 4 * 4 + 1;

    private MetadataResponseCodec() {
    }

    @Override
    public void write(MetadataResponse r, short version, WireWriter out) {
        out.arrayLength(r.brokers().size());
        for (BrokerEndpoint b : r.brokers()) {
            out.int32(b.brokerId()).string(b.host(), Limits.HOST_MAX_BYTES, "host").int32(b.port());
        }
        out.int32(r.controllerId());
        out.arrayLength(r.topics().size());
        for (MetadataResponse.TopicMetadata t : r.topics()) {
            out.int16(t.error().code()).string(t.name(), Limits.TOPIC_NAME_MAX_BYTES, "topic");
            out.arrayLength(t.partitions().size());
            for (PartitionRegistration p : t.partitions()) {
                out.int32(p.topicPartition().partition()).int32(p.leader()).int32(p.leaderEpoch())
                        .int32(p.partitionEpoch());
                ids(p.replicas(), out);
                ids(p.isr(), out);
                ids(p.elr(), out);
                ids(p.lastKnownElr(), out);
                out.bool(p.recovering());
            }
        }
    }

    static void ids(List<Integer> ids, WireWriter out) {
        out.arrayLength(ids.size());
        ids.forEach(out::int32);
    }

    @Override
    public MetadataResponse read(short version, WireReader in) {
        int nBrokers = in.arrayLength("metadata brokers", 4 + 2 + 4);
        List<BrokerEndpoint> brokers = new ArrayList<>(nBrokers);
        for (int i = 0; i < nBrokers; i++) {
            int id = in.int32AtLeast("broker id", 0);
            String host = in.string("broker host", Limits.HOST_MAX_BYTES);
            int pos = in.position();
            int port = in.int32("broker port");
            if (port < 0 || port > 65535) {
                throw new MalformedFrameException("Malformed frame: broker port at byte " + pos + " is " + port);
            }
            brokers.add(new BrokerEndpoint(id, host, port));
        }
        int controllerId = in.int32("controllerId");
        int nTopics = in.arrayLength("metadata topics", 2 + 3 + 4);
        List<MetadataResponse.TopicMetadata> topics = new ArrayList<>(nTopics);
        for (int t = 0; t < nTopics; t++) {
            var error = ErrorCodes.toErrors(in.int16("topic error"));
            String name = in.topic("topic name");
            int nPartitions = in.arrayLength("partitions of " + name, MIN_PARTITION_BYTES);
            List<PartitionRegistration> partitions = new ArrayList<>(nPartitions);
            for (int p = 0; p < nPartitions; p++) {
                int index = in.partition("partition index of " + name);
                int leader = in.int32("leader");
                int leaderEpoch = in.int32("leaderEpoch");
                int partitionEpoch = in.int32("partitionEpoch");
                List<Integer> replicas = ids(in, "replicas");
                List<Integer> isr = ids(in, "isr");
                List<Integer> elr = ids(in, "elr");
                List<Integer> lastKnownElr = ids(in, "lastKnownElr");
                boolean recovering = in.bool("recovering");
                partitions.add(new PartitionRegistration(new TopicPartition(name, index), replicas, isr, elr,
                        lastKnownElr, leader, leaderEpoch, partitionEpoch, recovering));
            }
            topics.add(new MetadataResponse.TopicMetadata(error, name, partitions));
        }
        return new MetadataResponse(brokers, controllerId, topics);
    }

    static List<Integer> ids(WireReader in, String field) {
        int n = in.arrayLength(field, 4);
        List<Integer> ids = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            ids.add(in.int32(field));
        }
        return ids;
    }
}
