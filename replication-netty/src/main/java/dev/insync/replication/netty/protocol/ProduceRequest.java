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

import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.log.record.MemoryRecords;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A Produce (PRO-1..PRO-5): the records of each partition, appended by the leader with
 * {@code acks} 0, 1 or -1 and waiting at most {@code timeoutMs} for acks=-1. A request with
 * {@code acks == 0} gets no response (Kafka's behaviour). {@code acks} is the wire value; the server
 * parses it with {@code Acks.forCode}, so a value other than 0, 1, -1 is answered INVALID_REQUIRED_ACKS
 * per partition (PRO-1).
 *
 * @param partitions the records per partition, in request order
 */
public record ProduceRequest(short acks, int timeoutMs, Map<TopicPartition, MemoryRecords> partitions) {

    /** An ordered immutable copy of the partitions. */
    public ProduceRequest {
        partitions = Collections.unmodifiableMap(new LinkedHashMap<>(partitions));
    }

    /** Whether the server answers this request. */
    public boolean expectsResponse() {
        return acks != 0;
    }
}
