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

import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

import java.util.List;

import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

/**
 * QuickTheories generators for records, shared by the record-format properties. Every generator
 * shrinks (QuickTheories shrinks the draws underneath, through map and zip alike): byte arrays
 * towards short and zero-filled, nullable values towards null, lists towards their minimum size.
 */
final class RecordGens {

    /** Share of nullable values that are null. */
    private static final int NULL_PERCENT = 20;
    /** The surrogate block, which is no code point of a well-formed string. */
    private static final int SURROGATES_FIRST = 0xD800;
    private static final int SURROGATES_COUNT = 0x800;

    private RecordGens() {
    }

    /** Any byte, shrinking towards 0. */
    static Gen<Byte> anyByte() {
        return Generate.bytes(Byte.MIN_VALUE, Byte.MAX_VALUE, (byte) 0);
    }

    /** Byte arrays of 0 to {@code maxSize} bytes, null one time in five. */
    static Gen<byte[]> nullableBytes(int maxSize) {
        return Generate.byteArrays(integers().between(0, maxSize), anyByte())
                .toOptionals(NULL_PERCENT).map(o -> o.orElse(null));
    }

    /** Well-formed strings of 0 to {@code maxCodePoints} code points from all of Unicode. */
    static Gen<String> text(int maxCodePoints) {
        Gen<Integer> codePoint = integers().between(0, Character.MAX_CODE_POINT - SURROGATES_COUNT)
                .map(c -> c < SURROGATES_FIRST ? c : c + SURROGATES_COUNT);
        return lists().of(codePoint).ofSizeBetween(0, maxCodePoints).map(cps -> {
            StringBuilder s = new StringBuilder();
            cps.forEach(s::appendCodePoint);
            return s.toString();
        });
    }

    /** A create time in 0 .. 4e12 ms, or -1 (no timestamp) half of the time. */
    static Gen<Long> timestamps() {
        return Generate.oneOf(longs().between(0, 4_000_000_000_000L), Generate.constant(-1L));
    }

    /**
     * Records with nullable keys and values of up to {@code maxBytes} bytes and 0 to
     * {@code maxHeaders} headers whose keys have up to {@code maxHeaderKey} code points.
     */
    static Gen<SimpleRecord> records(int maxBytes, int maxHeaderKey, int maxHeaders) {
        Gen<Header> header = text(maxHeaderKey).zip(nullableBytes(maxBytes), Header::new);
        Gen<List<Header>> headers = lists().of(header).ofSizeBetween(0, maxHeaders);
        return timestamps().zip(nullableBytes(maxBytes), nullableBytes(maxBytes), headers, SimpleRecord::new);
    }
}
