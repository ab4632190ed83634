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
import dev.insync.replication.log.TopicPartition;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Fetch request v0 (replica and consumer fetch, FOL-3, FET-1): replicaId int32, brokerEpoch int64,
 * maxWaitMs int32, minBytes int32, maxBytes int32, then topic blocks of partitions: partition int32,
 * fetchOffset int64, logStartOffset int64, partitionMaxBytes int32, currentLeaderEpoch (optional
 * int32), lastFetchedEpoch (optional int32). Version 1 adds the fetch session fields (FET-7),
 * version 2 a topic id (optional UUID) after each partition's lastFetchedEpoch (FET-2). Written in
 * an older version, a request's topic ids are left out: that leader checks names only, as before.
 */
public final class FetchRequestCodec implements MessageCodec<FetchRequest> {

    public static final FetchRequestCodec INSTANCE = new FetchRequestCodec();
    /** The first version with the fetch session fields. */
    public static final short SESSIONS_VERSION = 1;
    /** The first version with a topic id per partition. */
    public static final short TOPIC_IDS_VERSION = 2;

    /** partition index + offsets + max bytes + two absent optionals. */
    static final int MIN_PARTITION_BYTES = 4 + 8 + 8 + 4 + 1 + 1;
    /** A forgotten partition: its index only. */
    static final int FORGOTTEN_PARTITION_BYTES = 4;

    private FetchRequestCodec() {
    }

    /**
     * Version 0 has no fetch session fields: a request in a session (FET-7) cannot be written in it
     * and is refused here, before anything is sent, rather than silently sent as a full fetch.
     */
    @Override
    public void write(FetchRequest r, short version, WireWriter out) {
        if (version == 0 && (r.sessionId() != FetchRequest.NO_SESSION_ID || r.sessionEpoch() != FetchRequest.FINAL_EPOCH)) {
            throw new IllegalArgumentException("Fetch v0 cannot carry fetch session " + r.sessionId() + " epoch "
                    + r.sessionEpoch() + " (FET-7 needs v1)");
        }
        out.int32(r.replicaId()).int64(r.brokerEpoch()).int32(r.maxWaitMs()).int32(r.minBytes()).int32(r.maxBytes());
        if (version >= SESSIONS_VERSION) {
            out.int32(r.sessionId()).int32(r.sessionEpoch());
        }
        TopicBlocks.write(r.partitions(), out, (d, o) -> {
            o.int64(d.fetchOffset()).int64(d.logStartOffset()).int32(d.partitionMaxBytes())
                    .optionalInt32(d.currentLeaderEpoch()).optionalInt32(d.lastFetchedEpoch());
            if (version >= TOPIC_IDS_VERSION) {
                o.optionalUuid(d.topicId());
            }
        });
        if (version >= SESSIONS_VERSION) {
            Map<TopicPartition, Boolean> forgotten = new LinkedHashMap<>();
            r.forgotten().forEach(tp -> forgotten.put(tp, Boolean.TRUE));
            TopicBlocks.write(forgotten, out, (nothing, o) -> { });
        }
    }

    /**
     * Version 0 reads as a full fetch without a session. A version-1 body whose session fields do not
     * fit together (see {@link FetchRequest}) is malformed.
     */
    @Override
    public FetchRequest read(short version, WireReader in) {
        int replicaId = in.int32("fetch replicaId");
        long brokerEpoch = in.int64("fetch brokerEpoch");
        int maxWaitMs = in.int32("fetch maxWaitMs");
        int minBytes = in.int32("fetch minBytes");
        int maxBytes = in.int32("fetch maxBytes");
        int sessionId = FetchRequest.NO_SESSION_ID;
        int sessionEpoch = FetchRequest.FINAL_EPOCH;
        if (version >= SESSIONS_VERSION) {
            sessionId = in.int32("fetch sessionId");
            sessionEpoch = in.int32("fetch sessionEpoch");
        }
        Map<TopicPartition, FetchRequest.PartitionData> partitions =
                TopicBlocks.read(in, "fetch", MIN_PARTITION_BYTES, (p, i) -> new FetchRequest.PartitionData(
                        i.int64("fetchOffset"), i.int64("logStartOffset"), i.int32("partitionMaxBytes"),
                        i.optionalInt32("currentLeaderEpoch"), i.optionalInt32("lastFetchedEpoch"),
                        version >= TOPIC_IDS_VERSION ? i.optionalUuid("topicId") : Optional.empty()));
        if (version == 0) {
            return new FetchRequest(replicaId, brokerEpoch, maxWaitMs, minBytes, maxBytes, partitions);
        }
        List<TopicPartition> forgotten = List.copyOf(
                TopicBlocks.read(in, "fetch forgotten", FORGOTTEN_PARTITION_BYTES, (p, i) -> Boolean.TRUE).keySet());
        try {
            return new FetchRequest(replicaId, brokerEpoch, maxWaitMs, minBytes, maxBytes, partitions, sessionId,
                    sessionEpoch, forgotten);
        } catch (IllegalArgumentException e) {
            throw in.malformed("fetch session fields", e.getMessage());
        }
    }
}
