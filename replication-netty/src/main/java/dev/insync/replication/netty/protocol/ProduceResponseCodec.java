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

import dev.insync.replication.core.produce.ProduceResult;

/**
 * Produce response v0: topic blocks of partitions: partition int32, error int16, baseOffset int64,
 * logAppendTimeMs int64, leaderEpoch int32 (the epoch the records were appended in, LOG-4; -1 on error).
 */
public final class ProduceResponseCodec implements MessageCodec<ProduceResponse> {

    public static final ProduceResponseCodec INSTANCE = new ProduceResponseCodec();

    private ProduceResponseCodec() {
    }

    @Override
    public void write(ProduceResponse r, short version, WireWriter out) {
        TopicBlocks.write(r.partitions(), out, (res, o) -> o.int16(res.error().code()).int64(res.baseOffset())
                .int64(res.logAppendTimeMs()).int32(res.leaderEpoch()));
    }

    @Override
    public ProduceResponse read(short version, WireReader in) {
        return new ProduceResponse(TopicBlocks.read(in, "produce response", 4 + 2 + 8 + 8 + 4, (p, i) ->
                new ProduceResult(ErrorCodes.toErrors(i.int16("error")), i.int64("baseOffset"),
                        i.int64("logAppendTimeMs"), i.int32("leaderEpoch"))));
    }
}
