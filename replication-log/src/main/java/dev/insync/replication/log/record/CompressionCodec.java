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

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * One codec in Kafka's framing for it: what the records section of a compressed v2 batch holds
 * (everything after the 61-byte header is one compressed stream). Implementations are stateless
 * and thread-safe; {@link CompressionCodecs} loads the ones that need a library only when asked,
 * so a missing library is an error about that codec, not a class-loading failure elsewhere.
 */
interface CompressionCodec {

    /** The codec's type. */
    CompressionType type();

    /** {@code src[offset, offset + length)} as one compressed stream, as Kafka's producer writes it. */
    byte[] compress(byte[] src, int offset, int length) throws IOException;

    /**
     * Decompresses the whole stream between {@code src}'s position and limit into {@code out},
     * which bounds the decompressed size (a decompression bomb fails there, not in the heap).
     *
     * @throws IOException if the stream is corrupt, truncated or decompresses beyond the bound
     *                     ({@link DecompressionBuffer.LimitExceededException})
     */
    void decompress(ByteBuffer src, DecompressionBuffer out) throws IOException;
}
