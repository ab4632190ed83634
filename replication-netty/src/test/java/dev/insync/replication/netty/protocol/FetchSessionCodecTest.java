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
import dev.insync.replication.log.Errors;
import dev.insync.replication.log.TopicPartition;
import dev.insync.replication.netty.TestMessages;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Fetch v1 carries the fetch session fields (FET-7); v0 still decodes, as a fetch without a session. */
class FetchSessionCodecTest {

    private static final TopicPartition A0 = new TopicPartition("a", 0);
    private static final TopicPartition A1 = new TopicPartition("a", 1);
    private static final TopicPartition B0 = new TopicPartition("b", 0);

    private static FetchRequest incremental() {
        return FetchRequest.follower(2, 7L).maxWaitMs(500).partition(A0, FetchRequest.PartitionData.at(10L, 100)
                .withCurrentLeaderEpoch(3)).session(12345, 9).forgotten(List.of(A1, B0)).build();
    }

    private static byte[] body(FetchRequest r, int version) {
        WireWriter out = new WireWriter(io.netty.buffer.ByteBufAllocator.DEFAULT);
        FetchRequestCodec.INSTANCE.write(r, (short) version, out);
        return TestMessages.bytes(out.finish());
    }

    private static FetchRequest readRequest(byte[] bytes, int version) {
        WireReader in = new WireReader(Unpooled.wrappedBuffer(bytes));
        FetchRequest r = FetchRequestCodec.INSTANCE.read((short) version, in);
        in.expectEnd("body");
        return r;
    }

    @Test
    @DisplayName("FET-7 NET-1 Fetch v1 request: session id, epoch and forgotten partitions, byte for byte")
    void fet7V1RequestLayout() {
        FetchRequest r = incremental();
        byte[] v1 = body(r, 1);
        byte[] v0 = body(FetchRequest.follower(2, 7L).maxWaitMs(500).partition(A0, FetchRequest.PartitionData.at(10L, 100)
                .withCurrentLeaderEpoch(3)).build(), 0);
        // v1 = v0's fixed fields, then session_id int32 and session_epoch int32, then v0's topics, then the forgotten blocks.
        int fixed = 4 + 8 + 4 + 4 + 4;
        ByteBuf b = Unpooled.wrappedBuffer(v1);
        assertThat(b.getInt(fixed)).isEqualTo(12345);
        assertThat(b.getInt(fixed + 4)).isEqualTo(9);
        byte[] topicsV0 = java.util.Arrays.copyOfRange(v0, fixed, v0.length);
        byte[] topicsV1 = java.util.Arrays.copyOfRange(v1, fixed + 8, fixed + 8 + topicsV0.length);
        assertThat(topicsV1).isEqualTo(topicsV0);
        ByteBuf forgotten = Unpooled.wrappedBuffer(v1, fixed + 8 + topicsV0.length, v1.length - fixed - 8 - topicsV0.length);
        assertThat(forgotten.readInt()).as("forgotten topic blocks").isEqualTo(2);
        assertThat(forgotten.readShort()).isEqualTo((short) 1);
        assertThat((char) forgotten.readByte()).isEqualTo('a');
        assertThat(forgotten.readInt()).isEqualTo(1);
        assertThat(forgotten.readInt()).isEqualTo(1);
        assertThat(forgotten.readShort()).isEqualTo((short) 1);
        assertThat((char) forgotten.readByte()).isEqualTo('b');
        assertThat(forgotten.readInt()).isEqualTo(1);
        assertThat(forgotten.readInt()).isEqualTo(0);
        assertThat(forgotten.isReadable()).isFalse();
        assertThat(readRequest(v1, 1)).isEqualTo(r);
    }

    @Test
    @DisplayName("FET-2 NET-1 Fetch v2 adds each partition's topic id after its lastFetchedEpoch; v1 leaves it out")
    void fet2V2TopicIds() {
        UUID id = new UUID(0x0102030405060708L, 0x090a0b0c0d0e0f10L);
        FetchRequest r = FetchRequest.follower(2, 7L).partition(A0, FetchRequest.PartitionData.at(10L, 100)
                .withCurrentLeaderEpoch(3).withTopicId(id)).partition(B0, FetchRequest.PartitionData.at(5L, 100)).build();
        byte[] v1 = body(r, 1);
        byte[] v2 = body(r, 2);
        assertThat(readRequest(v2, 2)).isEqualTo(r);
        FetchRequest withoutIds = readRequest(v1, 1);
        assertThat(withoutIds.partitionData(0).topicId()).isEmpty();
        assertThat(withoutIds.partitionData(0).fetchOffset()).isEqualTo(10L);
        // One presence byte per partition, and the id's 16 bytes where present.
        assertThat(v2.length - v1.length).isEqualTo(1 + 16 + 1);
        // a0's entry ends with the id: most significant int64, then least significant.
        int fixed = 4 + 8 + 4 + 4 + 4 + 4 + 4; // through the session fields
        int topicHeader = 4 + 2 + 1 + 4;      // topic blocks, "a", its partition count
        int a0End = fixed + topicHeader + 4 + 8 + 8 + 4 + (1 + 4) + 1 + 17;
        ByteBuf b = Unpooled.wrappedBuffer(v2);
        assertThat(b.getByte(a0End - 17)).isEqualTo((byte) 1);
        assertThat(b.getLong(a0End - 16)).isEqualTo(id.getMostSignificantBits());
        assertThat(b.getLong(a0End - 8)).isEqualTo(id.getLeastSignificantBits());
    }

    @Test
    @DisplayName("FET-7 NET-1 Fetch v0 decodes as a full fetch without a session; a session fetch is refused in v0")
    void fet7V0IsSessionless() {
        FetchRequest sessionless = FetchRequest.follower(2, 7L).partition(A0, FetchRequest.PartitionData.at(10L, 100)).build();
        FetchRequest decoded = readRequest(body(sessionless, 0), 0);
        assertThat(decoded).isEqualTo(sessionless);
        assertThat(decoded.sessionId()).isEqualTo(FetchRequest.NO_SESSION_ID);
        assertThat(decoded.sessionEpoch()).isEqualTo(FetchRequest.FINAL_EPOCH);
        assertThatThrownBy(() -> body(incremental(), 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("v0 cannot carry fetch session 12345 epoch 9");
    }

    @Test
    @DisplayName("FET-7 NET-1 a v1 body whose session fields do not fit together is malformed")
    void fet7InconsistentSessionFieldsMalformed() {
        byte[] v1 = body(FetchRequest.follower(2, 7L).partition(A0, FetchRequest.PartitionData.at(10L, 100)).build(), 1);
        ByteBuf b = Unpooled.wrappedBuffer(v1);
        b.setInt(4 + 8 + 4 + 4 + 4 + 4, 5); // epoch 5 with session id 0: incremental without a session
        assertThatThrownBy(() -> readRequest(v1, 1)).isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("needs a session id");
    }

    @Test
    @DisplayName("FET-7 NET-1 Fetch v1 response carries the session id after the error code; v0 has none")
    void fet7ResponseSessionId() {
        FetchResponse r = new FetchResponse(Errors.NONE, Map.of(), 777);
        WireWriter out = new WireWriter(io.netty.buffer.ByteBufAllocator.DEFAULT);
        FetchResponseCodec.INSTANCE.write(r, (short) 1, out);
        ByteBuf buf = out.finish();
        try {
            assertThat(buf.readableBytes()).isEqualTo(2 + 4 + 4);
            assertThat(buf.getShort(0)).isEqualTo((short) 0);
            assertThat(buf.getInt(2)).isEqualTo(777);
            assertThat(FetchResponseCodec.INSTANCE.read((short) 1, new WireReader(buf))).isEqualTo(r);
        } finally {
            buf.release();
        }
        WireWriter out0 = new WireWriter(io.netty.buffer.ByteBufAllocator.DEFAULT);
        FetchResponseCodec.INSTANCE.write(r, (short) 0, out0);
        ByteBuf buf0 = out0.finish();
        try {
            assertThat(buf0.readableBytes()).isEqualTo(2 + 4);
            assertThat(FetchResponseCodec.INSTANCE.read((short) 0, new WireReader(buf0)).sessionId())
                    .isEqualTo(FetchRequest.NO_SESSION_ID);
        } finally {
            buf0.release();
        }
    }
}
