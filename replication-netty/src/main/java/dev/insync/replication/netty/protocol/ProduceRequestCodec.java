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

/**
 * Produce request v0: acks int16, timeoutMs int32, then topic blocks of partitions: partition int32,
 * records (int32 length, bytes). The record bytes are handed to the leader's append as they came;
 * the log validates them (LOG-5) and a bad batch changes nothing.
 */
public final class ProduceRequestCodec implements MessageCodec<ProduceRequest> {

    public static final ProduceRequestCodec INSTANCE = new ProduceRequestCodec();

    private ProduceRequestCodec() {
    }

    @Override
    public void write(ProduceRequest r, short version, WireWriter out) {
        out.int16(r.acks()).int32(r.timeoutMs());
        TopicBlocks.write(r.partitions(), out, (records, o) -> o.records(records));
    }

    @Override
    public ProduceRequest read(short version, WireReader in) {
        short acks = in.int16("produce acks");
        int timeoutMs = in.int32("produce timeoutMs");
        var partitions = TopicBlocks.read(in, "produce", 4 + 4, (p, i) -> i.records("records"));
        return new ProduceRequest(acks, timeoutMs, partitions);
    }
}
