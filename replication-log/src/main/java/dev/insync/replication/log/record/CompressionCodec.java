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
