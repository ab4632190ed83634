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

import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.MemoryRecords;
import dev.insync.replication.testkit.network.ServiceKey;

/**
 * The client-to-broker produce call on the in-memory network (consumers use the fetch key). Public
 * so that load generators (the benchmarks' batching producer) can send many records per request
 * over the same path as {@link TestProducer}.
 */
public final class ClientRpc {

    /** A produce to the leader of one partition. */
    public static final ServiceKey<ProduceRequest, ProduceResponse> PRODUCE =
            ServiceKey.of("produce", ProduceRequest.class, ProduceResponse.class);

    private ClientRpc() {
    }

    /** One partition's records with the producer's acks and the broker-side timeout. */
    public record ProduceRequest(TopicPartition topicPartition, MemoryRecords records, int acks, long timeoutMs) {
    }

    /** The broker's answer: the error, the base offset and the leader epoch the records were written in. */
    public record ProduceResponse(Errors error, long baseOffset, int leaderEpoch) {
    }
}
