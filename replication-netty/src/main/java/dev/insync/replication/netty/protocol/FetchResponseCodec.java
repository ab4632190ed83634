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
import dev.insync.replication.log.epoch.EpochEndOffset;

import java.util.Optional;

/**
 * Fetch response v0 (FET-6): error int16, then topic blocks of partitions: partition int32, error
 * int16, highWatermark int64, lastStableOffset int64, logStartOffset int64, logEndOffset int64,
 * divergingEpoch (int8 presence, then epoch int32 and endOffset int64), and last the records:
 * int32 length and the record bytes. The records close each partition entry so that they can be
 * sent as a file region straight from the segment (NET-3) between two ordinary buffers.
 */
public final class FetchResponseCodec implements MessageCodec<FetchResponse> {

    public static final FetchResponseCodec INSTANCE = new FetchResponseCodec();

    static final int MIN_PARTITION_BYTES = 4 + 2 + 8 * 4 + 1 + 4;

    private FetchResponseCodec() {
    }

    @Override
    public void write(FetchResponse r, short version, WireWriter out) {
        out.int16(r.error().code());
        if (version >= 1) {
            out.int32(r.sessionId());
        }
        TopicBlocks.write(r.partitions(), out, (d, o) -> {
            o.int16(d.error().code()).int64(d.highWatermark()).int64(d.lastStableOffset()).int64(d.logStartOffset())
                    .int64(d.logEndOffset());
            o.bool(d.divergingEpoch().isPresent());
            d.divergingEpoch().ifPresent(e -> o.int32(e.leaderEpoch()).int64(e.endOffset()));
            o.records(d.records());
        });
    }

    @Override
    public FetchResponse read(short version, WireReader in) {
        var error = ErrorCodes.toErrors(in.int16("fetch response error"));
        int sessionId = version >= 1 ? in.int32("fetch response sessionId") : FetchRequest.NO_SESSION_ID;
        if (sessionId < 0) {
            throw in.malformed("fetch response sessionId", "is negative: " + sessionId);
        }
        var partitions = TopicBlocks.read(in, "fetch response", MIN_PARTITION_BYTES, (p, i) -> {
            var partitionError = ErrorCodes.toErrors(i.int16("partition error"));
            long hw = i.int64("highWatermark");
            long lso = i.int64("lastStableOffset");
            long logStart = i.int64("logStartOffset");
            long leo = i.int64("logEndOffset");
            Optional<EpochEndOffset> diverging = i.bool("divergingEpoch present")
                    ? Optional.of(new EpochEndOffset(i.int32("divergingEpoch epoch"), i.int64("divergingEpoch endOffset")))
                    : Optional.empty();
            return new FetchResponse.PartitionData(partitionError, hw, lso, logStart, leo, i.records("records"), diverging);
        });
        return new FetchResponse(error, partitions, sessionId);
    }
}
