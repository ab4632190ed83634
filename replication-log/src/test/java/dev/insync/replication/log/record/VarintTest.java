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

package dev.insync.replication.log.record;

import dev.insync.replication.log.ApiException;
import dev.insync.replication.log.Errors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.HexFormat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

/** LOG-1: Kafka's zig-zag varints, checked against known encodings and by round trip. */
class VarintTest {

    private static String encodeInt(int v) {
        ByteBuffer buf = ByteBuffer.allocate(Varint.MAX_INT_BYTES);
        Varint.writeInt(v, buf);
        assertThat(buf.position()).isEqualTo(Varint.sizeOfInt(v));
        return HexFormat.ofDelimiter(" ").formatHex(buf.array(), 0, buf.position());
    }

    @Test
    @DisplayName("LOG-1 varints encode as documented in docs/log-format.md")
    void knownEncodings() {
        assertThat(encodeInt(0)).isEqualTo("00");
        assertThat(encodeInt(-1)).isEqualTo("01");
        assertThat(encodeInt(1)).isEqualTo("02");
        assertThat(encodeInt(64)).isEqualTo("80 01");
        assertThat(encodeInt(-65)).isEqualTo("81 01");
        assertThat(encodeInt(Integer.MAX_VALUE)).isEqualTo("fe ff ff ff 0f");
        assertThat(encodeInt(Integer.MIN_VALUE)).isEqualTo("ff ff ff ff 0f");
        assertThat(Varint.sizeOfLong(Long.MIN_VALUE)).isEqualTo(Varint.MAX_LONG_BYTES);
    }

    @Test
    @DisplayName("LOG-1 any int and long round-trips through its varint encoding")
    void roundTrip() {
        // Edge values (the byte-length boundaries) mixed in one time in five, so they are tried on every run.
        qt().withExamples(300)
                .forAll(integers().all().mix(arbitrary().pick(0, 1, -1, 63, 64, -64, -65, 8191, 8192,
                                Integer.MIN_VALUE, Integer.MAX_VALUE), 20),
                        longs().all().mix(arbitrary().pick(0L, 1L, -1L, 63L, 64L, -65L, (long) Integer.MIN_VALUE,
                                1L << 62, Long.MIN_VALUE, Long.MAX_VALUE), 20))
                .checkAssert(VarintTest::roundTrip);
    }

    private static void roundTrip(int i, long l) {
        ByteBuffer buf = ByteBuffer.allocate(Varint.MAX_INT_BYTES + Varint.MAX_LONG_BYTES);
        Varint.writeInt(i, buf);
        Varint.writeLong(l, buf);
        assertThat(buf.position()).isEqualTo(Varint.sizeOfInt(i) + Varint.sizeOfLong(l));
        Varint.Cursor c = new Varint.Cursor(buf, 0, buf.position(), 0L);
        assertThat(c.readVarint("i")).isEqualTo(i);
        assertThat(c.readVarlong("l")).isEqualTo(l);
        assertThat(c.remaining()).isZero();
    }

    @Test
    @DisplayName("LOG-5 a varint cut short or longer than 5 bytes is CORRUPT_MESSAGE naming the batch offset")
    void badVarints() {
        ByteBuffer cut = ByteBuffer.wrap(new byte[]{(byte) 0x80});
        assertThatThrownBy(() -> new Varint.Cursor(cut, 0, 1, 9L).readVarint("key length"))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.CORRUPT_MESSAGE))
                .hasMessageContaining("offset 9").hasMessageContaining("truncated while reading key length");
        ByteBuffer longer = ByteBuffer.wrap(new byte[]{(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0});
        assertThatThrownBy(() -> new Varint.Cursor(longer, 0, 6, 9L).readVarint("offsetDelta"))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.error()).isEqualTo(Errors.CORRUPT_MESSAGE))
                .hasMessageContaining("offset 9").hasMessageContaining("longer than 5 bytes");
    }
}
